// Read-after-write through global memory in a pipelined loop on sm_90a (the sim pretends to be an
// sm_90; set before the sim loads): the kernels of test/e2e/pipeline_raw.test.ts, whose dot runs
// on wgmma. Through pointers the loads would ride the cp.async ring (wgmma reading its stages);
// through tensor descriptors they would ride the TMA ring (cp.async.bulk.tensor, mbarriers). A
// loop that also stores must keep its loads in program order: sim and interpreter both agree
// with the program-order reference at numStages 1..4, and the PTX holds no ring.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/runtime/kernel.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, randF32, runBoth, simDevice } from './helpers.js';
import { BM, BN, BK, rawDesc, rawPtr, rawRef } from './raw_kernels.js';

async function check(k: Kernel, numStages: number, K: number, seed: number): Promise<string> {
  const a = f16Array(randF32(BM * K, seed)), src = f16Array(randF32(BM * K, seed + 1)), b = f16Array(randF32(K * BN, seed + 2));
  const args = { a, src, b, c: new Float32Array(BM * BN), K, BM, BN, BK };
  const want = rawRef(f16ToFloat32(a), f16ToFloat32(src), f16ToFloat32(b), K);
  const r = await runBoth(k, args, [1, 1], { numWarps: 4, numStages });
  expectClose(r.interpret.c, want, 1e-4, 'interpreter vs program order');
  expectClose(r.sim.c, want, 1e-4, `sim (numStages ${numStages}) vs program order`);
  const cx: Record<string, number> = { BM, BN, BK };
  const positional = k.def.runtimeParams.map((p) => (args as Record<string, unknown>)[p.name] as LaunchArg);
  const ptx = simDevice().compile(k.trace(cx), 4, positional, numStages).ptx;
  expect(ptx).toContain('.target sm_90a');
  expect(ptx).toMatch(/wgmma\.mma_async/);
  return ptx;
}

describe('read-after-write through global memory in a pipelined loop (sm_90a, wgmma)', () => {
  it.each([1, 2, 3, 4])('pointers (the cp.async ring): numStages %i', async (s) => {
    const ptx = await check(rawPtr, s, 256, 71);
    expect(ptx).not.toMatch(/cp\.async\.(cg|ca)/);
  });

  it.each([1, 2, 3, 4])('tensor descriptors (the TMA ring): numStages %i', async (s) => {
    const ptx = await check(rawDesc, s, 256, 73);
    expect(ptx).toMatch(/cp\.async\.bulk\.tensor/); // still TMA copies, one at a time
    expect(ptx).not.toMatch(/TMA ring/);
  });
});
