// The differential check of every cast pair and of the elementwise math on f16/bf16/f64: one
// kernel per source dtype casts a batch of values (specials, NaN payloads, ±0, subnormals, values
// next to the rounding ties of each narrower format, saturation edges, random bit patterns) to
// every dtype and bitcasts it to every other dtype of its width; one kernel per float dtype applies
// every unary and binary op and fma. The interpreter (docs/semantics.md) and the PTX of a target,
// run on the sim, must agree: bit for bit (any NaN for any NaN after arithmetic or a cast; bitcasts
// keep the payload), approximate transcendentals within one ulp of the dtype (four for f64).
import { expect } from 'vitest';
import { bitWidth, isRtzCast, ptrOf, tile, type DType } from '../../src/ir/types.js';
import type { BinaryFn, Func, UnaryFn, Value } from '../../src/ir/ops.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import type { Target } from '../../src/compile/compile.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../../src/ir/half.js';
import { kernel, type K } from '../codegen/dsl.js';
import { gateTargets } from '../codegen/gate.js';
import { CTOR, expectBitwise, expectSame, lcg, runOn, runSimCompiled } from './helpers.js';

export const CAST_DTYPES: readonly DType[] = ['f64', 'f32', 'f16', 'bf16', 'i64', 'i32', 'u32', 'i16', 'i8', 'u8', 'bool'];
const FLOATS = new Set<DType>(['f64', 'f32', 'f16', 'bf16']);
// elements per program: the cast kernels hold 4 per thread, the (larger) math kernels 1
const CAST_BLOCK = 512;
const MATH_BLOCK = 128;


/** Doubles next to the round-to-nearest ties of a format with p significant bits (both sides, and on them). */
function nearTies(p: number, r: () => number, n: number, emin = -20, emax = 40): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const e = emin + Math.floor(r() * (emax - emin));
    const m = 2 ** (p - 1) + Math.floor(r() * 2 ** (p - 1)); // p-bit significand
    const off = [0, 2 ** -(2 + Math.floor(r() * 28)), -(2 ** -(2 + Math.floor(r() * 28)))][i % 3]!;
    const v = (m + 0.5 + off) * 2 ** (e - p + 1);
    out.push(r() < 0.5 ? -v : v);
  }
  return out;
}

/** Float inputs (as numbers; NaN payloads are set by `floatBits`). */
function floatValues(t: DType, r: () => number): number[] {
  const specials = [
    0, -0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, Infinity, -Infinity,
    2 ** -149, -(2 ** -149), 2 ** -126, 3 * 2 ** -140, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -14, 2 ** -133, 2 ** -134, 3 * 2 ** -135,
    1e-310, -5e-324, 2 ** -1022, 1.7976931348623157e308, 3.4028234663852886e38, 3.4028235677973366e38, 2 ** 128, -(2 ** 128),
    65504, 65519.99, 65520, -65520, 65536, 127, 127.9, 128, -128, -128.9, -129, 255, 255.9, 256, -1.5,
    32767, 32767.9, 32768, -32768, -32768.9, -32769, 65535.5, 2 ** 31 - 1, 2 ** 31 - 0.5, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1,
    2 ** 32 - 1, 2 ** 32, 2 ** 63, -(2 ** 63), 2 ** 63 - 1024, 2 ** 64, -(2 ** 64), 1e30, -1e30,
    1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -8 - 2 ** -40, -(1 + 2 ** -8 + 2 ** -30), 1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -24 + 2 ** -60,
    (1 + 2 ** -8 + 2 ** -30) * 2 ** -130, (1 + 2 ** -11 + 2 ** -40) * 2 ** -20, 3 * 2 ** -135 + 2 ** -160,
  ];
  const out = [...specials];
  out.push(...nearTies(8, r, 64), ...nearTies(11, r, 64), ...nearTies(24, r, 48), ...nearTies(2, r, 32, 0, 40));
  if (t === 'f64') out.push(...nearTies(8, r, 32, -140, -120), ...nearTies(24, r, 16, -160, -140));
  // random values of every magnitude
  for (let i = 0; i < 200; i++) out.push((r() < 0.5 ? -1 : 1) * (1 + r()) * 2 ** Math.floor(r() * 160 - 80));
  return out;
}

/** NaN bit patterns (quiet and signaling, both signs, payloads) of a float dtype, as array elements. */
function nanBits(t: DType): (number | bigint)[] {
  if (t === 'f64') return [0x7ff8000000000000n, 0xfff8000000000001n, 0x7ff0000000000001n, 0x7ff4000012345678n].map((b) => BigInt.asIntN(64, b));
  if (t === 'f32') return [0x7fc00000, 0xffc00001, 0x7f800001, 0x7fa12345];
  if (t === 'f16') return [0x7e00, 0xfe01, 0x7c01, 0x7d23];
  return [0x7fc0, 0xffc1, 0x7f81, 0x7fa3];
}

function intValues(t: DType, r: () => number): bigint[] {
  const edges = [
    0n, 1n, -1n, 2n, 7n, 127n, 128n, 255n, 256n, -128n, -129n, 32767n, 32768n, -32768n, 65504n, 65519n, 65520n, 65535n, 65536n,
    2049n, 2051n, 4097n, 32785n, 16777217n, 16777219n, 0x01010001n, 0x0101ffffn, 0x40400001n, 0x40400000n, 0x80800001n, 0xffffffffn,
    0x7fffffffn, -0x80000000n, 0x7fffff80n, 0xff7fffffn, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 56n + 2n ** 48n + 1n,
    2n ** 40n + 2n ** 16n + 1n, -(2n ** 60n + 2n ** 52n + 7n), 2n ** 62n + 2n ** 38n + 1n, 2n ** 62n + 2n ** 38n,
  ];
  const out = [...edges];
  // integers next to f32/bf16/f16 ties
  for (const p of [8, 11, 24]) for (const v of nearTies(p + 1, r, 24, p, 62)) out.push(BigInt(Math.trunc(v)) + BigInt(Math.floor(r() * 3) - 1));
  for (let i = 0; i < 200; i++) out.push(BigInt(Math.floor(r() * 2 ** 32)) << 32n | BigInt(Math.floor(r() * 2 ** 32)));
  for (let i = 0; i < 100; i++) out.push(BigInt(Math.floor((r() - 0.5) * 2 ** Math.floor(r() * 33))));
  return out.map((v) => BigInt.asIntN(64, v));
}

/** `n` elements of dtype `t` (f16/bf16 as bit patterns, i64 as BigInt) for the cast kernel of `t`. */
export function castInputs(t: DType, n: number, seed: number): ArrayBufferView & { length: number } {
  const r = lcg(seed);
  const a = new CTOR[t](n) as unknown as { [i: number]: number | bigint; length: number };
  if (FLOATS.has(t)) {
    const vals = floatValues(t, r);
    const nans = nanBits(t);
    for (let i = 0; i < n; i++) {
      if (i % 41 === 7) { a[i] = t === 'f16' || t === 'bf16' ? nans[(i / 41 | 0) % nans.length]! : NaN; continue; }
      const v = i < vals.length ? vals[i]! : vals[Math.floor(r() * vals.length)]!;
      a[i] = t === 'f16' ? f16Bits(v) : t === 'bf16' ? bf16Bits(v) : v;
    }
    if (t !== 'f64') {
      // and random bit patterns of the format
      for (let i = Math.min(vals.length, n); i < n; i += 2) a[i] = t === 'f32' ? new Float32Array(new Uint32Array([Math.floor(r() * 2 ** 32)]).buffer)[0]! : Math.floor(r() * 65536);
    }
    f64NaNs(a as never, t);
    return a as never;
  }
  const vals = intValues(t, r);
  for (let i = 0; i < n; i++) {
    const v = i < vals.length ? vals[i]! : vals[Math.floor(r() * vals.length)]!;
    if (t === 'i64') a[i] = v;
    else if (t === 'bool') a[i] = Number(v & 1n);
    else a[i] = Number(BigInt.asIntN(32, v)); // the typed array wraps to its width
  }
  return a as never;
}

const f64NaNs = (a: ArrayBufferView, t: DType): void => {
  // Float64Array/Float32Array writes canonicalize nothing, but JS numbers lose payloads: write bits.
  if (t !== 'f64' && t !== 'f32') return;
  const view = t === 'f64' ? new BigInt64Array(a.buffer, a.byteOffset, a.byteLength / 8) : new Int32Array(a.buffer, a.byteOffset, a.byteLength / 4);
  const nans = nanBits(t);
  for (let i = 7, k = 0; i < view.length; i += 41, k++) (view as unknown as { [i: number]: number | bigint })[i] = nans[k % nans.length]!;
};

interface CastOut { readonly to: DType; readonly bitcast: boolean; readonly rtz?: boolean }

/** x[i] -> cast to every dtype (float downcasts also toward zero), and bitcast to every other dtype of the same width. */
export function castFunc(from: DType): { func: Func; outs: CastOut[] } {
  const outs: CastOut[] = [
    ...CAST_DTYPES.map((to) => ({ to, bitcast: false })),
    ...CAST_DTYPES.filter((to) => isRtzCast(from, to)).map((to) => ({ to, bitcast: false, rtz: true })),
    ...CAST_DTYPES.filter((to) => to !== from && to !== 'bool' && from !== 'bool' && bitWidth(to) === bitWidth(from)).map((to) => ({ to, bitcast: true })),
  ];
  const params: [string, ReturnType<typeof ptrOf>][] = [['x', ptrOf(from)], ...outs.map((o, i): [string, ReturnType<typeof ptrOf>] => [`o${i}`, ptrOf(o.to)])];
  const func = kernel(`casts_from_${from}`, params, (k, [x, ...os]) => {
    const i = offsets(k, CAST_BLOCK);
    const v = k.load(k.addptr(x!, i));
    const rtz = (to: DType): Value => k.b.op('cast', [v], [tile(to, v.type.shape)], { to, rounding: 'rtz' }).results[0]!;
    outs.forEach((o, j) => k.store(k.addptr(os[j]!, i), o.bitcast ? bitcastOf(k, v, o.to) : o.rtz ? rtz(o.to) : k.cast(v, o.to)));
  });
  return { func, outs };
}

const offsets = (k: K, block: number): Value => k.bin('add', k.splat(k.bin('mul', k.pid(), k.c(block)), [block]), k.arange(block));
const bitcastOf = (k: K, v: Value, to: DType): Value => k.b.op('bitcast', [v], [tile(to, v.type.shape)], { to } as never).results[0]!;

export const EXACT_UNARY: readonly UnaryFn[] = ['neg', 'abs', 'floor', 'ceil', 'sqrt'];
export const APPROX_UNARY: readonly UnaryFn[] = ['exp', 'exp2', 'log', 'log2', 'rsqrt', 'sin', 'cos', 'tanh', 'sigmoid', 'erf'];
export const BINARY: readonly BinaryFn[] = ['add', 'sub', 'mul', 'div', 'rem', 'min', 'max'];

type MathOut = { what: string; approx: boolean };

/** Every unary op on x, every binary op on (x, y), fma(x, y, z), all of dtype t. */
export function mathFunc(t: DType): { func: Func; outs: MathOut[] } {
  const outs: MathOut[] = [
    ...EXACT_UNARY.map((fn) => ({ what: fn, approx: false })),
    ...APPROX_UNARY.map((fn) => ({ what: fn, approx: true })),
    ...BINARY.map((fn) => ({ what: fn, approx: false })),
    { what: 'fma', approx: false },
  ];
  const params: [string, ReturnType<typeof ptrOf>][] = [['x', ptrOf(t)], ['y', ptrOf(t)], ['z', ptrOf(t)], ...outs.map((_, i): [string, ReturnType<typeof ptrOf>] => [`o${i}`, ptrOf(t)])];
  const func = kernel(`math_${t}`, params, (k, [x, y, z, ...os]) => {
    const i = offsets(k, MATH_BLOCK);
    const [a, b, c] = [x, y, z].map((p) => k.load(k.addptr(p!, i))) as [Value, Value, Value];
    const res = [
      ...EXACT_UNARY.map((fn) => k.un(fn, a)),
      ...APPROX_UNARY.map((fn) => k.un(fn, a)),
      ...BINARY.map((fn) => k.bin(fn, a, b)),
      k.b.op('fma', [a, b, c], [tile(t, a.type.shape)], {} as never).results[0]!,
    ];
    res.forEach((v, j) => k.store(k.addptr(os[j]!, i), v));
  });
  return { func, outs };
}

/** Inputs for the math kernel: x, y, z, with fma cases whose product is a tie and z tiny. */
export function mathInputs(t: DType, n: number, seed: number): ArrayBufferView[] {
  const r = lcg(seed);
  const enc = (v: number): number => (t === 'f16' ? f16Bits(v) : t === 'bf16' ? bf16Bits(v) : v);
  const p = t === 'f16' ? 11 : t === 'bf16' ? 8 : 53;
  const xs = new CTOR[t](n) as unknown as number[], ys = new CTOR[t](n) as unknown as number[], zs = new CTOR[t](n) as unknown as number[];
  const vals = floatValues(t, r);
  // fma(x, y, z) with x*y a tie of the format and z tiny, of either sign: one rounding goes the
  // way z says; rounding x*y + z first to f32 (or double) lands on the tie.
  const fmaTies: [number, number, number][] = t === 'f16'
    ? [[3, 683, 2 ** -14], [3, 683, -(2 ** -24)], [5 / 4, 77 / 32, 2 ** -24], [-3, 683, 2 ** -20]]
    : t === 'bf16' ? [[5 / 4, 77 / 32, 2 ** -100], [5 / 4, 77 / 32, -(2 ** -120)], [-5 / 4, 77 / 32, 2 ** -133], [3, 2 + 2 ** -6, 2 ** -60]]
    : [[1 + 2 ** -30, 1 + 2 ** -30, 2 ** -1000], [1 + 2 ** -52, 1 - 2 ** -52, -1]];
  for (let i = 0; i < n; i++) {
    const pick = (): number => (r() < 0.3 ? vals[Math.floor(r() * vals.length)]! : (r() * 8 - 4) * 2 ** Math.floor(r() * 6 - 3));
    let [x, y, z] = [i < vals.length ? vals[i]! : pick(), pick(), pick()];
    if (i % 16 === 3) [x, y, z] = fmaTies[(i >> 4) % fmaTies.length]!;
    else if (i % 16 === 5) {
      // a random product that is a tie: x has p-bit, y 2-bit significands; z tiny
      x = (2 ** (p - 1) + 2 * Math.floor(r() * 2 ** (p - 2)) + 1) * 2 ** (1 - p);
      y = 1.5;
      z = (r() < 0.5 ? -1 : 1) * 2 ** -(30 + Math.floor(r() * (t === 'f16' ? 0 : 60)));
    } else if (i % 16 === 9) x = -(60 + r() * 50); // sigmoid/exp underflow to subnormals
    xs[i] = enc(x);
    ys[i] = enc(y);
    zs[i] = enc(z);
  }
  return [xs as unknown as ArrayBufferView, ys as unknown as ArrayBufferView, zs as unknown as ArrayBufferView];
}

const copy = (args: readonly LaunchArg[]): LaunchArg[] => args.map((a) => (ArrayBuffer.isView(a) ? (a as unknown as { slice(): LaunchArg }).slice() : a));

/** Runs `func` on the interpreter and, compiled for `target`, on the sim; returns both outputs. */
async function both(func: Func, args: LaunchArg[], target: Target, block: number): Promise<{ interp: LaunchArg[]; sim: LaunchArg[] }> {
  const grid = (args[0] as unknown as { length: number }).length / block;
  const interp = copy(args);
  await runOn('interpret', func, interp, grid);
  const sim = runSimCompiled(func, args, grid, { target });
  gateTargets(func, [target]);
  return { interp, sim };
}

export const N = 2048;

/** Every cast from `from` agrees between the interpreter and the sim running `target`'s PTX. */
export async function checkCasts(from: DType, target: Target): Promise<void> {
  const { func, outs } = castFunc(from);
  const x = castInputs(from, N, 1 + CAST_DTYPES.indexOf(from));
  const args: LaunchArg[] = [x as LaunchArg, ...outs.map((o) => new CTOR[o.to](N) as unknown as LaunchArg)];
  const { interp, sim } = await both(func, args, target, CAST_BLOCK);
  outs.forEach((o, j) => {
    const what = `${o.bitcast ? 'bitcast' : o.rtz ? 'cast (rtz)' : 'cast'} ${from} -> ${o.to} on ${target}`;
    const s = sim[j + 1] as ArrayBufferView, w = interp[j + 1] as ArrayBufferView;
    if (o.bitcast) expectBitwise(s, w, what);
    else expectSame(o.to, s, w, `${what} (input at the first difference: ${firstDiff(s as never, w as never, [x], from, o.to)})`);
  });
}

/** Position of a float's bit pattern on the number line (for distances in ulps); NaN: undefined. */
function ordered(t: DType, v: number): bigint | undefined {
  if (t === 'f16' || t === 'bf16') {
    const x = t === 'f16' ? f16Value(v) : bf16Value(v);
    if (x !== x) return undefined;
    return BigInt(v & 0x8000 ? -(v & 0x7fff) : v & 0x7fff);
  }
  if (v !== v) return undefined;
  const b = new BigInt64Array(new Float64Array([v]).buffer)[0]!;
  return b < 0n ? -(b & 0x7fffffffffffffffn) : b;
}

/** Every math op on t agrees: exact ops bit for bit (any NaN), transcendentals within `ulps`. */
export async function checkMath(t: DType, target: Target): Promise<void> {
  const { func, outs } = mathFunc(t);
  const [x, y, z] = mathInputs(t, N, 77 + CAST_DTYPES.indexOf(t));
  const args: LaunchArg[] = [x as LaunchArg, y as LaunchArg, z as LaunchArg, ...outs.map(() => new CTOR[t](N) as unknown as LaunchArg)];
  const { interp, sim } = await both(func, args, target, MATH_BLOCK);
  // halves: the f32 results (a few f32 ulp apart) round to the same half or a neighbour. f64: the
  // compiled sequences are within 2 ulp of exact (math.ts), the interpreter's formulas (sigmoid's
  // 1/(1+exp(-x)): exp, add and div each round) within 2 as well.
  const ulps = t === 'f64' ? 4n : 1n;
  const xs = x as unknown as ArrayLike<number>;
  const value = (v: number): number => (t === 'f16' ? f16Value(v) : t === 'bf16' ? bf16Value(v) : v);
  outs.forEach((o, j) => {
    const s = sim[j + 3] as unknown as ArrayLike<number>, w = interp[j + 3] as unknown as ArrayLike<number>;
    const what = `${o.what} on ${t} (${target})`;
    if (!o.approx) {
      expectSame(t, s as never, w as never, `${what}: inputs at the first difference: ${firstDiff(s, w, [x, y, z], t, t)}`);
      return;
    }
    for (let i = 0; i < N; i++) {
      // sin/cos are accurate after range reduction only for moderate |x| (docs/semantics.md, math.ts)
      if ((o.what === 'sin' || o.what === 'cos') && Math.abs(value(xs[i]!)) > (t === 'f64' ? 1e15 : 4)) continue;
      const a = ordered(t, s[i]!), b = ordered(t, w[i]!);
      if (a === undefined && b === undefined) continue;
      if (a === undefined || b === undefined || (a > b ? a - b : b - a) > ulps) {
        expect.fail(`${what}: element ${i}, x = ${value(xs[i]!)}: sim ${value(s[i]!)}, interpreter ${value(w[i]!)} (${a === undefined || b === undefined ? 'NaN' : (a > b ? a - b : b - a)} ulp apart; at most ${ulps})`);
      }
    }
  });
}

/** The inputs (of dtype `t`) of the first element where the outputs (of dtype `out`) differ. */
function firstDiff(s: ArrayLike<number>, w: ArrayLike<number>, ins: ArrayBufferView[], t: DType, out: DType): string {
  const v = (d: DType, u: number | bigint): number | bigint => (d === 'f16' ? f16Value(Number(u)) : d === 'bf16' ? bf16Value(Number(u)) : u);
  const nan = (u: number | bigint): boolean => typeof v(out, u) === 'number' && Number.isNaN(v(out, u));
  for (let i = 0; i < w.length; i++) {
    if (Object.is(s[i], w[i]) || (nan(s[i]!) && nan(w[i]!))) continue;
    return ins.map((a) => String(v(t, (a as unknown as ArrayLike<number>)[i]!))).join(', ');
  }
  return '-';
}
