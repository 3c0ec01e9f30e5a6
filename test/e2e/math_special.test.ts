// erfc (its own IR op: accurate where erf rounds to 1) on the interpreter and on the sim compiled
// for sm_80 and sm_90a, against a high-precision reference (test/codegen/math-ref.ts: a BigInt
// series and continued fraction), in ulps of the result's type, down to erfc's underflow (x ≈ 10
// in f32, 26.5 in f64) and through the subnormal results. The bounds are the ones
// docs/language.md states.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { arange, load, ptr, store, type Tile } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { erfcNumber, ulpVs } from '../codegen/math-ref.js';
import { lcg } from './helpers.js';
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
        const e = ulpVs(o[i]!, want, t);
        if (e > worst) [worst, at, worstWhat] = [e, x[i]!, what];
      }
      if (process.env['TESSERA_MATH_REPORT']) console.log(`${name} ${t} ${where}: max ${worst.toFixed(3)} ulp at ${at}`);
      expect(worst, worstWhat).toBeLessThanOrEqual(bound);
    }
  });
});
