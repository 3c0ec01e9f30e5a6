// The tl.math / libdevice functions of src/lang/math_extra.ts on the interpreter and on the sim
// compiled for sm_80 and sm_90a, against f64 references (V8's Math.*, within 1 ulp; the rounding
// functions exactly), in ulps of the result's type. The bounds asserted here are the ones
// docs/language.md ("More math") states; the exact functions must match bit for bit (signed zeros
// included).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { arange, load, ptr, store, type Tile } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { ulpVs } from '../codegen/math-ref.js';
import { lcg, simDevice } from './helpers.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../../src/ir/half.js';
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';

const N = 256;
type Fmt = 'f32' | 'f64';
const WHERE = ['interpret', ...SIM_TARGETS] as const;

const roundHalfAway = (x: number): number => { const t = Math.trunc(x); return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t; };
const rintRef = (x: number): number => {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x), d = x - f;
  const r = d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
  return r === 0 ? (x < 0 || Object.is(x, -0) ? -0 : 0) : r;
};

interface Case {
  fn: (x: Tile, y: Tile) => Tile;
  ref: (x: number, y: number) => number;
  /** random inputs drawn from [lo, hi] (and y from [ylo, yhi]), plus the extra values */
  lo: number; hi: number; extra: number[];
  ylo?: number; yhi?: number; yextra?: number[];
  /** the reference in f32 when it is not the f64 one rounded (functions of the format's own bits) */
  ref32?: (x: number, y: number) => number;
  /** max error in ulps: [f32, f64]; 0 = bit for bit */
  ulps: [number, number];
}

/** C nextafter in f32 (`w` = 32) or f64, from the bits. */
const nextafterRef = (w: 32 | 64) => (x: number, y: number): number => {
  const F = w === 32 ? Float32Array : Float64Array;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? (w === 32 ? 2 ** -149 : 2 ** -1074) : -(w === 32 ? 2 ** -149 : 2 ** -1074);
  const f = new F([x]);
  const away = (y > x) === (x > 0);
  if (w === 32) { const u = new Int32Array(f.buffer); u[0]! += away ? 1 : -1; } else { const u = new BigInt64Array(f.buffer); u[0] = u[0]! + (away ? 1n : -1n); }
  return f[0]!;
};
/** Exact IEEE remainder of two doubles, in integers (units of 2^-1074). */
const toUnits = (v: number): bigint => {
  const b = new BigUint64Array(new Float64Array([v]).buffer)[0]!;
  const e = Number((b >> 52n) & 0x7ffn), m = b & ((1n << 52n) - 1n);
  const u = e === 0 ? m : (m | (1n << 52n)) << BigInt(e - 1);
  return b >> 63n ? -u : u;
};
const remainderRef = (x: number, y: number): number => {
  if (Number.isNaN(x) || Number.isNaN(y) || !Number.isFinite(x) || y === 0) return NaN;
  if (!Number.isFinite(y)) return x;
  const X = toUnits(x), Y = toUnits(y);
  let n = X / Y; // truncated
  const r2 = 2n * (X - n * Y), ay = Y < 0n ? -Y : Y, ar2 = r2 < 0n ? -r2 : r2;
  const dir = (X < 0n) !== (Y < 0n) ? -1n : 1n;
  if (ar2 > ay || (ar2 === ay && n % 2n !== 0n)) n += dir;
  const R = X - n * Y;
  if (R === 0n) return x < 0 || Object.is(x, -0) ? -0 : 0;
  const len = (R < 0n ? -R : R).toString(2).length, k = Math.max(0, len - 53);
  return Number(R >> BigInt(k)) * 2 ** (k - 1074); // R has at most 53 significant bits: exact
};
/** x · 2ⁿ rounded once to a format of `p` bits whose smallest subnormal is 2^-`e` (f64: 53, 1074). */
const ldexpRef = (p: number, e: number) => (x: number, y: number): number => {
  const n = Math.trunc(y);
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  const X = p === 53 ? (toUnits(a)) : BigInt(a * 2 ** e); // x = X · 2^-e exactly
  const s = n - e, L = X.toString(2).length;
  const g = Math.max(L + s - p, -e); // the result's ulp exponent
  let Q: bigint;
  if (s >= g) Q = X << BigInt(s - g);
  else {
    const sh = BigInt(g - s), q = X >> sh, r = X - (q << sh), half = 1n << (sh - 1n);
    Q = r > half || (r === half && (q & 1n) === 1n) ? q + 1n : q;
  }
  const v = Number(Q) * 2 ** Math.min(g, 0) * 2 ** Math.max(g, 0) / 1; // Q ≤ 2^p: exact, or overflows to inf
  return x < 0 ? -v : v;
};
const NEXT_X = [0, 0, -0, 0, 1, Infinity, -Infinity, 3.4028234663852886e38, 1.7976931348623157e308, NaN, 1, 1e-45, -1e-45, 5e-324, 1, 1, -1, -1, 2 ** -126, 2 ** -1022, -0, 1.5, -3];
const NEXT_Y = [1, -1, 0, -0, 1, 0, 0, Infinity, Infinity, 1, NaN, 0, 0, 0, 2, 0, 0, -2, 0, 0, -1, Infinity, -Infinity];

const SPECIAL = [0, -0, Infinity, -Infinity, NaN, 1e-30, -1e-30, 1, -1];
const unary = (fn: (x: Tile) => Tile, ref: (x: number) => number, lo: number, hi: number, extra: number[], ulps: [number, number]): Case =>
  ({ fn: (x) => fn(x), ref: (x) => ref(x), lo, hi, extra: [...SPECIAL, ...extra], ulps });

const CASES: Record<string, Case> = {
  trunc: unary(L.trunc, Math.trunc, -1e3, 1e3, [-0.3, 0.5, -0.5, 2.5, -2.5, 1e20, 8388607.5, -4503599627370495.5], [0, 0]),
  round: unary(L.round, roundHalfAway, -1e3, 1e3, [-0.3, 0.5, -0.5, 2.5, -2.5, 0.49999997, 1e20, 8388607.5, -4503599627370495.5], [0, 0]),
  rint: unary(L.rint, rintRef, -1e3, 1e3, [-0.3, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 1e20, 8388607.5, -4503599627370495.5, 4503599627370497], [0, 0]),
  copysign: {
    fn: (x, y) => L.copysign(x, y), ref: (x, y) => (Object.is(y, -0) || y < 0 ? -Math.abs(x) : Math.abs(x)),
    lo: -10, hi: 10, extra: [...SPECIAL, 3, 3], ylo: -10, yhi: 10, yextra: [1, -1, 0, -0, Infinity, -Infinity, 2, -2, 0, -0, -0], ulps: [0, 0],
  },
  log1p: unary(L.log1p, Math.log1p, -0.999, 10, [1e-10, -1e-10, 1e-5, -1e-5, 1e30, -1, -2, 0.5, -0.5, 1e-300], [2, 2]),
  expm1: unary(L.expm1, Math.expm1, -20, 20, [1e-10, -1e-10, 1e-5, -1e-5, -100, 80, 88, 100, 700, 710, 0.5, -0.5], [1.5, 2]),
  tan: unary(L.tan, Math.tan, -10, 10, [1e-10, 1.5707, -1.5708, 3.14159, 100, 1000], [3, 2]),
  atan: unary(L.atan, Math.atan, -10, 10, [1e-10, 0.2679, 0.268, 0.5, 2, 1e10, -1e30, 3.7320508], [1.5, 2]),
  atan2: {
    fn: (y, x) => L.atan2(y, x), ref: (y, x) => Math.atan2(y, x),
    lo: -10, hi: 10, extra: [0, -0, 0, -0, 1, -1, Infinity, -Infinity, Infinity, Infinity, NaN, 1, 1e-30, 1e30, 3],
    ylo: -10, yhi: 10, yextra: [0, 0, -0, -0, 0, -0, Infinity, Infinity, -Infinity, 5, 1, NaN, 1e30, 1e-30, -3], ulps: [2, 2],
  },
  asin: unary(L.asin, Math.asin, -1, 1, [0.5, -0.5, 0.99999, -0.9999999, 1.5, -2, 1e-10], [2, 2]),
  acos: unary(L.acos, Math.acos, -1, 1, [0.5, -0.5, 0.99999, -0.9999999, 1.5, -2, 1e-10], [1.5, 3]),
  sinh: unary(L.sinh, Math.sinh, -30, 30, [1e-10, -1e-5, 0.5, 20, 20.5, 40, 40.5, 88, 89, 90, -89, 700, 711], [2, 2]),
  cosh: unary(L.cosh, Math.cosh, -30, 30, [1e-10, -1e-5, 0.5, 20, 20.5, 40, 40.5, 88, 89, 90, -89, 700, 711], [2, 2]),
  asinh: unary(L.asinh, Math.asinh, -100, 100, [1e-10, 0.5, 4096, 4097, 2 ** 28, 1e20, -1e300], [2.5, 1]),
  acosh: unary(L.acosh, Math.acosh, 1, 100, [1.0000001, 1.5, 2, 4096, 4097, 2 ** 28, 1e20, 1e300, 0.5, -1e5, -3], [2, 1]),
  atanh: unary(L.atanh, Math.atanh, -1, 1, [1e-10, 0.5, -0.5, 0.999999, -0.9999999, 2], [2.5, 2]),
  cbrt: unary(L.cbrt, Math.cbrt, -1e6, 1e6, [1e-40, -1e-40, 8, -27, 1e30, 3e38, 1e-310, 1e300, 0.001], [1, 1]),
  hypot: {
    fn: (x, y) => L.hypot(x, y), ref: (x, y) => Math.hypot(x, y),
    lo: -1e3, hi: 1e3, extra: [0, -0, 3, 1e30, 1e-30, 3e38, Infinity, NaN, Infinity, -Infinity, NaN, 1e-40], ylo: -1e3, yhi: 1e3,
    yextra: [0, 0, 4, 1e30, 1e-30, 3e38, NaN, Infinity, 5, 2, 3, 1e-40], ulps: [1.5, 1],
  },
  remainder: {
    fn: (x, y) => L.remainder(x, y), ref: remainderRef,
    lo: -1e3, hi: 1e3, ylo: -20, yhi: 20,
    extra: [5, 7, -5, 6, 6, 3, -3, 0, -0, 1, Infinity, NaN, 1, 1e30, 65504, 1e-40, 3e38, 3e38, 1e300, 2.5, 1.7976931348623157e308, 1e-320, 4.5, -4.5, 1],
    yextra: [2, 2, 2, 4, -4, 2, 2, 3, 3, 0, 3, 1, NaN, 1e-30, 1e-40, 3e-40, 3.4e38, -1e-3, 1e-300, Infinity, 1.5e308, 3e-320, 3, 3, -Infinity],
    ulps: [0, 0],
  },
  ldexp: {
    fn: (x, y) => L.ldexp(x, y.to('i32')), ref: ldexpRef(53, 1074), ref32: ldexpRef(24, 149),
    lo: -10, hi: 10, ylo: -160, yhi: 160,
    extra: [1, 1, 1, 1, 1.5, 3, 0, -0, Infinity, -Infinity, NaN, 1e-45, 5e-324, 1.7976931348623157e308, 3.4e38, 1.2345, 1.2345, 1.75, -1.75, 1, 1, 0.75, 1, -3, 1.5, 1.5, 1e-40, 0.5 + 2 ** -53, 0.5 + 2 ** -24, -(0.5 + 2 ** -24)],
    yextra: [0, 1, -1, 1023, -1074, 1024, 10, -10, -5000, 5000, 3, 200, 2000, -2000, -300, -1070, -140, -1074, -149, -1075, 3000, -1074, 4000000, -4000000, -150, -1075, 300, -1074, -149, -149], // the last three: a pre-scaling that rounded would round twice
    ulps: [0, 0],
  },
  nextafter: {
    fn: (x, y) => L.nextafter(x, y), ref: nextafterRef(64), ref32: nextafterRef(32),
    lo: -10, hi: 10, extra: NEXT_X, ylo: -10, yhi: 10, yextra: NEXT_Y, ulps: [0, 0],
  },
};

const k = (name: string, t: Fmt, c: Case) => kernel(
  { name: `m_${name}_${t}`, params: { x: ptr(t), y: ptr(t), o: ptr(t) } },
  ({ x, y, o }) => {
    const i = arange(0, N);
    store(o.add(i), c.fn(load(x.add(i)), load(y.add(i))));
  },
);

function inputs(t: Fmt, c: Case, seed: number): [Float32Array | Float64Array, Float32Array | Float64Array] {
  const A = t === 'f32' ? Float32Array : Float64Array;
  const r = lcg(seed);
  const x = new A(N), y = new A(N);
  for (let i = 0; i < N; i++) {
    x[i] = i < c.extra.length ? c.extra[i]! : c.lo + (c.hi - c.lo) * r();
    y[i] = i < (c.yextra?.length ?? 0) ? c.yextra![i]! : (c.ylo ?? 0) + ((c.yhi ?? 0) - (c.ylo ?? 0)) * r();
  }
  return [x, y];
}

it('the sim pretends to be an sm_90 (both sm_80 and sm_90a code run on it)', () => {
  expect(simDevice().target).toBe('sm_90a');
});

describe.each(Object.keys(CASES))('%s', (name) => {
  const c = CASES[name]!;
  it.each(['f32', 'f64'] as Fmt[])('%s: within the stated ulps of the f64 reference everywhere', async (t) => {
    const [x, y] = inputs(t, c, name.length * 7 + (t === 'f32' ? 1 : 2));
    const out = await runEverywhere(k(name, t, c), { x, y, o: new (t === 'f32' ? Float32Array : Float64Array)(N) }, 1);
    const bound = c.ulps[t === 'f32' ? 0 : 1];
    for (const where of WHERE) {
      const o = out[where].o as Float32Array | Float64Array;
      let worst = 0;
      for (let i = 0; i < N; i++) {
        const want = (t === 'f32' && c.ref32 ? c.ref32 : c.ref)(x[i]!, y[i]!);
        const what = `${name}(${x[i]}${c.ylo !== undefined ? `, ${y[i]}` : ''}) on ${where} (${t}): got ${o[i]}, want ${want}`;
        if (bound === 0) {
          const w = t === 'f32' ? Math.fround(want) : want;
          expect(Object.is(o[i], w) || (Number.isNaN(w) && Number.isNaN(o[i]!)), what).toBe(true);
          continue;
        }
        if (want === 0 || (t === 'f32' && Math.fround(want) === 0)) {
          // zeros exactly, with the sign of the reference (odd functions keep -0)
          expect(Object.is(o[i], t === 'f32' ? Math.fround(want) : want), `${what} (signed zero)`).toBe(true);
          continue;
        }
        const e = ulpVs(o[i]!, want, t);
        worst = Math.max(worst, e);
        expect(e, what).toBeLessThanOrEqual(bound);
      }
      if (process.env['TESSERA_MATH_REPORT']) console.log(`${name} ${t} ${where}: max ${worst.toFixed(3)} ulp`);
    }
  });
});

describe('classification (bool results)', () => {
  const V = [0, -0, 1, -2.5, Infinity, -Infinity, NaN, 1e-40, 3e38, -1e-45];
  const kk = (t: Fmt) => kernel(
    { name: `cls_${t}`, params: { x: ptr(t), a: ptr('bool'), b: ptr('bool'), c: ptr('bool'), d: ptr('bool') } },
    ({ x, a, b, c, d }) => {
      const i = arange(0, 16);
      const v = load(x.add(i));
      store(a.add(i), L.isnan(v));
      store(b.add(i), L.isinf(v));
      store(c.add(i), L.isfinite(v));
      store(d.add(i), L.signbit(v));
    },
  );
  it.each(['f32', 'f64'] as Fmt[])('%s: isnan, isinf, isfinite, signbit', async (t) => {
    const x = new (t === 'f32' ? Float32Array : Float64Array)(16);
    V.forEach((v, i) => (x[i] = v));
    const z = () => new Uint8Array(16);
    const out = await runEverywhere(kk(t), { x, a: z(), b: z(), c: z(), d: z() }, 1);
    const want = {
      a: Array.from(x, (v) => +Number.isNaN(v)), b: Array.from(x, (v) => +(Math.abs(v) === Infinity)),
      c: Array.from(x, (v) => +Number.isFinite(v)), d: Array.from(x, (v) => +(v < 0 || Object.is(v, -0))),
    };
    for (const where of WHERE) for (const key of ['a', 'b', 'c', 'd'] as const) expect(Array.from(out[where][key] as Uint8Array), `${key} on ${where}`).toEqual(want[key]);
  });
});

it('rejects integer operands by name', () => {
  const bad = (f: (x: Tile) => unknown) => () => kernel({ name: 'bad', params: { x: ptr('i32') } }, ({ x }) => { f(load(x)); }).trace();
  expect(bad((x) => L.log1p(x))).toThrow(/log1p needs floating-point operands, got i32/);
  expect(bad((x) => L.atan2(x, x))).toThrow(/atan2 needs floating-point operands, got i32/);
  const badH = (f: (x: Tile) => unknown) => () => kernel({ name: 'badh', params: { x: ptr('f16') } }, ({ x }) => { f(load(x)); }).trace();
  expect(badH((x) => L.nextafter(x, x))).toThrow(/nextafter needs f32 or f64 operands, got f16/);
  expect(badH((x) => L.ldexp(x, x))).toThrow(/ldexp needs an integer exponent n, got f16/);
  expect(bad((x) => L.ldexp(x, x))).toThrow(/ldexp needs a floating-point x, got i32/);
});

describe('f16 and bf16 compute in f32 and round once', () => {
  const kh = (t: 'f16' | 'bf16') => kernel(
    { name: `mh_${t}`, params: { x: ptr(t), y: ptr(t), a: ptr(t), b: ptr(t), c: ptr(t), d: ptr(t) } },
    ({ x, y, a, b, c, d }) => {
      const i = arange(0, 64);
      const u = load(x.add(i)), v = load(y.add(i));
      store(a.add(i), L.log1p(u));
      store(b.add(i), L.hypot(u, v));
      store(c.add(i), L.round(u));
      store(d.add(i), L.atan2(u, v));
    },
  );
  it.each(['f16', 'bf16'] as const)('%s: log1p, hypot, round, atan2 within 1 ulp of the format (round exactly)', async (t) => {
    const enc = t === 'f16' ? f16Bits : bf16Bits, dec = t === 'f16' ? f16Value : bf16Value;
    const r = lcg(5);
    const x = Uint16Array.from({ length: 64 }, (_, i) => enc(i < 4 ? [0.5, -0.5, 2.5, 1e-3][i]! : (r() - 0.3) * 20));
    const y = Uint16Array.from({ length: 64 }, () => enc((r() - 0.5) * 20));
    const z = () => new Uint16Array(64);
    const out = await runEverywhere(kh(t), { x, y, a: z(), b: z(), c: z(), d: z() }, 1);
    const refs = { a: (p: number) => Math.log1p(p), b: (p: number, q: number) => Math.hypot(p, q), c: roundHalfAway, d: (p: number, q: number) => Math.atan2(p, q) };
    for (const where of WHERE) {
      for (const key of ['a', 'b', 'c', 'd'] as const) {
        const o = out[where][key] as Uint16Array;
        for (let i = 0; i < 64; i++) {
          const p = dec(x[i]!), q = dec(y[i]!), want = refs[key](p, q), got = dec(o[i]!);
          const what = `${t} ${key}(${p}, ${q}) on ${where}: got ${got}, want ${want}`;
          if (Number.isNaN(want)) { expect(Number.isNaN(got), what).toBe(true); continue; }
          // one ulp of the format at the reference: the distance to the next code
          const near = enc(want), ulp = Math.abs(dec(near + 1) - dec(near)) || Math.abs(dec(near) - dec(near - 1));
          expect(Math.abs(got - want), what).toBeLessThanOrEqual(key === 'c' ? 0 : ulp);
        }
      }
    }
  });
});
