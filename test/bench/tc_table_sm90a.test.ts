// The bench:tc table builder for --target sm_90a on one small row: the sim runs as an sm_90
// (TESSERA_SIM_ARCH, read when the sim loads, so it is set before this file opens it), Triton
// compiles for GPUTarget('cuda', 90, 32) (wgmma), Tessera for sm_90a; both through ptxas -arch
// sm_90a. No timing: static figures and sim counters only.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { benchTc } from '../../bench/tc_vs_triton.js';
import { checkTable } from './tc_table_check.js';

describe('bench:tc table (sm_90a)', () => {
  it('one row: Triton on wgmma, the table built and cross-checked as for sm_80', async () => {
    let text = '';
    const before = process.exitCode;
    await benchTc((s) => { text += s; }, { target: 'sm_90a', only: 'mm_aligned_f16 ns1' });
    expect(process.exitCode, text).toBe(before);
    const row = checkTable(text, 'sm_90a', 'mm_aligned_f16 ns1');
    expect(text).toContain("GPUTarget('cuda', 90, 32)");
    expect(text).toMatch(/counted by the sim \(as an sm_90\)/);
    expect(row.get('wgmma (PTX)')!.triton).toBeGreaterThan(0);
    expect(row.get('mma.sync (PTX)')!.triton).toBe(0);
  });
});
