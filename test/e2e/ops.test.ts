// Per-op conformance: one small kernel per (op, dtype) runs on the interpreter and on the sim; the
// results must agree bit for bit (the interpreter defines the semantics). i32 and f32 binary ops
// are also checked against plain JS. Unary math is compared with a tolerance (approximate PTX math).
import { describe, expect, it } from 'vitest';
import type { BinaryFn, Func, UnaryFn } from '../../src/ir/ops.js';
import type { DType } from '../../src/ir/types.js';
import { kernel, P } from '../codegen/dsl.js';
import { f16ToFloat32 } from '../../src/ir/half.js';
import { CTOR, expectBitwise, expectClose, expectSame, fill, runBoth, simDevice, type Buf } from './helpers.js';

const N = 256;

const binKernel = (t: DType, fn: BinaryFn): Func => kernel(`b_${fn}_${t}`, [['x', P(t)], ['y', P(t)], ['o', P(t)]], (k, [x, y, o]) => {
  const i = k.arange(N);
  k.store(k.addptr(o!, i), k.bin(fn, k.load(k.addptr(x!, i)), k.load(k.addptr(y!, i))));
});

/** Plain-JS i32 semantics (docs/semantics.md): wrapping, division truncates, x/0 = -1, x%0 = x. */
const I32_REF: Partial<Record<BinaryFn, (a: number, b: number) => number>> = {
  add: (a, b) => (a + b) | 0,
  sub: (a, b) => (a - b) | 0,
  mul: (a, b) => Math.imul(a, b),
  and: (a, b) => a & b,
  or: (a, b) => a | b,
  xor: (a, b) => a ^ b,
  min: (a, b) => Math.min(a, b),
  max: (a, b) => Math.max(a, b),
};
const F32_REF: Partial<Record<BinaryFn, (a: number, b: number) => number>> = {
  add: (a, b) => Math.fround(a + b),
  sub: (a, b) => Math.fround(a - b),
  mul: (a, b) => Math.fround(a * b),
  div: (a, b) => Math.fround(a / b),
  min: (a, b) => Math.min(a, b),
  max: (a, b) => Math.max(a, b),
};

it('the sim device is available (a missing library fails here)', () => {
  expect(simDevice().description).toMatch(/^sim/);
});

describe('binary ops: sim == interpreter, bit for bit', () => {
  const INT_OPS: BinaryFn[] = ['add', 'sub', 'mul', 'div', 'floordiv', 'rem', 'and', 'or', 'xor', 'min', 'max'];
  const FLOAT_OPS: BinaryFn[] = ['add', 'sub', 'mul', 'div', 'min', 'max'];
  const cases: [DType, BinaryFn][] = [
    ...(['i32', 'u32', 'i8', 'u8', 'i16', 'i64'] as DType[]).flatMap((t) => INT_OPS.map((fn) => [t, fn] as [DType, BinaryFn])),
    ...(['f32', 'f64', 'f16', 'bf16'] as DType[]).flatMap((t) => FLOAT_OPS.map((fn) => [t, fn] as [DType, BinaryFn])),
  ];
  it.each(cases)('%s %s', async (t, fn) => {
    const x = fill(t, N, 1), y = fill(t, N, 2);
    const r = await runBoth(binKernel(t, fn), [x, y, new CTOR[t](N)], 1);
    expectSame(t, r.sim[2] as Buf, r.interpret[2] as Buf, `${fn} ${t}: sim vs interpreter`);
    const ref = t === 'i32' ? I32_REF[fn] : t === 'f32' ? F32_REF[fn] : undefined;
    if (ref) {
      const xs = x as unknown as ArrayLike<number>, ys = y as unknown as ArrayLike<number>;
      const want = new (CTOR[t] as unknown as new (a: number[]) => Buf)(Array.from({ length: N }, (_, i) => ref(xs[i]!, ys[i]!)));
      expectSame(t, r.sim[2] as Buf, want, `${fn} ${t}: sim vs JS`);
    }
  });
});

describe('casts: sim == interpreter, bit for bit', () => {
  const CASTS: [DType, DType][] = [
    ['f32', 'i32'], ['i32', 'f32'], ['f32', 'f16'], ['f16', 'f32'], ['f32', 'bf16'], ['bf16', 'f32'], ['i32', 'i8'],
    ['i8', 'i64'], ['u32', 'i64'], ['f64', 'f32'], ['i64', 'i32'], ['f32', 'u8'], ['f16', 'bf16'], ['u8', 'f32'],
    ['f32', 'i8'], ['f32', 'i16'], ['f32', 'u32'], ['f32', 'i64'], ['f64', 'i32'], ['i32', 'bool'], ['bool', 'f32'],
    ['f64', 'f16'], ['f64', 'bf16'], ['i64', 'f32'], ['u32', 'f32'], ['f16', 'i32'], ['bf16', 'i32'], ['f32', 'bool'],
    ['i8', 'u8'], ['u8', 'i8'], ['i16', 'f16'], ['f16', 'f64'], ['i64', 'f64'], ['u32', 'f64'], ['i32', 'u32'],
  ];
  it.each(CASTS)('%s -> %s', async (from, to) => {
    const f = kernel(`c_${from}_${to}`, [['x', P(from)], ['o', P(to)]], (k, [x, o]) => {
      const i = k.arange(N);
      k.store(k.addptr(o!, i), k.cast(k.load(k.addptr(x!, i)), to));
    });
    const x = fill(from, N, 3);
    const r = await runBoth(f, [x, new CTOR[to](N)], 1);
    expectSame(to, r.sim[1] as Buf, r.interpret[1] as Buf, `cast ${from}->${to}`);
    if (from === 'i32' && to === 'f32') expectBitwise(r.sim[1] as Buf, Float32Array.from(x as Int32Array), 'i32->f32 vs JS');
    if (from === 'f16' && to === 'f32') {
      // f16 -> f32 is exact: decode the bit patterns in JS.
      const dec = (h: number) => (h & 0x8000 ? -1 : 1) * ((h >> 10) & 31 ? 2 ** (((h >> 10) & 31) - 15) * (1 + (h & 1023) / 1024) : 2 ** -14 * ((h & 1023) / 1024));
      expectBitwise(r.sim[1] as Buf, Float32Array.from(x as Uint16Array, dec), 'f16->f32 vs JS');
    }
  });
});

describe('unary math (f32): sim within 2e-6 relative of the interpreter and of JS', () => {
  const JS: Partial<Record<UnaryFn, (v: number) => number>> = {
    exp: Math.exp, log: Math.log, sqrt: Math.sqrt, sin: Math.sin, tanh: Math.tanh, floor: Math.floor, abs: Math.abs,
    neg: (v) => -v, sigmoid: (v) => 1 / (1 + Math.exp(-v)),
  };
  const FNS: UnaryFn[] = ['exp', 'log', 'sqrt', 'sin', 'tanh', 'sigmoid', 'erf', 'floor', 'abs', 'neg'];
  it.each(FNS)('%s', async (fn) => {
    const f = kernel(`u_${fn}`, [['x', P('f32')], ['o', P('f32')]], (k, [x, o]) => {
      const i = k.arange(N);
      k.store(k.addptr(o!, i), k.b.op('unary', [k.load(k.addptr(x!, i))], [{ elem: 'f32', shape: [N] }], { fn, precise: true }).results[0]!);
    });
    // Moderate inputs (|v| <= 10) so JS's f64 results are meaningful references for f32 math.
    const x = Float32Array.from({ length: N }, (_, i) => {
      const v = ((i * 37) % N) / N * 20 - 10;
      return fn === 'log' || fn === 'sqrt' ? Math.abs(v) + 1e-3 : v;
    });
    const r = await runBoth(f, [x, new Float32Array(N)], 1);
    const sim = r.sim[1] as Float32Array, interp = r.interpret[1] as Float32Array;
    expectClose(sim, interp, 2e-6, `${fn}: sim vs interpreter`);
    const js = JS[fn];
    if (js) expectClose(sim, Array.from(x, js), 2e-6, `${fn}: sim vs JS`);
  });
});

describe('more binary ops: shifts, float rem and pow', () => {
  const cases: [DType, BinaryFn][] = [
    ...(['i32', 'u32', 'i8', 'u8', 'i16', 'i64'] as DType[]).flatMap((t) => (['shl', 'shr'] as BinaryFn[]).map((fn) => [t, fn] as [DType, BinaryFn])),
    ['f32', 'rem'], ['f64', 'rem'], ['f32', 'pow'],
  ];
  it.each(cases)('%s %s', async (t, fn) => {
    const x = fill(t, N, 4);
    // shift amounts 0 .. 2x the bit width (out-of-range shifts are defined in docs/semantics.md)
    const y = t.startsWith('f') ? fill(t, N, 5)
      : t === 'i64' ? BigInt64Array.from({ length: N }, (_, i) => BigInt(i % 130))
      : Object.assign(new CTOR[t](N), {}) as Buf;
    if (!t.startsWith('f') && t !== 'i64') for (let i = 0; i < N; i++) (y as unknown as number[])[i] = i % (t.endsWith('8') ? 17 : t === 'i16' ? 33 : 65);
    // pow lowers to ex2(y * lg2|x|) with the sign of a negative base for odd integer y (NaN for a
    // non-integer y), and the C special cases pow(x, 0) = pow(1, y) = pow(-1, +-inf) = 1.
    if (fn === 'pow') {
      for (let i = 0; i < N; i++) {
        const mag = i % 11 === 0 ? 0 : i % 17 === 0 ? 1 : 0.25 + Math.abs((x as Float32Array)[i]! % 4);
        (x as Float32Array)[i] = i % 3 === 0 ? -mag : mag;
        (y as Float32Array)[i] = ((i % 13) - 6) / 2;
      }
      (y as Float32Array)[17] = NaN; (y as Float32Array)[34] = Infinity; (x as Float32Array)[3] = NaN; (y as Float32Array)[3] = 0;
      (x as Float32Array)[51] = -1; (y as Float32Array)[51] = -Infinity; (x as Float32Array)[66] = -0; (y as Float32Array)[66] = -3;
      (x as Float32Array)[69] = -Infinity; (y as Float32Array)[69] = 0.5; (x as Float32Array)[72] = -Infinity; (y as Float32Array)[72] = 3;
    }
    const r = await runBoth(binKernel(t, fn), [x, y, new CTOR[t](N)], 1);
    if (fn === 'pow') {
      // pow is approximate math in PTX (ex2(y * lg2 x)): relative 1e-6 of each other and of JS
      expectClose(r.sim[2] as Float32Array, r.interpret[2] as Float32Array, 1e-6, 'pow: sim vs interpreter');
      const cpow = (v: number, e: number): number => (e === 0 || v === 1 || (v === -1 && !Number.isFinite(e) && !Number.isNaN(e)) ? 1 : v ** e);
      expectClose(r.sim[2] as Float32Array, Array.from(x as Float32Array, (v, i) => cpow(v, (y as Float32Array)[i]!)), 1e-5, 'pow: sim vs JS (C pow: JS has 1 ** NaN = NaN)');
      // signs are exact: -0 ** -3 = -inf, (-inf) ** 3 = -inf, (-inf) ** 0.5 = inf
      expect([(r.sim[2] as Float32Array)[66], (r.sim[2] as Float32Array)[69], (r.sim[2] as Float32Array)[72]]).toEqual([-Infinity, Infinity, -Infinity]);
      return;
    }
    expectSame(t, r.sim[2] as Buf, r.interpret[2] as Buf, `${fn} ${t}: sim vs interpreter`);
    if (t === 'i32' && fn === 'shl') {
      const want = Int32Array.from(x as Int32Array, (v, i) => { const s = (y as Int32Array)[i]!; return s >= 32 ? 0 : v << s; });
      expectBitwise(r.sim[2] as Buf, want, 'shl i32 vs JS (shifts >= 32 give 0)');
    }
  });
});

describe('comparisons and select: sim == interpreter == JS', () => {
  const PRED = { eq: (a: number, b: number) => a === b, ne: (a: number, b: number) => a !== b, lt: (a: number, b: number) => a < b, le: (a: number, b: number) => a <= b, gt: (a: number, b: number) => a > b, ge: (a: number, b: number) => a >= b };
  const cases = (['i32', 'u32', 'f32'] as DType[]).flatMap((t) => (Object.keys(PRED) as (keyof typeof PRED)[]).map((p) => [t, p] as const));
  it.each(cases)('%s %s', async (t, pred) => {
    const f = kernel(`cmp_${pred}_${t}`, [['x', P(t)], ['y', P(t)], ['o', P('bool')], ['s', P(t)]], (k, [x, y, o, s]) => {
      const i = k.arange(N);
      const a = k.load(k.addptr(x!, i)), b = k.load(k.addptr(y!, i));
      const c = k.cmp(pred, a, b);
      k.store(k.addptr(o!, i), c);
      k.store(k.addptr(s!, i), k.select(c, a, b));
    });
    const x = fill(t, N, 6), y = fill(t, N, 7);
    // equal pairs, and for f32 NaN and signed zeros (NaN compares false except ne)
    for (let i = 0; i < N; i += 9) (y as unknown as number[])[i] = (x as unknown as number[])[i]!;
    if (t === 'f32') { (x as Float32Array)[3] = NaN; (y as Float32Array)[4] = NaN; (x as Float32Array)[5] = -0; (y as Float32Array)[5] = 0; }
    const r = await runBoth(f, [x, y, new Uint8Array(N), new CTOR[t](N)], 1);
    expectBitwise(r.sim[2] as Buf, r.interpret[2] as Buf, 'cmp: sim vs interpreter');
    expectBitwise(r.sim[3] as Buf, r.interpret[3] as Buf, 'select: sim vs interpreter');
    const xs = x as unknown as number[], ys = y as unknown as number[];
    expectBitwise(r.sim[2] as Buf, Uint8Array.from({ length: N }, (_, i) => +PRED[pred](xs[i]!, ys[i]!)), 'cmp: sim vs JS');
  });
});

describe('more unary math', () => {
  const JS: Partial<Record<UnaryFn, (v: number) => number>> = {
    exp2: (v) => 2 ** v, log2: Math.log2, rsqrt: (v) => 1 / Math.sqrt(v), cos: Math.cos, ceil: Math.ceil,
  };
  const cases: [DType, UnaryFn][] = [
    ['f32', 'exp2'], ['f32', 'log2'], ['f32', 'rsqrt'], ['f32', 'cos'], ['f32', 'ceil'],
    ['f64', 'exp'], ['f64', 'sqrt'], ['f64', 'floor'], ['f16', 'exp'], ['f16', 'abs'], ['bf16', 'neg'],
  ];
  it.each(cases)('%s %s', async (t, fn) => {
    const f = kernel(`u2_${fn}_${t}`, [['x', P(t)], ['o', P(t)]], (k, [x, o]) => {
      const i = k.arange(N);
      k.store(k.addptr(o!, i), k.b.op('unary', [k.load(k.addptr(x!, i))], [{ elem: t, shape: [N] }], { fn, precise: true }).results[0]!);
    });
    const pos = fn === 'log2' || fn === 'rsqrt' || fn === 'sqrt';
    const vals = Array.from({ length: N }, (_, i) => { const v = ((i * 37) % N) / N * 16 - 8; return pos ? Math.abs(v) + 1e-3 : v; });
    const x = t === 'f16' || t === 'bf16' ? Uint16Array.from(fill(t, N, 8) as Uint16Array) : t === 'f64' ? Float64Array.from(vals) : Float32Array.from(vals);
    const r = await runBoth(f, [x, new CTOR[t](N)], 1);
    if (t === 'f32' || t === 'f64') {
      const tol = t === 'f64' ? 1e-14 : 2e-6;
      expectClose(r.sim[1] as Float32Array, r.interpret[1] as Float32Array, tol, `${fn} ${t}: sim vs interpreter`);
      const js = t === 'f32' ? JS[fn] : (Math as unknown as Record<string, (v: number) => number>)[fn];
      if (js) expectClose(r.sim[1] as Float32Array, Array.from(x as Float32Array, js), tol, `${fn} ${t}: sim vs JS`);
    } else {
      // halves: computed in f32 and rounded once, so the bits match
      expectSame(t, r.sim[1] as Buf, r.interpret[1] as Buf, `${fn} ${t}: sim vs interpreter`);
    }
  });
});

describe('reductions per dtype (sum, max, min over 256 + a masked tail)', () => {
  const TYPES: DType[] = ['i32', 'u32', 'i64', 'i8', 'f32', 'f64', 'f16'];
  it.each(TYPES)('%s', async (t) => {
    const f = kernel(`red_${t}`, [['x', P(t)], ['o', P(t)]], (k, [x, o]) => {
      const i = k.arange(N);
      const v = k.load(k.addptr(x!, i));
      k.store(o!, k.reduce(v, 0, 'add'));
      k.store(k.addptr(o!, k.c(1)), k.reduce(v, 0, 'max'));
      k.store(k.addptr(o!, k.c(2)), k.reduce(v, 0, 'min'));
    });
    const x = t === 'f32' ? Float32Array.from({ length: N }, (_, i) => ((i * 29) % 101) - 50) // integers: any order is exact
      : t === 'f64' ? Float64Array.from(fill('f64', N, 9) as Float64Array) : fill(t, N, 9);
    const r = await runBoth(f, [x, new CTOR[t](3)], 1);
    if (t === 'f64') expectClose(r.sim[1] as Float64Array, r.interpret[1] as Float64Array, 1e-13, 'f64: sim vs interpreter');
    else if (t === 'f16') expectClose(f16ToFloat32(r.sim[1] as Uint16Array), f16ToFloat32(r.interpret[1] as Uint16Array), 2e-3, 'f16: sim vs interpreter (sum order)');
    else expectBitwise(r.sim[1] as Buf, r.interpret[1] as Buf, `${t}: sim vs interpreter`);
    if (t === 'i32' || t === 'f32') {
      const xs = Array.from(x as Int32Array);
      const s = t === 'i32' ? xs.reduce((a, b) => (a + b) | 0, 0) : xs.reduce((a, b) => a + b, 0);
      const want = new CTOR[t](3) as unknown as number[];
      want[0] = s; want[1] = Math.max(...xs); want[2] = Math.min(...xs);
      expectBitwise(r.sim[1] as Buf, want as unknown as Buf, `${t}: sim vs JS`);
    }
    if (t === 'f16') {
      // max and min pick an input: exact; the f16 sum may round differently per order
      const s = r.sim[1] as Uint16Array, i = r.interpret[1] as Uint16Array;
      expect([s[1], s[2]]).toEqual([i[1], i[2]]);
    }
  });
});

describe('atomics from 4 programs onto shared addresses', () => {
  const OPS = ['add', 'max', 'min', 'and', 'or', 'xor'] as const;
  // f32/f64: add, max, min (max/min go through integer atomics on the bits; negative values and -0 included).
  const FLOAT_OPS = ['add', 'max', 'min'];
  const cases = (['i32', 'u32', 'f32', 'f64'] as DType[]).flatMap((t) => OPS.filter((op) => (t !== 'f32' && t !== 'f64') || FLOAT_OPS.includes(op)).map((op) => [t, op] as const));
  it.each(cases)('%s atomic %s', async (t, op) => {
    const f = kernel(`at_${op}_${t}`, [['x', P(t)], ['o', P(t)]], (k, [x, o]) => {
      const i = k.bin('add', k.splat(k.bin('mul', k.pid(0), k.c(N)), [N]), k.arange(N));
      // 8 target words: lane j of every program hits word j % 8
      const slot = k.bin('and', k.arange(N), k.c(7, 'i32', [N]));
      k.atomic(op, k.addptr(o!, slot), k.load(k.addptr(x!, i)));
    });
    const floats = (i: number) => (i % 97 === 5 ? -0 : ((i * 13) % 41) - 20.5);
    const x = t === 'f32' ? Float32Array.from({ length: 4 * N }, (_, i) => floats(i))
      : t === 'f64' ? Float64Array.from({ length: 4 * N }, (_, i) => floats(i)) : fill(t, 4 * N, 10);
    const init = t === 'f32' ? Float32Array.from({ length: 8 }, (_, i) => i - 4) : t === 'f64' ? Float64Array.from({ length: 8 }, (_, i) => i - 4) : fill(t, 8, 11);
    const r = await runBoth(f, [x, init], 4);
    // commutative: the final contents agree whatever the order (f32 add of small integers is exact)
    expectBitwise(r.sim[1] as Buf, r.interpret[1] as Buf, `atomic ${op} ${t}: sim vs interpreter`);
  });
});
