// dot(a, b, { inputPrecision: 'tf32x3' }) (Triton's 3xTF32) on the interpreter and on the sim
// compiled for sm_80 (mma.sync) and sm_90a (wgmma), against an f64 reference: within the 3xTF32
// error bound (docs/semantics.md), which plain tf32 on the same inputs exceeds; three tensor-core
// products per dot in the PTX.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { compile } from '../../src/compile/compile.js';
import { randF32 } from './helpers.js';
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';

type Prec = 'tf32' | 'tf32x3';
const M = 64, N = 64;

/** c[M,N] = a[M,K] @ b[K,N], K in steps of BK. */
const matmul = (prec: Prec) => kernel(
  { name: `mm_${prec}`, params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), K: constexpr(), BK: constexpr() } },
  ({ a, b, c, K, BK }) => {
    const rm = arange(0, M), rn = arange(0, N), rk = arange(0, BK as number);
    const [acc] = forLoop(0, K as number, BK as number, [dot(load(a.add(rm.expandDims(1).mul(K as number).add(rk.expandDims(0)))), load(b.add(rk.expandDims(1).mul(N).add(rn.expandDims(0)))), { inputPrecision: prec })], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K as number).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc!, inputPrecision: prec })];
    }, );
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

/** f64 a@b and sum |a||b| per element. */
function reference(a: Float32Array, b: Float32Array, K: number, Kused: number): { value: Float64Array; mag: Float64Array } {
  const value = new Float64Array(M * N), mag = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0, m = 0;
    for (let k = 0; k < Kused; k++) {
      const p = a[i * K + k]! * b[k * N + j]!;
      s += p;
      m += Math.abs(p);
    }
    value[i * N + j] = s;
    mag[i * N + j] = m;
  }
  return { value, mag };
}

/** Largest |got - want| / mag. */
const worst = (got: Float32Array, r: { value: Float64Array; mag: Float64Array }): number =>
  got.reduce((w, g, i) => Math.max(w, Math.abs(g - r.value[i]!) / r.mag[i]!), 0);

describe('dot with inputPrecision tf32x3', () => {
  // K = 64 in steps of 32; the first dot (outside the loop) covers k < 32 and the loop k = 0..63
  // again, so the product is a[:, :32] @ b[:32, :] + a @ b: the reference sums the same terms.
  const K = 64, BK = 32, terms = BK + K;
  const a = randF32(M * K, 11), b = randF32(K * N, 12);
  const ref = reference(a, b, K, K);
  const first = reference(a, b, K, BK);
  const want = { value: ref.value.map((v, i) => v + first.value[i]!), mag: ref.mag.map((v, i) => v + first.mag[i]!) };
  // per product, 3xTF32 errs by at most 2^-21 + 2^-21 (each small rounded to tf32) + 2^-20 (small·small
  // dropped) = 2^-19 of |a||b|; f32 accumulation of 3 products per term adds at most 3·terms·2^-24
  const bound = 2 ** -19 + 3 * terms * 2 ** -24;

  it('is within the 3xTF32 bound of the f64 product on the interpreter, sm_80 and sm_90a; plain tf32 is not', async () => {
    const run = (prec: Prec) => runEverywhere(matmul(prec), { a, b, c: new Float32Array(M * N), K, BK }, 1);
    const x3 = await run('tf32x3');
    const plain = await run('tf32');
    for (const where of ['interpret', ...SIM_TARGETS] as const) {
      const e3 = worst(x3[where].c as Float32Array, want);
      expect(e3, `${where}: tf32x3 worst error / sum|ab|`).toBeLessThanOrEqual(bound);
      const e1 = worst(plain[where].c as Float32Array, want);
      expect(e1, `${where}: plain tf32 is far less accurate`).toBeGreaterThan(5 * bound);
      expect(e3, `${where}: tf32x3 is orders of magnitude closer than tf32 (measured: ~1e-7 vs ~2e-4)`).toBeLessThan(e1 / 100);
    }
  });

  it('an Inf input makes its row NaN (big = Inf, small = Inf - Inf), on every device; other rows stay finite', async () => {
    const ai = a.slice();
    ai[0] = Infinity;
    const out = await runEverywhere(matmul('tf32x3'), { a: ai, b, c: new Float32Array(M * N), K, BK }, 1);
    for (const where of ['interpret', ...SIM_TARGETS] as const) {
      const c = out[where].c as Float32Array;
      expect(c.slice(0, N).every(Number.isNaN), `${where} row 0`).toBe(true);
      expect(c.slice(N).every(Number.isFinite), `${where} other rows`).toBe(true);
    }
  });

  it('runs three tensor-core products per dot (mma.sync on sm_80, wgmma on sm_90a)', () => {
    const count = (prec: Prec, target: 'sm_80' | 'sm_90a', re: RegExp) => (compile(matmul(prec).trace({ K, BK }), { target, ptxas: false }).ptx.match(re) ?? []).length;
    const mma = /mma\.sync\.aligned\.\S+\.tf32/g, wg = /wgmma\.mma_async\.\S+\.tf32/g;
    expect(count('tf32', 'sm_80', mma)).toBeGreaterThan(0);
    expect(count('tf32x3', 'sm_80', mma)).toBe(3 * count('tf32', 'sm_80', mma));
    expect(count('tf32', 'sm_90a', wg)).toBeGreaterThan(0);
    expect(count('tf32x3', 'sm_90a', wg)).toBe(3 * count('tf32', 'sm_90a', wg));
  });
});

it('inputPrecision rejects names it does not know, naming tf32x3 among the allowed', () => {
  const k = kernel({ name: 'bad_prec', params: { a: ptr('f32') } }, ({ a }) => {
    const r = arange(0, 16);
    const t = load(a.add(r.expandDims(1).mul(16).add(r.expandDims(0))));
    dot(t, t, { inputPrecision: 'tf32x4' as never });
  });
  expect(() => k.trace()).toThrow(/inputPrecision must be 'ieee', 'tf32' or 'tf32x3', got 'tf32x4'|inputPrecision must be 'ieee', 'tf32' or 'tf32x3'/);
});
