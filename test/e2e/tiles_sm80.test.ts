// Production-size matmul tiles and every bench:tc row on the sim as an sm_80 (kernels compiled for
// sm_80: descriptors as masked loads, cp.async rings, mma.sync; the device's 163 KB opt-in limit),
// against f64 JS references (tiles_cases.ts says which tiles and why).
process.env['TESSERA_SIM_ARCH'] = 'sm_80';
import { describe, expect, it } from 'vitest';
import { simDevice } from './helpers.js';
import { benchTcCases, checkTcCasePtx, checkTilePtx, runTcCase, runTile, stagesFor, TILE_KERNELS, TILES, tileName } from './tiles_cases.js';

describe('production tiles on the sim as sm_80 (sm_80 PTX)', () => {
  it('the sim device compiles for sm_80', () => expect(simDevice().target).toBe('sm_80'));

  describe.each(TILES.map((t) => [tileName(t), t] as const))('%s', (_, t) => {
    it.each(TILE_KERNELS)('%s', async (which) => {
      for (const s of stagesFor(which, 'sm_80')) {
        checkTilePtx(which, t, s, 'sm_80');
        await runTile(which, t, s);
      }
    });
  });
});

describe('every bench:tc row (--target sm_80) on the sim', () => {
  it.each(benchTcCases('sm_80').map((c) => [c.label, c.dtype, c] as const))('%s (%s)', async (_, _t, c) => {
    checkTcCasePtx(c, 'sm_80');
    await runTcCase(c);
  });
});
