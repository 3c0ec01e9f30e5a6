// Flash attention's TMA form on the sim as an sm_100 (bench/fa3_kernels.ts without `WS`): the key
// loop's K and V descriptor loads ride the TMA ring (pipeline/lower_tma_ring.ts; reductions in the
// body allowed on sm_100a, 16-bit K^T staged K-major for tcgen05), S - 1 iterations ahead of the
// tcgen05 MMAs that read them. Each shape is compared with the interpreter, an f64 JS reference,
// and bit for bit with the same kernel at numStages 1 (no ring: each iteration loads K and V and
// waits for them in place), which runs the same MMAs and softmax in the same order. Shapes: 2 and
// 3 stages, D 64 and 128, 4 and 8 warps (BM 64 / 128), L a multiple of BN and ragged (keys past L
// masked, TMA zero-fills them), causal and not, loops shorter than the ring.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { expectClose, runOn } from './helpers.js';
import { compileRing, fa3Attention, fa3Inputs, fa3Want, ringBm, type RingShape } from './tcgen05_flash_ring_cases.js';

const CASES: [string, RingShape][] = [
  ['D 64, 4 warps, L 256 (a multiple of BN), 2 stages', { L: 256, D: 64, BN: 64, warps: 4, stages: 2, causal: false }],
  ['D 64, 4 warps, L 300 ragged, causal, 3 stages', { L: 300, D: 64, BN: 64, warps: 4, stages: 3, causal: true }],
  ['D 64, 8 warps, L 200 ragged, 3 stages', { L: 200, D: 64, BN: 64, warps: 8, stages: 3, causal: false }],
  ['D 128, 8 warps, BN 128, L 300 ragged, 2 stages', { L: 300, D: 128, BN: 128, warps: 8, stages: 2, causal: false }],
  ['D 128, 8 warps, BN 64, L 256, causal, 3 stages', { L: 256, D: 128, BN: 64, warps: 8, stages: 3, causal: true }],
  ['D 128, 4 warps, BN 64, L 190 ragged, 2 stages', { L: 190, D: 128, BN: 64, warps: 4, stages: 2, causal: false }],
  ['a loop shorter than the ring: D 64, L 100, 3 stages', { L: 100, D: 64, BN: 64, warps: 4, stages: 3, causal: false }],
];

describe('flash attention (TMA form) on the sm_100a TMA ring, on the sim', () => {
  it.each(CASES)('%s', async (_, s) => {
    const { L, D, BN, causal } = s;
    const BM = ringBm(s);
    const ptx = compileRing(s).ptx;
    expect(ptx, 'the key loop on the ring').toContain(`// TMA ring: ${s.stages} stages of ${2 * BN * D * 2} bytes, 2 tile(s)`);
    expect(compileRing(s, 1).ptx, 'numStages 1: no ring').not.toContain('// TMA ring');
    const x = fa3Inputs(L, D, 5 + D + s.stages + (causal ? 1 : 0));
    const args = { ...x, L, BM, BN, D, CAUSAL: causal, WS: false };
    const run = async (dev: 'interpret' | 'sim', stages: number): Promise<Float32Array> => {
      const o = new Float32Array(L * D);
      await runOn(dev, fa3Attention, { ...args, o }, [Math.ceil(L / BM)], { numWarps: s.warps, numStages: stages });
      return o;
    };
    const [interp, ring, plain] = [await run('interpret', s.stages), await run('sim', s.stages), await run('sim', 1)];
    expectClose(interp, fa3Want(x, L, D, causal), 2e-3, 'interpreter vs JS');
    // the sim's exp is ex2.approx (as the other flash tests allow): close to the interpreter, not its bits
    expectClose(ring, interp, 1e-3, 'sim (ring) vs interpreter');
    // bit for bit the unpipelined kernel: the ring changes where K and V come from, not what is computed
    expect(Array.from(ring)).toEqual(Array.from(plain));
  });
});
