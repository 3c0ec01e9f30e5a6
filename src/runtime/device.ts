// Device selection. A Device runs a traced Func over a grid with host arguments; the interpret
// device is built in, native ones (cuda, sim) register a provider when their addon is available.
// Order of the default choice: cuda, then sim, then interpret. The choice is printed once.
import type { Func } from '../ir/ops.js';
import { TesseraError } from '../ir/errors.js';
import type { DeviceArray } from './device_array.js';
import type { Future } from './future.js';
import { InterpretDevice } from './interpret_device.js';

export type DeviceKind = 'cuda' | 'sim' | 'interpret';
export const DEVICE_KINDS: readonly DeviceKind[] = ['cuda', 'sim', 'interpret'];
/** A device by name: a kind (`'cuda'` = `'cuda:0'`) or a kind and an ordinal (`'cuda:1'`, `'sim:3'`). */
export type DeviceName = DeviceKind | `cuda:${number}` | `sim:${number}` | `interpret:0`;

/**
 * A pointer argument (a DeviceArray of this device, passed as is; or host data, copied to the
 * device and back) or a scalar.
 */
export type LaunchArg = DeviceArray | ArrayBufferView | number | bigint | boolean;

export interface LaunchOptions {
  /** (x, y, z) */
  readonly grid: readonly [number, number, number];
  readonly numWarps: number;
  /** Software-pipelining depth for compiled devices (compile's numStages; default per target). The interpreter ignores it. */
  readonly numStages?: number;
  readonly onPrint?: (line: string) => void;
  /** Where the launch is queued (default: the device's default stream). */
  readonly stream?: Stream;
  /**
   * Per runtime param, true where the value must not specialize the compile (the kernel's
   * doNotSpecialize): such a param is compiled as if it were neither 1, nor divisible by 16, nor
   * aligned. The interpreter ignores it.
   */
  readonly doNotSpecialize?: readonly boolean[];
  /** The sim's sanitizers for this launch (default: the device's, see setSanitize); only the sim has them. */
  readonly sanitize?: readonly SanitizeCheck[];
  /**
   * Thread block clusters (sm_90): CTAs per cluster along x, y, z (checked by Kernel.run). Native
   * devices launch through cuLaunchKernelEx; the interpreter numbers clusterCtaRank() by it.
   */
  readonly clusterDims?: readonly [number, number, number];
  /** sm_100a: the tcgen05 dot on CTA pairs (compile's `twoCta`; needs clusterDims [2, 1, 1]). The interpreter ignores it. */
  readonly twoCta?: boolean;
}

/**
 * The sim's sanitizers: shared-memory races, barrier and .sync-collective misuse, reads of memory
 * never written. A launch with hazards fails with E_HAZARD and their report (docs/sim.md).
 */
export type SanitizeCheck = 'racecheck' | 'synccheck' | 'initcheck';
export const SANITIZE_CHECKS: readonly SanitizeCheck[] = ['racecheck', 'synccheck', 'initcheck'];

/** The sim's flag bits for `checks` (bit 0 racecheck, 1 synccheck, 2 initcheck); E_ARG naming a bad entry. */
export function sanitizeFlags(checks: readonly SanitizeCheck[], what: string): number {
  if (!Array.isArray(checks)) throw new DeviceError('E_ARG', `${what}: sanitize must be an array of ${SANITIZE_CHECKS.map((c) => `'${c}'`).join(', ')}`);
  let flags = 0;
  for (const c of checks) {
    const i = SANITIZE_CHECKS.indexOf(c);
    if (i < 0) throw new DeviceError('E_ARG', `${what}: unknown sanitizer ${JSON.stringify(c)} (expected ${SANITIZE_CHECKS.map((x) => `'${x}'`).join(', ')})`);
    flags |= 1 << i;
  }
  return flags;
}

export class DeviceError extends TesseraError {}

/**
 * One context of a device. A native device replaces its context after a sticky fault (the old
 * one, and every buffer on it, is gone); close() ends the last one. Buffers remember theirs.
 */
export class DeviceContext {
  #lost: Error | undefined;
  #closed = false;
  constructor(readonly deviceKind: DeviceKind, readonly generation: number) {}

  get usable(): boolean { return !this.#lost && !this.#closed; }
  get lostTo(): Error | undefined { return this.#lost; }
  get closed(): boolean { return this.#closed; }
  /** @internal */ lose(e: Error): void { this.#lost ??= e; }
  /** @internal */ close(): void { this.#closed = true; }

  /** Throws why this context cannot be used (`what` names the array or call), if it cannot. */
  check(what: string): void {
    if (this.#lost) {
      const code = (this.#lost as { code?: string }).code ?? 'a fault';
      throw new DeviceError('E_CONTEXT_LOST', `${what}: its ${this.deviceKind} context was destroyed by ${code} (a sticky fault); its contents are gone, create it again`, { cause: this.#lost });
    }
    if (this.#closed) throw new DeviceError('E_CLOSED', `${what}: its ${this.deviceKind} device was closed`);
  }
}

/** A device allocation as the runtime sees it; `address` is what a pointer parameter receives. */
export interface RawBuffer {
  readonly context: DeviceContext;
  readonly bytes: number;
  readonly address: bigint | number;
}

/** An in-order queue of device work. */
export interface Stream {
  readonly device: Device;
  /** Resolves when everything queued so far is done (never blocks the event loop). */
  synchronize(): Future<void>;
  destroy(): void;
}

/** A point in a stream; once reached, its time is known. */
export interface DeviceEvent {
  readonly device: Device;
  /** Marks the current end of `stream` (default stream when omitted). */
  record(stream?: Stream): void;
  /** Resolves when the recorded point is reached. */
  synchronize(): PromiseLike<void>;
  /** Milliseconds between `start` and this event (both recorded and reached). */
  elapsedSince(start: DeviceEvent): number;
  destroy(): void;
}

/**
 * Raw device memory: what DeviceArray is built on. Offsets are bytes. Work is queued in order on
 * `stream` (the default stream when omitted); each promise settles when that work is done.
 */
export interface DeviceMemory {
  /** The context new buffers go to. */
  context(): DeviceContext;
  alloc(bytes: number): RawBuffer;
  /** Releases now (the caller knows no work uses it); quiet on a lost or closed context. */
  free(buf: RawBuffer): void;
  /** Copies `src` at call time (the caller may reuse it at once), then writes it in stream order. */
  write(buf: RawBuffer, offset: number, src: ArrayBufferView, stream?: Stream): Future<void>;
  read(buf: RawBuffer, offset: number, dst: Uint8Array, stream?: Stream): Future<void>;
  /** Waits for the device's queued work (blocking) and reads. */
  readSync(buf: RawBuffer, offset: number, dst: Uint8Array): void;
  copy(dst: RawBuffer, dstOffset: number, src: RawBuffer, srcOffset: number, bytes: number, stream?: Stream): Future<void>;
  fill(buf: RawBuffer, offset: number, bytes: number, byte: number, stream?: Stream): Future<void>;
}

/** `device.memoryStats()`: bytes of the device's allocator (cuda/sim: its stream-ordered pool). */
export interface MemoryStats {
  /** Bytes handed out and not yet freed. */
  readonly inUseBytes: number;
  /** Bytes the allocator holds from the device (in use + cached for reuse). */
  readonly reservedBytes: number;
  /** The most inUseBytes has been. */
  readonly peakInUseBytes: number;
  /** Allocations and frees since the device was opened. */
  readonly allocations: number;
  readonly frees: number;
}

/** One device of the machine, as `devices()` lists it. */
export interface DeviceListing {
  /** `cuda:0`, `sim:1`, `interpret:0`: what getDevice() and the `device` option take. */
  readonly name: string;
  readonly kind: DeviceKind;
  readonly ordinal: number;
  /** The driver's device name (or 'tile IR interpreter'). */
  readonly deviceName: string;
  /** e.g. '8.0'; null for the interpreter. */
  readonly computeCapability: string | null;
  /** Total device memory in bytes; null for the interpreter. */
  readonly memoryBytes: number | null;
  readonly available: boolean;
  /** Why it is not available. */
  readonly reason?: string;
}

/** What a device is, for sizing launches (`grid: 'sms'`, a persistent kernel's program count). */
export interface DeviceProperties {
  /** The driver's device name ('tile IR interpreter' for the interpreter). */
  readonly name: string;
  /** e.g. '9.0'; null for the interpreter. */
  readonly computeCapability: string | null;
  /**
   * Streaming multiprocessors: what `grid: 'sms'` launches, one program each. The interpreter
   * runs one program at a time, so it says 1.
   */
  readonly multiProcessorCount: number;
}

export interface Device {
  readonly kind: DeviceKind;
  /** Name, compute capability and SM count (the built-in devices all have it). */
  readonly properties?: DeviceProperties;
  /** `'cuda:1'`, `'sim:0'`, `'interpret:0'` (absent on devices plugged in from outside). */
  readonly name?: string;
  /** The device ordinal within its kind (0 when absent). */
  readonly ordinal?: number;
  /** A line describing the device, printed when it is chosen. */
  readonly description: string;
  /**
   * Queues `func` and returns at once; the promise settles when it is done. DeviceArrays are
   * passed as they are (kept alive until then); host arrays are copied in and, only if the whole
   * launch succeeded, back out (a failing launch leaves every caller array untouched).
   */
  launch(func: Func, args: readonly LaunchArg[], opts: LaunchOptions): PromiseLike<void>;
  /** Device-resident memory (DeviceArray); the built-in devices all have it. */
  readonly memory?: DeviceMemory;
  /** The sim's sanitizers for this device's later launches (native devices; E_UNSUPPORTED off the sim). */
  setSanitize?(checks: readonly SanitizeCheck[]): void;
  readonly defaultStream?: Stream;
  createStream?(): Stream;
  createEvent?(): DeviceEvent;
  /** Resolves when all queued work of every stream is done. */
  synchronize?(): PromiseLike<void>;
  /**
   * Calls an XLA legacy-GPU custom-call target (`void f(CUstream, void** buffers, const char*
   * opaque, size_t opaque_len, XlaCustomCallStatus*)`, symbol `symbol` of the shared library at
   * `libraryPath`) with `buffers` (operands then results: contiguous device arrays of this device,
   * passed as their addresses) on `stream`. The returned future settles when the work the target
   * queued is done; every buffer is held until then. A failure the target reports
   * (`tessera_xla_last_error`) is E_CUSTOM_CALL, and nothing was queued. `cuda` and `sim` only.
   */
  callCustomCall?(libraryPath: string, symbol: string, buffers: readonly DeviceArray[], opaque: Uint8Array, opts?: { stream?: Stream }): Future<void>;
  /** Releases what the device holds (a native device's context); optional. */
  close?(): void;
  /** The allocator's figures (cuda/sim: the stream-ordered pool). */
  memoryStats?(): MemoryStats;
  /** Gives the allocator's cached, unused memory back to the device. */
  trimMemory?(): void;
  /**
   * Records the work `fn` queues (launches, device copies) on `opts.stream` (default: the
   * device's default stream) into a graph instead of running it (cuda/sim: CUDA graphs).
   */
  capture?(fn: () => void, opts?: { stream?: Stream }): Promise<DeviceGraph>;
}

/** A captured chain of device work (device.capture), replayed with one call. */
export interface DeviceGraph {
  readonly device: Device;
  /** Work items recorded. */
  readonly nodes: number;
  /** Queues the whole graph on `stream` (default: the stream it was captured on); settles when it is done. */
  launch(opts?: { stream?: Stream }): Future<void>;
  /** Releases the graph and the arrays it held (launches already queued still complete). */
  destroy(): void;
}

export { InterpretDevice };

/** Returns device `ordinal` of a native kind, or a reason it is not available. */
export type DeviceProvider = (ordinal: number) => Device | { unavailable: string };
/** How many devices of a native kind exist (without opening any), or why none can be counted. */
export type DeviceCounter = () => number | { unavailable: string };

const providers = new Map<DeviceKind, DeviceProvider>([
  ['interpret', () => new InterpretDevice()],
]);

const counters = new Map<DeviceKind, DeviceCounter>();

/**
 * Lets a native device (cuda/sim) plug in; later registrations replace earlier ones. `count`
 * tells devices() how many there are (default: probe ordinals until one is unavailable).
 */
export function registerDeviceProvider(kind: Exclude<DeviceKind, 'interpret'>, provider: DeviceProvider, count?: DeviceCounter): void {
  providers.set(kind, provider);
  if (count) counters.set(kind, count);
  else counters.delete(kind);
  // The devices this replaces are retired: a native one releases its context.
  for (const [name, old] of [...cache]) {
    if (!name.startsWith(`${kind}:`)) continue;
    if (old && 'close' in old && typeof old.close === 'function') old.close();
    cache.delete(name);
  }
  defaultDevice = undefined;
}

const NOT_BUILT: Record<Exclude<DeviceKind, 'interpret'>, string> = {
  cuda: 'the CUDA device needs the native addon, which is not available in this build',
  sim: 'the sim device needs the native addon and the simulator library, which are not available in this build',
};

/** Opened devices (or why not) by full name, 'sim:0'. */
const cache = new Map<string, Device | { unavailable: string }>();
let defaultDevice: Device | undefined;
let announce: (line: string) => void = (line) => console.error(line);

/** Where the one-time "using device" line goes (default: stderr). */
export function setDeviceAnnouncer(fn: (line: string) => void): void {
  announce = fn;
}

function probe(kind: DeviceKind, ordinal: number): Device | { unavailable: string } {
  const name = `${kind}:${ordinal}`;
  let r = cache.get(name);
  if (!r) {
    const p = providers.get(kind);
    try {
      if (kind === 'interpret' && ordinal !== 0) r = { unavailable: 'the interpreter is one device (interpret:0)' };
      else r = p ? p(ordinal) : { unavailable: NOT_BUILT[kind as Exclude<DeviceKind, 'interpret'>] };
    } catch (e) {
      r = { unavailable: e instanceof Error ? e.message : String(e) };
    }
    cache.set(name, r);
  }
  return r;
}

/** `'sim'` -> ['sim', 0], `'cuda:1'` -> ['cuda', 1]; anything else is E_DEVICE naming `where`. */
export function parseDeviceName(name: unknown, where: string): [DeviceKind, number] {
  const m = typeof name === 'string' ? /^(cuda|sim|interpret)(?::(0|[1-9][0-9]{0,3}))?$/.exec(name) : null;
  if (!m) {
    throw new DeviceError('E_DEVICE', `${where}: unknown device ${JSON.stringify(name)}; use one of ${DEVICE_KINDS.join(', ')}, optionally with an ordinal ('cuda:1', 'sim:0')`);
  }
  return [m[1] as DeviceKind, m[2] === undefined ? 0 : Number(m[2])];
}

/**
 * Every device of every kind: cuda:0..N-1 (the driver's count), sim:0..N-1 (TESSERA_SIM_DEVICES),
 * interpret:0. Listing opens each available device (its primary context), as getDevice would.
 */
export function devices(): DeviceListing[] {
  const out: DeviceListing[] = [];
  for (const kind of DEVICE_KINDS) {
    if (kind === 'interpret') {
      out.push({ name: 'interpret:0', kind, ordinal: 0, deviceName: 'tile IR interpreter', computeCapability: null, memoryBytes: null, available: true });
      continue;
    }
    const counter = counters.get(kind);
    let n: number | { unavailable: string };
    try {
      n = counter ? counter() : ('unavailable' in probe(kind, 0) ? 0 : 1);
    } catch (e) {
      n = { unavailable: e instanceof Error ? e.message : String(e) };
    }
    if (typeof n !== 'number' || n === 0) {
      const r = probe(kind, 0);
      const reason = typeof n !== 'number' ? n.unavailable : 'unavailable' in r ? r.unavailable : 'no devices';
      out.push({ name: `${kind}:0`, kind, ordinal: 0, deviceName: '', computeCapability: null, memoryBytes: null, available: false, reason });
      continue;
    }
    for (let i = 0; i < n; i++) {
      const r = probe(kind, i);
      if ('unavailable' in r) {
        out.push({ name: `${kind}:${i}`, kind, ordinal: i, deviceName: '', computeCapability: null, memoryBytes: null, available: false, reason: r.unavailable });
        continue;
      }
      const info = (r as { info?: { name: string; ccMajor: number; ccMinor: number; totalMemory: number } }).info;
      out.push({
        name: `${kind}:${i}`, kind, ordinal: i, deviceName: info?.name ?? r.description,
        computeCapability: info ? `${info.ccMajor}.${info.ccMinor}` : null, memoryBytes: info?.totalMemory ?? null, available: true,
      });
    }
  }
  return out;
}

/**
 * The device to run on: `requested` (an option) wins, then TESSERA_DEVICE, then the default
 * (cuda if available, else sim, else interpret). A requested device that is not available is an
 * E_DEVICE error, never a silent fallback.
 */
export function getDevice(requested?: DeviceName | Device): Device {
  if (requested !== undefined && typeof requested === 'object') return requested;
  if (requested !== undefined) {
    // The launch path: a device named by the caller, already opened.
    const hit = cache.get(requested.includes(':') ? requested : `${requested}:0`);
    if (hit && !('unavailable' in hit)) return hit;
  }
  const env = process.env['TESSERA_DEVICE'];
  const named = requested !== undefined ? parseDeviceName(requested, 'device option') : env ? parseDeviceName(env, 'TESSERA_DEVICE') : undefined;
  if (named) {
    const [kind, ordinal] = named;
    const r = probe(kind, ordinal);
    if ('unavailable' in r) throw new DeviceError('E_DEVICE', `device '${kind}:${ordinal}' is not available: ${r.unavailable}`);
    return r;
  }
  if (!defaultDevice) {
    const skipped: string[] = [];
    for (const k of DEVICE_KINDS) {
      const r = probe(k, 0);
      if ('unavailable' in r) skipped.push(`${k}: ${r.unavailable}`);
      else {
        defaultDevice = r;
        break;
      }
    }
    announce(`tessera: using device ${defaultDevice!.description}${skipped.length ? ` [${skipped.join('; ')}]` : ''}`);
  }
  return defaultDevice!;
}
