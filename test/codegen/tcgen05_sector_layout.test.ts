// The tcgen05 sector layout (compiler/tcgen05_sector_layout.ts) against the tcgen05.ld.16x32bx2
// fragments its loads give (PTX ISA: lane t % 16 of the address, t >= 16 immHalfSplitoff columns
// on), and the PTX of the bench's aligned matmul on sm_100a (through ptxas): the accumulator is
// read back with 16x32bx2.x4 (split 4: 16 bytes of f32 C) instead of 32x32b / half rows.
import { describe, expect, it } from 'vitest';
import { regSlots, threadShifts } from '../../src/compiler/layout.js';
import { tcgen05SectorLayout, tcgen05SectorRun } from '../../src/compiler/tcgen05_sector_layout.js';
import { tcgen05Layout } from '../../src/compiler/tcgen05_kinds.js';
import { coordsOf } from '../../src/codegen/convert/convert_plan.js';
import { matmulAligned } from '../../bench/kernels.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { count, gateTargets } from './gate.js';

describe('the sector layout', () => {
  it.each([
    [128, 128, 4, 4], [128, 128, 4, 8], [128, 256, 8, 4], [128, 64, 8, 8], [64, 64, 4, 4], [64, 128, 4, 8],
  ] as const)('M %i N %i on %i warps, runs of %i: each register is the TMEM cell its 16x32bx2 load reads', (M, N, numWarps, s) => {
    const l = tcgen05SectorLayout(M, N, numWarps, s)!;
    expect(l).toBeDefined();
    expect(tcgen05SectorRun(l, M, N, numWarps)).toBe(s);
    expect(tcgen05SectorRun(tcgen05Layout(M, N, numWarps)!, M, N, numWarps)).toBe(0);
    const wn = numWarps / 4, reps = M === 64 ? 1 : 2;
    const slots = regSlots(l, [M, N]);
    const sh = threadShifts(l);
    const seen = new Set<string>();
    for (let warp = 0; warp < numWarps; warp++) {
      for (let lane = 0; lane < 32; lane++) {
        slots.forEach((slot, r) => {
          // lower_tcgen05.ts sectorRows: register rep + reps * (g * s + j) comes from load (g, rep)
          const rep = r % reps, g = Math.floor(r / reps / s), j = Math.floor(r / reps) % s;
          const tmemLane = 32 * (warp % 4) + 16 * rep + (lane % 16);
          const col = g * 2 * s * wn + Math.floor(warp / 4) * 2 * s + (lane >= 16 ? s : 0) + j;
          const row = M === 64 ? 16 * (warp % 4) + (lane % 16) : tmemLane; // M = 64: row m in lane 32(m/16) + m%16
          expect(coordsOf(l, [M, N], sh, warp, lane, slot.off)).toEqual([row, col]);
          seen.add(`${row},${col}`);
        });
      }
    }
    expect(seen.size).toBe(M * N);
  });

  it('is not offered where 2 runs per warp column do not fit (N = 16 on 8 warps with runs of 8)', () => {
    expect(tcgen05SectorLayout(128, 16, 8, 8)).toBeUndefined();
  });
});

describe("the bench's aligned matmul on sm_100a (64 x 64 tile, f32 C)", () => {
  it.each([1, 3])('numStages %i: read back with 16x32bx2.x4 (split 4), stored by st.global.v4, no conversion', (numStages) => {
    const f = new Kernel(matmulAligned.f16).trace({ BM: 64, BN: 64, BK: 32 });
    // specialized as a launch of the bench's problem (M = N = 128, K = 256: 16-aligned pointers and sizes)
    const specialization = launchSpecialization(f, [new Uint16Array(128 * 256), new Uint16Array(256 * 128), new Float32Array(128 * 128), 128, 128, 256]);
    const r = gateTargets(f, ['sm_100a'], { numWarps: 4, numStages, specialization })['sm_100a']!;
    // 64 x 64 f32 over 4 warps: 8 loads of 16 lanes x 8 columns each, 8 v4 stores a thread
    expect(count(r.ptx, /tcgen05\.ld\.sync\.aligned\.16x32bx2\.x4\.b32 \{[^}]*\}, \[%r\d+(\+\d+)?\], 4;/)).toBe(8);
    expect(r.ptx).not.toMatch(/tcgen05\.ld\.sync\.aligned\.(32x32b|16x32bx2\.x32)/);
    expect(count(r.ptx, /st\.global\.v4\.(b32|f32)/)).toBe(8);
    expect(r.ptx).not.toContain('// convert_layout');
  });
});
