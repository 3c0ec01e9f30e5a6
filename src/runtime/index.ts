// The runtime: user-facing kernels, devices and arrays.
export { kernel, Kernel } from './kernel.js';
export type { ArgValue, ArgFor, ArgsFor, RunArgs, GridSpec, RunOptions, TensorDescArg } from './kernel.js';
export { HostArray, array, ARRAY_FOR_DTYPE } from './array.js';
export type { TypedArray, ArrayTypes } from './array.js';
export { DeviceArray } from './device_array.js';
export type { DeviceArrayOptions, FromOptions } from './device_array.js';
export type { Future } from './future.js';
export { getDevice, devices, parseDeviceName, registerDeviceProvider, setDeviceAnnouncer, InterpretDevice, DeviceError, DeviceContext, DEVICE_KINDS, SANITIZE_CHECKS } from './device.js';
export type {
  Device, DeviceKind, DeviceName, DeviceListing, DeviceGraph, MemoryStats, DeviceCounter, DeviceProvider, LaunchArg, LaunchOptions as DeviceLaunchOptions, Stream, DeviceEvent, DeviceMemory, RawBuffer,
  SanitizeCheck,
} from './device.js';
export { pallasCall, vmap } from './pallas_call.js';
export type { PallasCall, PallasCallOptions, PallasBody, PallasArray, PallasOutputs } from './pallas_call.js';
export { NativeDevice, loadModule, ForeignModule, ForeignFunction, ptxEntries } from './native/index.js';
export type { ForeignLaunchOptions, FunctionAttributes, ForeignParam, ForeignParamType, ParamDecl } from './native/index.js';
// cuda and sim plug into device selection here (not in device.ts, which they import).
import { registerNativeDevices } from './native/register.js';
registerNativeDevices();
export * from './cache/index.js';
export * from './bench/index.js';
