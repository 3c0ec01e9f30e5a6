// Thread block clusters (the `clusterDims` run option, sm_90): the launch goes through
// cuLaunchKernelEx with the cluster-dimension attribute, and clusterCtaRank() reads
// %cluster_ctarank, which the sim numbers from the cluster shape it was given (a launch without
// the attribute would give rank 0 everywhere). The interpreter numbers programs the same way.
// Bad cluster shapes are refused by name before anything runs.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { clusterCtaRank, programId, numPrograms, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { compile } from '../../src/compile/compile.js';
import { simDevice } from './helpers.js';

/** out[linear program id] = clusterCtaRank(). */
const ranks = kernel({ name: 'cluster_ranks', params: { out: ptr('i32') } }, ({ out }) => {
  const lin = programId(2).mul(numPrograms(1)).add(programId(1)).mul(numPrograms(0)).add(programId(0));
  store(out.add(lin), clusterCtaRank());
});

function want(grid: readonly number[], c: readonly number[]): Int32Array {
  const [gx, gy, gz] = grid as [number, number, number];
  const out = new Int32Array(gx * gy * gz);
  for (let z = 0; z < gz; z++) for (let y = 0; y < gy; y++) for (let x = 0; x < gx; x++) {
    out[(z * gy + y) * gx + x] = (x % c[0]!) + c[0]! * ((y % c[1]!) + c[1]! * (z % c[2]!));
  }
  return out;
}

describe('clusterDims and clusterCtaRank()', () => {
  it('PTX: %cluster_ctarank on sm_90a, the constant 0 on sm_80 (no clusters there)', () => {
    const f = ranks.trace({});
    expect(compile(f, { target: 'sm_90a', ptxas: true }).ptx).toMatch(/mov\.u32 %r\d+, %cluster_ctarank;/);
    expect(compile(f, { target: 'sm_80', ptxas: true }).ptx).not.toMatch(/cluster_ctarank/);
  });

  const shapes: { grid: [number, number, number]; cluster: number[] }[] = [
    { grid: [8, 2, 1], cluster: [1] },
    { grid: [8, 2, 1], cluster: [2] },
    { grid: [8, 2, 1], cluster: [4] },
    { grid: [4, 4, 2], cluster: [2, 2] },
    { grid: [4, 2, 2], cluster: [1, 2, 2] },
  ];
  for (const { grid, cluster } of shapes) {
    it(`grid [${grid}] clusters [${cluster}]: sim and interpreter ranks as %cluster_ctarank`, async () => {
      const c = [cluster[0]!, cluster[1] ?? 1, cluster[2] ?? 1];
      for (const device of ['sim', 'interpret'] as const) {
        const out = new Int32Array(grid[0] * grid[1] * grid[2]).fill(-1);
        await ranks.run({ out }, { grid, device, clusterDims: cluster });
        expect(Array.from(out), device).toEqual(Array.from(want(grid, c)));
      }
    });
  }

  it('without clusterDims every rank is 0', async () => {
    const out = new Int32Array(8).fill(-1);
    await ranks.run({ out }, { grid: 8, device: simDevice() });
    expect(Array.from(out)).toEqual(new Array(8).fill(0));
  });

  it('bad cluster shapes are refused by name before anything runs', async () => {
    const out = new Int32Array(16).fill(7);
    for (const device of ['sim', 'interpret'] as const) {
      await expect(ranks.run({ out }, { grid: 16, device, clusterDims: [16] })).rejects.toMatchObject({ code: 'E_ARG', message: expect.stringMatching(/clusterDims \[16, 1, 1\] is 16 CTAs per cluster; the portable maximum is 8/) });
      await expect(ranks.run({ out }, { grid: [6, 1], device, clusterDims: [4] })).rejects.toMatchObject({ code: 'E_ARG', message: expect.stringMatching(/grid \[6, 1, 1\] is not divisible by clusterDims \[4, 1, 1\] along x/) });
      await expect(ranks.run({ out }, { grid: 16, device, clusterDims: [0] })).rejects.toMatchObject({ code: 'E_ARG', message: expect.stringMatching(/clusterDims must be 1 to 3 positive integers/) });
    }
    expect(out.every((v) => v === 7)).toBe(true);
  });
});
