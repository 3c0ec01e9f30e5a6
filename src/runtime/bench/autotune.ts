// autotune(options, kernel): Triton's @autotune. Each config (constexprs + numWarps + numStages) is
// timed with bench(); the fastest is kept per value of the `key` arguments, in memory and on disk
// (tuning_store.ts), so a second process starts tuned. Trials run on copies of the array arguments,
// so tuning never touches the caller's data; resetToZero / restoreValue reset the copies between
// trials. A config that fails to trace, compile or launch is skipped with its reason.
import { createHash } from 'node:crypto';
import { hashFunc } from '../../ir/hash.js';
import { TesseraError } from '../../ir/errors.js';
import type { ConstexprValue } from '../../lang/index.js';
import { HostArray, type TypedArray } from '../array.js';
import { DeviceArray } from '../device_array.js';
import { getDevice, type Device, type DeviceKind } from '../device.js';
import type { ArgsFor, Kernel, RunArgs, GridSpec } from '../kernel.js';
import type { ConstexprSpec, KernelParamSpec } from '../../lang/kernel.js';
import { NativeRuntimeDevice } from '../native/runtime-device.js';
import { Future } from '../future.js';
import { bench } from './do_bench.js';
import { timerFor } from './timer.js';
import { TuningStore } from './tuning_store.js';

export interface TuneConfig {
  /** Constexpr values this config sets. */
  readonly constexprs?: Readonly<Record<string, ConstexprValue>>;
  readonly numWarps?: number;
  /** The compiler's software-pipelining depth (kernel.run's numStages; default: the target's). */
  readonly numStages?: number;
  /** kernel.run's clusterDims for this config (e.g. [2, 1, 1] with twoCta). */
  readonly clusterDims?: readonly [number, number, number];
  /** kernel.run's twoCta (sm_100a: the tcgen05 dot on CTA pairs; needs clusterDims [2, 1, 1]). */
  readonly twoCta?: boolean;
}

export interface AutotuneOptions<A = RunArgs> {
  readonly configs: readonly TuneConfig[];
  /** Argument names whose values (arrays: dtype and length) pick the tuning entry. */
  readonly key: readonly string[];
  /** Drops configs before timing (e.g. blocks larger than the problem). */
  readonly prune?: (configs: readonly TuneConfig[], args: Readonly<A>) => readonly TuneConfig[];
  /** Array arguments zeroed before every trial (accumulating outputs). */
  readonly resetToZero?: readonly string[];
  /** Array arguments restored to their values before every trial (in-place kernels). */
  readonly restoreValue?: readonly string[];
  /** bench budgets per config, ms (defaults 25 and 100, as Triton). */
  readonly warmup?: number;
  readonly rep?: number;
  /** Bound on timed repetitions per config (default 1000). */
  readonly maxReps?: number;
  readonly device?: DeviceKind | Device;
  /** Where results persist (default: <cache dir>/tuning). */
  readonly store?: TuningStore;
}

export interface Trial {
  readonly config: TuneConfig;
  /** Median ms, when it ran. */
  readonly ms?: number;
  /** Why it was skipped. */
  readonly skipped?: string;
}

export interface Tuning {
  readonly key: string;
  readonly config: TuneConfig;
  readonly ms: number;
  /** 'measured' in this process, or read from the disk 'cache'. */
  readonly tuned: 'measured' | 'cache';
  readonly trials: readonly Trial[];
  readonly clock: string;
  readonly device: string;
}

export interface AutotuneRunOptions<G> {
  /** The grid; a function also sees the chosen config's constexprs (as Triton's `meta`). */
  readonly grid: GridSpec<G>;
  readonly device?: DeviceKind | Device;
}

const describe = (c: TuneConfig): string =>
  [...Object.entries(c.constexprs ?? {}).map(([k, v]) => `${k}=${String(v)}`), `numWarps=${c.numWarps ?? 4}`, ...(c.numStages !== undefined ? [`numStages=${c.numStages}`] : []),
    ...(c.clusterDims ? [`clusterDims=${c.clusterDims.join('x')}`] : []), ...(c.twoCta ? ['twoCta'] : [])].join(' ');

function keyValue(v: unknown): unknown {
  if (v instanceof DeviceArray || v instanceof HostArray) return [v.dtype, v.shape];
  if (ArrayBuffer.isView(v)) return [v.constructor.name, (v as TypedArray).length];
  return typeof v === 'bigint' ? String(v) : v;
}

/** A private copy of an argument for the trials (device arrays stay on their device). */
function copyArg(v: unknown): unknown {
  if (v instanceof DeviceArray) return v.clone();
  if (v instanceof HostArray) return new HostArray(v.dtype, v.shape, (v.data as TypedArray).slice() as never);
  if (ArrayBuffer.isView(v)) return (v as TypedArray).slice();
  return v;
}

/** The bytes of a host argument (a view into it), or undefined. */
const hostBytes = (v: unknown): Uint8Array | undefined => {
  const a = v instanceof HostArray ? (v.data as ArrayBufferView) : ArrayBuffer.isView(v) ? v : undefined;
  return a ? new Uint8Array(a.buffer, a.byteOffset, a.byteLength) : undefined;
};

/** What an argument holds now, to restore it before each trial. */
async function snapshot(v: unknown): Promise<TypedArray | Uint8Array | undefined> {
  if (v instanceof DeviceArray) return v.toArray();
  return hostBytes(v)?.slice();
}

/** Zeros of the argument's size, to reset it before each trial. */
async function zeros(v: unknown): Promise<TypedArray | Uint8Array | undefined> {
  if (v instanceof DeviceArray) {
    const z = await v.toArray();
    (z as { fill(x: never): unknown }).fill((v.dtype === 'i64' ? 0n : 0) as never);
    return z;
  }
  const b = hostBytes(v);
  return b ? new Uint8Array(b.byteLength) : undefined;
}

/** Puts `snap` back into `v`: host bytes now, a device array by a copy queued on its stream. */
function restore(v: unknown, snap: TypedArray | Uint8Array | undefined): PromiseLike<void> | undefined {
  if (!snap) return undefined;
  if (v instanceof DeviceArray) return v.copyFrom(snap as TypedArray);
  hostBytes(v)!.set(snap as Uint8Array);
  return undefined;
}

/** The names of a kernel's constexpr parameters. */
type ConstexprKeys<P> = { [K in keyof P]: P[K] extends ConstexprSpec ? K : never }[keyof P];
/**
 * What `tuned.run` takes for a kernel with parameters P: its run arguments, the constexprs optional
 * (the chosen config supplies the tuned ones).
 */
export type TunedArgs<P extends Record<string, KernelParamSpec>> =
  Omit<ArgsFor<P>, ConstexprKeys<P>> & Partial<Pick<ArgsFor<P>, ConstexprKeys<P>>>;

/** A: what `run` takes; G: what a grid function sees (A plus the chosen config's constexprs). */
export class Autotuned<A extends object = RunArgs, G = A> {
  readonly #byKey = new Map<string, Tuning>();
  readonly #store: TuningStore;
  /** The last tuning used by `run` (inspectable). */
  last: Tuning | undefined;

  constructor(readonly options: AutotuneOptions<A>, readonly kernel: Kernel) {
    const o = options;
    if (!o || !Array.isArray(o.configs) || o.configs.length === 0) throw this.error('configs must be a non-empty array');
    if (!Array.isArray(o.key)) throw this.error('key must be an array of argument names');
    const names = kernel.def.paramNames as readonly string[];
    for (const [what, list] of [['key', o.key], ['resetToZero', o.resetToZero ?? []], ['restoreValue', o.restoreValue ?? []]] as const) {
      for (const n of list) if (!names.includes(n)) throw this.error(`${what} names '${n}', which is not a parameter (parameters: ${names.join(', ')})`);
    }
    for (const c of o.configs) {
      for (const n of Object.keys(c.constexprs ?? {})) {
        if (!kernel.def.constexprNames.includes(n as never)) throw this.error(`config {${describe(c)}} sets '${n}', which is not a constexpr parameter`);
      }
    }
    this.#store = o.store ?? new TuningStore();
  }

  private error(detail: string): TesseraError {
    return new TesseraError('E_ARG', `autotune '${this.kernel?.name ?? '?'}': ${detail}`);
  }

  /** The chosen config for these arguments, if tuned in this process or on disk. */
  chosen(args: Partial<A>): Tuning | undefined {
    return this.#byKey.get(this.keyOf(args as A));
  }

  private keyOf(args: A): string {
    return JSON.stringify(this.options.key.map((k) => [k, keyValue((args as Record<string, unknown>)[k])]));
  }

  private merged(args: A, c: TuneConfig): RunArgs {
    return { ...args, ...(c.constexprs ?? {}) };
  }

  /** Identity of the kernel: its IR under every config that traces (so an edit re-tunes). */
  private kernelHash(): string {
    const h = createHash('sha256').update(this.kernel.name);
    for (const c of this.options.configs) {
      try {
        h.update(hashFunc(this.kernel.trace(c.constexprs ?? {})));
      } catch {
        h.update(`untraceable:${describe(c)}`);
      }
      h.update(JSON.stringify([c.numWarps ?? 4, c.numStages ?? null, ...(c.clusterDims || c.twoCta ? [c.clusterDims ?? null, c.twoCta ?? false] : [])]));
    }
    return h.digest('hex').slice(0, 32);
  }

  /** Runs the kernel with the best config for `args`, tuning first when needed. */
  async run(args: A, opts: AutotuneRunOptions<G>): Promise<Tuning> {
    const device = getDevice(opts.device ?? this.options.device);
    const tuning = await this.tune(args, opts.grid, device);
    await this.kernel.run(this.merged(args, tuning.config) as never, { grid: opts.grid as never, ...launchOf(tuning.config), device });
    this.last = tuning;
    return tuning;
  }

  /** Tunes (or finds the tuning) for `args` without running on the caller's arrays. */
  async tune(args: A, grid: GridSpec<G>, device: Device = getDevice(this.options.device)): Promise<Tuning> {
    const raw = args as unknown as RunArgs;
    const key = this.keyOf(args);
    const known = this.#byKey.get(key);
    if (known) return known;
    const timer = timerFor(device);
    const id = createHash('sha256').update(JSON.stringify([this.kernelHash(), key, timer.identity.name, timer.identity.driver, timer.clock])).digest('hex').slice(0, 40);
    const rec = this.#store.get(id);
    if (rec) {
      const t: Tuning = { key, config: rec.config as TuneConfig, ms: rec.ms, tuned: 'cache', trials: [], clock: rec.clock, device: timer.device };
      this.#byKey.set(key, t);
      timer.close();
      return t;
    }
    let work: A | undefined;
    try {
      const configs = this.options.prune ? this.options.prune(this.options.configs, args) : this.options.configs;
      if (configs.length === 0) throw this.error('prune left no configs');
      // Trials see copies; snapshots restore the in-place ones before every run.
      work = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, copyArg(v)])) as A;
      const snapshots = new Map<string, TypedArray | Uint8Array | undefined>();
      for (const n of this.options.resetToZero ?? []) snapshots.set(n, await zeros(raw[n]));
      for (const n of this.options.restoreValue ?? []) snapshots.set(n, await snapshot(raw[n]));
      const trials: Trial[] = [];
      const tty = process.stderr.isTTY === true;
      for (const [i, c] of configs.entries()) {
        if (tty) process.stderr.write(`\r\x1b[Kautotune ${this.kernel.name}: ${i + 1}/${configs.length} ${describe(c)}`);
        const why = this.cannotRun(c, work!, device);
        if (why) {
          trials.push({ config: c, skipped: why });
          continue;
        }
        // Resets and the launch are queued in stream order and the result is a Future, so the
        // timer's end event goes in right behind the kernel (no host round trip in the figure).
        const run = (): Future<void> => {
          const copies: PromiseLike<void>[] = [];
          for (const [n, snap] of snapshots) {
            const p = restore((work as unknown as RunArgs)[n], snap);
            if (p) copies.push(p);
          }
          const launched = this.kernel.run(this.merged(work!, c) as never, { grid: grid as never, ...launchOf(c), device });
          return copies.length ? Future.from(Promise.all([...copies, launched]).then(() => undefined)) : launched;
        };
        try {
          const r = await bench(run, {
            timer, ...(this.options.warmup !== undefined ? { warmup: this.options.warmup } : {}),
            ...(this.options.rep !== undefined ? { rep: this.options.rep } : {}),
            ...(this.options.maxReps !== undefined ? { maxReps: this.options.maxReps } : {}),
          });
          trials.push({ config: c, ms: r.p50 });
        } catch (e) {
          trials.push({ config: c, skipped: e instanceof Error ? e.message : String(e) });
        }
      }
      if (tty) process.stderr.write('\r\x1b[K');
      const ran = trials.filter((t) => t.ms !== undefined);
      if (ran.length === 0) {
        throw new TesseraError('E_AUTOTUNE', `autotune '${this.kernel.name}': no config could run:\n${trials.map((t) => `  {${describe(t.config)}}: ${t.skipped}`).join('\n')}`);
      }
      const best = ran.reduce((a, b) => (b.ms! < a.ms! ? b : a));
      const t: Tuning = { key, config: best.config, ms: best.ms!, tuned: 'measured', trials, clock: timer.clock, device: timer.device };
      this.#store.put(id, { kernel: this.kernel.name, key, device: timer.identity.name, driver: timer.identity.driver, config: best.config as Record<string, unknown>, ms: best.ms!, clock: timer.clock });
      this.#byKey.set(key, t);
      return t;
    } finally {
      // The trials' device copies go back now, not at the next GC.
      for (const [k, v] of Object.entries(work ?? {})) if (v instanceof DeviceArray && v !== raw[k]) v.free();
      timer.close();
    }
  }

  /** Why config `c` cannot run on `device` (trace error, shared memory over the limit), or undefined. */
  private cannotRun(c: TuneConfig, args: A, device: Device): string | undefined {
    try {
      const func = this.kernel.trace(c.constexprs ?? {});
      if (device instanceof NativeRuntimeDevice) {
        const launchArgs = this.kernel.def.runtimeParams.map(({ name }) => {
          const v = (args as Record<string, unknown>)[name];
          return v instanceof HostArray ? v.data : (v as never);
        });
        const r = device.compile(func, c.numWarps ?? 4, launchArgs, c.numStages, this.kernel.doNotSpecialize, c.clusterDims, c.twoCta);
        const limit = device.native.info.maxSharedOptin;
        if (r.metadata.sharedBytes > limit) return `needs ${r.metadata.sharedBytes} bytes of shared memory; the device allows ${limit}`;
      }
      return undefined;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
}

/** The launch options a config sets. */
const launchOf = (c: TuneConfig): { numWarps: number; numStages?: number; clusterDims?: readonly number[]; twoCta?: boolean } =>
  ({ numWarps: c.numWarps ?? 4, ...(c.numStages !== undefined ? { numStages: c.numStages } : {}),
    ...(c.clusterDims ? { clusterDims: c.clusterDims } : {}), ...(c.twoCta ? { twoCta: true } : {}) });

/**
 * Wraps `kernel` with an autotuner; `run(args, { grid })` takes the kernel's arguments with the
 * constexprs optional, and a grid function sees them all (the chosen config's constexprs included).
 */
export function autotune<P extends Record<string, KernelParamSpec>>(options: AutotuneOptions<TunedArgs<P>>, kernel: Kernel<P>): Autotuned<TunedArgs<P>, ArgsFor<P>> {
  return new Autotuned<TunedArgs<P>, ArgsFor<P>>(options, kernel as unknown as Kernel);
}
