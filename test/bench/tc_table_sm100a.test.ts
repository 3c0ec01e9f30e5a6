// The bench:tc table builder for --target sm_100a on one small row: the sim runs as an sm_100
// (TESSERA_SIM_ARCH, read when the sim loads, so it is set before this file opens it), Triton
// compiles for GPUTarget('cuda', 100, 32) (its `.version 9.3` rewritten to 9.0 for ptxas 13.0),
// Tessera for sm_100a; both through ptxas -arch sm_100a. No timing: static figures and sim counters.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { benchTc } from '../../bench/tc_vs_triton.js';
import { checkTable } from './tc_table_check.js';

describe('bench:tc table (sm_100a)', () => {
  it('one row: both on tcgen05, the outputs agree on the sim, the table built and cross-checked as for sm_80', async () => {
    let text = '';
    const before = process.exitCode;
    await benchTc((s) => { text += s; }, { target: 'sm_100a', only: 'mm_aligned_f16 ns1' });
    expect(process.exitCode, text).toBe(before);
    const row = checkTable(text, 'sm_100a', 'mm_aligned_f16 ns1');
    expect(text).toContain("GPUTarget('cuda', 100, 32)");
    expect(text).toMatch(/counted by the sim \(as an sm_100\)/);
    expect(text).toMatch(/tcgen05\.mma \(PTX\) +\d+ +\d+/);
    expect(row.get('mma.sync (PTX)')!.tessera).toBe(0);
  });
});
