import { describe, expect, it } from 'vitest';
import type { BinaryFn, UnaryFn } from '../../src/ir/ops.js';
import { f16Array, f16ToFloat32, bf16Array, bf16ToFloat32 } from '../../src/ir/half.js';
import { ewKernel, rng, runEw } from './build.js';
import { erf } from '../../src/interpret/float.js';

const N = 1000; // not a multiple of the block: the last program is ragged
const BLOCK = 128;

function randF32(n: number, seed: number, scale = 100): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => (r() - 0.5) * scale);
}

describe('f32 binary ops match Math on f32 values, rounded once', () => {
  const refs: Record<string, (a: number, b: number) => number> = {
    add: (a, b) => a + b, sub: (a, b) => a - b, mul: (a, b) => a * b, div: (a, b) => a / b,
    rem: (a, b) => a % b, min: (a, b) => Math.min(a, b), max: (a, b) => Math.max(a, b),
    floordiv: (a, b) => Math.floor(a / b),
  };
  for (const [fn, ref] of Object.entries(refs)) {
    it(fn, () => {
      const a = randF32(N, 1), b = randF32(N, 2);
      const out = runEw(ewKernel(['f32', 'f32'], 'f32', BLOCK, (k, [x, y]) => k.bin(fn as BinaryFn, x!, y!)), [a, b], new Float32Array(N), BLOCK);
      const want = Float32Array.from(a, (v, i) => ref(v, b[i]!));
      expect(Array.from(out)).toEqual(Array.from(want));
    });
  }
  it('pow follows C: pow(1, NaN) = 1', () => {
    const a = Float32Array.from([1, 2, -1, 4]), b = Float32Array.from([NaN, 3, Infinity, 0.5]);
    const out = runEw(ewKernel(['f32', 'f32'], 'f32', 4, (k, [x, y]) => k.bin('pow', x!, y!)), [a, b], new Float32Array(4), 4);
    expect(Array.from(out)).toEqual([1, 8, 1, 2]);
  });
});

describe('f32 unary math is JS Math on the f32 value, rounded back to f32', () => {
  const refs: Record<string, (a: number) => number> = {
    neg: (a) => -a, abs: Math.abs, exp: Math.exp, exp2: (a) => 2 ** a, log: Math.log, log2: Math.log2,
    sqrt: Math.sqrt, rsqrt: (a) => 1 / Math.sqrt(a), sin: Math.sin, cos: Math.cos, tanh: Math.tanh,
    sigmoid: (a) => 1 / (1 + Math.exp(-a)), floor: Math.floor, ceil: Math.ceil,
  };
  for (const [fn, ref] of Object.entries(refs)) {
    it(fn, () => {
      const a = randF32(N, 3, 20);
      const out = runEw(ewKernel(['f32'], 'f32', BLOCK, (k, [x]) => k.un(fn as UnaryFn, x!)), [a], new Float32Array(N), BLOCK);
      expect(Array.from(out)).toEqual(Array.from(a, (v) => Math.fround(ref(v))));
    });
  }
  it('erf matches known values to f32 accuracy', () => {
    // Reference values of erf (Abramowitz & Stegun table 7.1).
    const xs = [0, 0.1, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, -1, -2];
    const want = [0, 0.1124629160, 0.5204998778, 0.8427007929, 0.9661051465, 0.9953222650, 0.9995930480, 0.9999779095, 0.9999992569, -0.8427007929, -0.9953222650];
    const out = runEw(ewKernel(['f32'], 'f32', 16, (k, [x]) => k.un('erf', x!)), [Float32Array.from(xs)], new Float32Array(xs.length), 16);
    out.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(6e-8));
  });
  it('erf in double is within 1 ulp of libm (glibc erf, itself within 1 ulp), ±0 kept', () => {
    // python3: math.erf(x), printed with repr (the old series was 8 ulp off at 2.5)
    const ref: [number, number][] = [
      [0.1, 0.1124629160182849], [0.5, 0.5204998778130465], [0.8, 0.7421009647076605], [0.9, 0.7969082124228322],
      [1.0, 0.8427007929497149], [1.3, 0.9340079449406524], [1.7, 0.9837904585907745], [2.0, 0.9953222650189527],
      [2.5, 0.999593047982555], [3.0, 0.9999779095030014], [4.2, 0.9999999971445058], [5.5, 0.9999999999999927],
    ];
    const bits = (v: number): bigint => new BigInt64Array(new Float64Array([v]).buffer)[0]!;
    for (const [x, want] of ref) {
      for (const s of [1, -1]) {
        const d = bits(erf(s * x)) - bits(s * want);
        expect(d >= -1n && d <= 1n, `erf(${s * x}) = ${erf(s * x)}, libm ${s * want}`).toBe(true);
      }
    }
    expect(Object.is(erf(-0), -0)).toBe(true);
    expect(Object.is(erf(0), 0)).toBe(true);
  });
});

describe('f16 and bf16: computed in f32, rounded to nearest even at every op', () => {
  for (const [dt, enc, dec] of [['f16', f16Array, f16ToFloat32], ['bf16', bf16Array, bf16ToFloat32]] as const) {
    it(`${dt} add/mul/div/exp`, () => {
      const r = rng(9);
      const a = enc(Array.from({ length: N }, () => (r() - 0.5) * 8));
      const b = enc(Array.from({ length: N }, () => (r() - 0.5) * 8));
      const av = dec(a), bv = dec(b);
      for (const fn of ['add', 'mul', 'div'] as const) {
        const out = runEw(ewKernel([dt, dt], dt, BLOCK, (k, [x, y]) => k.bin(fn, x!, y!)), [a, b], new Uint16Array(N), BLOCK);
        const f = { add: (x: number, y: number) => x + y, mul: (x: number, y: number) => x * y, div: (x: number, y: number) => x / y }[fn];
        const want = enc(Array.from(av, (x, i) => Math.fround(f(x, bv[i]!))));
        expect(Array.from(out)).toEqual(Array.from(want));
      }
      const out = runEw(ewKernel([dt], dt, BLOCK, (k, [x]) => k.un('exp', x!)), [a], new Uint16Array(N), BLOCK);
      expect(Array.from(out)).toEqual(Array.from(enc(Array.from(av, (x) => Math.fround(Math.exp(x))))));
    });
  }
  it('f16 overflow goes to infinity and ties round to even', () => {
    // 2049 is halfway between f16 2048 and 2050: ties to the even mantissa (2048).
    const a = f16Array([65504, 2048, 2048]);
    const b = f16Array([65504, 1, 3]);
    const out = runEw(ewKernel(['f16', 'f16'], 'f16', 4, (k, [x, y]) => k.bin('add', x!, y!)), [a, b], new Uint16Array(3), 4);
    expect(Array.from(f16ToFloat32(out))).toEqual([Infinity, 2048, 2052]);
  });
});

describe('min/max NaN and signed zero', () => {
  it('propagate NaN and order -0 < +0', () => {
    const a = Float32Array.from([NaN, 1, -0, 0, 3]);
    const b = Float32Array.from([1, NaN, 0, -0, 2]);
    const mn = runEw(ewKernel(['f32', 'f32'], 'f32', 8, (k, [x, y]) => k.bin('min', x!, y!)), [a, b], new Float32Array(5), 8);
    const mx = runEw(ewKernel(['f32', 'f32'], 'f32', 8, (k, [x, y]) => k.bin('max', x!, y!)), [a, b], new Float32Array(5), 8);
    expect(Array.from(mn)).toEqual([NaN, NaN, -0, -0, 2]);
    expect(Array.from(mx)).toEqual([NaN, NaN, 0, 0, 3]);
  });
});

describe('integers wrap at their width', () => {
  it('i32 add/sub/mul wrap; u32 too', () => {
    const r = rng(5);
    const a = Int32Array.from({ length: N }, () => (r() * 2 ** 32) | 0);
    const b = Int32Array.from({ length: N }, () => (r() * 2 ** 32) | 0);
    for (const [fn, ref] of [['add', (x: number, y: number) => (x + y) | 0], ['sub', (x: number, y: number) => (x - y) | 0], ['mul', Math.imul]] as const) {
      const out = runEw(ewKernel(['i32', 'i32'], 'i32', BLOCK, (k, [x, y]) => k.bin(fn, x!, y!)), [a, b], new Int32Array(N), BLOCK);
      expect(Array.from(out)).toEqual(Array.from(a, (x, i) => ref(x, b[i]!)));
    }
    const ua = new Uint32Array(a.buffer), ub = new Uint32Array(b.buffer);
    const out = runEw(ewKernel(['u32', 'u32'], 'u32', BLOCK, (k, [x, y]) => k.bin('mul', x!, y!)), [ua, ub], new Uint32Array(N), BLOCK);
    expect(Array.from(out)).toEqual(Array.from(ua, (x, i) => Math.imul(x, ub[i]!) >>> 0));
  });
  it('i8 and u8 wrap', () => {
    const a = Int8Array.from([127, -128, 100, -7]), b = Int8Array.from([1, -1, 3, 2]);
    expect(Array.from(runEw(ewKernel(['i8', 'i8'], 'i8', 4, (k, [x, y]) => k.bin('add', x!, y!)), [a, b], new Int8Array(4), 4))).toEqual([-128, 127, 103, -5]);
    expect(Array.from(runEw(ewKernel(['i8', 'i8'], 'i8', 4, (k, [x, y]) => k.bin('mul', x!, y!)), [a, b], new Int8Array(4), 4))).toEqual([127, -128, 44, -14]);
    const ua = Uint8Array.from([255, 0, 200]), ubb = Uint8Array.from([1, 1, 100]);
    expect(Array.from(runEw(ewKernel(['u8', 'u8'], 'u8', 4, (k, [x, y]) => k.bin('add', x!, y!)), [ua, ubb], new Uint8Array(3), 4))).toEqual([0, 1, 44]);
    expect(Array.from(runEw(ewKernel(['u8', 'u8'], 'u8', 4, (k, [x, y]) => k.bin('sub', x!, y!)), [ua, ubb], new Uint8Array(3), 4))).toEqual([254, 255, 100]);
  });
  it('i64 wraps through BigInt', () => {
    const max = (1n << 63n) - 1n;
    const a = BigInt64Array.from([max, -max - 1n, 3n, 1n << 40n]);
    const b = BigInt64Array.from([1n, -1n, -5n, 1n << 30n]);
    const add = runEw(ewKernel(['i64', 'i64'], 'i64', 4, (k, [x, y]) => k.bin('add', x!, y!)), [a, b], new BigInt64Array(4), 4);
    expect(Array.from(add)).toEqual([-max - 1n, max, -2n, (1n << 40n) + (1n << 30n)]);
    const mul = runEw(ewKernel(['i64', 'i64'], 'i64', 4, (k, [x, y]) => k.bin('mul', x!, y!)), [a, b], new BigInt64Array(4), 4);
    expect(Array.from(mul)).toEqual(Array.from(a, (x, i) => BigInt.asIntN(64, x * b[i]!)));
  });
  it('div/rem are C (truncating), floordiv is Python, division by zero is all-ones / dividend', () => {
    const a = Int32Array.from([7, -7, 7, -7, 5, -2147483648, -5]);
    const b = Int32Array.from([2, 2, -2, -2, 0, -1, 0]);
    const run = (fn: BinaryFn) => Array.from(runEw(ewKernel(['i32', 'i32'], 'i32', 8, (k, [x, y]) => k.bin(fn, x!, y!)), [a, b], new Int32Array(7), 8));
    expect(run('div')).toEqual([3, -3, -3, 3, -1, -2147483648, -1]);
    expect(run('rem')).toEqual([1, -1, 1, -1, 5, 0, -5]);
    expect(run('floordiv')).toEqual([3, -4, -4, 3, -1, -2147483648, -1]);
    const ua = Uint32Array.from([7, 9]), ubb = Uint32Array.from([0, 0]);
    const ud = runEw(ewKernel(['u32', 'u32'], 'u32', 2, (k, [x, y]) => k.bin('div', x!, y!)), [ua, ubb], new Uint32Array(2), 2);
    expect(Array.from(ud)).toEqual([0xffffffff, 0xffffffff]);
    const a64 = BigInt64Array.from([-7n, 7n, 9n]), b64 = BigInt64Array.from([2n, -2n, 0n]);
    const fd = runEw(ewKernel(['i64', 'i64'], 'i64', 4, (k, [x, y]) => k.bin('floordiv', x!, y!)), [a64, b64], new BigInt64Array(3), 4);
    expect(Array.from(fd)).toEqual([-4n, -4n, -1n]);
  });
  it('shifts by >= width give 0 (or the sign for signed shr); shr is arithmetic for signed', () => {
    const a = Int32Array.from([1, -8, -8, 5, 1]);
    const b = Int32Array.from([31, 1, 40, 32, -1]);
    const shl = runEw(ewKernel(['i32', 'i32'], 'i32', 8, (k, [x, y]) => k.bin('shl', x!, y!)), [a, b], new Int32Array(5), 8);
    expect(Array.from(shl)).toEqual([-2147483648, -16, 0, 0, 0]);
    const shr = runEw(ewKernel(['i32', 'i32'], 'i32', 8, (k, [x, y]) => k.bin('shr', x!, y!)), [a, b], new Int32Array(5), 8);
    expect(Array.from(shr)).toEqual([0, -4, -1, 0, 0]);
    const ua = Uint32Array.from([0x80000000, 0xff]), ubb = Uint32Array.from([31, 32]);
    const ushr = runEw(ewKernel(['u32', 'u32'], 'u32', 2, (k, [x, y]) => k.bin('shr', x!, y!)), [ua, ubb], new Uint32Array(2), 2);
    expect(Array.from(ushr)).toEqual([1, 0]);
    const i8 = runEw(ewKernel(['i8', 'i8'], 'i8', 4, (k, [x, y]) => k.bin('shl', x!, y!)), [Int8Array.from([1, 1, 3]), Int8Array.from([7, 8, 6])], new Int8Array(3), 4);
    expect(Array.from(i8)).toEqual([-128, 0, -64]);
  });
  it('bitwise and/or/xor/not on random i32', () => {
    const r = rng(77);
    const a = Int32Array.from({ length: N }, () => (r() * 2 ** 32) | 0);
    const b = Int32Array.from({ length: N }, () => (r() * 2 ** 32) | 0);
    for (const [fn, ref] of [['and', (x: number, y: number) => x & y], ['or', (x: number, y: number) => x | y], ['xor', (x: number, y: number) => x ^ y]] as const) {
      const out = runEw(ewKernel(['i32', 'i32'], 'i32', BLOCK, (k, [x, y]) => k.bin(fn, x!, y!)), [a, b], new Int32Array(N), BLOCK);
      expect(Array.from(out)).toEqual(Array.from(a, (x, i) => ref(x, b[i]!)));
    }
    const not = runEw(ewKernel(['i32'], 'i32', BLOCK, (k, [x]) => k.un('not', x!)), [a], new Int32Array(N), BLOCK);
    expect(Array.from(not)).toEqual(Array.from(a, (x) => ~x));
  });
});

describe('cmp and select', () => {
  it('compares (NaN is unordered: only ne is true) and selects', () => {
    const a = Float32Array.from([1, 2, NaN, 4, -0]);
    const b = Float32Array.from([2, 2, NaN, 3, 0]);
    for (const [pred, ref] of [['lt', (x: number, y: number) => x < y], ['le', (x: number, y: number) => x <= y], ['eq', (x: number, y: number) => x === y], ['ne', (x: number, y: number) => x !== y], ['gt', (x: number, y: number) => x > y], ['ge', (x: number, y: number) => x >= y]] as const) {
      const out = runEw(ewKernel(['f32', 'f32'], 'f32', 8, (k, [x, y]) => k.select(k.cmp(pred, x!, y!), x!, y!)), [a, b], new Float32Array(5), 8);
      expect(Array.from(out)).toEqual(Array.from(a, (x, i) => (ref(x, b[i]!) ? x : b[i]!)));
    }
  });
});

describe('every integer dtype against a BigInt reference (random, ragged)', () => {
  const dtypes = [['i32', Int32Array, 32, true], ['u32', Uint32Array, 32, false], ['i16', Int16Array, 16, true], ['i8', Int8Array, 8, true], ['u8', Uint8Array, 8, false]] as const;
  const trunc = (a: bigint, b: bigint) => a / b; // BigInt division truncates like C
  const refs: Record<string, (a: bigint, b: bigint, w: number, signed: boolean) => bigint> = {
    add: (a, b) => a + b, sub: (a, b) => a - b, mul: (a, b) => a * b,
    div: (a, b) => (b === 0n ? -1n : trunc(a, b)), rem: (a, b) => (b === 0n ? a : a % b),
    floordiv: (a, b) => (b === 0n ? -1n : (a % b !== 0n && (a < 0n) !== (b < 0n) ? trunc(a, b) - 1n : trunc(a, b))),
    min: (a, b) => (a < b ? a : b), max: (a, b) => (a > b ? a : b),
    and: (a, b) => a & b, or: (a, b) => a | b, xor: (a, b) => a ^ b,
    shl: (a, b, w) => (b < 0n || b >= BigInt(w) ? 0n : a << b),
    shr: (a, b, w, s) => (b < 0n || b >= BigInt(w) ? (s && a < 0n ? -1n : 0n) : a >> b),
  };
  for (const [dt, Arr, w, signed] of dtypes) {
    it(dt, () => {
      const r = rng(w + (signed ? 1 : 0));
      const n = 300;
      const wrap = (v: bigint) => (signed ? BigInt.asIntN(w, v) : BigInt.asUintN(w, v));
      const rand = () => Number(wrap(BigInt(Math.floor(r() * 2 ** 32))));
      const make = (f: (i: number) => number) => {
        const arr = new Arr(n);
        for (let i = 0; i < n; i++) arr[i] = f(i);
        return arr;
      };
      const a = make(rand);
      // Small divisors and shift amounts appear often, zero included.
      const b = make((i) => (i % 3 === 0 ? Number(wrap(BigInt(Math.floor(r() * 40) - 5))) : rand()));
      for (const [fn, ref] of Object.entries(refs)) {
        const out = runEw(ewKernel([dt, dt], dt, 64, (k, [x, y]) => k.bin(fn as BinaryFn, x!, y!)), [a, b], new Arr(n), 64);
        const want = Array.from(a as ArrayLike<number>, (x, i) => Number(wrap(ref(BigInt(x), BigInt(b[i]!), w, signed))));
        expect([fn, Array.from(out as ArrayLike<number>)]).toEqual([fn, want]);
      }
    });
  }
});

describe('f64 arithmetic is plain IEEE double', () => {
  it('add/mul/div/sqrt/exp on random doubles', () => {
    const r = rng(64);
    const a = Float64Array.from({ length: N }, () => (r() - 0.5) * 1e6);
    const b = Float64Array.from({ length: N }, () => (r() - 0.5) * 1e-3);
    for (const [fn, ref] of [['add', (x: number, y: number) => x + y], ['mul', (x: number, y: number) => x * y], ['div', (x: number, y: number) => x / y]] as const) {
      const out = runEw(ewKernel(['f64', 'f64'], 'f64', BLOCK, (k, [x, y]) => k.bin(fn, x!, y!)), [a, b], new Float64Array(N), BLOCK);
      expect(Array.from(out)).toEqual(Array.from(a, (x, i) => ref(x, b[i]!)));
    }
    const out = runEw(ewKernel(['f64'], 'f64', BLOCK, (k, [x]) => k.un('exp', x!)), [b], new Float64Array(N), BLOCK);
    expect(Array.from(out)).toEqual(Array.from(b, Math.exp));
  });
});
