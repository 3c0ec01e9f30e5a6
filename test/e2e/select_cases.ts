// Selection ops (max/min with indices; sort, topk) as kernels over a ragged R x C row-major
// matrix, with plain-JS references. Shared by select_sm80/select_sm90 (the sim as each GPU) and
// select_interpret (the interpreter alone): every case runs on the interpreter and the sim.
import { expect } from 'vitest';
import { arange, constexpr, load, max, min, programId, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { expectBitwise, lcg, runBoth } from './helpers.js';

export const R = 37, C = 100, BR = 4, BC = 128;
export const grid = [Math.ceil(R / BR)];

type Num = 'f32' | 'i32';

const edgeOf = (which: 'max' | 'min', dt: Num): number => (dt === 'f32' ? (which === 'max' ? -Infinity : Infinity) : which === 'max' ? -(2 ** 31) : 2 ** 31 - 1);

/** Row-wise max or min with indices: vals[r], idx[r]. Masked columns read -/+inf (or the i32 edge). */
export const maxMinKernel = (which: 'max' | 'min', dt: Num, tieBreakLeft: boolean) => kernel(
  { name: `${which}_idx_${dt}_${tieBreakLeft ? 'left' : 'fast'}`, params: { x: ptr(dt), vals: ptr(dt), idx: ptr('i32'), R: 'i32', C: 'i32', BR: constexpr(), BC: constexpr() } },
  (a) => {
    const rows = programId(0).mul(a.BR).add(arange(0, a.BR));
    const cols = arange(0, a.BC);
    const rmask = rows.lt(a.R);
    const mask = rmask.expandDims(1).and(cols.expandDims(0).lt(a.C));
    const edge = edgeOf(which, dt);
    const x = load(a.x.add(rows.expandDims(1).mul(a.C).add(cols.expandDims(0))), { mask, other: edge });
    const [v, i] = (which === 'max' ? max : min)(x, 1, { returnIndices: true, tieBreakLeft });
    store(a.vals.add(rows), v, { mask: rmask });
    store(a.idx.add(rows), i, { mask: rmask });
  },
);

/** Inputs with many ties, and for f32 NaNs, infinities and signed zeros. */
export function maxMinInput(dt: Num, seed: number): Float32Array | Int32Array {
  const r = lcg(seed);
  if (dt === 'i32') return Int32Array.from({ length: R * C }, () => Math.floor(r() * 40) - 20 + (r() < 0.05 ? 2 ** 31 - 100 : 0));
  const x = Float32Array.from({ length: R * C }, () => Math.floor(r() * 40) / 4 - 5);
  const specials = [NaN, Infinity, -Infinity, -0, 0];
  for (let i = 0; i < R * C; i++) if (r() < 0.02) x[i] = specials[Math.floor(r() * specials.length)]!;
  for (let c = 0; c < C; c++) { x[5 * C + c] = -Infinity; x[6 * C + c] = 7; } // a row all -inf, a row of one value
  return x;
}

/** Reference: the extreme (NaN counts as the extreme) and the first index holding it. */
export function maxMinRef(which: 'max' | 'min', x: ArrayLike<number>, r: number): { v: number; i: number } {
  let bi = 0;
  for (let c = 1; c < C; c++) {
    const a = x[r * C + c]!, b = x[r * C + bi]!;
    if (Number.isNaN(b)) break;
    if (Number.isNaN(a) || (which === 'max' ? a > b : a < b)) bi = c;
  }
  return { v: x[r * C + bi]!, i: bi };
}

export async function checkMaxMin(which: 'max' | 'min', dt: Num, tieBreakLeft: boolean): Promise<void> {
  const x = maxMinInput(dt, dt === 'f32' ? 11 : 12);
  const Ctor = dt === 'f32' ? Float32Array : Int32Array;
  const k = maxMinKernel(which, dt, tieBreakLeft);
  const res = await runBoth(k, { x, vals: new Ctor(R), idx: new Int32Array(R), R, C, BR, BC }, grid);
  for (const dev of ['interpret', 'sim'] as const) {
    const vals = res[dev].vals as Float32Array | Int32Array, idx = res[dev].idx as Int32Array;
    for (let r = 0; r < R; r++) {
      const want = maxMinRef(which, x, r);
      const what = `${which} ${dt} tieBreakLeft=${tieBreakLeft} on ${dev}, row ${r}`;
      expect(Object.is(vals[r], want.v) || (want.v === 0 && vals[r] === 0), `${what}: value ${vals[r]} vs ${want.v}`).toBe(true);
      if (tieBreakLeft) expect(idx[r], `${what}: index`).toBe(want.i);
      else {
        // any tied index of the padded row (masked columns read the edge value, which can tie)
        const i = idx[r]!;
        expect(i >= 0 && i < BC, `${what}: index ${i} in range`).toBe(true);
        const got = i < C ? x[r * C + i]! : edgeOf(which, dt);
        expect(Number.isNaN(want.v) ? Number.isNaN(got) : got === want.v, `${what}: x[${i}] = ${got} holds ${want.v}`).toBe(true);
      }
    }
  }
  if (tieBreakLeft) expectBitwise(res.sim.idx as Int32Array, res.interpret.idx as Int32Array, `${which} ${dt}: sim vs interpreter indices`);
  expectBitwise(res.sim.vals as Float32Array, res.interpret.vals as Float32Array, `${which} ${dt}: sim vs interpreter values`);
}
