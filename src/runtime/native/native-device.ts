// NativeDevice: the `cuda` and `sim` devices. Both are the same addon (native/cuda) over a driver
// library: libcuda.so.1 for `cuda`, build/lib/libtessera_sim.so for `sim`. Kernels come from the
// compiler as `{ ptx, metadata }`; modules are cached by PTX hash, functions by name.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  type DeviceInfo, type DevicePtrHandle, type Driver, type EventHandle, type FunctionHandle,
  type ModuleHandle, type SimCounters, type StreamHandle, loadAddon, notBuiltHint, simLibraryPath,
} from './addon.js';
import { NativeDeviceError, native, nativeAsync } from './errors.js';
import { type ParamSpec, packParams } from './params.js';
import { paramBytesWithMaps, TensorMapCache } from './tensor_maps.js';
import type { TensorMapSpec } from '../../codegen/async/tensor_map.js';

export type NativeKind = 'cuda' | 'sim';

/** Threads per block: the kernel's warps and a warp-specialized kernel's producer warps. */
export const blockThreads = (md: { readonly numWarps: number; readonly producerWarps?: number }): number => 32 * (md.numWarps + (md.producerWarps ?? 0));

export interface KernelMetadata {
  readonly name: string;
  readonly numWarps: number;
  /** Warps launched beside numWarps (a warp-specialized kernel's producer warpgroup). */
  readonly producerWarps?: number;
  /** Shared memory the kernel needs; passed at launch when it is dynamic. */
  readonly sharedBytes: number;
  /** Whether sharedBytes is dynamic (`.extern .shared`); when absent, read from the PTX. */
  readonly dynamicShared?: boolean;
  readonly params: readonly ParamSpec[];
  /** Hidden CUtensorMap parameters encoded at launch (sm_90a TMA; codegen/async/tensor_map.ts). */
  readonly tensorMaps?: readonly TensorMapSpec[];
}

export interface CompiledKernel {
  readonly ptx: string;
  readonly metadata: KernelMetadata;
}

export type Grid = number | readonly number[];

export interface LaunchOptions {
  readonly stream?: NativeStream;
  /** Dynamic shared bytes; default: metadata.sharedBytes when the kernel's shared memory is dynamic, else 0. */
  readonly sharedBytes?: number;
  /** Thread block cluster dims (sm_90; through cuLaunchKernelEx); default: no clusters. */
  readonly cluster?: readonly [number, number, number];
}

export interface NativeDeviceOptions {
  /** Driver library to load instead of the default for `kind`. */
  readonly libraryPath?: string;
  /** Device ordinal (default 0). */
  readonly ordinal?: number;
}

/** A device allocation. `address` is what pointer parameters receive. */
export class DeviceBuffer {
  #freed = false;
  constructor(readonly device: NativeDevice, readonly handle: DevicePtrHandle) {}
  get address(): bigint { return this.handle.address; }
  get bytes(): number { return this.handle.bytes; }
  get freed(): boolean { return this.#freed; }
  /** @internal */ markFreed(): void { this.#freed = true; }
}

export class NativeStream {
  #destroyed = false;
  constructor(readonly device: NativeDevice, readonly handle: StreamHandle) {}
  synchronize(): void { native(() => this.device.driver.streamSynchronize(this.handle)); }
  synchronizeAsync(): Promise<void> { return nativeAsync(() => this.device.driver.streamSynchronizeAsync(this.handle)); }
  destroy(): void {
    if (this.#destroyed) return;
    native(() => this.device.driver.streamDestroy(this.handle));
    this.#destroyed = true;
  }
}

export class NativeEvent {
  constructor(readonly device: NativeDevice, readonly handle: EventHandle) {}
  record(stream?: NativeStream): void { native(() => this.device.driver.eventRecord(this.handle, stream?.handle ?? null)); }
  synchronize(): void { native(() => this.device.driver.eventSynchronize(this.handle)); }
  /** Milliseconds between `start` (recorded earlier) and this event. */
  elapsedSince(start: NativeEvent): number { return native(() => this.device.driver.eventElapsed(start.handle, this.handle)); }
  destroy(): void { native(() => this.device.driver.eventDestroy(this.handle)); }
}

/** A kernel loaded on a device: its function handle, attributes and launch facts. */
export interface LoadedKernel {
  readonly fn: FunctionHandle;
  readonly metadata: KernelMetadata;
  readonly dynamicShared: boolean;
}


function dims(kernel: string, grid: Grid): number[] {
  const g = typeof grid === 'number' ? [grid] : [...grid];
  if (g.length < 1 || g.length > 3 || !g.every((x) => Number.isInteger(x) && x >= 1 && x <= 0x7fffffff)) {
    throw new NativeDeviceError('E_RANGE', `kernel '${kernel}': grid must be 1 to 3 positive integers, got ${JSON.stringify(grid)}`);
  }
  while (g.length < 3) g.push(1);
  return g;
}

export class NativeDevice {
  readonly info: DeviceInfo;
  readonly #modules = new Map<string, ModuleHandle>();
  readonly #kernels = new Map<string, LoadedKernel>();
  #closed = false;
  /** The CUtensorMaps of this device's TMA launches, cached. */
  readonly tensorMaps: TensorMapCache;

  private constructor(readonly kind: NativeKind, readonly driver: Driver, readonly ordinal: number) {
    this.info = native(() => driver.deviceInfo());
    this.tensorMaps = new TensorMapCache(driver);
  }

  /** How many devices the driver library of `kind` reports (no context is created). */
  static count(kind: NativeKind, options: NativeDeviceOptions = {}): number {
    const lib = options.libraryPath ?? NativeDevice.defaultLibrary(kind);
    if (kind === 'sim' && options.libraryPath === undefined && !existsSync(lib)) {
      throw new NativeDeviceError('E_NO_DRIVER', `the sim driver library is not built (${lib}); run \`npm run build\``);
    }
    const addon = loadAddon();
    return native(() => addon.deviceCount(lib), `counting the ${kind} devices`);
  }

  /** The driver library `kind` loads by default (TESSERA_CUDA_LIB / TESSERA_SIM_LIB override). */
  static defaultLibrary(kind: NativeKind): string {
    if (kind === 'cuda') return process.env['TESSERA_CUDA_LIB'] || 'libcuda.so.1';
    return process.env['TESSERA_SIM_LIB'] || simLibraryPath();
  }

  /**
   * Opens device `options.ordinal` (default 0) of `kind`. E_NO_DRIVER when the library cannot be loaded (no driver
   * installed; the sim not built), E_NO_ADDON when the addon was not built.
   */
  static open(kind: NativeKind, options: NativeDeviceOptions = {}): NativeDevice {
    if (kind !== 'cuda' && kind !== 'sim') throw new NativeDeviceError('E_ARG', `unknown native device kind '${String(kind)}'`);
    const lib = options.libraryPath ?? NativeDevice.defaultLibrary(kind);
    if (kind === 'sim' && options.libraryPath === undefined && !existsSync(lib)) {
      throw new NativeDeviceError('E_NO_DRIVER', `the sim driver library is not built (${lib}): ${notBuiltHint('sim')}`);
    }
    const ordinal = options.ordinal ?? 0;
    if (!Number.isInteger(ordinal) || ordinal < 0) throw new NativeDeviceError('E_ARG', `ordinal must be a non-negative integer, got ${String(ordinal)}`);
    const addon = loadAddon();
    return new NativeDevice(kind, native(() => addon.open(lib, ordinal), `opening the ${kind}:${ordinal} device`), ordinal);
  }

  /** True when `open(kind)` would find a library to load (it may still fail to initialise). */
  static available(kind: NativeKind): boolean {
    try {
      NativeDevice.open(kind).close();
      return true;
    } catch {
      return false;
    }
  }

  get closed(): boolean { return this.#closed; }

  alloc(bytes: number): DeviceBuffer {
    return new DeviceBuffer(this, native(() => this.driver.memAlloc(bytes), 'alloc'));
  }

  /** An allocation from the device's stream-ordered pool, usable in `stream` order (no device-wide wait). */
  allocAsync(bytes: number, stream?: NativeStream): DeviceBuffer {
    return new DeviceBuffer(this, native(() => this.driver.memAllocAsync(bytes, stream?.handle ?? null), 'alloc'));
  }

  /** Returns `buf` to the pool when `stream` reaches this point (never a device-wide wait). */
  freeAsync(buf: DeviceBuffer, stream?: NativeStream): void {
    this.#own(buf, 'free');
    native(() => this.driver.memFreeAsync(buf.handle, stream?.handle ?? null), 'free');
    buf.markFreed();
  }

  free(buf: DeviceBuffer): void {
    this.#own(buf, 'free');
    native(() => this.driver.memFree(buf.handle), 'free');
    buf.markFreed();
  }

  /** Copies `data` into `buf` at byte `offset`. */
  upload(buf: DeviceBuffer, data: ArrayBufferView | ArrayBuffer, offset = 0, stream?: NativeStream): void {
    this.#own(buf, 'upload');
    if (stream) native(() => this.driver.memcpyHtoDAsync(buf.handle, data, stream.handle, offset), 'upload');
    else native(() => this.driver.memcpyHtoD(buf.handle, data, offset), 'upload');
  }

  /** Copies `out.byteLength` bytes from `buf` at byte `offset` into `out` (a fresh Uint8Array of the whole buffer when omitted). */
  download(buf: DeviceBuffer, out?: undefined, offset?: number): Uint8Array;
  download<T extends ArrayBufferView>(buf: DeviceBuffer, out: T, offset?: number): T;
  download(buf: DeviceBuffer, out?: ArrayBufferView, offset = 0): ArrayBufferView {
    this.#own(buf, 'download');
    const dst = out ?? this.#whole(buf, offset, 'download');
    native(() => this.driver.memcpyDtoH(dst, buf.handle, offset), 'download');
    return dst;
  }

  /** As download, without blocking the event loop (after the stream's, or all, work). */
  downloadAsync(buf: DeviceBuffer, out?: undefined, offset?: number, stream?: NativeStream): Promise<Uint8Array>;
  downloadAsync<T extends ArrayBufferView>(buf: DeviceBuffer, out: T, offset?: number, stream?: NativeStream): Promise<T>;
  async downloadAsync(buf: DeviceBuffer, out?: ArrayBufferView, offset = 0, stream?: NativeStream): Promise<ArrayBufferView> {
    this.#own(buf, 'downloadAsync');
    const dst = out ?? this.#whole(buf, offset, 'downloadAsync');
    return nativeAsync(() => this.driver.memcpyDtoHAsync(dst, buf.handle, stream?.handle ?? null, offset), 'downloadAsync');
  }

  /** Sets `count` bytes (default: all from `offset`) of `buf` to `byte`. */
  fill(buf: DeviceBuffer, byte: number, count?: number, offset = 0): void {
    this.#own(buf, 'fill');
    native(() => this.driver.memsetD8(buf.handle, byte, count, offset), 'fill');
  }

  /** Loads a PTX module, once per distinct text. The JIT log is in the error message on failure. */
  loadPtx(ptx: string): ModuleHandle {
    if (typeof ptx !== 'string' || ptx.length === 0) throw new NativeDeviceError('E_ARG', 'loadPtx: expected PTX text');
    const key = createHash('sha256').update(ptx).digest('hex');
    let m = this.#modules.get(key);
    if (!m) {
      m = native(() => this.driver.moduleLoadData(ptx), 'loadPtx');
      this.#modules.set(key, m);
    }
    return m;
  }

  /**
   * Readies `k` for `shared` bytes of dynamic shared memory: past the default per-block size (less
   * the function's static shared memory) the function must opt in (cuFuncSetAttribute
   * MAX_DYNAMIC_SHARED_SIZE_BYTES, once per size); past the device's opt-in maximum no launch can
   * run, which is said by name here, before anything runs (not as the driver's bare INVALID_VALUE).
   */
  optInShared(k: LoadedKernel, shared: number): void {
    const name = k.metadata.name;
    const stat = k.fn.sharedBytes;
    const { maxSharedPerBlock, maxSharedOptin } = this.info;
    if (shared + stat > maxSharedOptin) {
      throw new NativeDeviceError('E_RANGE', `kernel '${name}' needs ${shared + stat} bytes of shared memory per block (${shared} dynamic${stat ? ` + ${stat} static` : ''}); `
        + `the device (${this.info.name}) allows ${maxSharedOptin}: use fewer stages (numStages) or smaller tiles`);
    }
    if (shared <= maxSharedPerBlock - stat || shared <= (this.#optedIn.get(k) ?? 0)) return;
    native(() => this.driver.setMaxDynamicShared(k.fn, shared), `kernel '${name}'`);
    this.#optedIn.set(k, shared);
  }
  readonly #optedIn = new WeakMap<LoadedKernel, number>();

  /** Loads `compiled` and looks its kernel up (cached). */
  kernel(compiled: CompiledKernel): LoadedKernel {
    const { ptx, metadata } = compiled;
    const key = `${createHash('sha256').update(ptx).digest('hex')}:${metadata.name}`;
    let k = this.#kernels.get(key);
    if (!k) {
      const m = this.loadPtx(ptx);
      const fn = native(() => this.driver.getFunction(m, metadata.name), `kernel '${metadata.name}'`);
      k = { fn, metadata, dynamicShared: metadata.dynamicShared ?? /\.extern\s+\.shared/.test(ptx) };
      this.#kernels.set(key, k);
    }
    return k;
  }

  /**
   * Launches `compiled` on `grid` with `args` (positional or by parameter name), block =
   * numWarps * 32 threads. Asynchronous: synchronize() or download() to see the results.
   */
  launch(compiled: CompiledKernel, args: readonly unknown[] | Readonly<Record<string, unknown>>, grid: Grid, options: LaunchOptions = {}): void {
    const md = compiled.metadata;
    if (!Number.isInteger(md.numWarps) || md.numWarps < 1 || md.numWarps > 32) {
      throw new NativeDeviceError('E_RANGE', `kernel '${md.name}': numWarps must be an integer in [1, 32], got ${md.numWarps}`);
    }
    const g = dims(md.name, grid);
    let packed = packParams(md.name, md.params, args);
    if (md.tensorMaps?.length) {
      const bytes = new Uint8Array(paramBytesWithMaps(packed.bytes.length, md.tensorMaps));
      bytes.set(packed.bytes);
      const named = !Array.isArray(args) ? (args as Readonly<Record<string, unknown>>) : undefined;
      this.tensorMaps.write(md.name, md.params, md.tensorMaps, (i) => (named ? named[md.params[i]!.name] : (args as readonly unknown[])[i]), bytes);
      packed = { bytes, offsets: [...packed.offsets, ...md.tensorMaps.map((m) => m.offset)] };
    }
    for (const a of Array.isArray(args) ? args : Object.values(args)) {
      if (a instanceof DeviceBuffer) this.#own(a, `kernel '${md.name}'`);
    }
    const k = this.kernel(compiled);
    const shared = options.sharedBytes ?? (k.dynamicShared ? md.sharedBytes : 0);
    this.optInShared(k, shared);
    native(
      () => options.cluster
        ? this.driver.launch(k.fn, g, [blockThreads(md), 1, 1], shared, options.stream?.handle ?? null, packed.bytes, undefined, options.cluster)
        : this.driver.launch(k.fn, g, [blockThreads(md), 1, 1], shared, options.stream?.handle ?? null, packed.bytes),
      `kernel '${md.name}'`,
    );
  }

  createStream(): NativeStream {
    return new NativeStream(this, native(() => this.driver.streamCreate(), 'createStream'));
  }

  createEvent(): NativeEvent {
    return new NativeEvent(this, native(() => this.driver.eventCreate(), 'createEvent'));
  }

  synchronize(): void {
    native(() => this.driver.synchronize(), 'synchronize');
  }

  synchronizeAsync(): Promise<void> {
    return nativeAsync(() => this.driver.synchronizeAsync(), 'synchronize');
  }

  /** The sim's report of the last kernel fault (kernel, CTA, thread, PTX line, address); null on `cuda`. */
  lastFault(): string | null {
    return native(() => this.driver.lastFault());
  }

  /** The sim's counters of the last completed launch (after synchronize); null on `cuda`. */
  simCounters(): SimCounters | null {
    return native(() => this.driver.simCounters());
  }

  /** Caps every later sim launch at `threadInstructions` (0 = unlimited): a hung kernel becomes CUDA_ERROR_LAUNCH_TIMEOUT. */
  setInstructionBudget(threadInstructions: number): void {
    native(() => this.driver.simSetInstructionBudget(threadInstructions), 'setInstructionBudget');
  }

  /** Releases the context; every buffer, module and stream of this device becomes invalid. */
  close(): void {
    if (this.#closed) return;
    native(() => this.driver.close(), 'close');
    this.#modules.clear();
    this.#kernels.clear();
    this.#closed = true;
  }

  #whole(buf: DeviceBuffer, offset: number, what: string): Uint8Array {
    if (!Number.isInteger(offset) || offset < 0 || offset > buf.bytes) {
      throw new NativeDeviceError('E_RANGE', `${what}: offset ${offset} is outside the ${buf.bytes}-byte buffer`);
    }
    return new Uint8Array(buf.bytes - offset);
  }

  #own(buf: DeviceBuffer, what: string): void {
    if (!(buf instanceof DeviceBuffer)) throw new NativeDeviceError('E_ARG', `${what}: expected a DeviceBuffer`);
    if (buf.device !== this) throw new NativeDeviceError('E_ARG', `${what}: buffer belongs to another device`);
    if (buf.freed) throw new NativeDeviceError('E_FREED', `${what}: buffer was already freed`);
  }
}
