// Block pointer kernels (makeBlockPtr, advance, load/store with boundaryCheck and paddingOption)
// with plain-JS references, run on the interpreter and the sim by block_ptr_sm80/sm90.test.ts.
import { expect } from 'vitest';
import { f16Array } from '../../src/ir/half.js';
import {
  advance, constexpr, dot, forLoop, load, makeBlockPtr, makeTensorDescriptor, programId, ptr, store, whileLoop, zeros,
} from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { compile } from '../../src/compile/compile.js';
import { expectBitwise, expectSame, runBoth, simDevice } from './helpers.js';

/**
 * A [M, N] f32 matrix with row stride `ld` copied block by block ([BM, BN] blocks, one program
 * each) into a dense [M, N] output, x2; the edge blocks are partial: loads pad (zero or NaN) where
 * checked, stores skip what is out of bounds. A padded element is also stored to `pad` (dense
 * [gridM*BM, gridN*BN]) so the padding itself is checked.
 */
export const copyBlocks = (padding: 'zero' | 'nan') => kernel(
  { name: `bp_copy_${padding}`, params: { x: ptr('f32'), o: ptr('f32'), pad: ptr('f32'), M: 'i32', N: 'i32', ld: 'i32', padN: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, o, pad, M, N, ld, padN, BM, BN }) => {
    const bm = BM as number, bn = BN as number;
    const pm = programId(0).mul(bm), pn = programId(1).mul(bn);
    const src = makeBlockPtr(x, [M, N], [ld, 1], [pm, pn], [bm, bn], [1, 0]);
    const v = load(src, { boundaryCheck: [0, 1], paddingOption: padding });
    store(makeBlockPtr(o, [M, N], [N, 1], [pm, pn], [bm, bn], [1, 0]), v.mul(2), { boundaryCheck: [0, 1] });
    // the whole padded block, unchecked (the pad buffer covers every block)
    store(makeBlockPtr(pad, [M, padN], [padN, 1], [pm, pn], [bm, bn], [1, 0]), v);
  },
);

export async function runCopyBlocks(padding: 'zero' | 'nan'): Promise<void> {
  const M = 37, N = 45, ld = 50, BM = 16, BN = 32;
  const gm = Math.ceil(M / BM), gn = Math.ceil(N / BN), padN = gn * BN;
  const x = Float32Array.from({ length: M * ld }, (_, i) => (i % 97) - 40.5);
  const args = { x, o: new Float32Array(M * N), pad: new Float32Array(gm * BM * padN), M, N, ld, padN, BM, BN };
  const r = await runBoth(copyBlocks(padding), args, [gm, gn]);
  const o = new Float32Array(M * N), pd = new Float32Array(gm * BM * padN);
  for (let i = 0; i < gm * BM; i++) for (let j = 0; j < padN; j++) {
    const inside = i < M && j < N;
    pd[i * padN + j] = inside ? x[i * ld + j]! : padding === 'nan' ? NaN : 0;
    if (inside) o[i * N + j] = x[i * ld + j]! * 2;
  }
  for (const dev of ['interpret', 'sim'] as const) {
    expectBitwise(r[dev].o as Float32Array, o, `${dev}: copied blocks`);
    expectBitwise(r[dev].pad as Float32Array, pd, `${dev}: padded blocks (${padding})`);
  }
}

/** Triton's block-pointer matmul: a and b block pointers carried through the k loop and advanced. */
export const bpMatmul = (loop: 'for' | 'while') => kernel(
  { name: `bp_matmul_${loop}`, params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const bm = BM as number, bn = BN as number, bk = BK as number;
    const pm = programId(0).mul(bm), pn = programId(1).mul(bn);
    const pa = makeBlockPtr(a, [M, K], [K, 1], [pm, 0], [bm, bk], [1, 0]);
    const pb = makeBlockPtr(b, [K, N], [N, 1], [0, pn], [bk, bn], [1, 0]);
    const step = (acc: ReturnType<typeof zeros>, qa: typeof pa, qb: typeof pb) => [
      dot(load(qa, { boundaryCheck: [0, 1] }), load(qb, { boundaryCheck: [0, 1] }), { acc }),
      advance(qa, [0, bk]), advance(qb, [bk, 0]),
    ] as const;
    let acc;
    if (loop === 'for') {
      [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32'), pa, pb], (_, acc, qa, qb) => step(acc, qa, qb));
    } else {
      [, acc] = whileLoop([0, zeros([bm, bn], 'f32'), pa, pb], (k) => k.lt(K), (k, acc, qa, qb) => [k.add(bk), ...step(acc, qa, qb)]);
    }
    store(makeBlockPtr(c, [M, N], [N, 1], [pm, pn], [bm, bn], [1, 0]), acc!, { boundaryCheck: [0, 1] });
  },
);

export async function runBpMatmul(loop: 'for' | 'while'): Promise<void> {
  const M = 40, N = 72, K = 80, BM = 32, BN = 32, BK = 32;
  const af = Float32Array.from({ length: M * K }, (_, i) => ((i * 37) % 17) / 8 - 1);
  const bf = Float32Array.from({ length: K * N }, (_, i) => ((i * 53) % 13) / 8 - 0.75);
  const args = { a: f16Array(af), b: f16Array(bf), c: new Float32Array(M * N), M, N, K, BM, BN, BK };
  const r = await runBoth(bpMatmul(loop), args, [Math.ceil(M / BM), Math.ceil(N / BN)]);
  // exact inputs, exact partial sums: the result is exact whatever the summation order
  const want = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += af[i * K + k]! * bf[k * N + j]!;
    want[i * N + j] = s;
  }
  for (const dev of ['interpret', 'sim'] as const) expectBitwise(r[dev].c as Float32Array, want, `${dev}: block-pointer matmul (${loop})`);
  expect(want.some((v) => v !== 0)).toBe(true);
}

/**
 * Tensor descriptor loads with `paddingOption: 'nan'` (TMA's NaN fill on sm_90a, a masked load
 * with a NaN `other` elsewhere): the whole padded block is stored through plain pointers.
 */
export const descNaN = (t: 'f32' | 'f16') => kernel(
  { name: `desc_nan_${t}`, params: { x: ptr(t), pad: ptr(t), M: 'i32', N: 'i32', padN: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, pad, M, N, padN, BM, BN }) => {
    const bm = BM as number, bn = BN as number;
    const pm = programId(0).mul(bm), pn = programId(1).mul(bn);
    const v = makeTensorDescriptor(x, [M, N], [N, 1], [bm, bn]).load([pm, pn], { paddingOption: 'nan' });
    store(makeBlockPtr(pad, [M, padN], [padN, 1], [pm, pn], [bm, bn], [1, 0]), v);
  },
);

export async function runDescNaN(t: 'f32' | 'f16', expectTma: boolean): Promise<void> {
  const M = 37, N = 40, BM = 16, BN = 32;
  const gm = Math.ceil(M / BM), gn = Math.ceil(N / BN), padN = gn * BN;
  const vals = Float32Array.from({ length: M * N }, (_, i) => (i % 91) - 45.25);
  const x = t === 'f32' ? vals : f16Array(vals);
  const out = () => (t === 'f32' ? new Float32Array(gm * BM * padN) : new Uint16Array(gm * BM * padN));
  const r = await runBoth(descNaN(t), { x, pad: out(), M, N, padN, BM, BN }, [gm, gn]);
  const want = out();
  const nan = t === 'f32' ? NaN : 0x7e00;
  for (let i = 0; i < gm * BM; i++) for (let j = 0; j < padN; j++) want[i * padN + j] = i < M && j < N ? x[i * N + j]! : nan;
  for (const dev of ['interpret', 'sim'] as const) expectSame(t, r[dev].pad as ArrayBufferView, want, `${dev}: NaN-padded descriptor blocks (${t})`);
  // the sim device ran TMA with a NaN-fill map on sm_90a, masked loads on sm_80
  const c = compile(descNaN(t).def, { target: simDevice().target, ptxas: false, constexprs: { BM, BN }, specialization: { x: { divisibleBy16: true }, pad: { divisibleBy16: true }, N: { divisibleBy16: true }, padN: { divisibleBy16: true } } });
  expect(/cp\.async\.bulk\.tensor/.test(c.ptx), 'TMA in the PTX').toBe(expectTma);
  if (expectTma) expect(c.metadata.tensorMaps?.map((m) => m.oobFill)).toEqual([1]);
}
