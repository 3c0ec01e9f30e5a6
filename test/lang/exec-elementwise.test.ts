// Elementwise ops on the interpreter against plain-JS references (random inputs, ragged edges).
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import * as L from '../../src/lang/index.js';
import type { Tile } from '../../src/lang/index.js';
import { f16Bits, f16Value } from '../../src/ir/half.js';
import { closeTo } from './run.js';
import { N, randomValues, reference, runElementwise } from './ew.js';

const f32 = Math.fround;
const nonzero = (v: number[]) => v.map((x) => (x === 0 ? 3 : x));

function erfRef(x: number): number {
  // Series / continued fraction accurate to ~1e-12 for |x| <= 8.
  const ax = Math.abs(x);
  if (ax < 2.5) {
    let term = ax, sum = ax;
    for (let k = 1; k < 80; k++) {
      term *= (-ax * ax) / k;
      sum += term / (2 * k + 1);
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  let cf = 0;
  for (let k = 60; k >= 1; k--) cf = (k / 2) / (ax + cf);
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + cf);
  return Math.sign(x) * (1 - erfc);
}

describe('binary f32 ops', () => {
  const a = randomValues('f32', N, 1), b = randomValues('f32', N, 2);
  const cases: [string, (x: Tile, y: Tile) => Tile, (x: number, y: number) => number][] = [
    ['add', (x, y) => x.add(y), (x, y) => x + y],
    ['sub', (x, y) => L.sub(x, y), (x, y) => x - y],
    ['mul', (x, y) => x.mul(y), (x, y) => x * y],
    ['div', (x, y) => x.div(y), (x, y) => x / y],
    ['rem', (x, y) => x.rem(y), (x, y) => x % y],
    ['minimum', (x, y) => L.minimum(x, y), Math.min],
    ['maximum', (x, y) => x.maximum(y), Math.max],
    ['literal mix', (x, y) => x.mul(2).add(y.div(4)).sub(1), (x, y) => f32(f32(f32(x * 2) + f32(y / 4)) - 1)],
    ['where', (x, y) => L.where(x.lt(y), x, y.mul(3)), (x, y) => (x < y ? x : y * 3)],
    ['clamp', (x, y) => x.clamp(-1, 2.5), (x) => Math.min(Math.max(x, -1), 2.5)],
  ];
  for (const [name, fn, ref] of cases) {
    it(name, () => {
      const got = runElementwise([{ dtype: 'f32', values: a }, { dtype: 'f32', values: b }], 'f32', fn, name.replace(/\W/g, '_'));
      expect(got).toEqual(reference('f32', [a, b], ref));
    });
  }
  it('pow and fma', () => {
    const pos = a.map(Math.abs);
    const got = runElementwise([{ dtype: 'f32', values: pos }, { dtype: 'f32', values: b }], 'f32', (x, y) => x.pow(y.mul(0.25)), 'p');
    closeTo(got, reference('f32', [pos, b], (x, y) => x ** f32(y * 0.25)), 2e-6, 1e-30);
    const got2 = runElementwise([{ dtype: 'f32', values: a }, { dtype: 'f32', values: b }], 'f32', (x, y) => L.fma(x, y, x), 'fma');
    closeTo(got2, reference('f32', [a, b], (x, y) => x * y + x), 1e-7, 1e-6);
  });
});

describe('unary math (f32)', () => {
  const a = randomValues('f32', N, 3, -6, 6);
  const pos = a.map((x) => Math.abs(x) + 0.01).map(f32);
  const cases: [string, number[], (x: Tile) => Tile, (x: number) => number][] = [
    ['neg', a, (x) => x.neg(), (x) => -x],
    ['abs', a, (x) => L.abs(x), Math.abs],
    ['exp', a, (x) => x.exp(), Math.exp],
    ['exp2', a, (x) => L.exp2(x), (x) => 2 ** x],
    ['log', pos, (x) => x.log(), Math.log],
    ['log2', pos, (x) => x.log2(), Math.log2],
    ['sqrt', pos, (x) => x.sqrt(), Math.sqrt],
    ['sqrtRn', pos, (x) => L.sqrtRn(x), Math.sqrt],
    ['rsqrt', pos, (x) => x.rsqrt(), (x) => 1 / Math.sqrt(x)],
    ['sin', a, (x) => x.sin(), Math.sin],
    ['cos', a, (x) => L.cos(x), Math.cos],
    ['tanh', a, (x) => x.tanh(), Math.tanh],
    ['sigmoid', a, (x) => x.sigmoid(), (x) => 1 / (1 + Math.exp(-x))],
    ['erf', a, (x) => x.erf(), erfRef],
    ['floor', a, (x) => x.floor(), Math.floor],
    ['ceil', a, (x) => L.ceil(x), Math.ceil],
  ];
  for (const [name, input, fn, ref] of cases) {
    it(name, () => {
      const got = runElementwise([{ dtype: 'f32', values: input }], 'f32', fn, name);
      closeTo(got, reference('f32', [input], ref), 4e-6, 4e-7);
    });
  }
});

describe('integer ops (i32), negative operands', () => {
  const a = randomValues('i32', N, 4, -1000, 1000), b = nonzero(randomValues('i32', N, 5, -40, 40));
  const sh = randomValues('i32', N, 6, 0, 31);
  const cases: [string, number[], (x: Tile, y: Tile) => Tile, (x: number, y: number) => number][] = [
    ['add', b, (x, y) => x.add(y), (x, y) => x + y],
    ['sub', b, (x, y) => x.sub(y), (x, y) => x - y],
    ['mul', b, (x, y) => x.mul(y).mul(12345), (x, y) => Math.imul(Math.imul(x, y), 12345)],
    ['floordiv', b, (x, y) => x.floordiv(y), (x, y) => Math.floor(x / y)],
    ['rem (sign of dividend)', b, (x, y) => x.rem(y), (x, y) => x % y],
    ['div (true division in f32)', b, (x, y) => x.div(y).mul(1000).to('i32'), (x, y) => Math.trunc(f32(f32(x / y) * 1000))],
    ['and', b, (x, y) => x.and(y), (x, y) => x & y],
    ['or', b, (x, y) => L.or(x, y), (x, y) => x | y],
    ['xor', b, (x, y) => x.xor(y), (x, y) => x ^ y],
    ['not', b, (x) => x.not(), (x) => ~x],
    ['shl', sh, (x, y) => x.shl(y), (x, y) => x << y],
    ['shr (arithmetic)', sh, (x, y) => x.shr(y), (x, y) => x >> y],
    ['minimum', b, (x, y) => x.minimum(y), Math.min],
    ['abs', b, (x) => x.abs(), Math.abs],
    ['cdiv', b, (x, y) => x.abs().cdiv(y.abs()), (x, y) => Math.ceil(Math.abs(x) / Math.abs(y))],
    ['where with literal', b, (x, y) => L.where(x.gt(y), x, -7), (x, y) => (x > y ? x : -7)],
  ];
  for (const [name, second, fn, ref] of cases) {
    it(name, () => {
      const got = runElementwise([{ dtype: 'i32', values: a }, { dtype: 'i32', values: second }], 'i32', fn, 'k');
      expect(got).toEqual(reference('i32', [a, second], ref));
    });
  }
  it('u32 shr is logical; u8 wraps', () => {
    const u = randomValues('u32', N, 7, 0, 2 ** 32 - 1);
    const got = runElementwise([{ dtype: 'u32', values: u }], 'u32', (x) => x.shr(3), 'k');
    expect(got).toEqual(reference('u32', [u], (x) => x >>> 3));
    const v = randomValues('u8', N, 8, 0, 255);
    const got8 = runElementwise([{ dtype: 'u8', values: v }], 'u8', (x) => x.add(x.add(L.full([], 200, 'u8'))), 'k');
    expect(got8).toEqual(reference('u8', [v], (x) => (x + x + 200) & 255));
  });
});

describe('comparisons and logical ops -> bool', () => {
  const a = randomValues('i32', N, 9, -5, 5), b = randomValues('i32', N, 10, -5, 5);
  const cases: [string, (x: Tile, y: Tile) => Tile, (x: number, y: number) => boolean][] = [
    ['eq', (x, y) => x.eq(y), (x, y) => x === y], ['ne', (x, y) => x.ne(y), (x, y) => x !== y],
    ['lt', (x, y) => x.lt(y), (x, y) => x < y], ['le', (x, y) => x.le(y), (x, y) => x <= y],
    ['gt', (x, y) => L.gt(x, y), (x, y) => x > y], ['ge', (x, y) => x.ge(y), (x, y) => x >= y],
    ['logicalAnd', (x, y) => x.logicalAnd(y), (x, y) => x !== 0 && y !== 0],
    ['logicalOr', (x, y) => x.logicalOr(y), (x, y) => x !== 0 || y !== 0],
    ['logicalNot', (x) => x.logicalNot(), (x) => x === 0],
    ['bool and/xor', (x, y) => x.gt(0).and(y.gt(0)).xor(x.eq(y)), (x, y) => (x > 0 && y > 0) !== (x === y)],
  ];
  for (const [name, fn, ref] of cases) {
    it(name, () => {
      const got = runElementwise([{ dtype: 'i32', values: a }, { dtype: 'i32', values: b }], 'bool', fn, 'k');
      expect(got).toEqual(reference('bool', [a, b], (x, y) => (ref(x, y) ? 1 : 0)));
    });
  }
});

describe('casts', () => {
  const a = randomValues('f32', N, 11, -300, 300);
  const cases: [DType, (x: number) => number][] = [
    ['i32', Math.trunc], ['i8', (x) => Math.trunc(x)], ['f64', (x) => x], ['bool', (x) => (x !== 0 ? 1 : 0)],
  ];
  for (const [to, ref] of cases) {
    it(`f32 -> ${to}`, () => {
      const src = to === 'i8' ? a.map((x) => f32(x / 4)) : a;
      expect(runElementwise([{ dtype: 'f32', values: src }], to, (x) => x.to(to), 'k')).toEqual(reference(to, [src], ref));
    });
  }
  it('f32 -> f16 rounds to nearest even; f16 arithmetic stays f16', () => {
    const got = runElementwise([{ dtype: 'f32', values: a }], 'f16', (x) => x.to('f16'), 'k');
    expect(got).toEqual(a.map((x) => f16Value(f16Bits(x))));
    const h = randomValues('f16', N, 12);
    const got2 = runElementwise([{ dtype: 'f16', values: h }], 'f16', (x) => x.mul(3).add(x), 'k');
    expect(got2).toEqual(h.map((x) => f16Value(f16Bits(f16Value(f16Bits(x * 3)) + x))));
  });
  it('i32 -> f32, u8 (wraps), bitcast f32 <-> i32', () => {
    const i = randomValues('i32', N, 13, -100000, 100000);
    expect(runElementwise([{ dtype: 'i32', values: i }], 'f32', (x) => x.to('f32'), 'k')).toEqual(i);
    expect(runElementwise([{ dtype: 'i32', values: i }], 'u8', (x) => x.to('u8'), 'k')).toEqual(i.map((x) => x & 255));
    const bits = new Int32Array(new Float32Array(a).buffer);
    expect(runElementwise([{ dtype: 'f32', values: a }], 'i32', (x) => x.bitcast('i32'), 'k')).toEqual(Array.from(bits));
    expect(runElementwise([{ dtype: 'i32', values: Array.from(bits) }], 'f32', (x) => L.bitcast(x, 'f32'), 'k')).toEqual(a);
  });
  it('promotion: i32 tile + f32 tile computes in f32; f16 + i32 literal stays f16', () => {
    const i = randomValues('i32', N, 14), f = randomValues('f32', N, 15);
    expect(runElementwise([{ dtype: 'i32', values: i }, { dtype: 'f32', values: f }], 'f32', (x, y) => x.add(y), 'k'))
      .toEqual(reference('f32', [i, f], (x, y) => x + y));
    const h = randomValues('f16', N, 16);
    expect(runElementwise([{ dtype: 'f16', values: h }], 'f16', (x) => x.add(1), 'k')).toEqual(h.map((x) => f16Value(f16Bits(x + 1))));
  });
});

describe('more dtypes and pass-through ops', () => {
  it('i64 arithmetic, bf16 casts, divRn, hints and load cache options', () => {
    const q = randomValues('i64', N, 17, -(2 ** 40), 2 ** 40);
    expect(runElementwise([{ dtype: 'i64', values: q }], 'i64', (x) => x.mul(3).sub(x.shr(2)), 'k'))
      .toEqual(q.map((x) => Number(BigInt(x) * 3n - (BigInt(x) >> 2n))));
    const a = randomValues('f32', N, 18), b = nonzero(randomValues('f32', N, 19));
    const bf = runElementwise([{ dtype: 'f32', values: a }], 'f32', (x) => x.to('bf16').to('f32'), 'k');
    const bfRef = a.map((x) => {
      const u = new Uint32Array(new Float32Array([x]).buffer)[0]!;
      const r = (u + 0x7fff + ((u >>> 16) & 1)) >>> 16; // round to nearest even
      return new Float32Array(new Uint32Array([r << 16]).buffer)[0]!;
    });
    expect(bf).toEqual(bfRef);
    expect(runElementwise([{ dtype: 'f32', values: a }, { dtype: 'f32', values: b }], 'f32', (x, y) => L.divRn(x, y), 'k'))
      .toEqual(reference('f32', [a, b], (x, y) => x / y));
    expect(runElementwise([{ dtype: 'f32', values: a }], 'f32', (x) => x.multipleOf(1).maxContiguous(1).add(0), 'k')).toEqual(a);
  });
  it('i16 / i8 wrap around; mod is rem', () => {
    const a = randomValues('i16', N, 21, -32768, 32767), b = nonzero(randomValues('i16', N, 22, -300, 300));
    expect(runElementwise([{ dtype: 'i16', values: a }, { dtype: 'i16', values: b }], 'i16', (x, y) => x.mul(y).add(x.mod(y)), 'k'))
      .toEqual(reference('i16', [a, b], (x, y) => x * y + (x % y)));
    const c = randomValues('i8', N, 23, -128, 127);
    expect(runElementwise([{ dtype: 'i8', values: c }], 'i8', (x) => x.mul(x).sub(x.shr(1)), 'k'))
      .toEqual(reference('i8', [c], (x) => x * x - (x >> 1)));
  });
  it('view + sum, broadcastTo, expandDims on data', () => {
    const a = randomValues('i32', N, 20, -100, 100);
    // every element becomes the sum of its (aligned) group of 4 (view's order is unspecified, so
    // only order-independent results are checked)
    const got = runElementwise([{ dtype: 'i32', values: a }], 'i32', (x) => {
      const s = x.view([32, 4]).sum(1).sum(0);           // total of the block
      return L.broadcastTo(s, [1]).expandDims(0).broadcastTo([1, 128]).reshape([128]);
    }, 'k');
    const blockTotal = (i: number) => a.slice(Math.floor(i / 128) * 128, Math.floor(i / 128) * 128 + 128).reduce((p, q) => p + q, 0);
    // the last block holds masked-off lanes with unspecified values: check the full blocks
    const full = Math.floor(N / 128) * 128;
    expect(got.slice(0, full)).toEqual(a.slice(0, full).map((_, i) => blockTotal(i)));
  });
});
