// The bench:tc table builder (bench/tc_vs_triton.ts) on one small row, for sm_80: Triton 3.8
// (.venv) and Tessera compile the 1-stage aligned f16 matmul, ptxas assembles both, the sim runs
// both; the test checks the table's shape and that its ratios are the quotients of its own figures.
// No timing anywhere: every figure is static (ptxas, the cubin) or a sim counter.
// tc_table_sm90a.test.ts does the same for --target sm_90a.
import { describe, expect, it } from 'vitest';
import { benchTc } from '../../bench/tc_vs_triton.js';
import { checkTable } from './tc_table_check.js';

describe('bench:tc table (sm_80)', () => {
  it('one row: header says no GPU, every figure with tessera, triton, ratio; shared memory has its ratio and aim; outputs agree', async () => {
    let text = '';
    const before = process.exitCode;
    await benchTc((s) => { text += s; }, { only: 'mm_aligned_f16 ns1' });
    expect(process.exitCode, text).toBe(before);
    const row = checkTable(text, 'sm_80', 'mm_aligned_f16 ns1');
    // sm_80: both sides on mma.sync, neither on wgmma or TMA
    expect(row.get('mma.sync (PTX)')!.tessera).toBeGreaterThan(0);
    expect(row.get('mma.sync (PTX)')!.triton).toBeGreaterThan(0);
    expect(row.get('wgmma (PTX)')).toMatchObject({ tessera: 0, triton: 0 });
    expect(row.get('TMA (PTX)')).toMatchObject({ tessera: 0, triton: 0 });
  });

  it('an unknown target is refused before anything runs, naming the allowed ones', async () => {
    await expect(benchTc(() => {}, { target: 'sm_75' as never })).rejects.toThrow(/--target must be one of sm_80, sm_90a, sm_100a, got 'sm_75'/);
  });
});
