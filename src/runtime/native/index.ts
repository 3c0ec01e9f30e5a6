// The native (`cuda` / `sim`) devices over the N-API addon in native/cuda.
export { NativeDevice, DeviceBuffer, NativeStream, NativeEvent } from './native-device.js';
export type { NativeKind, KernelMetadata, CompiledKernel, Grid, LaunchOptions, NativeDeviceOptions, LoadedKernel } from './native-device.js';
export { NativeDeviceError } from './errors.js';
export { packParams } from './params.js';
export type { ParamSpec, PackedParams, KernelArg } from './params.js';
export { loadAddon, addonPath, simLibraryPath } from './addon.js';
export type { Driver, DeviceInfo, NativeAddon, SimCounters } from './addon.js';
export { NativeRuntimeDevice, provideNative } from './runtime-device.js';
export { registerNativeDevices } from './register.js';
export { loadModule, ForeignModule, ForeignFunction } from './foreign_module.js';
export type { ForeignLaunchOptions, FunctionAttributes, Dim } from './foreign_module.js';
export { ptxEntries } from './ptx_signature.js';
export type { ForeignParam, ForeignParamType, ParamDecl } from './ptx_signature.js';
