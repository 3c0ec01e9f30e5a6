// Runs one Program on the interpreter (the definition of the semantics) and on the sim (the PTX the
// compiler emits, executed by the simulator), on identical inputs, and compares every output:
// bit for bit (any NaN equals any NaN) for exact results, within a stated bound for approximate
// ones (see generate.ts for which those are).
import type { DType } from '../../src/ir/types.js';
import { compile } from '../../src/compile/compile.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../../src/ir/half.js';
import '../../src/runtime/index.js'; // registers the native devices (cuda, sim)

// compile afresh: a stale persistent cache entry would hide a compiler change
process.env['TESSERA_CACHE'] = '0';
import { isApprox, rng } from './generate.js';
import { buildKernel, isFloatT, nodeTypes, type Program } from './program.js';

type Arr = ArrayBufferView & { length: number; [i: number]: number | bigint };

const CTOR: Record<DType, new (n: number) => Arr> = {
  f32: Float32Array, f64: Float64Array, i32: Int32Array, u32: Uint32Array, i8: Int8Array, u8: Uint8Array,
  i16: Int16Array, i64: BigInt64Array, f16: Uint16Array, bf16: Uint16Array, bool: Uint8Array,
} as unknown as Record<DType, new (n: number) => Arr>;

const SPECIALS = [NaN, Infinity, -Infinity, -0, 0, 1e-40, 65504, -1e5, 0.5, -2.5];

/** Values of `t`: floats mostly in [-4, 4] plus specials; integers over the whole range plus edges. */
export function makeData(t: DType, n: number, seed: number): Arr {
  const r = rng(seed);
  const a = new CTOR[t](n);
  for (let i = 0; i < n; i++) {
    const u = r();
    if (isFloatT(t)) {
      const v = i % 11 === 5 ? SPECIALS[Math.floor(r() * SPECIALS.length)]! : (u * 8 - 4);
      a[i] = t === 'f16' ? f16Bits(v) : t === 'bf16' ? bf16Bits(v) : v;
    } else if (t === 'bool') a[i] = u < 0.5 ? 0 : 1;
    else if (t === 'i64') a[i] = (BigInt(Math.floor(u * 2 ** 32)) << 32n | BigInt(Math.floor(r() * 2 ** 32))) - (1n << 63n);
    else {
      const edge = [0, -1, 1, 2 ** 31 - 1, -(2 ** 31), 127, -128, 255, 7][Math.floor(r() * 9)]!;
      a[i] = i % 7 === 3 ? edge : Math.floor(u * 2 ** 32) | 0; // wraps to the array's width
    }
  }
  return a;
}

const value = (t: DType, x: number | bigint): number =>
  t === 'f16' ? f16Value(Number(x)) : t === 'bf16' ? bf16Value(Number(x)) : Number(x);

/** Relative and absolute bounds for an approximate result of dtype `t` from a block of `block`. */
function bound(t: DType, approxSum: boolean, block: number): { rel: number; abs: number } {
  const eps = t === 'f64' ? 2 ** -52 : t === 'f32' ? 2 ** -23 : t === 'f16' ? 2 ** -10 : 2 ** -7;
  const lanes = approxSum ? block : 1;
  // transcendentals: a few ulp of f32; f64's pow error grows with |y log2 x| (see `pow` below)
  const rel = t === 'f64' ? 2 ** -16 : Math.max(eps * 8, 2 ** -16);
  return { rel, abs: Math.max(eps * 64 * lanes * 4, 2 ** -18) };
}

export interface Difference {
  readonly output: number;
  readonly index: number;
  readonly dtype: DType;
  readonly interpret: string;
  readonly sim: string;
  readonly exact: boolean;
}

export type CheckResult =
  | { readonly status: 'same' }
  | { readonly status: 'different'; readonly diff: Difference }
  | { readonly status: 'error'; readonly device: 'interpret' | 'sim' | 'both' | 'ptxas'; readonly message: string };

function launchArgs(p: Program, outTypes: readonly DType[]): { args: Record<string, unknown>; outs: Arr[] } {
  const len = p.block * p.grid;
  const args: Record<string, unknown> = { n: p.n, trips: p.trips, BLOCK: p.block };
  p.inputs.forEach((t, i) => (args[`x${i}`] = makeData(t, len, p.seed + i)));
  const outs = outTypes.map((t, i) => makeData(t, len, p.seed + 1000 + i));
  outs.forEach((o, i) => (args[`o${i}`] = o));
  return { args, outs };
}

export async function runProgram(p: Program, device: 'interpret' | 'sim'): Promise<Arr[]> {
  const { def, outTypes } = buildKernel(p);
  const { args, outs } = launchArgs(p, outTypes);
  await new Kernel(def).run(args as never, { grid: p.grid, device, numWarps: p.numWarps });
  return outs;
}

/**
 * The ptxas gate (DESIGN.md rule 1) on the PTX the sim ran (same specialization): ptxas for
 * `targets`; the error message when it rejects the PTX, else undefined.
 */
export function ptxasGate(p: Program, targets: readonly ('sm_80' | 'sm_90')[]): string | undefined {
  const { def, outTypes } = buildKernel(p);
  const { args } = launchArgs(p, outTypes);
  const func = def.trace({ BLOCK: p.block });
  const positional = def.runtimeParams.map((q) => args[q.name] as LaunchArg);
  const spec = launchSpecialization(func, positional);
  try {
    for (const target of targets) {
      const r = compile(func, { target, numWarps: p.numWarps, ptxas: true, ...(spec.some((s) => s) ? { specialization: spec } : {}) });
      if ((r.metadata.spills ?? 0) > 0) return `${target}: ${r.metadata.spills} bytes of spills`;
    }
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

const same = (t: DType, a: number | bigint, b: number | bigint): boolean => {
  if (typeof a === 'bigint' || !isFloatT(t)) return a === b;
  const x = value(t, a), y = value(t, b as number);
  return (Number.isNaN(x) && Number.isNaN(y)) || Object.is(x, y);
};

/** Largest finite value of each float dtype: a sum that lands this close to it may overflow in another order. */
const MAX_FINITE: Partial<Record<DType, number>> = { f16: 65504, bf16: 3.3895313892515355e38, f32: 3.4028234663852886e38, f64: Number.MAX_VALUE };

/**
 * Within the bound. For sums and scans (`orderDependent`) any non-finite result matches any other:
 * with infinities or an overflowing half-precision partial sum, the order alone decides between
 * NaN and +-inf. Likewise +-inf matches a finite result of the same sign within the bound of the
 * dtype's largest finite value (65504 in one order, 65520 -> inf in another). Any other finite
 * result must still be close.
 */
const close = (got: number, want: number, b: { rel: number; abs: number }, orderDependent = false, maxFinite = Infinity): boolean => {
  if (orderDependent && (!Number.isFinite(want) || !Number.isFinite(got))) {
    if (!Number.isFinite(want) && !Number.isFinite(got)) return true;
    const [inf, fin] = Number.isFinite(want) ? [got, want] : [want, got];
    return !Number.isNaN(inf) && Math.sign(inf) === Math.sign(fin) && Math.abs(fin) >= maxFinite * (1 - b.rel) - b.abs;
  }
  if (Number.isNaN(want) || Number.isNaN(got)) return Number.isNaN(want) && Number.isNaN(got);
  if (!Number.isFinite(want) || !Number.isFinite(got)) return got === want;
  return Math.abs(got - want) <= b.rel * Math.abs(want) + b.abs;
};

/**
 * Per output element of a float `dot` node, the bound of docs/semantics.md on how far two backends
 * may differ: 2(K+1)·eps·Σ_k |a·b| (eps 2^-24 for an f32 accumulator, 2^-11 for a half one), Σ over
 * the operands' values (loads or constants, the generator's rule), widened by 2^-7 per operand for
 * their rounding to the dot's input dtype. Infinity where an operand is not finite.
 */
function dotBounds(p: Program, node: Extract<Program['nodes'][number], { op: 'dot' }>, acc: DType): Float64Array {
  const len = p.block * p.grid;
  const S = Math.round(Math.sqrt(p.block));
  const values = (i: number): Float64Array => {
    const n = p.nodes[i]!;
    if (n.op === 'const') return new Float64Array(len).fill(n.value);
    if (n.op !== 'load') throw new Error(`dot operand v${i} is not a load or a constant`);
    const t = p.inputs[n.input]!;
    const data = makeData(t, len, p.seed + n.input);
    return Float64Array.from({ length: len }, (_, j) => (j < p.n ? value(t, data[j]!) : n.other));
  };
  const A = values(node.a), B = values(node.b);
  const eps = acc === 'f32' || acc === 'f64' ? 2 ** -24 : 2 ** -11;
  const widen = (1 + 2 ** -7) ** 2;
  const out = new Float64Array(len);
  for (let g = 0; g < p.grid; g++) {
    const o = g * p.block;
    for (let m = 0; m < S; m++) {
      for (let c = 0; c < S; c++) {
        let sum = 0;
        for (let k = 0; k < S; k++) sum += Math.abs(A[o + m * S + k]! * B[o + k * S + c]!);
        out[o + m * S + c] = Number.isFinite(sum) ? 2 * (S + 1) * eps * sum * widen : Infinity;
      }
    }
  }
  return out;
}

export interface CheckOptions {
  /** Also assemble the PTX with ptxas for these targets (a rejection is an error result). */
  readonly ptxas?: readonly ('sm_80' | 'sm_90')[];
  /** Test hook: run the sim on a changed program, to show that a disagreement is caught. */
  readonly mutateSim?: (p: Program) => Program;
}

export async function check(p: Program, opts: CheckOptions = {}): Promise<CheckResult> {
  if (opts.ptxas?.length) {
    const rejected = ptxasGate(p, opts.ptxas);
    if (rejected !== undefined) return { status: 'error', device: 'ptxas', message: rejected };
  }
  let ref: Arr[], got: Arr[];
  let refErr: string | undefined, simErr: string | undefined;
  try { ref = await runProgram(p, 'interpret'); } catch (e) { refErr = (e as Error).message; ref = []; }
  try { got = await runProgram(opts.mutateSim ? opts.mutateSim(p) : p, 'sim'); } catch (e) { simErr = (e as Error).message; got = []; }
  if (refErr !== undefined || simErr !== undefined) {
    if (refErr !== undefined && simErr !== undefined) return { status: 'error', device: 'both', message: `interpret: ${refErr}\nsim: ${simErr}` };
    return { status: 'error', device: refErr !== undefined ? 'interpret' : 'sim', message: (refErr ?? simErr)! };
  }
  const { outTypes } = buildKernel(p);
  const types = nodeTypes(p);
  for (let o = 0; o < p.outputs.length; o++) {
    const t = outTypes[o]!;
    const out = p.outputs[o]!;
    const exact = !isApprox(p, types, out.node);
    const node = p.nodes[out.node]!;
    const summed = node.op === 'reduce' || node.op === 'scan' || node.op === 'dot';
    const b = bound(t, summed, p.block);
    const r = ref[o]!, g = got[o]!;
    // a float dot's own bound from its operands (a sum with cancellation is far below Σ|a·b|)
    const dotB = node.op === 'dot' && isFloatT(t) ? dotBounds(p, node, t) : undefined;
    for (let i = 0; i < r.length; i++) {
      const want = value(t, r[i]!);
      if (dotB && Number.isFinite(want) && Number.isFinite(value(t, g[i]!))) {
        const d = Math.abs(value(t, g[i]!) - want);
        if (d <= dotB[i]! + b.abs) continue;
      }
      // pow is ex2(y * lg2|x|) in f32: its relative error grows with |ln result| (docs/compiler.md)
      const bi = node.op === 'binary' && node.fn === 'pow' ? { rel: Math.max(b.rel, 2 ** -20 * (2 + Math.abs(Math.log(Math.abs(want) || 1)))), abs: b.abs } : b;
      const ok = exact ? same(t, g[i]!, r[i]!) : close(value(t, g[i]!), want, bi, summed, MAX_FINITE[t]);
      if (!ok) {
        return { status: 'different', diff: { output: o, index: i, dtype: t, exact, interpret: String(value(t, r[i]!)), sim: String(value(t, g[i]!)) } };
      }
    }
  }
  return { status: 'same' };
}
