process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { it } from 'vitest';
import { constexpr, dot, forLoop, makeTensorDescriptor, programId, ptr, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { compile } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { randF32, simDevice } from './helpers.js';
const mm = kernel(
  { name: 'tma_mm', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })]);
    dc.store([om, on], acc!);
  },
);
it.each([[3, true], [1, true], [3, false], [1, false]] as const)('chk stages %i tma %s', async (numStages, tma) => {
  const M = 128, N = 128, K = 128;
  const f = mm.trace({ BM: 64, BN: 64, BK: 32 });
  const r = compile(f, { target: 'sm_90a', numStages, tma, ptxas: true, specialization: { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, M: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } } });
  console.log('stages', numStages, 'tma', tma);
  console.log('convert', (r.ptx.match(/convert_layout/g) ?? []).length, 'regs', r.metadata.registers, 'spills', r.metadata.spills, 'smem', r.metadata.sharedBytes);
  const dev = simDevice().native;
  const a = f16Array(randF32(M * K, 1)), b = f16Array(randF32(K * N, 2));
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
  dev.upload(ba, a); dev.upload(bb, b);
  dev.launch(r, [ba, bb, bc, M, N, K], [2, 2, 1]);
  dev.synchronize();
  console.log(JSON.stringify(dev.simCounters()));
});
