// Sabotage of the subtiled TMA store of a tcgen05 accumulator (codegen/async/tma_store_subtiled.ts),
// by string surgery on the PTX, run on the sim as an sm_100: a staging buffer rewritten before the
// TMA store of its previous box has read it gives a wrong C.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { expectBitwise } from './helpers.js';
import { DESC, problem, runPtx, sm100 } from './tcgen05_epilogue_cases.js';

describe('sabotage of the subtiled TMA store (string surgery on the PTX, run on the sim)', () => {
  it('a staging buffer rewritten before its previous box was read (the wait_group.read 1 cut out) gives a wrong C', () => {
    const p = { M: 128, N: 128, K: 64, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem(p, 'f32', 101);
    const r = sm100(DESC.f32, args, p.numWarps, 3);
    expectBitwise(runPtx(DESC.f32, args, grid, r, r.ptx), want, 'intact');
    const cut = r.ptx.replace(/^.*cp\.async\.bulk\.wait_group\.read 1;.*$/gm, '');
    expect(cut).not.toBe(r.ptx);
    const got = new Float32Array((runPtx(DESC.f32, args, grid, r, cut) as Float32Array).buffer);
    expect(Buffer.from(got.buffer).equals(Buffer.from((want as Float32Array).buffer)), 'the sabotaged kernel must not give the right C').toBe(false);
  });
});
