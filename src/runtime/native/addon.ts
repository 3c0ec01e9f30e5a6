// Types of the N-API addon (native/cuda) and where it and the sim library live on disk.
// The addon is loaded lazily, once per process, with createRequire (ESM cannot import .node).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeDeviceError } from './errors.js';

/** Opaque handles created by the addon; only the listed fields are readable. */
export interface DevicePtrHandle { readonly address: bigint; readonly bytes: number }
export interface ModuleHandle { readonly infoLog: string }
export interface FunctionHandle {
  readonly name: string;
  readonly numRegs: number;
  readonly sharedBytes: number;
  readonly constBytes: number;
  readonly localBytes: number;
  readonly maxThreadsPerBlock: number;
  readonly ptxVersion: number;
  readonly binaryVersion: number;
}
export interface StreamHandle { readonly __stream?: never }
export interface EventHandle { readonly __event?: never }

export interface DeviceInfo {
  readonly name: string;
  readonly ccMajor: number;
  readonly ccMinor: number;
  readonly smCount: number;
  readonly totalMemory: number;
  readonly warpSize: number;
  readonly maxThreadsPerBlock: number;
  readonly maxSharedPerBlock: number;
  readonly maxSharedOptin: number;
  readonly driverVersion: number;
  readonly isSim: boolean;
  readonly libraryPath: string;
}

/** Per-launch counters of the sim (issue-level: one per warp instruction). */
export interface SimCounters {
  readonly warpInstructions: number;
  readonly threadInstructions: number;
  readonly byClass: Readonly<Record<'intAlu' | 'float' | 'memGlobal' | 'memShared' | 'control' | 'sync' | 'tensor' | 'other', number>>;
  readonly globalLoadRequests: number;
  readonly globalStoreRequests: number;
  /** Distinct 32-byte sectors touched, summed over requests. */
  readonly globalLoadSectors: number;
  readonly globalStoreSectors: number;
  readonly sharedAccesses: number;
  readonly sharedBankConflicts: number;
  readonly barriers: number;
}

/**
 * A per-kernel launch plan (driver.createLaunchPlan). `params` is a persistent buffer of
 * `paramBytes` bytes: write the arguments into it at the offsets given to createLaunchPlan, then
 * call launch(); the plan holds the void*[] of pointers into it, so a launch does no allocation,
 * no hashing and no per-argument work. The buffer is read when launch() is called (the driver
 * copies the arguments), so it may be rewritten right after.
 */
export interface LaunchPlan {
  readonly params: Uint8Array;
  readonly paramCount: number;
  launch(gx: number, gy: number, gz: number, bx: number, by: number, bz: number, sharedBytes: number,
    stream: StreamHandle | null): void;
}

export type Bytes = ArrayBufferView | ArrayBuffer;
export type Dim3 = readonly number[];

/** One opened driver library (the addon's Driver class). Errors carry `code` (see errors.ts). */
export interface Driver {
  readonly libraryPath: string;
  readonly isSim: boolean;
  deviceInfo(): DeviceInfo;
  memGetInfo(): { free: number; total: number };
  memAlloc(bytes: number | bigint): DevicePtrHandle;
  memFree(ptr: DevicePtrHandle): void;
  memcpyHtoD(ptr: DevicePtrHandle, src: Bytes, dstOffset?: number): void;
  memcpyDtoH(dst: Bytes, ptr: DevicePtrHandle, srcOffset?: number): void;
  memcpyHtoDAsync(ptr: DevicePtrHandle, src: Bytes, stream: StreamHandle, dstOffset?: number): void;
  memcpyDtoHAsync<T extends Bytes>(dst: T, ptr: DevicePtrHandle, stream: StreamHandle | null, srcOffset?: number): Promise<T>;
  memsetD8(ptr: DevicePtrHandle, value: number, count?: number, offset?: number): void;
  moduleLoadData(image: string | Uint8Array): ModuleHandle;
  moduleUnload(module: ModuleHandle): void;
  getFunction(module: ModuleHandle, name: string): FunctionHandle;
  setMaxDynamicShared(fn: FunctionHandle, bytes: number): void;
  launch(fn: FunctionHandle, grid: Dim3, block: Dim3, sharedBytes: number, stream: StreamHandle | null,
    params: Uint8Array | null, paramOffsets?: readonly number[], cluster?: Dim3): void;
  streamCreate(flags?: number): StreamHandle;
  streamSynchronize(stream: StreamHandle): void;
  streamSynchronizeAsync(stream: StreamHandle): Promise<void>;
  streamDestroy(stream: StreamHandle): void;
  eventCreate(flags?: number): EventHandle;
  eventRecord(event: EventHandle, stream: StreamHandle | null): void;
  eventSynchronize(event: EventHandle): void;
  eventElapsed(start: EventHandle, end: EventHandle): number;
  eventDestroy(event: EventHandle): void;
  synchronize(): void;
  synchronizeAsync(): Promise<void>;
  lastFault(): string | null;
  /** The sim's counters of the last completed launch; null on the real driver. */
  simCounters(): SimCounters | null;
  /** The sim's per-launch budget of thread instructions (0 = unlimited); E_NO_SYMBOL on cuda. */
  simSetInstructionBudget(threadInstructions: number | bigint): void;
  /** The sim's sanitizers for later launches: bit 0 racecheck, 1 synccheck, 2 initcheck. */
  simSetSanitize(flags: number): void;
  /** The sim's vprintf capture for later launches: records kept under `tag` (> 0), or stdout (0). */
  simSetPrintCapture(tag: number): void;
  /** Takes the sim's vprintf records of completed launches captured under `tag` (sim_prints.ts parses them). */
  simTakePrints(tag: number): { readonly bytes: Uint8Array; readonly dropped: number };
  /**
   * cuTensorMapEncodeTiled: the 128-byte CUtensorMap (dims, box, elementStrides innermost first,
   * strides in bytes for dims 1..rank-1). Absent on addons built before it (E_NO_SYMBOL-like TypeError).
   */
  tensorMapEncodeTiled?(dataType: number, rank: number, address: bigint, dims: readonly number[], strides: readonly number[], box: readonly number[],
    elementStrides: readonly number[], interleave: number, swizzle: number, l2Promotion: number, oobFill: number): Uint8Array;
  close(): void;

  // --- launch path and stream-ordered work (issue 10) ---
  /** A launch plan for `fn` whose parameter i lies at paramOffsets[i] in a paramBytes-byte buffer. */
  createLaunchPlan(fn: FunctionHandle, paramOffsets: readonly number[], paramBytes: number): LaunchPlan;
  /** Synchronous device-to-device copy of `bytes` bytes. */
  memcpyDtoD(dst: DevicePtrHandle, src: DevicePtrHandle, bytes: number, dstOffset?: number, srcOffset?: number): void;
  /** Device-to-device copy ordered on `stream` (null: the default stream). */
  memcpyDtoDAsync(dst: DevicePtrHandle, src: DevicePtrHandle, bytes: number, stream: StreamHandle | null,
    dstOffset?: number, srcOffset?: number): void;
  /** Sets `count` bytes at `offset` to `value`, ordered on `stream`. */
  memsetD8Async(ptr: DevicePtrHandle, value: number, count: number, offset: number, stream: StreamHandle | null): void;
  /** Work enqueued on `stream` after this call waits for the event's recorded work. */
  streamWaitEvent(stream: StreamHandle | null, event: EventHandle): void;
  /** True when the event's recorded work completed (or nothing was recorded), false while pending. */
  eventQuery(event: EventHandle): boolean;
  /** Resolves when the event's recorded work completed; never blocks the event loop. */
  eventSynchronizeAsync(event: EventHandle): Promise<void>;
  /**
   * Resolves when all work enqueued on `stream` so far has completed (work enqueued later does not
   * delay it); rejects with the driver's error (code = its name) when the context faulted.
   */
  streamDone(stream: StreamHandle | null): Promise<void>;
  /**
   * Calls `symbol` of the shared library at `libraryPath` (dlopen'ed once per driver) through the
   * XLA legacy GPU custom-call ABI: `void f(CUstream, void** buffers, const char* opaque,
   * size_t opaque_len, XlaCustomCallStatus* status)`, on the calling thread with this driver's
   * context current. If the library exports `const char* tessera_xla_last_error(void)` and it
   * returns non-null afterwards, throws an Error with code 'E_CUSTOM_CALL' and that message.
   * E_NO_LIBRARY / E_NO_SYMBOL when the library or symbol cannot be found.
   */
  callCustomCall(libraryPath: string, symbol: string, stream: StreamHandle | null, buffers: readonly bigint[],
    opaque: Uint8Array): void;

  // --- serving (issue 19): ordinals, the stream-ordered pool, peers, graphs ---
  /** The device ordinal this driver opened. */
  ordinal(): number;
  /** An allocation from this device's pool (cuMemAllocFromPoolAsync), valid in stream order. */
  memAllocAsync(bytes: number | bigint, stream: StreamHandle | null): DevicePtrHandle;
  /** cuMemFreeAsync: back to the pool when the stream reaches it. */
  memFreeAsync(ptr: DevicePtrHandle, stream: StreamHandle | null): void;
  /** Gives cached pool memory back until at most keepBytes stay reserved. */
  memPoolTrim(keepBytes?: number): void;
  memPoolStats(): { reserved: number; used: number; reservedHigh: number; usedHigh: number };
  /** Whether this device can map `peer`'s memory (cuDeviceCanAccessPeer); false for another library. */
  canAccessPeer(peer: Driver): boolean;
  /** cuMemcpyPeerAsync from `src` (another device's pointer, same library) into `dst` (this device's). */
  memcpyPeerAsync(dst: DevicePtrHandle, src: DevicePtrHandle, bytes: number, stream: StreamHandle | null,
    dstOffset?: number, srcOffset?: number): void;
  streamBeginCapture(stream: StreamHandle): void;
  /** Ends the capture and instantiates it; CUDA_ERROR_STREAM_CAPTURE_INVALIDATED when a call broke it. */
  streamEndCapture(stream: StreamHandle): GraphHandle;
  streamIsCapturing(stream: StreamHandle): 'none' | 'active' | 'invalidated';
  graphLaunch(graph: GraphHandle, stream: StreamHandle | null): void;
  graphDestroy(graph: GraphHandle): void;
  /** Device-wide synchronizations the sim has done so far; null on the real driver. */
  simDeviceSyncs(): number | null;
}

export interface GraphHandle { readonly __graph?: never }

export interface NativeAddon {
  readonly abiVersion: number;
  /** Opens device `ordinal` (default 0) of the driver library: its primary context. */
  open(libraryPath?: string, ordinal?: number): Driver;
  /** cuInit + cuDeviceGetCount, without creating a context. */
  deviceCount(libraryPath?: string): number;
  /** Bytes V8 counts as external memory for this thread's isolate, device allocations included. */
  externalMemory(): number;
}

/** The package root: the nearest ancestor directory whose package.json is tessera's. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'tessera') return dir;
      } catch {
        // not ours; keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new NativeDeviceError('E_NO_ADDON', 'cannot find the tessera package root');
    dir = up;
  }
}

export const addonPath = (): string => join(packageRoot(), 'build', 'Release', 'tessera_cuda.node');
/** The sim driver library built by CMakeLists.txt (native/sim). */
export const simLibraryPath = (): string => join(packageRoot(), 'build', 'lib', 'libtessera_sim.so');
/**
 * The XLA custom-call library built by native/xla_custom_call (its GPU targets run from Node on a
 * runtime device's arrays: src/primitive's deviceEagerContext). TESSERA_XLA_LIB overrides it.
 */
export const xlaLibraryPath = (): string => process.env['TESSERA_XLA_LIB'] || join(packageRoot(), 'build', 'lib', 'libtessera_xla.so');
/** The addon tests' custom-call library (native/cuda/tests). */
export const customCallProbePath = (): string => join(packageRoot(), 'build', 'lib', 'libtessera_custom_call_probe.so');

/** One native part as scripts/install.mjs left it (build/native-status.json). */
export interface NativePartStatus {
  readonly built: boolean;
  readonly path?: string;
  /** Why it was not built and how to fix that, in one line; null when it was built. */
  readonly note: string | null;
}

/** What the last native build (npm's install hook, `npm rebuild tessera`, `npm run build`) did. */
export interface NativeBuildStatus {
  /** 'package': installed as a dependency; 'clone': this repository. */
  readonly mode: 'package' | 'clone';
  readonly builtAt: string;
  readonly addon: NativePartStatus;
  readonly sim: NativePartStatus;
  readonly xla: NativePartStatus;
  readonly driver: { readonly found: boolean; readonly note: string | null };
  /** The lines the build printed about missing pieces, in order. */
  readonly lines: readonly string[];
}

/** build/native-status.json of the package at `root`, or null when no native build has run there. */
export function nativeBuildStatus(root: string = packageRoot()): NativeBuildStatus | null {
  try {
    return JSON.parse(readFileSync(join(root, 'build', 'native-status.json'), 'utf8')) as NativeBuildStatus;
  } catch {
    return null;
  }
}

/**
 * Why a native part is missing and what to run, for error messages: the install's own line when
 * it left a note, else the command that builds it (`npm run build` in a clone of the repository,
 * `npm rebuild tessera` where the package is a dependency).
 */
export function notBuiltHint(part: 'addon' | 'sim' | 'xla', root: string = packageRoot()): string {
  const note = nativeBuildStatus(root)?.[part].note;
  if (note) return note;
  return existsSync(join(root, 'native', 'sim', 'tests')) ? 'run `npm run build`' : 'run `npm rebuild tessera`';
}

let cached: NativeAddon | undefined;

/** Loads build/Release/tessera_cuda.node; E_NO_ADDON when it was not built. */
export function loadAddon(): NativeAddon {
  if (cached) return cached;
  const path = addonPath();
  if (!existsSync(path)) {
    throw new NativeDeviceError('E_NO_ADDON', `the native addon is not built (${path}): ${notBuiltHint('addon')}`);
  }
  try {
    cached = createRequire(import.meta.url)(path) as NativeAddon;
  } catch (e) {
    throw new NativeDeviceError('E_NO_ADDON', `cannot load the native addon ${path}: ${(e as Error).message}`, { cause: e });
  }
  return cached;
}
