// FlashAttention-3-style forward attention (sm_90a) for the bench and the e2e tests: one head,
// Q [L, D], K [L, D], V [L, D] in f16 read through tensor descriptors, O [L, D] in f32. A program
// owns BM query rows: its Q tile is loaded once, then the KV loop loads a K and a V tile per
// iteration (TMA), S = Q K^T and O += P V run on wgmma (P from registers), with the online
// softmax between. With `WS` the KV loop is `warpSpecialize: true`: a producer warpgroup fills the
// K/V ring and, at numWarps 8 and BM 128, two consumer warpgroups own 64 query rows each
// (src/codegen/pipeline/ws_attention.ts). CAUSAL masks keys after the query (col > row) and cuts
// the loop at the program's last row; keys past L (a ragged tail: TMA zero-fills them) are masked
// in every case. It lives under bench/ because the published package ships the bench.
import { constexpr, dot, exp, forLoop, full, lt, le, logicalAnd, makeTensorDescriptor, max, maximum, minimum, programId, ptr, sum, where, zeros, arange } from '../src/lang/index.js';
import { kernel } from '../src/runtime/kernel.js';

export const fa3Attention = kernel(
  {
    name: 'fa3_fwd',
    params: { q: ptr('f16'), k: ptr('f16'), v: ptr('f16'), o: ptr('f32'), L: 'i32', scale: 'f32', BM: constexpr(), BN: constexpr(), D: constexpr(), CAUSAL: constexpr(), WS: constexpr() },
  },
  ({ q, k, v, o, L, scale, BM, BN, D, CAUSAL, WS }) => {
    const [bm, bn, d] = [BM as number, BN as number, D as number];
    const dq = makeTensorDescriptor(q, [L, d], [d, 1], [bm, d]);
    const dk = makeTensorDescriptor(k, [L, d], [d, 1], [bn, d]);
    const dv = makeTensorDescriptor(v, [L, d], [d, 1], [bn, d]);
    const om = programId(0).mul(bm);
    const qv = dq.load([om, 0]);
    const rows = om.add(arange(0, bm)).expandDims(1);
    const cols = arange(0, bn).expandDims(0);
    // causal: no key after the program's last query row
    const hi = CAUSAL ? minimum(L, om.add(bm)) : L;
    const init = [full([bm], -Infinity, 'f32'), zeros([bm], 'f32'), zeros([bm, d], 'f32')];
    const [, l, acc] = forLoop(0, hi, bn, init, (j, m, l, acc) => {
      const kt = dk.load([j, 0]).trans(); // [D, BN]: K^T, K-major for wgmma
      const vv = dv.load([j, 0]); // [BN, D]
      const kn = cols.add(j);
      const keep = CAUSAL ? logicalAnd(lt(kn, L), le(kn, rows)) : lt(kn, L);
      const s = where(keep, dot(qv, kt).mul(scale), -Infinity);
      const mNew = maximum(m!, max(s, 1));
      const alpha = exp(m!.sub(mNew));
      const p = exp(s.sub(mNew.expandDims(1)));
      return [mNew, l!.mul(alpha).add(sum(p, 1)), acc!.mul(alpha.expandDims(1)).add(dot(p.to('f16'), vv))];
    }, { warpSpecialize: Boolean(WS) });
    makeTensorDescriptor(o, [L, d], [d, 1], [bm, d]).store([om, 0], acc!.div(l!.expandDims(1)));
  },
);
