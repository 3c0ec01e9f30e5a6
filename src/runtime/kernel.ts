// kernel(spec, fn): the user-facing kernel. Wraps the language's defineKernel with argument
// checking, a trace cache per constexpr set, grid resolution and a device to run on.
//   const add = kernel({ name: 'add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, fn);
//   await add.run({ x, y, out, n, BLOCK: 256 }, { grid: (a) => cdiv(a.n, a.BLOCK) });
// `run` queues the launch and returns a future at once; DeviceArrays pass with no copy.
import type { Func } from '../ir/ops.js';
import { bitWidth as bitWidthOf, isFloat, isInt, isPtr, pointee, type DType } from '../ir/types.js';
import { verify } from '../ir/verify.js';
import { MAX_NUM_STAGES } from '../compile/compile.js';
import { KernelError } from '../lang/errors.js';
import {
  defineKernel, type ConstexprSpec, type ConstexprValue, type KernelArgs, type KernelDef, type KernelSpec,
  type KernelParamSpec as ParamSpec, type PtrSpec, type RuntimeParam, type ScalarSpec, type TensorDescSpec,
} from '../lang/index.js';
import { ARRAY_FOR_DTYPE, HostArray, holdsDType, type ArrayTypes, type TypedArray } from './array.js';
import { getDevice, type Device, type DeviceKind, type DeviceName, type LaunchArg, type SanitizeCheck, type Stream } from './device.js';
import { DeviceArray } from './device_array.js';
import { Future, rejected } from './future.js';

export type ArgValue = TypedArray | HostArray | DeviceArray | number | bigint | boolean | string | TensorDescArg;
export type RunArgs = Record<string, ArgValue>;

/**
 * What a `ptr(dtype)` parameter takes: the typed array that stores that dtype (f16/bf16 as
 * Uint16Array bit patterns), or a HostArray or DeviceArray of that dtype. Anything else is a
 * type error (and, from untyped code, an E_ARG at run time).
 */
export type PtrArg<D extends DType> = ArrayTypes[D] | HostArray<D> | DeviceArray<D>;
/** What a scalar parameter of dtype D takes. */
export type ScalarArgFor<D> = D extends 'i64' ? number | bigint : D extends 'bool' ? boolean : number;

/**
 * What a `tensorDesc(dtype, block)` parameter takes (Triton's host-side TensorDescriptor): the
 * tensor's storage, its shape and its strides in elements (the last 1, the others multiples of 16
 * bytes; the base 16-byte aligned), checked at run (E_DESCRIPTOR).
 */
export interface TensorDescArg<D extends DType = DType> {
  readonly base: PtrArg<D>;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
}

/** The value `run` takes for one parameter spec. */
export type ArgFor<S> = S extends TensorDescSpec<infer D> ? TensorDescArg<D>
  : S extends PtrSpec<infer D> ? PtrArg<D>
  : S extends ConstexprSpec<infer T> ? T
  : S extends ScalarSpec<infer D> ? ScalarArgFor<D>
  : ScalarArgFor<S>;
/** The arguments of a kernel's `run`, keyed by parameter name (constexprs included). */
export type ArgsFor<P extends Record<string, ParamSpec>> = { [K in keyof P]: ArgFor<P[K]> };

/**
 * A grid: programs along x, or [x, y?, z?], or a function of the run's arguments (as Triton's
 * `lambda meta`), or 'sms': one program per streaming multiprocessor of the device the run goes to
 * (`device.properties.multiProcessorCount`), for persistent kernels (persistentTiles).
 */
export type GridSpec<A = Readonly<RunArgs>> = number | readonly number[] | 'sms' | ((args: A) => number | readonly number[]);

export interface RunOptions<A = Readonly<RunArgs>> {
  readonly grid: GridSpec<A>;
  /** Warps per program (a power of two, 1..32); the interpreter ignores it. Default 4. */
  readonly numWarps?: number;
  /**
   * Software-pipelining depth (an integer >= 1; 1 turns it off): loops whose loads feed
   * tensor-core dots keep numStages-1 iterations of cp.async copies in flight. Default: the
   * target's (3 on sm_80/sm_90). The interpreter ignores it.
   */
  readonly numStages?: number;
  /**
   * Thread block clusters (sm_90): CTAs per cluster along x, y, z (1 to 3 positive integers, at
   * most 8 CTAs in all, each dividing the grid's). The launch goes through cuLaunchKernelEx;
   * clusterCtaRank() is the program's rank in its cluster. Needs compute capability 9.0 on native devices.
   */
  readonly clusterDims?: readonly number[];
  /**
   * sm_100a (Triton's `two_ctas`): the K loop's tcgen05 dot runs on the CTA pairs of the
   * [2, 1, 1] clusters as one 256-row tcgen05.mma.cta_group::2 (compile's `twoCta`). Needs
   * clusterDims [2, 1, 1]; other targets name the error. The interpreter ignores it.
   */
  readonly twoCta?: boolean;
  readonly device?: DeviceName | Device;
  /** Receives devicePrint lines (default: console.log). */
  readonly onPrint?: (line: string) => void;
  /** The stream to queue on (of the run's device; default: its default stream). */
  readonly stream?: Stream;
  /**
   * The sim's sanitizers for this run ('racecheck', 'synccheck', 'initcheck'; default: the
   * device's, set with setSanitize). Hazards reject the run with E_HAZARD and their report.
   */
  readonly sanitize?: readonly SanitizeCheck[];
}

const RANGES: Partial<Record<DType, [number, number]>> = {
  i32: [-(2 ** 31), 2 ** 31 - 1], i16: [-(2 ** 15), 2 ** 15 - 1], i8: [-128, 127], u32: [0, 2 ** 32 - 1], u8: [0, 255],
};

const describeValue = (v: unknown): string =>
  ArrayBuffer.isView(v) ? v.constructor.name
  : v instanceof DeviceArray || v instanceof HostArray ? `${v.constructor.name}(${v.dtype})`
  : `${typeof v} ${String(v)}`;

export class Kernel<P extends Record<string, ParamSpec> = Record<string, ParamSpec>> {
  private readonly traces = new Map<string, Func>();
  readonly #names: ReadonlySet<string>;

  /** Per runtime param: never specialized on its value (undefined when none is). */
  readonly #doNotSpecialize: readonly boolean[] | undefined;

  constructor(readonly def: KernelDef<P>) {
    this.#names = new Set(def.paramNames);
    const mask = def.runtimeParams.map((p) => p.doNotSpecialize);
    this.#doNotSpecialize = mask.some((m) => m) ? mask : undefined;
  }

  /** Per runtime param, true where it is never specialized (doNotSpecialize); undefined when none is. */
  get doNotSpecialize(): readonly boolean[] | undefined {
    return this.#doNotSpecialize;
  }

  get name(): string {
    return this.def.name;
  }

  /** The IR for one set of constexpr values (cached; verified once). */
  trace(constexprs: Record<string, ConstexprValue> = {}): Func {
    // A cheap key (no JSON): each value tagged by its type, since 1, '1' and true differ.
    let key = '';
    for (const n of this.def.constexprNames) {
      const v = constexprs[n];
      key += `${typeof v}:${String(v)}\u0000`;
    }
    let f = this.traces.get(key);
    if (!f) {
      f = this.def.trace(constexprs as never);
      verify(f);
      this.traces.set(key, f);
    }
    return f;
  }

  /**
   * Checks the arguments, traces (or reuses) the kernel and queues it; returns at once with a
   * future that settles when it is done. Bad arguments reject it before anything is queued.
   */
  run(args: ArgsFor<P>, opts: RunOptions<ArgsFor<P>>): Future<void> {
    try {
      const raw = args as unknown as RunArgs;
      const launchArgs = this.checkArgs(raw);
      const grid = this.resolveGrid(raw, opts?.grid as GridSpec | undefined, () => getDevice(opts.device));
      const numWarps = opts.numWarps ?? 4;
      if (!Number.isInteger(numWarps) || numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)) !== 0) {
        throw this.error(`numWarps must be a power of two from 1 to 32, got ${String(numWarps)}`);
      }
      const numStages = opts.numStages;
      if (numStages !== undefined && (!Number.isInteger(numStages) || numStages < 1 || numStages > MAX_NUM_STAGES)) {
        throw this.error(`numStages must be an integer from 1 to ${MAX_NUM_STAGES}, got ${String(numStages)}`);
      }
      const device = getDevice(opts.device);
      const func = this.#traceFor(raw);
      // set field by field: conditional spreads allocate on every launch
      const lo: {
        grid: [number, number, number]; numWarps: number; numStages?: number; onPrint?: (line: string) => void; stream?: Stream;
        doNotSpecialize?: readonly boolean[]; sanitize?: readonly SanitizeCheck[]; clusterDims?: [number, number, number]; twoCta?: boolean;
      } = { grid, numWarps };
      if (numStages !== undefined) lo.numStages = numStages;
      if (opts.clusterDims !== undefined) lo.clusterDims = this.checkCluster(opts.clusterDims, grid, device);
      if (opts.twoCta !== undefined) {
        if (typeof opts.twoCta !== 'boolean') throw this.error(`twoCta must be a boolean, got ${JSON.stringify(opts.twoCta)}`);
        if (opts.twoCta) lo.twoCta = true;
      }
      if (this.#doNotSpecialize) lo.doNotSpecialize = this.#doNotSpecialize;
      if (opts.sanitize) lo.sanitize = opts.sanitize;
      if (opts.onPrint) lo.onPrint = opts.onPrint;
      if (opts.stream) lo.stream = opts.stream;
      return Future.from(device.launch(func, launchArgs, lo));
    } catch (e) {
      return rejected(e);
    }
  }

  // The constexpr values of the last run and their Func: a loop launching the same
  // specialization again skips building the trace key (the launch's hot path).
  #lastConst: unknown[] | undefined;
  #lastFunc: Func | undefined;

  #traceFor(raw: RunArgs): Func {
    const names = this.def.constexprNames;
    const last = this.#lastConst;
    if (last) {
      let i = 0;
      while (i < names.length && raw[names[i]!] === last[i]) i++;
      if (i === names.length) return this.#lastFunc!;
    }
    const constexprs: Record<string, ConstexprValue> = {};
    for (const n of names) constexprs[n] = raw[n] as ConstexprValue;
    const func = this.trace(constexprs);
    this.#lastConst = names.map((n) => raw[n]);
    this.#lastFunc = func;
    return func;
  }

  /** The `clusterDims` run option, checked against the portable limit, the grid and the device. */
  private checkCluster(spec: unknown, grid: readonly [number, number, number], device: Device): [number, number, number] {
    const dims = Array.isArray(spec) ? (spec as unknown[]) : undefined;
    if (!dims || dims.length < 1 || dims.length > 3 || dims.some((d) => typeof d !== 'number' || !Number.isInteger(d) || d < 1)) {
      throw this.error(`clusterDims must be 1 to 3 positive integers [x, y?, z?], got ${JSON.stringify(spec)}`);
    }
    const c: [number, number, number] = [dims[0] as number, (dims[1] as number | undefined) ?? 1, (dims[2] as number | undefined) ?? 1];
    const size = c[0] * c[1] * c[2];
    if (size > 8) throw this.error(`clusterDims [${c.join(', ')}] is ${size} CTAs per cluster; the portable maximum is 8`);
    const axis = [0, 1, 2].find((d) => grid[d]! % c[d]! !== 0);
    if (axis !== undefined) {
      throw this.error(`grid [${grid.join(', ')}] is not divisible by clusterDims [${c.join(', ')}] along ${'xyz'[axis]}`);
    }
    const cc = device.properties?.computeCapability;
    if (cc && Number(cc.split('.')[0]) < 9) {
      throw this.error(`clusterDims needs thread block clusters (compute capability 9.0+); device ${device.name ?? device.kind} is ${cc}`);
    }
    return c;
  }

  private error(detail: string): KernelError {
    return new KernelError('E_ARG', detail, { kernel: this.def.name, op: 'run' });
  }

  /** Validates every argument against the spec; returns the runtime params' launch values in order. */
  private checkArgs(args: RunArgs): LaunchArg[] {
    if (typeof args !== 'object' || args === null) throw this.error(`arguments must be an object keyed by parameter name, got ${describeValue(args)}`);
    const names = this.def.paramNames;
    for (const k in args) {
      if (!Object.hasOwn(args, k)) continue;
      if (!this.#names.has(k)) throw this.error(`unknown argument '${k}' (parameters: ${names.join(', ')})`);
    }
    for (const n of names) {
      if (args[n] === undefined) throw this.error(`missing argument for parameter '${n}'`);
    }
    for (const n of this.def.constexprNames) {
      const v = args[n];
      if (typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'string') {
        throw this.error(`parameter '${n}' is a constexpr and needs a number, boolean or string, got ${describeValue(v)}`);
      }
    }
    const params = this.def.runtimeParams;
    const out = new Array<LaunchArg>(params.length);
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      out[i] = p.desc ? this.descPart(p, args[p.desc.param]) : this.checkArg(p.name, p.type, args[p.name]);
    }
    return out;
  }

  /** One launch value of a host-side tensor descriptor: its base, or a shape or stride entry. */
  private descPart(p: RuntimeParam, v: unknown): LaunchArg {
    const d = p.desc!;
    const spec = this.def.params[d.param] as unknown as TensorDescSpec;
    const rank = spec.blockShape.length;
    const bad = (detail: string): KernelError => new KernelError('E_DESCRIPTOR', `tensor descriptor '${d.param}': ${detail}`, { kernel: this.def.name, op: 'run' });
    if (typeof v !== 'object' || v === null || !('base' in v) || !('shape' in v) || !('strides' in v)) {
      throw bad(`needs { base, shape, strides }, got ${describeValue(v)}`);
    }
    const { base, shape, strides } = v as TensorDescArg;
    if (d.role === 'base') {
      if (!Array.isArray(shape) || shape.length !== rank || !Array.isArray(strides) || strides.length !== rank) {
        throw bad(`shape and strides need ${rank} entries each (the block's rank)`);
      }
      shape.forEach((n, k) => {
        if (!Number.isInteger(n) || n < 1 || n > 2 ** 31 - 1) throw bad(`shape[${k}] must be an integer in 1..2^31-1, got ${String(n)}`);
      });
      const eb = Math.max(1, bitWidthOf(spec.dtype) / 8);
      strides.forEach((n, k) => {
        if (!Number.isInteger(n) || n < 1 || n > 2 ** 31 - 1) throw bad(`strides[${k}] must be a positive i32 integer, got ${String(n)}`);
        if (k === rank - 1 && n !== 1) throw bad(`the last stride must be 1 (the innermost dim is contiguous), got ${n}`);
        if (k < rank - 1 && (n * eb) % 16 !== 0) throw bad(`strides[${k}] = ${n} elements is ${n * eb} bytes, not a multiple of 16`);
      });
      const a = this.checkArg(d.param, p.type, base);
      if (a instanceof DeviceArray && BigInt(a.address) % 16n !== 0n) throw bad('the base is not 16-byte aligned');
      return a;
    }
    return (d.role === 'shape' ? shape : strides)[d.dim]!;
  }

  /** One runtime argument, checked against its type (no closures: this runs on every launch). */
  private checkArg(name: string, type: ParamSpec | string, v: unknown): LaunchArg {
    if (isPtr(type as never)) {
      const d = pointee(type as never);
      if (v instanceof DeviceArray) {
        if (v.dtype !== d) throw this.badArg(name, type, v, `an array of ${d}`);
        return v;
      }
      if (v instanceof HostArray) {
        if (v.dtype !== d) throw this.badArg(name, type, v, `an array of ${d}`);
        return v.data;
      }
      if (!holdsDType(v, d)) throw this.badArg(name, type, v, `a ${ARRAY_FOR_DTYPE[d]}${d === 'f16' || d === 'bf16' || d === 'f8e4m3' || d === 'f8e5m2' ? ` of ${d} bit patterns` : ''}, a HostArray or a DeviceArray of ${d}`);
      return v as LaunchArg;
    }
    const d = type as DType;
    if (d === 'bool') {
      if (typeof v !== 'boolean') throw this.badArg(name, type, v, 'a boolean');
      return v;
    }
    if (d === 'i64') {
      if (typeof v === 'bigint') {
        if (BigInt.asIntN(64, v) !== v) throw this.badArg(name, type, v, 'a value in the i64 range');
        return v;
      }
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
      throw this.badArg(name, type, v, 'a bigint or a safe integer');
    }
    if (isInt(d)) {
      const [lo, hi] = RANGES[d]!;
      if (typeof v !== 'number' || !Number.isInteger(v)) throw this.badArg(name, type, v, 'an integer');
      if (v < lo || v > hi) throw this.badArg(name, type, v, `a value in [${lo}, ${hi}]`);
      return v;
    }
    if (isFloat(d) && typeof v === 'number') return v;
    throw this.badArg(name, type, v, 'a number');
  }

  private badArg(name: string, type: unknown, v: unknown, want: string): KernelError {
    return this.error(`parameter '${name}' (${String(type)}) needs ${want}, got ${describeValue(v)}`);
  }

  private resolveGrid(args: RunArgs, spec: GridSpec | undefined, deviceOf: () => Device): [number, number, number] {
    if (spec === undefined) throw this.error('missing run option `grid`');
    if (spec === 'sms') {
      const device = deviceOf();
      const n = device.properties?.multiProcessorCount;
      if (n === undefined) throw this.error(`grid 'sms' needs the device's SM count, and device ${device.name ?? device.kind} has no \`properties\``);
      return [n, 1, 1];
    }
    let g: unknown = spec;
    if (typeof spec === 'function') {
      g = spec(args);
    }
    const dims = typeof g === 'number' ? [g] : Array.isArray(g) ? (g as unknown[]) : undefined;
    if (!dims || dims.length < 1 || dims.length > 3 || dims.some((d) => typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > 2 ** 31 - 1)) {
      throw this.error(`grid must be a positive integer or 1 to 3 positive integers, got ${JSON.stringify(g)}`);
    }
    return [dims[0] as number, (dims[1] as number | undefined) ?? 1, (dims[2] as number | undefined) ?? 1];
  }
}

/**
 * Defines a Triton-style kernel (see src/lang) and returns a runnable Kernel; or, given a KernelDef
 * made by defineKernel, wraps it (`kernel(def)`, the same as `new Kernel(def)`).
 */
export function kernel<P extends Record<string, ParamSpec>>(def: KernelDef<P>): Kernel<P>;
export function kernel<P extends Record<string, ParamSpec>>(spec: KernelSpec<P>, fn: (args: KernelArgs<P>) => void): Kernel<P>;
export function kernel<P extends Record<string, ParamSpec>>(spec: KernelSpec<P> | KernelDef<P>, fn?: (args: KernelArgs<P>) => void): Kernel<P> {
  if (fn === undefined && isKernelDef(spec)) return new Kernel(spec);
  return new Kernel(defineKernel(spec as KernelSpec<P>, fn!));
}

/** A KernelDef (from defineKernel), as opposed to a `{ name, params }` spec. */
const isKernelDef = <P extends Record<string, ParamSpec>>(v: KernelSpec<P> | KernelDef<P>): v is KernelDef<P> =>
  typeof (v as KernelDef<P> | null)?.trace === 'function' && Array.isArray((v as KernelDef<P>).runtimeParams);
