import { describe, expect, test } from 'vitest';
import { evalBinary, evalCast, evalCmp, evalUnary, roundBF16, roundF16, roundFloat, wrapInt } from '../../src/ir/numeric.js';

/** Deterministic pseudo-random numbers (xorshift32) so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s;
  };
}

/** Decodes an IEEE half from its bits (reference independent of roundF16). */
function halfFromBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Collects mismatches (plain comparisons: one expect per element would be slow). */
class Mismatches {
  readonly list: string[] = [];
  check(what: string, got: unknown, want: unknown): void {
    if (!Object.is(got, want) && this.list.length < 10) this.list.push(`${what}: got ${String(got)}, want ${String(want)}`);
  }
}

describe('f16 rounding', () => {
  const finite = Array.from({ length: 0x7c00 }, (_, h) => halfFromBits(h)); // +0 .. 65504, ascending

  test('every f16 value is a fixed point and midpoints round to the even neighbour', () => {
    const m = new Mismatches();
    for (let h = 0; h < finite.length; h++) {
      m.check(`${finite[h]}`, roundF16(finite[h]!), finite[h]);
      m.check(`-${finite[h]}`, roundF16(-finite[h]!), -finite[h]!);
      if (h + 1 < finite.length) {
        const mid = (finite[h]! + finite[h + 1]!) / 2;
        m.check(`midpoint ${mid}`, roundF16(mid), finite[h % 2 === 0 ? h : h + 1]);
      }
    }
    expect(m.list).toEqual([]);
  });

  test('random values round to the nearest f16 (binary search reference)', () => {
    const next = rng(7);
    const m = new Mismatches();
    for (let i = 0; i < 20000; i++) {
      const x = (next() / 2 ** 32) * 2 ** ((next() % 40) - 26);
      let lo = 0, hi = finite.length - 1;
      while (hi - lo > 1) {
        const m = (lo + hi) >> 1;
        if (finite[m]! <= x) lo = m; else hi = m;
      }
      const dl = x - finite[lo]!, dh = finite[hi]! - x;
      const want = x >= 65520 ? Infinity : x > finite[hi]! ? finite[hi]! : dl < dh ? finite[lo]! : dh < dl ? finite[hi]! : finite[lo % 2 === 0 ? lo : hi]!;
      m.check(`${x}`, roundF16(x), want);
    }
    expect(m.list).toEqual([]);
  });

  test('overflow, infinities, NaN and signed zero', () => {
    expect(roundF16(65519.99)).toBe(65504);
    expect(roundF16(65520)).toBe(Infinity);
    expect(roundF16(-1e9)).toBe(-Infinity);
    expect(roundF16(Infinity)).toBe(Infinity);
    expect(roundF16(NaN)).toBeNaN();
    expect(Object.is(roundF16(-0), -0)).toBe(true);
    expect(Object.is(roundF16(-(2 ** -26)), -0)).toBe(true); // below half the smallest subnormal
  });
});

describe('bf16 rounding', () => {
  test('matches round-to-nearest-even on the f32 bit pattern', () => {
    const next = rng(11);
    const f = new Float32Array(1), u = new Uint32Array(f.buffer);
    const m = new Mismatches();
    for (let i = 0; i < 20000; i++) {
      u[0] = next();
      const x = f[0]!;
      if (Number.isNaN(x)) continue;
      const bits = u[0]!;
      u[0] = ((bits + 0x7fff + ((bits >>> 16) & 1)) & 0xffff0000) >>> 0;
      m.check(`${x}`, roundBF16(x), f[0]);
    }
    expect(m.list).toEqual([]);
  });
});

describe('integer arithmetic wraps like the hardware', () => {
  const next = rng(3);
  const i32 = (): number => next() | 0;

  test('i32 add/sub/mul/div/rem/shifts agree with JS int32 arithmetic', () => {
    const m = new Mismatches();
    for (let i = 0; i < 2000; i++) {
      const a = i32(), b = i32(), s = next() % 32;
      m.check(`add i32 ${a} ${b}`, evalBinary('add', 'i32', a, b), (a + b) | 0);
      m.check(`sub i32 ${a} ${b}`, evalBinary('sub', 'i32', a, b), (a - b) | 0);
      m.check(`mul i32 ${a} ${b}`, evalBinary('mul', 'i32', a, b), Math.imul(a, b));
      m.check(`div i32 ${a} ${b}`, evalBinary('div', 'i32', a, b), b === 0 ? undefined : Math.trunc(a / b) | 0);
      m.check(`rem i32 ${a} ${b}`, evalBinary('rem', 'i32', a, b), b === 0 ? undefined : (a % b) | 0);
      m.check(`floordiv i32 ${a} ${b}`, evalBinary('floordiv', 'i32', a, b), b === 0 ? undefined : Math.floor(a / b) | 0);
      m.check(`shl i32 ${a} ${b}`, evalBinary('shl', 'i32', a, s), a << s);
      m.check(`shr i32 ${a} ${b}`, evalBinary('shr', 'i32', a, s), a >> s);
      m.check(`shr u32 ${a} ${b}`, evalBinary('shr', 'u32', a >>> 0, s), (a >>> 0) >>> s);
      m.check(`xor u32 ${a} ${b}`, evalBinary('xor', 'u32', a >>> 0, b >>> 0), (a ^ b) >>> 0);
      m.check(`not i32 ${a} ${b}`, evalUnary('not', 'i32', a), ~a);
    }
    expect(m.list).toEqual([]);
  });

  test('narrow and wide types', () => {
    expect(evalBinary('add', 'i8', 127, 1)).toBe(-128);
    expect(evalBinary('sub', 'u8', 0, 1)).toBe(255);
    expect(evalUnary('abs', 'i32', -(2 ** 31))).toBe(-(2 ** 31));
    expect(evalBinary('mul', 'i64', 2n ** 62n, 4n)).toBe(0n);
    expect(evalBinary('add', 'i64', 2n ** 63n - 1n, 1)).toBe(-(2n ** 63n));
    expect(wrapInt('u32', -1n)).toBe(2n ** 32n - 1n);
    expect(evalBinary('shl', 'i32', 1, 32)).toBeUndefined();
    expect(evalBinary('pow', 'i32', 2, 3)).toBeUndefined();
  });
});

describe('float arithmetic rounds once to the dtype', () => {
  test('f32 ops equal Math.fround of the exact result', () => {
    const next = rng(5);
    const f = (): number => Math.fround((next() / 2 ** 32 - 0.5) * 2 ** ((next() % 20) - 10));
    const m = new Mismatches();
    for (let i = 0; i < 2000; i++) {
      const a = f(), b = f();
      m.check(`add ${a} ${b}`, evalBinary('add', 'f32', a, b), Math.fround(a + b));
      m.check(`mul ${a} ${b}`, evalBinary('mul', 'f32', a, b), Math.fround(a * b));
      m.check(`div ${a} ${b}`, evalBinary('div', 'f32', a, b, true), Math.fround(a / b));
    }
    expect(m.list).toEqual([]);
  });

  test('f16 and bf16 results are representable; approximate ops do not fold', () => {
    expect(evalBinary('add', 'f16', 2048, 1)).toBe(2048); // tie -> even
    expect(evalBinary('add', 'f16', 2048, 3)).toBe(2052);
    expect(evalBinary('mul', 'bf16', 1 + 2 ** -7, 1 + 2 ** -7)).toBe(roundBF16((1 + 2 ** -7) ** 2));
    expect(evalBinary('div', 'f32', 1, 3)).toBeUndefined(); // div.full.f32 is approximate
    expect(evalUnary('exp', 'f32', 1)).toBeUndefined();
    expect(evalUnary('sqrt', 'f32', 2)).toBeUndefined();
    expect(evalUnary('sqrt', 'f32', 2, true)).toBe(Math.fround(Math.SQRT2));
  });

  test('min/max propagate NaN and order signed zeros', () => {
    expect(evalBinary('min', 'f32', NaN, 1)).toBeNaN();
    expect(evalBinary('max', 'f32', 1, NaN)).toBeNaN();
    expect(Object.is(evalBinary('min', 'f32', 0, -0), -0)).toBe(true);
    expect(evalCmp('ne', 'f32', NaN, NaN)).toBe(true);
    expect(evalCmp('eq', 'f32', NaN, NaN)).toBe(false);
    expect(evalCmp('lt', 'i64', 2n ** 62n, 2n ** 62n + 1n)).toBe(true);
  });
});

describe('casts', () => {
  test('float -> int truncates toward zero; NaN and out of range do not fold', () => {
    expect(evalCast('f32', 'i32', -2.7)).toBe(-2);
    expect(evalCast('f32', 'u8', 255.9)).toBe(255);
    expect(evalCast('f32', 'u8', 256)).toBeUndefined();
    expect(evalCast('f32', 'i32', NaN)).toBeUndefined();
    expect(evalCast('f64', 'i64', 2 ** 40)).toBe(2n ** 40n);
  });

  test('int, bool and float conversions', () => {
    expect(evalCast('i32', 'i8', 300)).toBe(44);
    expect(evalCast('i32', 'u32', -1)).toBe(2 ** 32 - 1);
    expect(evalCast('i32', 'f16', 2049)).toBe(2048);
    expect(evalCast('i64', 'f32', 2n ** 60n + 1n)).toBeUndefined(); // would round twice
    expect(evalCast('i64', 'f64', 2n ** 60n + 1n)).toBe(2 ** 60);
    expect(evalCast('bool', 'f32', true)).toBe(1);
    expect(evalCast('f32', 'bool', NaN)).toBe(true);
    expect(evalCast('i8', 'bool', 0)).toBe(false);
    expect(evalCast('f64', 'f32', 0.1)).toBe(Math.fround(0.1));
    expect(roundFloat('f64', 0.1)).toBe(0.1);
  });
});
