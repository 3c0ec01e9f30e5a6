// f64 pow is computed in f64 (accurate log2/exp2 sequences), so results outside the f32 range are
// right (1e100, 1e-300) and the relative error stays near 2^-52 * |y log2 x|; C's special cases
// hold in both types. Reference: Math.pow with C's pow(1, y) = pow(x, 0) = pow(-1, +-inf) = 1.
import { describe, expect, it } from 'vitest';
import { kernel, P } from '../codegen/dsl.js';
import { runBoth } from './helpers.js';

const cPow = (x: number, y: number): number => (y === 0 || x === 1 || (x === -1 && Math.abs(y) === Infinity) ? 1 : Math.pow(x, y));

const PAIRS: [number, number][] = [
  [10, 100], [10, -300], [2, 1023], [2, -1074], [1.0000001, 1e9], [-2, 3], [-2, 4], [-2, 0.5], [-0, 3], [-0, -3],
  [0, -1], [-Infinity, 3], [-Infinity, 0.5], [1, NaN], [NaN, 0], [-1, Infinity], [0.5, Infinity], [3, 0.5],
  [1e-300, 0.5], [123.456, 7.89], [7, 2], [1e10, 30], [-1e10, 31], [0.999, -1e5],
];
const N = 32;

const powK = kernel('pow_f64', [['x', P('f64')], ['y', P('f64')], ['o', P('f64')]], (k, [x, y, o]) => {
  const i = k.arange(N);
  k.store(k.addptr(o!, i), k.bin('pow', k.load(k.addptr(x!, i)), k.load(k.addptr(y!, i))));
});

describe('f64 pow', () => {
  it('matches Math.pow within 2^-52 * (2 + |y log2 x|) relative, exactly on the special cases', async () => {
    const x = new Float64Array(N).fill(1.5), y = new Float64Array(N).fill(2);
    PAIRS.forEach(([a, b], i) => { x[i] = a; y[i] = b; });
    const r = await runBoth(powK, [x, y, new Float64Array(N)], 1);
    for (const [dev, got] of [["sim", r.sim[2] as Float64Array], ["interpret", r.interpret[2] as Float64Array]] as const) for (let i = 0; i < N; i++) {
      const want = cPow(x[i]!, y[i]!);
      const what = `${dev}: pow(${x[i]}, ${y[i]}): got ${got[i]}, want ${want}`;
      if (!Number.isFinite(want) || want === 0) expect(Object.is(got[i], want) || (Number.isNaN(want) && Number.isNaN(got[i]!)), what).toBe(true);
      else expect(Math.abs(got[i]! - want) / Math.abs(want), what).toBeLessThanOrEqual(2 ** -52 * (4 + (Math.abs(y[i]! * Math.log2(Math.abs(x[i]!))) || 0)));
    }
  });
});
