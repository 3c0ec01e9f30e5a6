// Registers the `cuda` and `sim` devices with the runtime's device selection. Opening is lazy:
// the runtime calls a provider the first time it needs a device (`sim:1` opens ordinal 1).
import { registerDeviceProvider } from '../device.js';
import { countNative, provideNative } from './runtime-device.js';

export function registerNativeDevices(): void {
  registerDeviceProvider('cuda', (ordinal) => provideNative('cuda', ordinal), () => countNative('cuda'));
  registerDeviceProvider('sim', (ordinal) => provideNative('sim', ordinal), () => countNative('sim'));
}
