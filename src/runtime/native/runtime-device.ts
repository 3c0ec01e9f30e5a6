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
  DeviceContext, DeviceError, SANITIZE_CHECKS, sanitizeFlags, type Device, type DeviceEvent, type DeviceMemory,
  type LaunchArg, type LaunchOptions, type RawBuffer, type SanitizeCheck, type Stream,
} from '../device.js';
import { DeviceArray, type Storage } from '../device_array.js';
import { Future, future, rejected } from '../future.js';
import { checkArray } from '../device_array.js';
import { StreamCompletion } from './completion.js';
import { copyAsync, fillAsync, prepareLaunch, type PreparedLaunch } from './driver_seam.js';
import { NativeDeviceError, native, nativeAsync, rethrow } from './errors.js';
import { withSourceLocation } from './fault_source.js';
import { type DeviceBuffer, NativeDevice, type NativeEvent, type NativeKind, type NativeStream } from './native-device.js';
import { checkSpec, writeParam, type ParamSpec as PackSpec } from './params.js';
import { loadForeignModule, type ForeignModule } from './foreign_module.js';

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

const MAX_DEFAULT_DYNAMIC_SHARED = 48 * 1024;

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

  completion(s: NativeStream): StreamCompletion {
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
      const ctx = this.device.context();
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

export class NativeRuntimeDevice implements Device {
  readonly description: string;
  readonly target: Target;
  readonly kind: NativeKind;
  readonly #compiled = new WeakMap<Func, Map<string, CompileResult>>();
  #ctx: NativeContext;
  #generation = 0;
  /** The last launch's plan and what it was chosen by (a loop launching one kernel skips the lookups). */
  #last: { func: Func; key: string; ctx: NativeContext; numWarps: number; numStages: number | undefined; plan: Plan } | undefined;
  readonly defaultStream: NativeRuntimeStream;
  readonly memory: DeviceMemory;

  constructor(native: NativeDevice) {
    this.kind = native.kind;
    this.#ctx = new NativeContext(native, 0, (c, e) => this.#onError(c, e));
    const i = native.info;
    // PTX for sm_80 runs (JIT) on every newer GPU; sm_90 PTX only on 9.x.
    // Not (yet) sm_90a for 9.0 nor sm_89 for 8.9: the sim on main refuses `.target sm_90a` and
    // does not execute the fp8 cvt forms (the `hopper` branch's sim does); picking those targets
    // per device belongs to the Hopper work of issue 17 (docs/compiler.md, "Targets").
    this.target = i.ccMajor === 9 ? 'sm_90' : 'sm_80';
    this.description = native.kind === 'sim'
      ? `sim (${i.name}, ${i.libraryPath})`
      : `cuda (${i.name}, compute ${i.ccMajor}.${i.ccMinor}, ${i.smCount} SMs, ${(i.totalMemory / 2 ** 30).toFixed(0)} GiB)`;
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

  /** Opens `kind` (throws NativeDeviceError when it is not available). */
  static open(kind: NativeKind): NativeRuntimeDevice {
    return new NativeRuntimeDevice(NativeDevice.open(kind));
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
      throw new DeviceError('E_CONTEXT_LOST', `the ${this.kind} device is opening a fresh context after ${code}; await the failed work's future, then retry`, { cause: t.lostTo });
    }
    t.check(`the ${this.kind} device`);
    return this.#ctx;
  }

  /** @internal The runtime stream to use: `s` (checked) or the default. */
  streamOf(s: Stream | undefined): NativeRuntimeStream {
    if (s === undefined) return this.defaultStream;
    if (!(s instanceof NativeRuntimeStream) || s.device !== this) throw new DeviceError('E_ARG', `a stream of device '${s.device?.kind}' cannot be used on this ${this.kind} device`);
    return s;
  }

  createStream(): Stream {
    return new NativeRuntimeStream(this);
  }

  createEvent(): DeviceEvent {
    return new NativeRuntimeEvent(this);
  }

  synchronize(): Future<void> {
    try {
      const ctx = this.context();
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
  compile(func: Func, numWarps: number, args?: readonly LaunchArg[], numStages?: number, doNotSpecialize?: readonly boolean[]): CompileResult {
    return this.#compile(func, numWarps, args ? specKey(func, args, doNotSpecialize) : '', numStages);
  }

  #compile(func: Func, numWarps: number, key: string, numStages: number | undefined): CompileResult {
    let byKey = this.#compiled.get(func);
    if (!byKey) this.#compiled.set(func, (byKey = new Map()));
    const full = `${numWarps}:${numStages ?? ''}:${key}`;
    let r = byKey.get(full);
    if (!r) {
      const spec = specFromKey(key);
      // The driver JITs the PTX; ptxas is not needed here.
      r = compileCached(func, {
        target: this.target, numWarps, ptxas: false, ...(numStages !== undefined ? { numStages } : {}),
        ...(spec.some((s) => s) ? { specialization: spec } : {}),
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
    if (shared > MAX_DEFAULT_DYNAMIC_SHARED) native(() => dev.driver.setMaxDynamicShared(k.fn, shared), `kernel '${md.name}'`);
    const prepared = prepareLaunch(dev.driver, k.fn, md.params.map((q) => q.offset), size, [md.numWarps * 32, 1, 1], shared, md.name);
    const p: Plan = {
      name: md.name, ptx: compiled.ptx, params: md.params, prepared,
      view: new DataView(prepared.params.buffer, prepared.params.byteOffset, prepared.params.byteLength),
      isPtr: md.params.map((q) => isPtrType(q.type)),
      locate: (e: unknown) => locateIfNamed(e, p),
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
      const key = specKey(func, args, opts.doNotSpecialize);
      const last = this.#last;
      if (last && last.func === func && last.key === key && last.ctx === ctx && last.numWarps === opts.numWarps && last.numStages === opts.numStages) {
        plan = last.plan; // the same kernel launched again: no compile-cache or plan lookups
      } else {
        plan = this.#plan(ctx, this.#compile(func, opts.numWarps, key, opts.numStages));
        this.#last = { func, key, ctx, numWarps: opts.numWarps, numStages: opts.numStages, plan };
      }
      this.applySanitize(ctx, opts.sanitize, func.name);
      if (hosts) return this.#launchWithHostArrays(ctx, plan, args, opts.grid, stream, storages ?? []);
      this.#write(plan, args, undefined);
      this.#enqueue(plan, opts.grid, stream);
      return ctx.completion(stream).after(storages, plan.locate);
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
        if (a.device !== this) throw new DeviceError('E_DEVICE', `${what}: the array is on device '${a.device.kind}', the call on '${this.kind}'`);
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
  }

  #enqueue(plan: Plan, grid: readonly number[], stream: NativeStream): void {
    const g = grid;
    const ok = (x: number | undefined): boolean => Number.isInteger(x) && x! >= 1 && x! <= 0x7fffffff;
    if (g.length !== 3 || !ok(g[0]) || !ok(g[1]) || !ok(g[2])) {
      throw new NativeDeviceError('E_RANGE', `kernel '${plan.name}': grid must be 3 positive integers, got ${JSON.stringify(grid)}`);
    }
    try {
      plan.prepared.launch(g, stream.handle);
    } catch (e) {
      rethrow(e, `kernel '${plan.name}'`);
    }
  }

  /** Host arrays: copied into temporary buffers now, back only if everything succeeded, freed after. */
  #launchWithHostArrays(
    ctx: NativeContext, plan: Plan, args: readonly LaunchArg[], grid: readonly number[], stream: NativeStream, storages: Storage[],
  ): Future<void> {
    const dev = ctx.native;
    const temps = new Map<ArrayBufferView, DeviceBuffer>();
    const freeTemps = () => {
      if (!ctx.token.usable) return; // the context took them with it
      for (const b of temps.values()) {
        try {
          dev.free(b);
        } catch {
          // the buffer's finalizer is the safety net
        }
      }
    };
    try {
      for (const a of args) {
        if (!ArrayBuffer.isView(a) || temps.has(a)) continue;
        const b = dev.alloc(Math.max(1, a.byteLength));
        temps.set(a, b);
        if (a.byteLength > 0) dev.upload(b, a, 0, stream);
      }
      this.#write(plan, args, temps);
      this.#enqueue(plan, grid, stream);
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
      this.#ctx = new NativeContext(NativeDevice.open(this.kind), ++this.#generation, (c, e) => this.#onError(c, e));
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
        const buf = ctx.native.alloc(Math.max(1, bytes));
        return { context: ctx.token, bytes, address: buf.address, buf, ctx } satisfies NativeRaw;
      },
      free: (b) => {
        const r = raw(b);
        if (!r.ctx.token.usable || r.buf.freed) return;
        r.ctx.native.free(r.buf);
      },
      write: (b, offset, src, s) => guard(() => {
        const st = streamOn(b, s);
        raw(b).ctx.native.upload(raw(b).buf, src, offset, st);
        return settle(b, st);
      }),
      read: (b, offset, dst, s) => guard(() => {
        const st = streamOn(b, s);
        return nativeAsync(() => raw(b).ctx.native.downloadAsync(raw(b).buf, dst, offset, st)).then(
          () => undefined,
          (e: unknown) => this.#onError(raw(b).ctx, e).then(() => Promise.reject(e)),
        );
      }),
      readSync: (b, offset, dst) => {
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
    e.message = withSourceLocation(e.message, plan.ptx);
    (e as { located?: boolean }).located = true;
  }
  return e;
}

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

/** A DeviceProvider body: the device, or why it is not available. */
export function provideNative(kind: NativeKind): Device | { unavailable: string } {
  try {
    return NativeRuntimeDevice.open(kind);
  } catch (e) {
    return { unavailable: e instanceof Error ? e.message : String(e) };
  }
}
