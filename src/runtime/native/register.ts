// Registers the `cuda` and `sim` devices with the runtime's device selection. Opening is lazy:
// the runtime calls a provider the first time it needs that device.
import { registerDeviceProvider } from '../device.js';
import { provideNative } from './runtime-device.js';

export function registerNativeDevices(): void {
  registerDeviceProvider('cuda', () => provideNative('cuda'));
  registerDeviceProvider('sim', () => provideNative('sim'));
}
