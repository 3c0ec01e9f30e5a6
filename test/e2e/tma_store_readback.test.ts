// A descriptor store that the same program reads back (sm_90a on the sim, which pretends to be an
// sm_90; set before the sim loads). The TMA store's global writes complete only at a full
// cp.async.bulk.wait_group (without .read), and the sim lands them there or at the kernel's end,
// so the compiler must wait fully (and sync the CTA) when a later op may read the bytes
// (codegen/async/tma_store_wait.ts). Each case reads back through other threads than the writer
// (reversed indices) and through a descriptor load, and matches the interpreter and program order.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, load, makeTensorDescriptor, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { expectClose, randF32, runBoth, simDevice } from './helpers.js';

const BM = 32, BN = 32;

/** y = 2x through a descriptor store; then out = y reversed (pointer load) and out2 = y (descriptor load). */
const readback = kernel(
  { name: 'tma_store_readback', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), out2: ptr('f32'), M: 'i32', N: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, y, out, out2, M, N, BM, BN }) => {
    const [bm, bn] = [BM as number, BN as number];
    const dy = makeTensorDescriptor(y, [M, N], [N, 1], [bm, bn]);
    const rm = arange(0, bm).expandDims(1), rn = arange(0, bn).expandDims(0);
    const at = rm.mul(bn).add(rn);
    dy.store([0, 0], load(x.add(at)).mul(2));
    const rev = rm.mul(-1).add(bm - 1).mul(bn).add(rn.mul(-1).add(bn - 1));
    store(out.add(at), load(y.add(rev)));
    store(out2.add(at), dy.load([0, 0]).add(1));
  },
);

describe('descriptor store read back by the same program (sm_90a)', () => {
  it('the read-back sees the stored block (full wait_group and a barrier after the TMA store)', async () => {
    const x = randF32(BM * BN, 91);
    const args = { x, y: new Float32Array(BM * BN), out: new Float32Array(BM * BN), out2: new Float32Array(BM * BN), M: BM, N: BN, BM, BN };
    const r = await runBoth(readback, args, [1]);
    const y = Float64Array.from(x, (v) => 2 * v);
    const rev = Float64Array.from(y, (_, i) => y[BM * BN - 1 - i]!);
    for (const dev of ['interpret', 'sim'] as const) {
      expectClose(r[dev].y, y, 0, `${dev}: y`);
      expectClose(r[dev].out, rev, 0, `${dev}: out (pointer read-back)`);
      expectClose(r[dev].out2, Float64Array.from(y, (v) => v + 1), 1e-6, `${dev}: out2 (descriptor read-back)`);
    }
    const positional = readback.def.runtimeParams.map((p) => (args as Record<string, unknown>)[p.name] as LaunchArg);
    const ptx = simDevice().compile(readback.trace({ BM, BN }), 4, positional, 1).ptx;
    expect(ptx).toMatch(/cp\.async\.bulk\.tensor\.2d\.global\.shared::cta/);
    expect(ptx).toMatch(/cp\.async\.bulk\.wait_group 0;\s*\n\s*bar\.sync 0;/);
    expect(ptx).not.toMatch(/wait_group\.read/);
  });
});
