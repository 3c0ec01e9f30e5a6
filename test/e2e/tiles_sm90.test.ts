// Production-size matmul tiles and every bench:tc row on the sim as an sm_90 (kernels compiled
// for sm_90a: TMA rings, wgmma), against f64 JS references (tiles_cases.ts says which tiles and why).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { f16Array } from '../../src/ir/half.js';
import { simDevice } from './helpers.js';
import { benchTcCases, mmHostDesc, checkTcCasePtx, checkTilePtx, runTcCase, runTile, stagesFor, TILE_KERNELS, TILES, tileName } from './tiles_cases.js';

describe('production tiles on the sim as sm_90 (sm_90a PTX)', () => {
  it('the sim device compiles for sm_90a', () => expect(simDevice().target).toBe('sm_90a'));

  describe.each(TILES.map((t) => [tileName(t), t] as const))('%s', (_, t) => {
    it.each(TILE_KERNELS)('%s', async (which) => {
      for (const s of stagesFor(which, 'sm_90a')) {
        checkTilePtx(which, t, s, 'sm_90a');
        await runTile(which, t, s);
      }
    });
  });

  it.each(TILES.slice(0, 4).map((t) => [tileName(t), t] as const))('%s, host descriptors at 3 stages, runs clean under racecheck, synccheck and initcheck', async (_, t) => {
    await runTile('host descriptors', t, 3, ['racecheck', 'synccheck', 'initcheck']);
  });

  it('a ring past the device\'s opt-in maximum (128x256x64 at 5 stages: 240 KB of 227) is refused by name, before anything runs', async () => {
    const [BM, BN, BK] = [128, 256, 64], M = BM, N = BN, K = 6 * BK;
    const a = f16Array(new Float32Array(M * K).fill(1)), b = f16Array(new Float32Array(K * N).fill(1));
    const c = new Float32Array(M * N).fill(-1);
    const run = mmHostDesc.run({ a: { base: a, shape: [M, K], strides: [K, 1] }, b: { base: b, shape: [K, N], strides: [N, 1] }, c: { base: c, shape: [M, N], strides: [N, 1] }, K, BM, BN, BK }, { grid: [1, 1], device: 'sim', numWarps: 8, numStages: 5 });
    await expect(run).rejects.toMatchObject({ code: 'E_RANGE', message: expect.stringMatching(/kernel 'tile_mm_host_desc' needs 245800 bytes of shared memory per block \(245800 dynamic\); the device \(.*\) allows 232448: use fewer stages \(numStages\) or smaller tiles/) });
    expect(c.every((v) => v === -1)).toBe(true);
  });
});

describe('every bench:tc row (--target sm_90a) on the sim', () => {
  it.each(benchTcCases('sm_90a').map((c) => [c.label, c.dtype, c] as const))('%s (%s)', async (_, _t, c) => {
    checkTcCasePtx(c, 'sm_90a');
    await runTcCase(c);
  });
});
