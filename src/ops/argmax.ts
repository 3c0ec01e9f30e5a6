// Row argmax of x[B, V] (greedy decoding): one program per row, the row walked in BLOCK chunks;
// each lane keeps its best value and the first index it was seen at (strictly greater wins, so
// the earlier index keeps a tie), then the lanes combine to the lowest index among the maxima.
// NaN never wins (a row of NaN and -inf gives index 0).
import type { DType } from '../ir/types.js';
import { arange, constexpr, forLoop, full, load, max, min, programId, ptr, store, where, zeros } from '../lang/index.js';
import { kernel, type Kernel } from '../runtime/kernel.js';

const kernels = new Map<DType, Kernel>();

export function argmaxKernel(dt: DType): Kernel {
  let k = kernels.get(dt);
  if (!k) {
    k = kernel({ name: `ops_argmax_${dt}`, params: { x: ptr(dt), out: ptr('i32'), V: 'i32', BLOCK: constexpr() } }, ({ x, out, V, BLOCK }) => {
      const row = programId(0);
      const base = row.to('i64').mul(V);
      const cols = arange(0, BLOCK);
      const [bv, bi] = forLoop(0, V, BLOCK, [full([BLOCK], -Infinity, 'f32'), zeros([BLOCK], 'i32')], (c0, best, idx) => {
        const offs = c0.add(cols);
        const v = load(x.add(base).add(offs), { mask: offs.lt(V), other: -Infinity }).to('f32');
        const better = v.gt(best!);
        return [where(better, v, best!), where(better, offs, idx!)];
      });
      const m = max(bv!, 0);
      store(out.add(row), min(where(bv!.eq(m), bi!, 2147483647), 0));
    });
    kernels.set(dt, k);
  }
  return k;
}
