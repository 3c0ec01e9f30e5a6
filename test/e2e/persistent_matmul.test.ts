// Persistent matmuls (persistentTiles + groupedTile, docs/language.md "Persistent kernels"): a
// grid of a few programs (or one per SM, grid 'sms') walks every output tile in grouped order.
// The inner K-loop must keep its pipeline ring inside the tile loop (TMA on sm_90a, cp.async on
// sm_80), and the result must equal the interpreter's and a JS reference bit for bit at Triton's
// production tiles, with ragged M, N and K. Inputs are small integers so every sum is exact in
// f32 and the f16 output: any difference is a defect, not rounding.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { swizzle2d } from '../../src/lang/index.js';
import { ints, persistentMatmul, reference } from './persistent_cases.js';
import { compile } from '../../src/compile/compile.js';
import { getDevice } from '../../src/runtime/device.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { f16Array } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, runSimCompiled, simDevice } from './helpers.js';

const TMA_LOAD = /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes/;
const TMA_STORE = /cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group/;

describe('persistent matmul (persistentTiles, groupedTile)', () => {
  it('groupedTile is swizzle2d of the row-major tile index: a bijection in bands of GROUP_M rows', () => {
    const seen = new Set<string>();
    for (let t = 0; t < 5 * 7; t++) {
      const [i, j] = swizzle2d(Math.trunc(t / 7), t % 7, 5, 7, 2);
      seen.add(`${i},${j}`);
    }
    expect(seen.size).toBe(35);
    expect(swizzle2d(0, 1, 5, 7, 2)).toEqual([1, 0]); // tile 1 is the second row of the first band
  });

  // M, N, K ragged against every tile; the grid is smaller than the tile count so programs loop
  const M = 200, N = 304, K = 112; // N, K multiples of 16 (TMA rows, 16-byte cp.async runs), ragged against every tile
  const A = ints(M * K, 1), B = ints(K * N, 2);
  const want = reference(A.vals, B.vals, M, N, K);
  const cases = [
    { BM: 128, BN: 128, BK: 64, numWarps: 4 },
    { BM: 128, BN: 256, BK: 64, numWarps: 8 },
  ];

  for (const cfg of cases) {
    const args = { a: A.bits, b: B.bits, c: new Uint16Array(M * N), M, N, K, BM: cfg.BM, BN: cfg.BN, BK: cfg.BK, GROUP_M: 2 };
    const f = persistentMatmul.trace({ BM: cfg.BM, BN: cfg.BN, BK: cfg.BK, GROUP_M: 2 });
    const positional = [A.bits, B.bits, new Uint16Array(M * N), M, N, K];
    const spec = launchSpecialization(f, positional);
    const name = `${cfg.BM}x${cfg.BN}x${cfg.BK}, ${cfg.numWarps} warps`;

    it(`${name}, sm_90a: the K-loop keeps its TMA ring inside the tile loop; equals the reference`, () => {
      const ptx = compile(f, { target: 'sm_90a', numWarps: cfg.numWarps, specialization: spec, ptxas: true }).ptx;
      expect(ptx).toMatch(/\/\/ TMA ring: 3 stages/);
      expect(count(ptx, TMA_LOAD)).toBe(cfg.BN === 256 ? 15 : 9); // prologue + loop issue + the next tile's prefetch (ring_prefetch.ts); a 256-wide b is 4 boxes of 64
      expect(count(ptx, /wgmma\.mma_async/)).toBeGreaterThan(0);
      expect(count(ptx, TMA_STORE)).toBeGreaterThan(0);
      // the f16 accumulator goes registers -> stmatrix -> shared -> TMA store, no layout conversion
      expect(count(ptx, /stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe((cfg.BM * cfg.BN) / (32 * cfg.numWarps * 8));
      expect(count(ptx, /st\.shared/)).toBe(0);
      for (const grid of [3, 1]) {
        const out = runSimCompiled(f, positional, grid, { target: 'sm_90a', numWarps: cfg.numWarps, specialization: spec });
        expectBitwise(out[2] as Uint16Array, f16Of(want), `sim (sm_90a, grid ${grid}) vs reference`);
      }
    });

    it(`${name}, sm_80: the K-loop keeps its cp.async ring; equals the reference`, () => {
      const ptx = compile(f, { target: 'sm_80', numWarps: cfg.numWarps, specialization: spec, ptxas: true }).ptx;
      expect(count(ptx, /cp\.async\.cg\.shared\.global/)).toBeGreaterThan(0);
      expect(count(ptx, /mma\.sync/)).toBeGreaterThan(0);
      const out = runSimCompiled(f, positional, 4, { target: 'sm_80', numWarps: cfg.numWarps, specialization: spec });
      expectBitwise(out[2] as Uint16Array, f16Of(want), 'sim (sm_80, grid 4) vs reference');
    });

    it(`${name}: grid 'sms' on the sim and the interpreter (one program) agree with the reference`, async () => {
      const sms = simDevice().properties.multiProcessorCount;
      expect(sms).toBeGreaterThan(1);
      expect(getDevice('interpret').properties?.multiProcessorCount).toBe(1);
      for (const device of ['sim', 'interpret'] as const) {
        const c = new Uint16Array(M * N);
        await persistentMatmul.run({ ...args, c }, { grid: 'sms', device, numWarps: cfg.numWarps });
        expectBitwise(c, f16Of(want), `${device} (grid 'sms') vs reference`);
      }
    });
  }
});

/** The exact reference as f16 bits (its values are integers below 2048: exact in f16). */
const f16Of = (v: Float32Array): Uint16Array => f16Array(v);
