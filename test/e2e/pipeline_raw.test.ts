// Read-after-write through global memory in a software-pipelined loop (docs/compiler.md, "Software
// pipelining", the store rule): a loop that stores, in iteration i, what a later iteration loads as
// a dot operand. docs/semantics.md promises program order, so the load of iteration i+1 must see
// the store of iteration i. A pipeliner that issues iteration i+1's copy before iteration i's store
// (as Triton 3.8's does) reads stale data. Each case runs on the sim (sm_80: the cp.async ring) and
// the interpreter at numStages 1..4 and compares both with a plain-JS reference of program order;
// the tensor-descriptor case is expanded to masked loads on sm_80 and pipelined the same way.
// test/e2e/pipeline_raw_sm90.test.ts has the sm_90a cases (wgmma over the cp.async ring, TMA).
import { describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/runtime/kernel.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, randF32, runBoth, simDevice } from './helpers.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { BM, BN, BK, rawDesc, rawPtr, rawRef } from './raw_kernels.js';

/** The PTX the sim device compiles for these arguments. */
function simPtx(k: Kernel, args: Record<string, unknown>, numStages: number): string {
  const cx: Record<string, number> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as number;
  const positional = k.def.runtimeParams.map((p) => args[p.name] as LaunchArg);
  return simDevice().compile(k.trace(cx), 4, positional, numStages).ptx;
}

async function check(k: Kernel, numStages: number, K: number, seed: number): Promise<string> {
  const a = f16Array(randF32(BM * K, seed)), src = f16Array(randF32(BM * K, seed + 1)), b = f16Array(randF32(K * BN, seed + 2));
  const args = { a, src, b, c: new Float32Array(BM * BN), K, BM, BN, BK };
  const want = rawRef(f16ToFloat32(a), f16ToFloat32(src), f16ToFloat32(b), K);
  const r = await runBoth(k, args, [1, 1], { numWarps: 4, numStages });
  expectClose(r.interpret.c, want, 1e-4, 'interpreter vs program order');
  expectClose(r.sim.c, want, 1e-4, `sim (numStages ${numStages}) vs program order`);
  return simPtx(k, args, numStages);
}

describe('read-after-write through global memory in a pipelined loop (sm_80)', () => {
  it.each([1, 2, 3, 4])('pointers: a dot operand loaded from what the previous iteration stored, numStages %i', async (s) => {
    const ptx = await check(rawPtr, s, 256, 61);
    expect(ptx).not.toMatch(/cp\.async/); // the load of a may alias the store: not pipelined
  });

  it.each([1, 2, 3])('tensor descriptors (masked loads and stores on sm_80), numStages %i', async (s) => {
    const ptx = await check(rawDesc, s, 256, 67);
    expect(ptx).not.toMatch(/cp\.async/);
  });
});
