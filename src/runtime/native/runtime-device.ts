// The `cuda` and `sim` devices as the runtime sees them (src/runtime/device.ts's Device). A traced
// Func is compiled to PTX once per (Func, numWarps, numStages, specialization); its launch is planned once
// per context (function handle, block, shared memory, a reused parameter buffer); a launch writes
// the arguments and queues the kernel on a stream, returning a future that a StreamCompletion
// settles. DeviceArrays are passed as they are; host arrays are copied in and out around it.
//
// A sticky fault (illegal address, assert, ...) destroys the context: every pending future
// rejects, every array of it reports E_CONTEXT_LOST, and a fresh context is opened for new work.
import { isPtr as isPtrType } from '../../ir/types.js';
import type { CompileResult, Target } from '../../compile/compile.js';
import type { ParamSpec } from '../../compiler/axis_info.js';
import { compileCached } from '../cache/compile_cached.js';
import type { Func } from '../../ir/ops.js';
import {
  DeviceContext, DeviceError, SANITIZE_CHECKS, sanitizeFlags, type Device, type DeviceEvent, type DeviceGraph, type DeviceMemory,
  type DeviceProperties, type LaunchArg, type LaunchOptions, type MemoryStats, type RawBuffer, type SanitizeCheck, type Stream,
} from '../device.js';
import { DeviceArray, type Storage } from '../device_array.js';
import type { GraphHandle } from './addon.js';
import { Future, future, rejected } from '../future.js';
import { checkArray } from '../device_array.js';
import { StreamCompletion } from './completion.js';
import { copyAsync, fillAsync, prepareLaunch, type PreparedLaunch } from './driver_seam.js';
import { NativeDeviceError, native, nativeAsync, rethrow } from './errors.js';
import { leadWithSource } from './fault_source.js';
import { assertError, deviceOutput, parseRecords, type DeviceOutput } from './device_prints.js';
import type { DeviceSite } from '../../codegen/print_sites.js';
import { blockThreads, type DeviceBuffer, NativeDevice, type NativeEvent, type NativeKind, type NativeStream } from './native-device.js';
import { checkSpec, writeParam, type ParamSpec as PackSpec } from './params.js';
import { paramBytesWithMaps, type TensorMapCache } from './tensor_maps.js';
import type { TensorMapSpec } from '../../codegen/async/tensor_map.js';
import { loadForeignModule, type ForeignModule } from './foreign_module.js';
import { activeCapture, refuseOtherDevice, withinCapture } from '../capture_scope.js';

/** Closes `dev` once the driver has no asynchronous wait in flight (it refuses with E_BUSY until then). */
function releaseWhenIdle(dev: NativeDevice): void {
  try {
    dev.close();
  } catch (e) {
    if ((e as { code?: string }).code !== 'E_BUSY') throw e;
    setTimeout(() => releaseWhenIdle(dev), 1).unref();
  }
}

/** Launch errors after which the CUDA context is unusable (as on real GPUs). */
const STICKY = new Set([
  'E_HAZARD', // the sim's sanitizers end the launch as a memcheck fault does (docs/sim.md)
  'CUDA_ERROR_ILLEGAL_ADDRESS', 'CUDA_ERROR_MISALIGNED_ADDRESS', 'CUDA_ERROR_LAUNCH_FAILED', 'CUDA_ERROR_ASSERT',
  'CUDA_ERROR_ILLEGAL_INSTRUCTION', 'CUDA_ERROR_INVALID_PC', 'CUDA_ERROR_HARDWARE_STACK_ERROR',
  'CUDA_ERROR_INVALID_ADDRESS_SPACE', 'CUDA_ERROR_LAUNCH_TIMEOUT',
]);
const isSticky = (e: unknown): boolean => STICKY.has((e as { code?: string })?.code ?? '');

/** The sanitizer flags each sim library holds (set by #applySanitize). */
const appliedSanitize = new Map<string, number>();

interface NativeRaw extends RawBuffer {
  readonly address: bigint;
  readonly buf: DeviceBuffer;
  readonly ctx: NativeContext;
}

/** A kernel ready to launch on one context. */
interface Plan {
  readonly name: string;
  readonly ptx: string;
  readonly params: readonly PackSpec[];
  readonly prepared: PreparedLaunch;
  readonly view: DataView;
  /** Per parameter: a pointer (a DeviceArray's address is written directly). */
  readonly isPtr: readonly boolean[];
  /** Adds the user's source location to a failure of this kernel (one closure per plan, not per launch). */
  readonly locate: (e: unknown) => void;
  /** The kernel's CUtensorMaps (sm_90a TMA), encoded from each launch's arguments. */
  readonly maps?: { readonly cache: TensorMapCache; readonly specs: readonly TensorMapSpec[] };
  /** The kernel's print and assert sites (device_prints.ts), when it has any. */
  readonly sites?: readonly DeviceSite[];
}

/** What a capture in progress records (device.capture): see NativeContext.completion. */
interface CaptureState {
  readonly stream: NativeRuntimeStream;
  readonly native: NativeStream;
  /** The futures of captured work: they settle when the graph is destroyed (or the capture fails). */
  readonly futures: Future[];
  /** Arrays the captured work uses: held until the graph is destroyed. */
  readonly storages: Storage[];
  /** Frees requested during the capture, done once it ended. */
  readonly frees: (() => void)[];
  nodes: number;
  error: Error | undefined;
}

/** Stands in for a stream's completion while it captures: records, runs nothing. */
class CaptureCompletion {
  constructor(readonly cap: CaptureState) {}
  after(storages?: readonly Storage[]): Future {
    const f = new Future();
    if (storages) for (const s of storages) {
      s.retain();
      this.cap.storages.push(s);
    }
    this.cap.futures.push(f);
    this.cap.nodes++;
    return f;
  }
}

/** One open context and what lives in it. */
export class NativeContext {
  readonly token: DeviceContext;
  readonly defaultStream: NativeStream;
  readonly completions = new Map<NativeStream, StreamCompletion>();
  readonly plans = new WeakMap<CompileResult, Plan>();
  /** Set when a sticky fault ended this context: settles once a fresh one is open. */
  recovery: Promise<void> | undefined;

  constructor(readonly native: NativeDevice, generation: number, onError: (ctx: NativeContext, e: unknown) => Promise<void>) {
    this.token = new DeviceContext(native.kind, generation);
    this.defaultStream = native.createStream();
    this.#onError = (e) => onError(this, e);
  }

  readonly #onError: (e: unknown) => Promise<void>;

  /** Set while device.capture records work on one of this context's streams. */
  capture: CaptureState | undefined;
  /** False once the driver turned out to have no stream-ordered pools (cuMemAlloc/cuMemFree then). */
  pool = true;
  /** Buffers from cuMemAlloc (no pool), freed with cuMemFree; their bytes, for memoryStats. */
  readonly plain = new WeakMap<DeviceBuffer, number>();
  plainInUse = 0;
  plainPeak = 0;

  completion(s: NativeStream): StreamCompletion | CaptureCompletion {
    if (this.capture && s === this.capture.native) return new CaptureCompletion(this.capture);
    let c = this.completions.get(s);
    if (!c) this.completions.set(s, (c = new StreamCompletion(this.native, s, this.#onError)));
    return c;
  }
}

/** A runtime stream: one native stream per context it is used on (it outlives a lost context). */
export class NativeRuntimeStream implements Stream {
  readonly #byContext = new WeakMap<NativeContext, NativeStream>();
  #destroyed = false;
  constructor(readonly device: NativeRuntimeDevice, readonly isDefault = false) {}

  /** @internal */
  on(ctx: NativeContext): NativeStream {
    if (this.#destroyed) throw new DeviceError('E_FREED', 'the stream was destroyed');
    if (this.isDefault) return ctx.defaultStream;
    let s = this.#byContext.get(ctx);
    if (!s) this.#byContext.set(ctx, (s = ctx.native.createStream()));
    return s;
  }

  synchronize(): Future<void> {
    try {
      refuseOtherDevice(this.device, this.device.name, 'stream.synchronize()');
      const ctx = this.device.context();
      if (ctx.capture) this.device.refuseInCapture('stream.synchronize()');
      return ctx.completion(this.on(ctx)).after();
    } catch (e) {
      return rejected(e);
    }
  }

  destroy(): void {
    this.#destroyed = true;
  }
}

class NativeRuntimeEvent implements DeviceEvent {
  #at: { ev: NativeEvent; ctx: NativeContext; reached: Future<void> } | undefined;
  constructor(readonly device: NativeRuntimeDevice) {}

  record(stream?: Stream): void {
    const ctx = this.device.context();
    if (ctx.capture) this.device.refuseInCapture('event.record()');
    const s = this.device.streamOf(stream).on(ctx);
    if (this.#at && this.#at.ctx !== ctx) this.#at = undefined;
    const ev = this.#at?.ev ?? ctx.native.createEvent();
    ev.record(s);
    this.#at = { ev, ctx, reached: ctx.completion(s).after() };
  }

  synchronize(): Future<void> {
    return this.#at?.reached ?? Future.resolved();
  }

  elapsedSince(start: DeviceEvent): number {
    if (!(start instanceof NativeRuntimeEvent) || !start.#at || !this.#at) throw new DeviceError('E_NOT_READY', 'elapsedSince: both events must be recorded');
    return this.#at.ev.elapsedSince(start.#at.ev);
  }

  destroy(): void {
    if (this.#at && this.#at.ctx.token.usable) this.#at.ev.destroy();
    this.#at = undefined;
  }
}

/** A captured graph (device.capture) of one context. */
class NativeGraph implements DeviceGraph {
  #destroyed = false;
  constructor(
    readonly device: NativeRuntimeDevice, readonly ctx: NativeContext, readonly handle: GraphHandle,
    readonly stream: NativeRuntimeStream, readonly cap: CaptureState,
  ) {}

  get nodes(): number { return this.cap.nodes; }

  launch(opts: { stream?: Stream } = {}): Future<void> {
    try {
      if (this.#destroyed) throw new DeviceError('E_FREED', 'graph.launch: the graph was destroyed');
      this.ctx.token.check('graph.launch');
      const ctx = this.device.context();
      if (ctx !== this.ctx) throw new DeviceError('E_CONTEXT_LOST', 'graph.launch: the context it was captured on is gone; capture it again');
      if (ctx.capture) this.device.refuseInCapture('graph.launch()');
      refuseOtherDevice(this.device, this.device.name, 'graph.launch()');
      const ns = (opts.stream === undefined ? this.stream : this.device.streamOf(opts.stream)).on(ctx);
      native(() => ctx.native.driver.graphLaunch(this.handle, ns.handle), 'graph.launch');
      return ctx.completion(ns).after(this.cap.storages);
    } catch (e) {
      return this.device.failed(e);
    }
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    if (this.ctx.token.usable) native(() => this.ctx.native.driver.graphDestroy(this.handle), 'graph.destroy');
    for (const s of this.cap.storages) s.release();
    for (const f of this.cap.futures) f.resolve();
  }
}

export class NativeRuntimeDevice implements Device {
  readonly description: string;
  readonly name: string;
  readonly ordinal: number;
  #allocations = 0;
  #frees = 0;
  readonly target: Target;
  readonly kind: NativeKind;
  readonly #compiled = new WeakMap<Func, Map<string, CompileResult>>();
  #ctx: NativeContext;
  #generation = 0;
  /** False once the sim library turned out to have no vprintf capture (tesseraSimSetPrintCapture). */
  #printCapture = true;
  /** The last launch's plan and what it was chosen by (a loop launching one kernel skips the lookups). */
  #last: { func: Func; key: string; ctx: NativeContext; numWarps: number; numStages: number | undefined; cluster: string; plan: Plan } | undefined;
  readonly defaultStream: NativeRuntimeStream;
  readonly memory: DeviceMemory;

  constructor(native: NativeDevice) {
    this.kind = native.kind;
    this.ordinal = native.ordinal;
    this.name = `${native.kind}:${native.ordinal}`;
    this.#ctx = new NativeContext(native, 0, (c, e) => this.#onError(c, e));
    const i = native.info;
    // The target per compute capability: sm_90a PTX runs on 9.0 only (its `a` features are not
    // forward compatible), sm_90 on any 9.x, sm_89 (fp8 cvt) on 8.9; likewise sm_100a on 10.0 and
    // sm_100 on any 10.x; sm_80 PTX JITs everywhere else.
    this.target = targetFor(i.ccMajor, i.ccMinor);
    this.description = native.kind === 'sim'
      ? `${this.name} (${i.name}, ${i.libraryPath})`
      : `${this.name} (${i.name}, compute ${i.ccMajor}.${i.ccMinor}, ${i.smCount} SMs, ${(i.totalMemory / 2 ** 30).toFixed(0)} GiB)`;
    this.defaultStream = new NativeRuntimeStream(this, true);
    this.memory = this.#makeMemory();
  }

  #sanitize = 0;

  /**
   * The sim's sanitizers for this device's later launches (a launch's own `sanitize` option wins):
   * 'racecheck' (shared-memory races), 'synccheck' (barrier and .sync misuse), 'initcheck' (reads
   * of memory never written). A launch with hazards fails with E_HAZARD, its report naming the
   * kernel, both accesses (PTX and TypeScript lines), threads and address. `[]` turns them off.
   * Only the sim has them: E_UNSUPPORTED on `cuda` (except `[]`). initcheck follows the
   * allocations made once it was first turned on in the process (earlier ones count as written).
   */
  setSanitize(checks: readonly SanitizeCheck[]): void {
    const flags = sanitizeFlags(checks, `setSanitize on the ${this.kind} device`);
    if (flags && this.kind !== 'sim') throw new DeviceError('E_UNSUPPORTED', `setSanitize: the sanitizers run on the sim device only, not on ${this.kind}`);
    this.#sanitize = flags;
    // now, not at the next launch: initcheck tracks the allocations made from here on
    if (this.kind === 'sim') {
      try {
        this.applySanitize(this.context(), undefined, 'setSanitize');
      } catch {
        // no usable context now (a fresh one is opening): the next launch applies the setting
      }
    }
  }

  /** The sanitizers in force for this device's launches (without a launch option). */
  get sanitize(): readonly SanitizeCheck[] {
    return SANITIZE_CHECKS.filter((_, i) => this.#sanitize & (1 << i));
  }

  /** @internal Sets the sim's sanitizers for a launch about to be queued (its option, else the device's). */
  applySanitize(ctx: NativeContext, checks: readonly SanitizeCheck[] | undefined, name: string): void {
    const flags = checks === undefined ? this.#sanitize : sanitizeFlags(checks, `kernel '${name}'`);
    if (this.kind !== 'sim') {
      if (flags) throw new DeviceError('E_UNSUPPORTED', `kernel '${name}': sanitize needs the sim device, not ${this.kind}`);
      return;
    }
    // the sim's setting is process-wide (one library): remember what it holds, per library
    const lib = ctx.native.info.libraryPath;
    if (appliedSanitize.get(lib) === flags) return;
    native(() => ctx.native.driver.simSetSanitize(flags), 'sanitize');
    appliedSanitize.set(lib, flags);
  }

  /** Opens device `ordinal` of `kind` (throws NativeDeviceError when it is not available). */
  static open(kind: NativeKind, ordinal = 0): NativeRuntimeDevice {
    return new NativeRuntimeDevice(NativeDevice.open(kind, { ordinal }));
  }

  /** Name, compute capability and SM count, from the driver (the sim reports the GPU it pretends to be). */
  get properties(): DeviceProperties {
    const i = this.#ctx.native.info;
    return { name: i.name, computeCapability: `${i.ccMajor}.${i.ccMinor}`, multiProcessorCount: i.smCount };
  }

  /** The driver's device info (name, compute capability, memory, ...). */
  get info(): NativeDevice['info'] {
    return this.#ctx.native.info;
  }

  /** The open device of the current context (replaced after a sticky fault). */
  get native(): NativeDevice {
    return this.#ctx.native;
  }

  /** @internal The current context; throws if it is lost or closed. */
  context(): NativeContext {
    const t = this.#ctx.token;
    if (t.lostTo) {
      const code = (t.lostTo as { code?: string }).code ?? 'a fault';
      throw new DeviceError('E_CONTEXT_LOST', `the ${this.name} device is opening a fresh context after ${code}; await the failed work's future, then retry`, { cause: t.lostTo });
    }
    t.check(`the ${this.name} device`);
    return this.#ctx;
  }

  /** @internal The runtime stream to use: `s` (checked) or the default (the capture's stream while capturing). */
  streamOf(s: Stream | undefined): NativeRuntimeStream {
    refuseOtherDevice(this, this.name);
    const cap = this.#ctx.capture;
    if (s === undefined) return cap ? cap.stream : this.defaultStream;
    if (!(s instanceof NativeRuntimeStream) || s.device !== this) {
      const other = (s as { device?: Device } | null)?.device;
      // another device's stream is the same mistake as another device's array: E_DEVICE
      if (other && typeof other === 'object' && typeof other.kind === 'string') {
        throw new DeviceError('E_DEVICE', `a stream of device '${other.name ?? other.kind}' cannot be used on device '${this.name}'`);
      }
      throw new DeviceError('E_ARG', `expected a stream of device '${this.name}' (device.createStream()), got ${s === null ? 'null' : (s as object)?.constructor?.name ?? typeof s}`);
    }
    if (cap && s !== cap.stream) this.refuseInCapture('work on another stream than the captured one');
    return s;
  }

  /**
   * @internal Throws E_CAPTURE naming `what` (something a graph cannot record); the capture in
   * progress fails with that error even if the callback catches it.
   */
  refuseInCapture(what: string): never {
    const e = new DeviceError('E_CAPTURE', `${what} cannot be captured into a graph: device.capture records kernel launches, device-to-device copies and fills on the captured stream (no host reads or writes, no synchronization, no allocation); the capture is abandoned and the stream stays usable`);
    const cap = this.#ctx.capture;
    if (cap) cap.error ??= e;
    throw e;
  }

  /**
   * Records the work `fn` queues on `opts.stream` (default: the device's default stream) into a
   * CUDA graph instead of running it: cuStreamBeginCapture, `fn()`, cuStreamEndCapture,
   * cuGraphInstantiate. `fn` must be synchronous. Futures of the recorded work settle when the
   * graph is destroyed; the arrays it uses are held until then. Something that cannot be
   * captured (a host read or write, a synchronization, an allocation, another stream) is
   * E_CAPTURE: nothing is recorded, nothing ran, and the stream is usable again.
   */
  capture(fn: () => void, opts: { stream?: Stream } = {}): Promise<DeviceGraph> {
    const outer = activeCapture();
    if (outer) {
      // Started from inside a capture's callback: the outer capture fails with this error (it
      // cannot hold a capture of its own), and this promise is marked handled so that a callback
      // that drops it does not crash the process; awaiting it still rejects.
      const e = new DeviceError('E_CAPTURE', `capture: a capture is already in progress on device '${outer.deviceName}' (captures do not nest); the outer capture is abandoned`);
      outer.fail(e);
      const p = Promise.reject(e);
      p.catch(() => {});
      return p;
    }
    return this.#capture(fn, opts);
  }

  async #capture(fn: () => void, opts: { stream?: Stream }): Promise<DeviceGraph> {
    if (typeof fn !== 'function') throw new DeviceError('E_ARG', `capture: expected a function, got ${typeof fn}`);
    const ctx = this.context();
    const rs = this.streamOf(opts.stream);
    const ns = rs.on(ctx);
    native(() => ctx.native.driver.streamBeginCapture(ns.handle), 'capture');
    const cap: CaptureState = { stream: rs, native: ns, futures: [], storages: [], frees: [], nodes: 0, error: undefined };
    ctx.capture = cap;
    let thrown: unknown;
    try {
      const r: unknown = withinCapture({ device: this, deviceName: this.name, fail: (e) => { cap.error ??= e; } }, fn);
      if (r && typeof (r as PromiseLike<unknown>).then === 'function') {
        cap.error ??= new DeviceError('E_CAPTURE', 'capture: the callback returned a promise; it must queue its work synchronously (work after an await would escape the capture)');
      }
    } catch (e) {
      thrown = e;
    } finally {
      ctx.capture = undefined;
    }
    let handle: GraphHandle | undefined;
    try {
      handle = native(() => ctx.native.driver.streamEndCapture(ns.handle), 'capture');
    } catch (e) {
      if (!cap.error && thrown === undefined) cap.error = new DeviceError('E_CAPTURE', `capture: the driver invalidated the capture (${(e as { code?: string }).code ?? String(e)})`, { cause: e });
    }
    for (const f of cap.frees) f();
    const failure = cap.error ?? thrown;
    if (failure !== undefined || !handle) {
      if (handle) native(() => ctx.native.driver.graphDestroy(handle!), 'capture');
      for (const s of cap.storages) s.release();
      for (const f of cap.futures) f.reject(failure);
      throw failure;
    }
    return new NativeGraph(this, ctx, handle, rs, cap);
  }

  /**
   * @internal (DeviceArray.to) A peer copy from `srcDevice` (another device of the same kind and
   * driver library) on `s`: cuMemcpyPeerAsync, which the driver runs directly where the devices
   * can access each other and stages where not. Undefined for any other pair.
   */
  peerCopy(dst: RawBuffer, dstOffset: number, src: RawBuffer, srcDevice: Device, srcOffset: number, bytes: number, s?: Stream): Future<void> | undefined {
    if (!(srcDevice instanceof NativeRuntimeDevice) || srcDevice.kind !== this.kind || srcDevice === this) return undefined;
    const d = dst as NativeRaw, r = src as NativeRaw;
    if (d.ctx.native.driver.libraryPath !== r.ctx.native.driver.libraryPath) return undefined;
    try {
      const ctx = this.context();
      r.ctx.token.check('to (source)');
      const st = this.streamOf(s).on(ctx);
      native(() => ctx.native.driver.memcpyPeerAsync(d.buf.handle, r.buf.handle, bytes, st.handle, dstOffset, srcOffset), 'to');
      return ctx.completion(st).after();
    } catch (e) {
      return this.failed(e);
    }
  }

  /** Whether this device can map `other`'s memory directly (cuDeviceCanAccessPeer). */
  canAccessPeer(other: Device): boolean {
    if (!(other instanceof NativeRuntimeDevice) || other.kind !== this.kind) return false;
    return native(() => this.#ctx.native.driver.canAccessPeer(other.native.driver));
  }

  /** The stream-ordered pool's figures; allocations and frees are counted since the device was opened. */
  memoryStats(): MemoryStats {
    const ctx = this.context();
    if (!ctx.pool) {
      return { inUseBytes: ctx.plainInUse, reservedBytes: ctx.plainInUse, peakInUseBytes: ctx.plainPeak, allocations: this.#allocations, frees: this.#frees };
    }
    const p = native(() => ctx.native.driver.memPoolStats(), 'memoryStats');
    return { inUseBytes: p.used, reservedBytes: p.reserved, peakInUseBytes: p.usedHigh, allocations: this.#allocations, frees: this.#frees };
  }

  /** Gives the pool's cached blocks back to the device (what the OOM path does before its retry). */
  trimMemory(): void {
    const ctx = this.context();
    if (!ctx.pool) return; // nothing cached without a pool
    native(() => ctx.native.driver.memPoolTrim(0), 'trimMemory');
  }

  /** The sim's count of device-wide synchronizations so far (null on cuda): a request path should add none. */
  simDeviceSyncs(): number | null {
    return native(() => this.#ctx.native.driver.simDeviceSyncs());
  }

  /**
   * An allocation from the pool, ordered on the context's default stream. Out of memory: the pool
   * is trimmed and the allocation retried once, then E_OOM with the requested and free bytes.
   */
  #allocPooled(ctx: NativeContext, bytes: number): DeviceBuffer {
    if (ctx.capture) this.refuseInCapture('an allocation');
    if (!ctx.pool) return this.#allocPlain(ctx, bytes);
    try {
      return ctx.native.allocAsync(bytes, ctx.defaultStream);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'E_NO_SYMBOL' || code === 'CUDA_ERROR_NOT_SUPPORTED') {
        // A driver without stream-ordered pools (before CUDA 11.2, or a GPU without them).
        ctx.pool = false;
        return this.#allocPlain(ctx, bytes);
      }
      if (code !== 'CUDA_ERROR_OUT_OF_MEMORY') throw e;
    }
    // Frees deferred behind queued work (an array freed while a launch or copy still held it) are
    // queued only when that work settles: wait for this context's streams (each one, not the
    // device; only on this rare path) and settle what they finished, which queues those frees.
    // Then the default stream reaches every queued free, and the pool gives every unused block
    // back. Then one retry.
    for (const c of [...ctx.completions.values()]) c.settleNow();
    ctx.defaultStream.synchronize();
    native(() => ctx.native.driver.memPoolTrim(0), 'alloc');
    try {
      return ctx.native.allocAsync(bytes, ctx.defaultStream);
    } catch (e) {
      if ((e as { code?: string }).code !== 'CUDA_ERROR_OUT_OF_MEMORY') throw e;
      const { free, total } = native(() => ctx.native.driver.memGetInfo(), 'alloc');
      throw new DeviceError('E_OOM', `out of memory on device '${this.name}': requested ${bytes} bytes, ${free} of ${total} bytes free after trimming the pool and retrying once`, { cause: e });
    }
  }

  /** cuMemAlloc, for drivers without pools (their frees are cuMemFree: a device-wide wait on GPUs). */
  #allocPlain(ctx: NativeContext, bytes: number): DeviceBuffer {
    let buf: DeviceBuffer;
    try {
      buf = ctx.native.alloc(bytes);
    } catch (e) {
      if ((e as { code?: string }).code !== 'CUDA_ERROR_OUT_OF_MEMORY') throw e;
      const { free, total } = native(() => ctx.native.driver.memGetInfo(), 'alloc');
      throw new DeviceError('E_OOM', `out of memory on device '${this.name}': requested ${bytes} bytes, ${free} of ${total} bytes free (the driver has no memory pool to trim)`, { cause: e });
    }
    ctx.plain.set(buf, bytes);
    ctx.plainInUse += bytes;
    ctx.plainPeak = Math.max(ctx.plainPeak, ctx.plainInUse);
    return buf;
  }

  /** Frees a buffer of #allocPooled: back to the pool in the default stream's order, or cuMemFree. */
  #freeBuffer(ctx: NativeContext, buf: DeviceBuffer): void {
    const plain = ctx.plain.get(buf);
    if (plain === undefined) {
      ctx.native.freeAsync(buf, ctx.defaultStream);
      return;
    }
    ctx.native.free(buf);
    ctx.plainInUse -= plain;
  }

  createStream(): Stream {
    return new NativeRuntimeStream(this);
  }

  createEvent(): DeviceEvent {
    return new NativeRuntimeEvent(this);
  }

  synchronize(): Future<void> {
    try {
      refuseOtherDevice(this, this.name, 'device.synchronize()');
      const ctx = this.context();
      if (ctx.capture) this.refuseInCapture('device.synchronize()');
      return future(Promise.all([...ctx.completions.values()].map((c) => c.after())).then(() => undefined));
    } catch (e) {
      return rejected(e);
    }
  }

  /**
   * Closes the device: every later use is E_CLOSED at once. The context (buffers and modules of
   * this device die with it) is released now, or, while a driver wait of work queued earlier is
   * still in flight (a completion or a read the caller did not wait for), as soon as it returns.
   */
  close(): void {
    this.#ctx.token.close();
    releaseWhenIdle(this.#ctx.native);
  }

  /**
   * Compiles once per (Func, numWarps, numStages, specialization). `args` gives Triton's
   * specialization: pointers whose address is a multiple of 16 and integers that are multiples
   * of 16 or equal to 1 are marked so, which lets the compiler vectorize and fold — except the
   * params `doNotSpecialize` marks. `numStages`: compile's option (undefined: the target's default).
   */
  compile(func: Func, numWarps: number, args?: readonly LaunchArg[], numStages?: number, doNotSpecialize?: readonly boolean[], cluster?: readonly [number, number, number], twoCta?: boolean): CompileResult {
    return this.#compile(func, numWarps, args ? specKey(func, args, doNotSpecialize) : '', numStages, cluster, twoCta);
  }

  #compile(func: Func, numWarps: number, key: string, numStages: number | undefined, cluster?: readonly [number, number, number], twoCta?: boolean): CompileResult {
    let byKey = this.#compiled.get(func);
    if (!byKey) this.#compiled.set(func, (byKey = new Map()));
    // a cluster shape is compiled in: ring tiles shared in a cluster are multicast (codegen/async/tma_multicast.ts)
    const multi = cluster && cluster[0] * cluster[1] * cluster[2] > 1 ? cluster : undefined;
    const full = `${numWarps}:${numStages ?? ''}:${multi ? multi.join('x') : ''}${twoCta ? ':2cta' : ''}:${key}`;
    let r = byKey.get(full);
    if (!r) {
      const spec = specFromKey(key);
      // The driver JITs the PTX; ptxas is not needed here.
      r = compileCached(func, {
        target: this.target, numWarps, ptxas: false, ...(numStages !== undefined ? { numStages } : {}),
        ...(spec.some((s) => s) ? { specialization: spec } : {}), ...(multi ? { clusterDims: multi } : {}),
        ...(twoCta ? { twoCta: true, ...(cluster ? { clusterDims: cluster } : {}) } : {}),
      });
      byKey.set(full, r);
    }
    return r;
  }

  #plan(ctx: NativeContext, compiled: CompileResult): Plan {
    const cached = ctx.plans.get(compiled);
    if (cached) return cached;
    const md = compiled.metadata;
    const dev = ctx.native;
    const k = dev.kernel(compiled);
    let size = 0;
    for (const q of md.params) {
      checkSpec(md.name, q);
      size = Math.max(size, q.offset + q.size);
    }
    const shared = k.dynamicShared ? md.sharedBytes : 0;
    dev.optInShared(k, shared);
    const maps = md.tensorMaps ?? [];
    const offsets = [...md.params.map((q) => q.offset), ...maps.map((m) => m.offset)];
    const prepared = prepareLaunch(dev.driver, k.fn, offsets, paramBytesWithMaps(size, maps), [blockThreads(md), 1, 1], shared, md.name);
    const p: Plan = {
      name: md.name, ptx: compiled.ptx, params: md.params, prepared,
      view: new DataView(prepared.params.buffer, prepared.params.byteOffset, prepared.params.byteLength),
      isPtr: md.params.map((q) => isPtrType(q.type)),
      locate: (e: unknown) => locateIfNamed(e, p),
      ...(maps.length ? { maps: { cache: dev.tensorMaps, specs: maps } } : {}),
      ...(md.prints?.length ? { sites: md.prints } : {}),
    };
    ctx.plans.set(compiled, p);
    return p;
  }

  launch(func: Func, args: readonly LaunchArg[], opts: LaunchOptions): Future<void> {
    let plan: Plan | undefined;
    try {
      const n = func.params.length;
      if (args.length !== n) throw new NativeDeviceError('E_PARAM', `kernel '${func.name}': expected ${n} arguments, got ${args.length}`);
      const ctx = this.context();
      const stream = this.streamOf(opts.stream).on(ctx);
      let storages: Storage[] | undefined;
      let hosts = false;
      for (let i = 0; i < n; i++) {
        const a = args[i];
        if (a instanceof DeviceArray) {
          checkArray(a, this, func, i);
          (storages ??= []).push(a.storage);
        } else if (ArrayBuffer.isView(a)) hosts = true;
      }
      if (hosts && ctx.capture) this.refuseInCapture(`kernel '${func.name}' with host arrays (they are copied back to the host)`);
      const key = specKey(func, args, opts.doNotSpecialize);
      const last = this.#last;
      const cluster = (opts.clusterDims ? opts.clusterDims.join('x') : '') + (opts.twoCta ? ':2cta' : '');
      if (last && last.func === func && last.key === key && last.ctx === ctx && last.numWarps === opts.numWarps && last.numStages === opts.numStages && last.cluster === cluster) {
        plan = last.plan; // the same kernel launched again: no compile-cache or plan lookups
      } else {
        plan = this.#plan(ctx, this.#compile(func, opts.numWarps, key, opts.numStages, opts.clusterDims, opts.twoCta));
        this.#last = { func, key, ctx, numWarps: opts.numWarps, numStages: opts.numStages, cluster, plan };
      }
      this.applySanitize(ctx, opts.sanitize, func.name);
      // a kernel that prints or asserts: the sim keeps its vprintf calls for the host (device_prints.ts)
      const tag = plan.sites && this.kind === 'sim' && !ctx.capture && this.#printCapture ? nextPrintTag++ : 0;
      if (hosts) return this.#withDeviceOutput(this.#launchWithHostArrays(ctx, plan, args, opts.grid, stream, storages ?? [], tag, opts.clusterDims), plan, tag, opts);
      this.#write(plan, args, undefined);
      this.#enqueueTagged(ctx, plan, opts.grid, stream, tag, opts.clusterDims);
      return this.#withDeviceOutput(ctx.completion(stream).after(storages, plan.locate), plan, tag, opts);
    } catch (e) {
      const err = plan ? locate(e, plan) : e;
      if (isSticky(e)) return future(this.#onError(this.#ctx, e).then(() => Promise.reject(err)));
      return rejected(err);
    }
  }

  /**
   * Loads a module that Tessera did not compile: PTX text, or cubin/fatbin bytes (which the sim
   * refuses: it runs PTX only). See ForeignModule for getFunction and launch.
   */
  loadModule(image: string | Uint8Array): ForeignModule {
    return loadForeignModule(this, image);
  }

  /** @internal A failed driver call on the current context: a sticky fault ends it (see #onError). */
  failed(e: unknown): Future<void> {
    if (isSticky(e)) return future(this.#onError(this.#ctx, e).then(() => Promise.reject(e)));
    return rejected(e);
  }

  callCustomCall(libraryPath: string, symbol: string, buffers: readonly DeviceArray[], opaque: Uint8Array, opts: { stream?: Stream } = {}): Future<void> {
    try {
      if (typeof libraryPath !== 'string' || libraryPath === '') throw new DeviceError('E_ARG', `callCustomCall: libraryPath must be a non-empty string, got ${JSON.stringify(libraryPath)}`);
      if (typeof symbol !== 'string' || symbol === '') throw new DeviceError('E_ARG', `callCustomCall: symbol must be a non-empty string, got ${JSON.stringify(symbol)}`);
      if (!(opaque instanceof Uint8Array)) throw new DeviceError('E_ARG', `custom call '${symbol}': opaque must be a Uint8Array`);
      if (!Array.isArray(buffers)) throw new DeviceError('E_ARG', `custom call '${symbol}': buffers must be an array of DeviceArrays`);
      buffers.forEach((a: unknown, i) => {
        const what = `custom call '${symbol}', buffer ${i}`;
        if (!(a instanceof DeviceArray)) throw new DeviceError('E_ARG', `${what}: expected a DeviceArray, got ${(a as object)?.constructor?.name ?? typeof a}`);
        if (a.device !== this) throw new DeviceError('E_DEVICE', `${what}: the array is on device '${a.device.name ?? a.device.kind}', the call on '${this.name}'`);
        a.check(what);
        if (!a.contiguous) throw new DeviceError('E_ARG', `${what}: a strided view (targets take row-major buffers)`);
      });
      const ctx = this.context();
      const stream = this.streamOf(opts.stream).on(ctx);
      const addresses = buffers.map((a) => a.address as bigint);
      // The target runs now, on this thread, with the context current; it queues its kernels on the stream.
      native(() => ctx.native.driver.callCustomCall(libraryPath, symbol, stream.handle, addresses, opaque));
      return ctx.completion(stream).after(buffers.map((a) => a.storage));
    } catch (e) {
      if (isSticky(e)) return future(this.#onError(this.#ctx, e).then(() => Promise.reject(e)));
      return rejected(e);
    }
  }

  /** Writes the arguments into the plan's parameter buffer (pointers: DeviceArray, temp buffer). */
  #write(plan: Plan, args: readonly LaunchArg[], temps: Map<ArrayBufferView, DeviceBuffer> | undefined): void {
    const ps = plan.params;
    for (let i = 0; i < ps.length; i++) {
      const a = args[i];
      // a DeviceArray was checked against its pointer parameter (checkArray): its address goes in as is
      if (a instanceof DeviceArray && plan.isPtr[i]) plan.view.setBigUint64(ps[i]!.offset, BigInt(a.address), true);
      else writeParam(plan.name, plan.view, ps[i]!, a instanceof DeviceArray ? a.address : temps && ArrayBuffer.isView(a) ? temps.get(a)! : a);
    }
    if (plan.maps) {
      const arg = (i: number): unknown => {
        const a = args[i];
        return a instanceof DeviceArray ? BigInt(a.address) : temps && ArrayBuffer.isView(a) ? temps.get(a)!.address : a;
      };
      plan.maps.cache.write(plan.name, ps, plan.maps.specs, arg, plan.prepared.params);
    }
  }

  #enqueue(plan: Plan, grid: readonly number[], stream: NativeStream, cluster?: readonly number[]): void {
    const g = grid;
    const ok = (x: number | undefined): boolean => Number.isInteger(x) && x! >= 1 && x! <= 0x7fffffff;
    if (g.length !== 3 || !ok(g[0]) || !ok(g[1]) || !ok(g[2])) {
      throw new NativeDeviceError('E_RANGE', `kernel '${plan.name}': grid must be 3 positive integers, got ${JSON.stringify(grid)}`);
    }
    try {
      plan.prepared.launch(g, stream.handle, cluster);
    } catch (e) {
      rethrow(e, `kernel '${plan.name}'`);
    }
  }

  /** Queues the launch; with a print tag, the sim keeps its vprintf calls under it (this launch only). */
  #enqueueTagged(ctx: NativeContext, plan: Plan, grid: readonly number[], stream: NativeStream, tag: number, cluster?: readonly number[]): void {
    if (!tag) return this.#enqueue(plan, grid, stream, cluster);
    try {
      native(() => ctx.native.driver.simSetPrintCapture(tag), `kernel '${plan.name}'`);
    } catch (e) {
      if ((e as { code?: string }).code !== 'E_NO_SYMBOL') throw e;
      this.#printCapture = false; // a sim library older than the capture: its prints go to stdout
      return this.#enqueue(plan, grid, stream, cluster);
    }
    try {
      this.#enqueue(plan, grid, stream, cluster);
    } finally {
      native(() => ctx.native.driver.simSetPrintCapture(0), `kernel '${plan.name}'`);
    }
  }

  /**
   * Once the launch settled: its prints go to onPrint (default console.log), formatted and ordered
   * as the interpreter delivers them; a failed deviceAssert (CUDA_ERROR_ASSERT) becomes E_ASSERT.
   * On the real driver prints went to stdout through its printf buffer; only the assert is mapped.
   */
  #withDeviceOutput(done: Future<void>, plan: Plan, tag: number, opts: LaunchOptions): Future<void> {
    const sites = plan.sites;
    if (!sites) return done;
    const take = (): DeviceOutput | undefined => {
      if (!tag || !this.#printCapture) return undefined;
      const { bytes, dropped } = native(() => this.#ctx.native.driver.simTakePrints(tag), `kernel '${plan.name}'`);
      if (dropped) console.warn(`tessera: kernel '${plan.name}': ${dropped} device print calls dropped (the sim keeps 64 MiB of them per launch)`);
      return deviceOutput(parseRecords(bytes), sites);
    };
    const print = opts.onPrint ?? ((line: string) => console.log(line));
    return future(done.then(
      () => {
        for (const line of take()?.lines ?? []) print(line);
      },
      (e: unknown) => {
        let out: DeviceOutput | undefined;
        try {
          out = take(); // after a sticky fault, through the fresh context (the records outlive the old one)
        } catch {
          // the failure is the launch's error, not the records'
        }
        if ((e as { code?: string })?.code !== 'CUDA_ERROR_ASSERT') throw e;
        // captured without a failing record: another launch of the batch asserted, not this one
        if (tag && this.#printCapture && !out?.failed) throw e;
        for (const line of out?.lines ?? []) print(line);
        throw assertError(plan.name, sites, out?.failed, e) ?? e;
      },
    ));
  }

  /** Host arrays: copied into temporary buffers now, back only if everything succeeded, freed after. */
  #launchWithHostArrays(
    ctx: NativeContext, plan: Plan, args: readonly LaunchArg[], grid: readonly number[], stream: NativeStream, storages: Storage[], tag: number,
    cluster?: readonly number[],
  ): Future<void> {
    const dev = ctx.native;
    const temps = new Map<ArrayBufferView, DeviceBuffer>();
    const freeTemps = () => {
      if (!ctx.token.usable) return; // the context took them with it
      for (const b of temps.values()) {
        try {
          this.#freeBuffer(ctx, b);
        } catch {
          // the buffer's finalizer is the safety net
        }
      }
    };
    try {
      for (const a of args) {
        if (!ArrayBuffer.isView(a) || temps.has(a)) continue;
        const b = this.#allocPooled(ctx, Math.max(1, a.byteLength));
        temps.set(a, b);
        if (a.byteLength > 0) dev.upload(b, a, 0, stream);
      }
      this.#write(plan, args, temps);
      this.#enqueueTagged(ctx, plan, grid, stream, tag, cluster);
    } catch (e) {
      freeTemps();
      throw e;
    }
    const reads = [...temps].filter(([a]) => a.byteLength > 0).map(([a, b]) => ({ a, p: future(nativeAsync(() => dev.driver.memcpyDtoHAsync(new Uint8Array(a.byteLength), b.handle, stream.handle, 0))) }));
    const launched = ctx.completion(stream).after(storages);
    const done = (async () => {
      try {
        await launched;
        // Everything is read back before any caller array is touched: a failure leaves them all as they were.
        const bytes = await Promise.all(reads.map((r) => r.p));
        reads.forEach((r, i) => new Uint8Array(r.a.buffer, r.a.byteOffset, r.a.byteLength).set(bytes[i]!));
      } catch (e) {
        await Promise.allSettled(reads.map((r) => r.p));
        throw e;
      } finally {
        freeTemps();
      }
    })();
    return this.#located(done, plan);
  }

  /** The memory checker's report names a PTX line; the user's file:line:col is added beside it. */
  #located(p: Promise<void>, plan: Plan): Future<void> {
    return future(p.catch((e: unknown) => {
      throw locate(e, plan);
    }));
  }

  /**
   * A failed call on a context: a sticky fault ends it. The context is marked lost at once (its
   * arrays say so from now on); its pending futures are rejected once the fresh context is open,
   * so that whoever sees the failure can start new work at once. Resolves then.
   */
  #onError(ctx: NativeContext, e: unknown): Promise<void> {
    if (!isSticky(e)) return Promise.resolve();
    if (ctx.token.usable) {
      ctx.token.lose(e instanceof Error ? e : new Error(String(e)));
      ctx.recovery = this.#recover(ctx).finally(() => {
        for (const c of ctx.completions.values()) c.failAll(e);
      });
    }
    return ctx.recovery ?? Promise.resolve();
  }

  /** Releases the dead context once no driver call is in flight on it, then opens a fresh one. */
  async #recover(dead: NativeContext): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        dead.native.close();
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== 'E_BUSY' || tries > 5000) break;
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    try {
      this.#ctx = new NativeContext(NativeDevice.open(this.kind, { ordinal: this.ordinal }), ++this.#generation, (c, e) => this.#onError(c, e));
    } catch {
      // left lost: the next use reports E_CONTEXT_LOST
    }
  }

  #makeMemory(): DeviceMemory {
    const raw = (b: RawBuffer): NativeRaw => b as NativeRaw;
    const streamOn = (b: RawBuffer, s: Stream | undefined): NativeStream => this.streamOf(s).on(raw(b).ctx);
    const settle = (b: RawBuffer, s: NativeStream): Future<void> => raw(b).ctx.completion(s).after();
    const guard = (fn: () => PromiseLike<void>): Future<void> => {
      try {
        return future(fn());
      } catch (e) {
        if (isSticky(e)) return future(this.#onError(this.#ctx, e).then(() => Promise.reject(e)));
        return rejected(e);
      }
    };
    return {
      context: () => this.#ctx.token,
      alloc: (bytes) => {
        const ctx = this.context();
        const buf = this.#allocPooled(ctx, Math.max(1, bytes));
        this.#allocations++;
        return { context: ctx.token, bytes, address: buf.address, buf, ctx } satisfies NativeRaw;
      },
      free: (b) => {
        const r = raw(b);
        if (!r.ctx.token.usable || r.buf.freed) return;
        // Deferred past a capture in progress (a free is not a graph node); all work using the
        // buffer is done when this runs, so freeing in the default stream's order is safe.
        if (r.ctx.capture) {
          r.ctx.capture.frees.push(() => this.memory.free(b));
          return;
        }
        this.#freeBuffer(r.ctx, r.buf);
        this.#frees++;
      },
      write: (b, offset, src, s) => guard(() => {
        if (raw(b).ctx.capture) this.refuseInCapture('a host-to-device write');
        const st = streamOn(b, s);
        raw(b).ctx.native.upload(raw(b).buf, src, offset, st);
        return settle(b, st);
      }),
      read: (b, offset, dst, s) => guard(() => {
        if (raw(b).ctx.capture) this.refuseInCapture('a host read');
        const st = streamOn(b, s);
        // the read comes after everything queued on `st` so far: once it is back, so is that work
        const c = raw(b).ctx.completions.get(st);
        const mark = c?.mark() ?? 0;
        return nativeAsync(() => raw(b).ctx.native.downloadAsync(raw(b).buf, dst, offset, st)).then(
          () => {
            c?.settleThrough(mark);
          },
          (e: unknown) => this.#onError(raw(b).ctx, e).then(() => Promise.reject(e)),
        );
      }),
      readSync: (b, offset, dst) => {
        refuseOtherDevice(this, this.name, 'a host read (toArraySync)');
        if (raw(b).ctx.capture) this.refuseInCapture('a host read (toArraySync)');
        raw(b).ctx.native.download(raw(b).buf, dst, offset);
      },
      copy: (dst, dstOffset, src, srcOffset, bytes, s) => guard(() => {
        const st = streamOn(dst, s);
        copyAsync(raw(dst).ctx.native, raw(dst).buf.handle, dstOffset, raw(src).buf.handle, srcOffset, bytes, st);
        return settle(dst, st);
      }),
      fill: (b, offset, bytes, byte, s) => guard(() => {
        const st = streamOn(b, s);
        fillAsync(raw(b).ctx.native, raw(b).buf.handle, offset, bytes, byte, st);
        return settle(b, st);
      }),
    };
  }
}

/** Locates a batch's failure for this launch only when the report names its kernel. */
function locateIfNamed(e: unknown, plan: Plan): void {
  if (e instanceof Error && e.message.includes(`kernel '${plan.name}'`)) locate(e, plan);
}

function locate(e: unknown, plan: Plan): unknown {
  if (e instanceof Error && !(e as { located?: boolean }).located) {
    e.message = leadWithSource(e.message, plan.ptx).message;
    (e as { located?: boolean }).located = true;
  }
  return e;
}

/** Tags of launches whose vprintf calls the sim keeps (tesseraSimSetPrintCapture); 0 is stdout. */
let nextPrintTag = 1;

const INT_TYPES = new Set(['i32', 'i64', 'u32', 'i16', 'i8', 'u8']);

/**
 * The specialization of one launch as a short key, one letter per param: 'D' divisible by 16
 * (pointers: the address; integers: the value), '1' an integer equal to 1, '_' neither or a
 * param that `doNotSpecialize` marks.
 */
export function specKey(func: Func, args: readonly LaunchArg[], doNotSpecialize?: readonly boolean[]): string {
  let key = '';
  const ps = func.params;
  for (let i = 0; i < ps.length; i++) {
    const v = args[i];
    if (doNotSpecialize?.[i]) key += '_';
    else if (v instanceof DeviceArray) key += v.offset % 16 === 0 ? 'D' : '_';
    else if (ArrayBuffer.isView(v)) key += 'D'; // copied into a fresh (256-byte aligned) buffer
    else if ((typeof v === 'number' || typeof v === 'bigint') && INT_TYPES.has(ps[i]!.type)) {
      if (typeof v === 'number' ? v === 1 : v === 1n) key += '1';
      else if (typeof v === 'number' ? Number.isInteger(v) && v % 16 === 0 : v % 16n === 0n) key += 'D';
      else key += '_';
    } else key += '_';
  }
  return key;
}

const specFromKey = (key: string): (ParamSpec | undefined)[] =>
  [...key].map((c) => (c === '1' ? { equalsOne: true } : c === 'D' ? { divisibleBy16: true } : undefined));

/** What the device compiles a launch with (Triton's specialization), per runtime param. */
export function launchSpecialization(func: Func, args: readonly LaunchArg[], doNotSpecialize?: readonly boolean[]): (ParamSpec | undefined)[] {
  return specFromKey(specKey(func, args, doNotSpecialize));
}

/** The compile target for a device of compute capability major.minor. */
export function targetFor(major: number, minor: number): Target {
  if (major === 10) return minor === 0 ? 'sm_100a' : 'sm_100';
  if (major === 9) return minor === 0 ? 'sm_90a' : 'sm_90';
  if (major === 8 && minor === 9) return 'sm_89';
  return 'sm_80';
}

/** A DeviceProvider body: device `ordinal` of `kind`, or why it is not available. */
export function provideNative(kind: NativeKind, ordinal = 0): Device | { unavailable: string } {
  try {
    return NativeRuntimeDevice.open(kind, ordinal);
  } catch (e) {
    return { unavailable: e instanceof Error ? e.message : String(e) };
  }
}

/** A DeviceCounter body: how many devices of `kind` the driver reports, or why none. */
export function countNative(kind: NativeKind): number | { unavailable: string } {
  try {
    return NativeDevice.count(kind);
  } catch (e) {
    return { unavailable: e instanceof Error ? e.message : String(e) };
  }
}
