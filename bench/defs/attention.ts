// Attention forward (one head, f32): O = softmax(Q K^T * scale) V, one BM block of queries per
// program, keys and values in BN blocks with the online softmax (running max and sum).
import { arange, constexpr, defineKernel, dot, forLoop, full, load, max, programId, ptr, store, sum, where, zeros } from '../../src/lang/index.js';

export const attention = defineKernel(
  {
    name: 'attention',
    params: { q: ptr('f32'), k: ptr('f32'), v: ptr('f32'), o: ptr('f32'), L: 'i32', scale: 'f32', D: constexpr(), BM: constexpr(), BN: constexpr() },
  },
  ({ q, k, v, o, L, scale, D, BM, BN }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rd = arange(0, D);
    const mrow = rm.expandDims(1).lt(L);
    const tq = load(q.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))), { mask: mrow, other: 0 });
    const [acc, m, l] = forLoop(0, L, BN, [zeros([BM, D], 'f32'), full([BM], -Infinity, 'f32'), zeros([BM], 'f32')], (j, acc, m, l) => {
      const rn = j.add(arange(0, BN));
      const kt = load(k.add(rn.expandDims(0).mul(D).add(rd.expandDims(1))), { mask: rn.expandDims(0).lt(L), other: 0 }); // [D, BN]
      const s0 = dot(tq, kt).mul(scale);
      const s = where(rn.expandDims(0).lt(L), s0, -Infinity);
      const mNew = max(s, 1).maximum(m!);
      const p = s.sub(mNew.expandDims(1)).exp();
      const alpha = m!.sub(mNew).exp();
      const tv = load(v.add(rn.expandDims(1).mul(D).add(rd.expandDims(0))), { mask: rn.expandDims(1).lt(L), other: 0 }); // [BN, D]
      return [dot(p, tv, { acc: acc!.mul(alpha.expandDims(1)) }), mNew, l!.mul(alpha).add(sum(p, 1))];
    });
    void m;
    store(o.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))), acc!.div(l!.expandDims(1)), { mask: mrow });
  },
);
