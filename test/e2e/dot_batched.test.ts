// Batched dot (Triton's 3-D tl.dot: [B,M,K] x [B,K,N] + [B,M,N]) on the interpreter (the 3-D dot
// run directly) and on the sim compiled for sm_80 and sm_90a (compiler/batched_dot.ts: B 2-D dots,
// on mma.sync / wgmma / FMA as the 2-D dot picks). Inputs are small integers, so every product and
// sum is exact in every dtype here and each device must equal the plain-JS reference bit for bit:
// a swapped batch, row or column cannot hide in a tolerance.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { arange, constexpr, dot, load, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { compile } from '../../src/compile/compile.js';
import { bf16Array, f16Array } from '../../src/ir/half.js';
import { fp8Bits } from '../../src/ir/fp8.js';
import { CTOR, expectBitwise, lcg } from './helpers.js';
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';
import { bmmKernel as bmm, type Case } from './dot_batched_kernel.js';

/** d[b] = a[b] @ b[b] with no accumulator (a fresh zero), one tile, no masks. */
const bmmNoAcc = (ta: DType) => kernel(
  { name: `bmm0_${ta}`, params: { a: ptr(ta), b: ptr(ta), d: ptr('f32'), BB: constexpr(), BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, d, BB, BM, BN, BK }) => {
    const rb = arange(0, BB).expandDims(1).expandDims(2);
    const rm = arange(0, BM).expandDims(0).expandDims(2), rn = arange(0, BN).expandDims(0).expandDims(0);
    const rkRow = arange(0, BK).expandDims(0).expandDims(0), rkCol = arange(0, BK).expandDims(0).expandDims(2);
    const r = dot(load(a.add(rb.mul(BM).add(rm).mul(BK).add(rkRow))), load(b.add(rb.mul(BK).add(rkCol).mul(BN).add(rn))));
    store(d.add(rb.mul(BM).add(rm).mul(BN).add(rn)), r);
  },
);

/** Small integers in [-3, 3] as `t` (bit patterns for halves and fp8) and as numbers. */
function ints(t: DType, n: number, seed: number): { data: ArrayBufferView; values: number[] } {
  const r = lcg(seed);
  const values = Array.from({ length: n }, () => Math.floor(r() * 7) - 3);
  const data = t === 'f16' ? f16Array(values) : t === 'bf16' ? bf16Array(values)
    : t === 'f8e4m3' || t === 'f8e5m2' ? Uint8Array.from(values, (v) => fp8Bits(t, v))
    : (CTOR[t] as unknown as { from(x: number[]): ArrayBufferView }).from(values);
  return { data, values };
}

/** c + a @ b per batch entry, in numbers. */
function reference(a: number[], b: number[], c: number[], Bt: number, M: number, N: number, K: number): number[] {
  const out = c.slice();
  for (let q = 0; q < Bt; q++) for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = out[(q * M + i) * N + j]!;
    for (let k = 0; k < K; k++) s += a[(q * M + i) * K + k]! * b[(q * K + k) * N + j]!;
    out[(q * M + i) * N + j] = s;
  }
  return out;
}

const CASES: Case[] = [
  { ta: 'f16', tc: 'f32' }, { ta: 'bf16', tc: 'f32' }, { ta: 'f16', tc: 'f16' },
  { ta: 'f32', tc: 'f32' }, { ta: 'f32', tc: 'f32', prec: 'ieee' }, { ta: 'i8', tc: 'i32' },
  { ta: 'f8e4m3', tc: 'f32' }, { ta: 'f64', tc: 'f64' },
];

describe('batched (3-D) dot', () => {
  // 4 warps; a k-loop carrying the [B,M,N] accumulator (2 k-steps); ragged: every size cut by masks.
  // Tensor-core dtypes at 2 x 64x32 and 4 x 32x32 tiles per program; the FMA dots (f64, f32 'ieee')
  // at 2 x 32x32. Each dtype runs the tiles ptxas fits in registers without spilling (the gate).
  const tc = (cs: Case) => cs.ta !== 'f64' && cs.prec !== 'ieee';
  const shapes = (cs: Case) => [
    { what: 'B=2, 64x32 tiles, K=64', Bt: 2, M: 64, N: 32, K: 64, BB: 2, BM: 64, BN: 32, BK: 32, grid: 1, on: tc(cs) && cs.ta !== 'f32' && cs.ta !== 'f8e4m3' },
    { what: 'B=4, 32x32 tiles, K=64', Bt: 4, M: 32, N: 32, K: 64, BB: 4, BM: 32, BN: 32, BK: 32, grid: 1, on: ['f16', 'bf16', 'f8e4m3'].includes(cs.ta) },
    { what: 'ragged B=3 of 2 per program, 50x20, K=40', Bt: 3, M: 50, N: 20, K: 40, BB: 2, BM: 64, BN: 32, BK: 32, grid: 2, on: tc(cs) },
    { what: 'ragged B=3 of 2 per program, 20x30, K=40', Bt: 3, M: 20, N: 30, K: 40, BB: 2, BM: 32, BN: 32, BK: 16, grid: 2, on: !tc(cs) },
  ].filter((s) => s.on);
  for (const cs of CASES) {
    for (const s of shapes(cs)) {
      it(`${cs.ta} -> ${cs.tc}${cs.prec ? ` (${cs.prec})` : ''}, ${s.what}: interpreter, sm_80 and sm_90a equal the exact product`, async () => {
        const A = ints(cs.ta, s.Bt * s.M * s.K, 1), Bm = ints(cs.ta, s.Bt * s.K * s.N, 2), C = ints(cs.tc, s.Bt * s.M * s.N, 3);
        const ref = reference(A.values, Bm.values, C.values, s.Bt, s.M, s.N, s.K);
        const enc = cs.tc === 'f16' ? f16Array(ref) : (CTOR[cs.tc] as unknown as { from(x: number[]): ArrayBufferView }).from(ref);
        const out = await runEverywhere(bmm(cs), { a: A.data, b: Bm.data, c: C.data, Bt: s.Bt, M: s.M, N: s.N, K: s.K, BB: s.BB, BM: s.BM, BN: s.BN, BK: s.BK } as never, s.grid);
        for (const where of ['interpret', ...SIM_TARGETS] as const) expectBitwise(out[where].c as ArrayBufferView, enc, `${where} c`);
      });
    }
  }

  it('B=2 and B=1 without an accumulator, f16 16x32x16: exact on every device', async () => {
    for (const BB of [1, 2]) {
      const BM = 16, BN = 32, BK = 16;
      const A = ints('f16', BB * BM * BK, 4), Bm = ints('f16', BB * BK * BN, 5);
      const ref = reference(A.values, Bm.values, new Array<number>(BB * BM * BN).fill(0), BB, BM, BN, BK);
      const out = await runEverywhere(bmmNoAcc('f16'), { a: A.data, b: Bm.data, d: new Float32Array(BB * BM * BN), BB, BM, BN, BK } as never, 1);
      for (const where of ['interpret', ...SIM_TARGETS] as const) expectBitwise(out[where].d as ArrayBufferView, Float32Array.from(ref), `${where} d, B=${BB}`);
    }
  });

  it('lowers to tensor cores: mma.sync on sm_80, wgmma on sm_90a (f16, B=2, 64x64x32)', () => {
    const k = bmmNoAcc('f16');
    const f = k.trace({ BB: 2, BM: 64, BN: 64, BK: 32 });
    const p80 = compile(f, { target: 'sm_80', numWarps: 4 }).ptx, p90 = compile(f, { target: 'sm_90a', numWarps: 4 }).ptx;
    expect(p80).toMatch(/mma\.sync\.aligned\.m16n8k16/);
    expect(p90).toMatch(/wgmma\.mma_async/);
  });

  it('rejects mismatched batch dims and mixed ranks by name', () => {
    const bad = (sa: number[], sb: number[]) => kernel({ name: 'bad', params: { p: ptr('f16') } }, ({ p }) => {
      const t = (s: number[]) => load(p.add(arange(0, s.reduce((x, y) => x * y)).reshape(s)));
      dot(t(sa), t(sb));
    });
    expect(() => bad([2, 16, 16], [4, 16, 16]).trace({})).toThrow(/batch dims/);
    expect(() => bad([2, 16, 16], [16, 16]).trace({})).toThrow(/must both be 2-D or both 3-D/);
    expect(() => bad([2, 16, 16], [2, 32, 16]).trace({})).toThrow(/dim 2 must equal b's dim 1/);
  });
});
