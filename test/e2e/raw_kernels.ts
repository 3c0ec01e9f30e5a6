// Kernels for the read-after-write pipelining tests (test/e2e/pipeline_raw.test.ts on sm_80,
// pipeline_raw_sm90.test.ts on sm_90a): a loop whose dot operand is loaded from what the previous
// iteration stored, through pointers and through tensor descriptors, and the program-order result.
import { arange, constexpr, dot, forLoop, load, makeTensorDescriptor, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';

export const BM = 64, BN = 64, BK = 32;

/**
 * acc += a[:, k-block] @ b[k-block, :]; then a[:, next k-block] = src[:, next k-block]: every
 * k-block after the first is read after this loop wrote it (a is BM x K, b K x BN, c BM x BN).
 */
export const rawPtr = kernel(
  { name: 'raw_ptr', params: { a: ptr('f16'), src: ptr('f16'), b: ptr('f16'), c: ptr('f32'), K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, src, b, c, K, BM, BN, BK }) => {
    const rm = arange(0, BM as number), rn = arange(0, BN as number), rk = arange(0, BK as number);
    const [acc] = forLoop(0, K, BK as number, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(BN).add(rn.expandDims(0))));
      const next = rm.expandDims(1).mul(K).add(ka.add(BK).expandDims(0));
      const m = rm.expandDims(1).ge(0).logicalAnd(ka.add(BK).expandDims(0).lt(K));
      store(a.add(next), load(src.add(next), { mask: m }), { mask: m });
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(BN).add(rn.expandDims(0))), acc!);
  },
);

/** The same through tensor descriptors: a's blocks are loaded and stored by one descriptor. */
export const rawDesc = kernel(
  { name: 'raw_desc', params: { a: ptr('f16'), src: ptr('f16'), b: ptr('f16'), c: ptr('f32'), K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, src, b, c, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [bm, K], [K, 1], [bm, bk]);
    const ds = makeTensorDescriptor(src, [bm, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, bn], [bn, 1], [bk, bn]);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => {
      const out = dot(da.load([0, k]), db.load([k, 0]), { acc: acc! });
      da.store([0, k.add(bk)], ds.load([0, k.add(bk)])); // past the end: clipped by the descriptor
      return [out];
    });
    const rm = arange(0, bm), rn = arange(0, bn);
    store(c.add(rm.expandDims(1).mul(bn).add(rn.expandDims(0))), acc!);
  },
);

/** The reference in program order: block 0 of a, then src's blocks. */
export function rawRef(a: Float32Array, src: Float32Array, b: Float32Array, K: number): Float64Array {
  const c = new Float64Array(BM * BN);
  for (let i = 0; i < BM; i++) for (let j = 0; j < BN; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += (k < BK ? a : src)[i * K + k]! * b[k * BN + j]!;
    c[i * BN + j] = s;
  }
  return c;
}
