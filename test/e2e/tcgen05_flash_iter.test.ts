// Warp instructions per key-loop iteration of flash attention on sm_100a, as bench:tc counts them
// (one program at L = 256 and at L = 512 on the sim, the difference per extra key block): the
// bench's configuration (BM = BN = D = 64, 4 warps, 3 stages). Triton 3.8's cc 100 kernel runs 1398;
// ours ran 1912 before P's pairs were rounded by one cvt (tcgen05_tmem_a.ts), warps 1-3 branched
// past the MMA issue (tcgen05_issue.ts), TMEM row addresses left the loop (tcgen05_row_addr.ts) and
// acc / l_i were updated in their own registers (lower_elementwise.ts); the structure of each is
// checked in test/codegen/tcgen05_flash_loop.test.ts. The outputs agree with the interpreter.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { KernelDef } from '../../src/lang/index.js';
import { DeviceArray } from '../../src/runtime/index.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { bf16Array, f16Array } from '../../src/ir/half.js';
import { flashAttention, type Half } from '../../bench/kernels.js';
import { expectClose, randF32, runBoth, simDevice } from './helpers.js';

const BM = 64, BN = 64, D = 64;
const enc = (t: Half, x: Float32Array): Uint16Array => (t === 'f16' ? f16Array(x) : bf16Array(x));

describe.each(['f16', 'bf16'] as const)('flash attention on sm_100a (%s), the bench\'s tile', (t) => {
  it('at most 1.1x Triton\'s 1398 warp instructions per key block (1912 before)', async () => {
    const dev = simDevice();
    const def = flashAttention[t] as unknown as KernelDef;
    const spec = Object.fromEntries(['q', 'k', 'v', 'o', 'L'].map((n) => [n, { divisibleBy16: true }]));
    const r = compile(def.trace({ BM, BN, D }), { target: dev.target, numWarps: 4, numStages: 3, ptxas: true, specialization: spec });
    const fn = dev.loadModule(r.ptx).getFunction(r.metadata.name);
    const sharedBytes = /\.extern\s+\.shared/.test(r.ptx) ? r.metadata.sharedBytes : 0;
    const warpInstrs = async (L: number): Promise<number> => {
      const arr = (seed: number) => DeviceArray.from(enc(t, randF32(L * D, seed)), t, { device: dev });
      const q = arr(1), k = arr(2), v = arr(3), o = DeviceArray.zeros([L * D], 'f32', { device: dev });
      try {
        await fn.launch({ grid: [1, 1, 1], block: 128, sharedBytes, args: [q, k, v, o, L, 1 / Math.sqrt(D)] });
        return dev.native.simCounters()!.warpInstructions;
      } finally {
        for (const a of [q, k, v, o]) a.free();
      }
    };
    const perIter = (await warpInstrs(512) - await warpInstrs(256)) / ((512 - 256) / BN);
    expect(perIter).toBeLessThanOrEqual(Math.floor(1.1 * 1398));
    // and the kernel still computes what the interpreter computes
    const L = 128, q = enc(t, randF32(L * D, 4)), k = enc(t, randF32(L * D, 5)), v = enc(t, randF32(L * D, 6));
    const both = await runBoth(new Kernel(def), { q, k, v, o: new Float32Array(L * D), L, scale: 1 / Math.sqrt(D), BM, BN, D }, L / BM, { numWarps: 4, numStages: 3 });
    expectClose(both.sim.o, both.interpret.o, (t === 'bf16' ? 2e-2 : 4e-3) / 4, 'sim vs interpreter');
  });
});
