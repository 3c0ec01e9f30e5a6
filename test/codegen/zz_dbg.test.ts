import { it } from 'vitest';
import { compile } from '../../src/compiler/compile.js';
import { arange, constexpr, defineKernel, dot, load, programId, ptr, range, store, zeros } from '../../src/lang/index.js';
it('dbg', () => {
const matmul = defineKernel(
  { name: 'matmul', params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM)).expandDims(1);
    const rn = programId(1).mul(BN).add(arange(0, BN)).expandDims(0);
    const rk = arange(0, BK);
    const [acc] = range(0, K.floordiv(BK), [zeros([BM as number, BN as number])], (kk, acc) => {
      const k0 = kk.mul(BK).add(rk);
      const av = load(a.add(rm.mul(K).add(k0.expandDims(0))));
      const bv = load(b.add(k0.expandDims(1).mul(N).add(rn)));
      return [dot(av, bv, { acc })];
    });
    store(c.add(rm.mul(N).add(rn)), acc!);
  },
);
  const r = compile(matmul.trace({ BM: 32, BN: 32, BK: 16 }), { target: 'sm_80', ptxas: false });
  console.log(r.ptx.split('\n').filter(l => /shared|layout|bar|for|dot/.test(l)).join('\n'));
  console.log(r.stages.find((s) => s.name === 'layouts')!.text);
});
