// erfc (its own IR op: accurate where erf rounds to 1), erfinv and lgamma on the interpreter and on the sim compiled
// for sm_80 and sm_90a, against a high-precision reference (test/codegen/math-ref.ts: a BigInt
// series and continued fraction), in ulps of the result's type, down to erfc's underflow (x ≈ 10
// in f32, 26.5 in f64) and through the subnormal results. erfinv's reference inverts that erfc in
// f64 (bisection, then Newton); lgamma's is an f64 evaluation of its own (series about 1 and 2,
// upward recurrence to Stirling at 30) that keeps relative accuracy at the zeros 1 and 2; both are
// exact enough for f32 results, and f64 results are held to a looser bound against them. The
// bounds are the ones docs/language.md states.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { arange, load, ptr, store, type Tile } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { erfcNumber, erfNumber, ulpOf, ulpVs } from '../codegen/math-ref.js';
import { lcg } from './helpers.js';

/** x with erf(x) = y, in f64: the residual through the accurate erfc for |y| > 0.5. */
function erfinvRef(y: number): number {
  if (Number.isNaN(y) || Math.abs(y) > 1) return NaN;
  if (y === 0 || Math.abs(y) === 1) return y === 0 ? y : y * Infinity;
  const a = Math.abs(y);
  if (a < 1e-6) return y * (Math.sqrt(Math.PI) / 2) * (1 + (Math.PI / 12) * y * y); // the next term is below 1e-24 relative
  const g = (x: number) => (a <= 0.5 ? erfNumber(x) - a : 1 - a - erfcNumber(x)); // increasing in x
  let lo = 0, hi = 30;
  for (let i = 0; i < 200 && hi - lo > 1e-300; i++) { const m = (lo + hi) / 2; if (m === lo || m === hi) break; if (g(m) < 0) lo = m; else hi = m; }
  return Math.sign(y) * (lo + hi) / 2;
}

/** zeta(s) - 1 by direct summation (s >= 2; 2^20 terms plus Euler-Maclaurin's tail, the last term counted once). */
const zm1 = (s: number): number => { const M = 2 ** 20; let t = M ** (1 - s) / (s - 1) - M ** -s / 2 + (s * M ** (-s - 1)) / 12; for (let n = 2 ** 20; n >= 2; n--) t += n ** -s; return t; };
let ZM1: number[] | undefined;
/** lgamma in f64 with relative accuracy at its zeros 1 and 2. */
function lgammaRef(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (!Number.isFinite(x)) return Infinity;
  if (x <= 0 && Number.isInteger(x)) return Infinity;
  if (x < 0) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * (x - Math.round(x))))) - lgammaRef(1 - x);
  ZM1 ??= Array.from({ length: 80 }, (_, s) => (s >= 2 ? zm1(s) : 0));
  // lgamma(1 + t) = -gamma t + sum_{k>=2} (-1)^k zeta(k)/k t^k; lgamma(2 + t) = lgamma(1 + t) + log1p(t)
  const about1 = (t: number): number => { let s = 0; for (let k = 79; k >= 2; k--) s = s * t + ((k % 2 ? -1 : 1) * (1 + ZM1![k]!)) / k; return t * (s * t - 0.5772156649015329); };
  if (x < 0.5) return about1(x) - Math.log(x);
  if (x < 1.5) return about1(x - 1);
  if (x < 2.5) { const t = x - 2; let s = 0; for (let k = 79; k >= 2; k--) s = s * t + ((k % 2 ? -1 : 1) * ZM1![k]!) / k; return t * (s * t + 1 - 0.5772156649015329); }
  if (x >= 30) {
    const w = 1 / x, w2 = w * w;
    return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + w * (1 / 12 + w2 * (-1 / 360 + w2 * (1 / 1260 + w2 * (-1 / 1680 + w2 * (1 / 1188)))));
  }
  // down to [1.5, 2.5): lgamma(x) = lgamma(x - n) + log((x-1)...(x-n))
  let p = 1, y = x;
  while (y >= 2.5) { y -= 1; p *= y; }
  return lgammaRef(y) + Math.log(p);
}
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';

const N = 256;
type Fmt = 'f32' | 'f64';
const WHERE = ['interpret', ...SIM_TARGETS] as const;

interface Case {
  fn: (x: Tile) => Tile;
  ref: (x: number) => number;
  /** random inputs per format from [lo, hi], after the extra values */
  range: Record<Fmt, [number, number]>;
  extra: Record<Fmt, number[]>;
  /** max error in ulps: [f32, f64] */
  ulps: [number, number];
  /** x < 0: the error in ulps of max(1, |result|) (lgamma's reflection cancels near its negative zeros) */
  negAbsolute?: boolean;
}

const SPECIAL = [0, -0, Infinity, -Infinity, NaN];
const CASES: Record<string, Case> = {
  erfc: {
    fn: (x) => L.erfc(x), ref: erfcNumber,
    range: { f32: [-4, 10.5], f64: [-6, 27] },
    extra: {
      f32: [...SPECIAL, 1e-10, -1e-10, 0.5, 0.874, 0.875, 0.876, 1, 2, 3.99, 4, 4.01, 5, 7, 9, 9.2, 9.5, 10, 10.05, 10.06, 10.2, 11, 100, -1, -0.9, -4, -10, 3e38],
      f64: [...SPECIAL, 1e-300, -1e-20, 0.5, 0.874, 0.875, 0.876, 1, 2, 4, 5.99, 6, 6.01, 10, 15, 20, 25, 26, 26.5, 26.6, 27, 27.3, 28, 100, -1, -6, -30, 1e300],
    },
    ulps: [2.5, 3],
  },
  erfinv: {
    fn: (x) => L.erfinv(x), ref: erfinvRef,
    range: { f32: [-1, 1], f64: [-1, 1] },
    extra: {
      f32: [...SPECIAL, 1, -1, 1.5, -2, 1e-30, -1e-10, 0.5, -0.5, 0.50001, 0.9, 0.99, 0.999, 0.99999, 0.9999999, 1 - 2 ** -24, -(1 - 2 ** -24), 1e-40],
      f64: [...SPECIAL, 1, -1, 1.5, -2, 1e-300, -1e-10, 0.5, -0.5, 0.50001, 0.9, 0.99, 0.999, 0.99999, 0.9999999, 1 - 2 ** -30, 1 - 2 ** -53, -(1 - 2 ** -53), 1e-310],
    },
    ulps: [2, 2.5],
  },
  lgamma: {
    fn: (x) => L.lgamma(x), ref: lgammaRef,
    range: { f32: [0, 40], f64: [0, 40] },
    extra: {
      f32: [...SPECIAL, 1, 2, 3, 0.5, 1.5, 2.5, 0.9999999, 1.0000001, 1.9999999, 2.0000002, 1.4616321, 1e-10, 1e-40, 0.25, 11.9, 12, 12.1, 30, 100, 1e4, 1e10, 1e30, 3e38, -0.5, -1, -2, -1.5, -2.5, -10.3, -100.5, -1e10, 5, 7.5, 10],
      f64: [...SPECIAL, 1, 2, 3, 0.5, 1.5, 2.5, 1 - 2 ** -52, 1 + 2 ** -52, 2 - 2 ** -51, 2 + 2 ** -51, 1.4616321449683622, 1e-300, 0.25, 11.9, 12, 12.1, 30, 100, 1e4, 1e10, 1e300, -0.5, -1, -2, -1.5, -2.5, -10.3, -100.5, -1e20, 5, 7.5, 10],
    },
    ulps: [2, 2.5], negAbsolute: true,
  },
};

const k = (name: string, t: Fmt, c: Case) => kernel(
  { name: `ms_${name}_${t}`, params: { x: ptr(t), o: ptr(t) } },
  ({ x, o }) => {
    const i = arange(0, N);
    store(o.add(i), c.fn(load(x.add(i))));
  },
);

function inputs(t: Fmt, c: Case, seed: number): Float32Array | Float64Array {
  const x = new (t === 'f32' ? Float32Array : Float64Array)(N);
  const r = lcg(seed);
  const [lo, hi] = c.range[t], extra = c.extra[t];
  for (let i = 0; i < N; i++) x[i] = i < extra.length ? extra[i]! : lo + (hi - lo) * r();
  return x;
}

describe.each(Object.keys(CASES))('%s', (name) => {
  const c = CASES[name]!;
  it.each(['f32', 'f64'] as Fmt[])('%s: within the stated ulps of the reference on the interpreter, sm_80 and sm_90a', async (t) => {
    const x = inputs(t, c, name.length * 11 + (t === 'f32' ? 1 : 2));
    const out = await runEverywhere(k(name, t, c), { x, o: new (t === 'f32' ? Float32Array : Float64Array)(N) }, 1);
    const bound = c.ulps[t === 'f32' ? 0 : 1];
    for (const where of WHERE) {
      const o = out[where].o as Float32Array | Float64Array;
      let worst = 0, at = 0, worstWhat = '';
      for (let i = 0; i < N; i++) {
        const want = c.ref(x[i]!);
        const what = `${name}(${x[i]}) on ${where} (${t}): got ${o[i]}, want ${want}`;
        if (Number.isNaN(want)) { expect(o[i], what).toBeNaN(); continue; }
        const w = t === 'f32' ? Math.fround(want) : want;
        if (w === 0 || !Number.isFinite(w)) { expect(Object.is(o[i], w), what).toBe(true); continue; }
        const e = c.negAbsolute && x[i]! < 0 ? Math.abs(o[i]! - want) / ulpOf(Math.max(1, Math.abs(want)), t) : ulpVs(o[i]!, want, t);
        if (e > worst) [worst, at, worstWhat] = [e, x[i]!, what];
      }
      if (process.env['TESSERA_MATH_REPORT']) console.log(`${name} ${t} ${where}: max ${worst.toFixed(3)} ulp at ${at}`);
      expect(worst, worstWhat).toBeLessThanOrEqual(bound);
    }
  });
});
