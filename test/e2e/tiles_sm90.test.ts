// Production-size matmul tiles and every bench:tc row on the sim as an sm_90 (kernels compiled
// for sm_90a: TMA rings, wgmma), against f64 JS references (tiles_cases.ts says which tiles and why).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { simDevice } from './helpers.js';
import { benchTcCases, checkTcCasePtx, checkTilePtx, runTcCase, runTile, stagesFor, TILE_KERNELS, TILES, tileName } from './tiles_cases.js';

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
});

describe('every bench:tc row (--target sm_90a) on the sim', () => {
  it.each(benchTcCases('sm_90a').map((c) => [c.label, c.dtype, c] as const))('%s (%s)', async (_, _t, c) => {
    checkTcCasePtx(c, 'sm_90a');
    await runTcCase(c);
  });
});
