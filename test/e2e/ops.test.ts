// Per-op conformance: one small kernel per (op, dtype) runs on the interpreter and on the sim; the
// results must agree bit for bit (the interpreter defines the semantics). i32 and f32 binary ops
// are also checked against plain JS. Unary math is compared with a tolerance (approximate PTX math).
import { describe, expect, it } from 'vitest';
import type { BinaryFn, Func, UnaryFn } from '../../src/ir/ops.js';
import type { DType } from '../../src/ir/types.js';
import { kernel, P } from '../codegen/dsl.js';
import { CTOR, expectBitwise, expectClose, fill, runBoth, simDevice, type Buf } from './helpers.js';

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
    expectBitwise(r.sim[2] as Buf, r.interpret[2] as Buf, `${fn} ${t}: sim vs interpreter`);
    const ref = t === 'i32' ? I32_REF[fn] : t === 'f32' ? F32_REF[fn] : undefined;
    if (ref) {
      const xs = x as unknown as ArrayLike<number>, ys = y as unknown as ArrayLike<number>;
      const want = new (CTOR[t] as unknown as new (a: number[]) => Buf)(Array.from({ length: N }, (_, i) => ref(xs[i]!, ys[i]!)));
      expectBitwise(r.sim[2] as Buf, want, `${fn} ${t}: sim vs JS`);
    }
  });
});

describe('casts: sim == interpreter, bit for bit', () => {
  const CASTS: [DType, DType][] = [
    ['f32', 'i32'], ['i32', 'f32'], ['f32', 'f16'], ['f16', 'f32'], ['f32', 'bf16'], ['bf16', 'f32'], ['i32', 'i8'],
    ['i8', 'i64'], ['u32', 'i64'], ['f64', 'f32'], ['i64', 'i32'], ['f32', 'u8'], ['f16', 'bf16'], ['u8', 'f32'],
    ['f32', 'i8'], ['f32', 'i16'], ['f32', 'u32'], ['f32', 'i64'], ['f64', 'i32'], ['i32', 'bool'], ['bool', 'f32'],
  ];
  it.each(CASTS)('%s -> %s', async (from, to) => {
    const f = kernel(`c_${from}_${to}`, [['x', P(from)], ['o', P(to)]], (k, [x, o]) => {
      const i = k.arange(N);
      k.store(k.addptr(o!, i), k.cast(k.load(k.addptr(x!, i)), to));
    });
    const x = fill(from, N, 3);
    const r = await runBoth(f, [x, new CTOR[to](N)], 1);
    expectBitwise(r.sim[1] as Buf, r.interpret[1] as Buf, `cast ${from}->${to}`);
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
