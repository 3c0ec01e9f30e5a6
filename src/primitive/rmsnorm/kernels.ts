// RMSNorm in the Tessera kernel language, forward and backward, with the maths of the C targets
// (docs/xla.md): one program per row of x [n1, n2] (BLOCK >= n2, a power of two), f32 data.
//   fwd: invvar[i] = 1/sqrt(mean(x[i]^2) + eps); out[i, j] = w[j] * (x[i, j] * invvar[i])
//   bwd: grad_input[i, j] = u g w - u^3 / n2 * x * s_i   (u = invvar[i], s_i = sum_j g w x)
//        part_grad[p, j] += g x u over rows i with i % P == p; grad_weight[j] = sum_p part_grad[p, j]
import { arange, atomicAdd, constexpr, divRn, expandDims, load, programId, ptr, sqrtRn, store, sum } from '../../lang/index.js';
import { kernel } from '../../runtime/kernel.js';

export const rmsNormFwdKernel = kernel(
  { name: 'rms_norm_fwd', params: { x: ptr('f32'), w: ptr('f32'), out: ptr('f32'), invvar: ptr('f32'), n2: 'i32', eps: 'f32', BLOCK: constexpr() } },
  ({ x, w, out, invvar, n2, eps, BLOCK }) => {
    const row = programId(0);
    const offs = arange(0, BLOCK);
    const mask = offs.lt(n2);
    const base = row.mul(n2);
    const v = load(x.add(base).add(offs), { mask, other: 0 });
    const u = divRn(1, sqrtRn(divRn(sum(v.mul(v), 0), n2).add(eps)));
    store(invvar.add(row), u);
    const wv = load(w.add(offs), { mask, other: 0 });
    store(out.add(base).add(offs), wv.mul(v.mul(u)), { mask });
  },
);

/** grad_input per row, and the row's g*x*u added into part_grad[row % P]. part_grad starts zeroed. */
export const rmsNormBwdKernel = kernel(
  {
    name: 'rms_norm_bwd',
    params: { g: ptr('f32'), invvar: ptr('f32'), x: ptr('f32'), w: ptr('f32'), gradInput: ptr('f32'), partGrad: ptr('f32'), n2: 'i32', P: 'i32', BLOCK: constexpr() },
  },
  ({ g, invvar, x, w, gradInput, partGrad, n2, P, BLOCK }) => {
    const row = programId(0);
    const offs = arange(0, BLOCK);
    const mask = offs.lt(n2);
    const base = row.mul(n2);
    const gv = load(g.add(base).add(offs), { mask, other: 0 });
    const xv = load(x.add(base).add(offs), { mask, other: 0 });
    const wv = load(w.add(offs), { mask, other: 0 });
    const u = load(invvar.add(row));
    const s = sum(gv.mul(wv).mul(xv), 0);
    const u3n = divRn(u.mul(u).mul(u), n2);
    store(gradInput.add(base).add(offs), u.mul(gv).mul(wv).sub(u3n.mul(xv).mul(s)), { mask });
    atomicAdd(partGrad.add(row.rem(P).mul(n2)).add(offs), gv.mul(xv).mul(u), { mask });
  },
);

/** grad_weight[j] = sum over the P rows of part_grad; one program per BLOCK columns (PB >= P). */
export const rmsNormGradWeightKernel = kernel(
  { name: 'rms_norm_grad_weight', params: { partGrad: ptr('f32'), gradWeight: ptr('f32'), n2: 'i32', P: 'i32', BLOCK: constexpr(), PB: constexpr() } },
  ({ partGrad, gradWeight, n2, P, BLOCK, PB }) => {
    const cols = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const rows = arange(0, PB);
    const mask = expandDims(rows.lt(P), 1).and(expandDims(cols.lt(n2), 0));
    const tile = load(partGrad.add(expandDims(rows.mul(n2), 1)).add(expandDims(cols, 0)), { mask, other: 0 });
    store(gradWeight.add(cols), sum(tile, 0), { mask: cols.lt(n2) });
  },
);
