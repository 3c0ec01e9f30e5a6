// The bench:tc table builder for --target sm_100a on one small row: the sim runs as an sm_100
// (TESSERA_SIM_ARCH, read when the sim loads, so it is set before this file opens it), Triton
// compiles for GPUTarget('cuda', 100, 32) (its `.version 9.3` rewritten to 9.0 for ptxas 13.0),
// Tessera for sm_100a; both through ptxas -arch sm_100a. No timing: static figures and sim counters.
// The mx_dot_scaled table (bench/tc_mx.ts): mxfp8 and mxfp4 rows for both compilers, each with the
// tcgen05 MMA form its PTX issues (ours and Triton's the block-scaled kinds, ours copying the
// scales with tcgen05.cp; our emulated rows kind::tf32 / kind::f16), every output right on the sim,
// the missing GPU said plainly. The flash_d128 table (bench/tc_fa3.ts at sm_100a): flash attention
// at D = 128 on tcgen05 beside Triton's cc 100 kernel, both right on the sim.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { benchTc } from '../../bench/tc_vs_triton.js';
import { checkTable } from './tc_table_check.js';

/** One row of the mx_dot_scaled table (bench/tc_mx.ts): its nine figures, error vs JS and MMA form. */
const mxRow = (text: string, who: string, label: string): { figs: number[]; err: string; form: string } => {
  const re = new RegExp(`^ {2}${who} ${label}\\s+(\\d+)\\s+(\\d+)\\s+(\\d+|n/a)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)/(\\d+)\\s+(\\d+)\\s+(\\S+)\\s+(\\S+)$`, 'm');
  const m = re.exec(text);
  expect(m, `${who} ${label} in\n${text}`).not.toBeNull();
  return { figs: m!.slice(1, 10).map(Number), err: m![10]!, form: m![11]! };
};

// Each row compiles Triton's kernels and runs several kernels on the sim: minutes on a busy 2-core machine.
describe('bench:tc table (sm_100a)', { timeout: 300_000 }, () => {
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

  it('ring_matmul rows (f16 and e4m3 on the TMA ring, MMAs in flight): ours right on the sim, Triton beside each', async () => {
    let text = '';
    const before = process.exitCode;
    await benchTc((s) => { text += s; }, { target: 'sm_100a', only: 'ring_matmul' });
    expect(process.exitCode, text).toBe(before);
    expect(text).not.toMatch(/MISMATCH|Triton failed/);
    for (const label of ['f16 128x128x64 4w', 'f16 128x256x64 8w', 'e4m3 128x128x128 4w']) {
      expect(text).toMatch(new RegExp(`^ {2}tessera ${label}\\s+\\d+\\s+0\\s+\\d+\\s+\\d+\\s+4\\s+\\d+\\s+\\d+\\s+3\\s+vs JS \\d\\.\\de-\\d+, warp instructions \\d+$`, 'm'));
      expect(text).toMatch(new RegExp(`^ {2}triton \\S+ ${label}\\s+\\d+`, 'm'));
    }
  });

  it('flash_d128 rows: ours on tcgen05 with its accumulators in TMEM, beside Triton\'s cc 100 flash forward, both right on the sim', async () => {
    let text = '';
    const before = process.exitCode;
    await benchTc((s) => { text += s; }, { target: 'sm_100a', only: 'flash_d128' });
    expect(process.exitCode, text).toBe(before);
    expect(text).not.toMatch(/MISMATCH|Triton failed|; sim: /);
    expect(text).toContain('flash_d128 (flash attention forward on tcgen05, TMEM accumulators): D=128 BM=128 BN=128, 8 warps, numStages 2');
    // regs, spills, SASS, smem, tcgen05.mma, TMEM columns, TMA, warp instructions, load requests; error vs JS
    const row = (who: string): number[] => {
      const m = new RegExp(`^ {2}${who}\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+256 threads, .*; vs JS (\\S+)$`, 'm').exec(text);
      expect(m, `${who} in\n${text}`).not.toBeNull();
      return m!.slice(1, 11).map(Number);
    };
    const ours = row('tessera plain \\(TMA, tcgen05\\)');
    const ring = row('tessera flash \\(cp.async ring\\)');
    const tri = row('triton \\S+ plain');
    for (const r of [ours, ring, tri]) {
      const [regs, spills, sass, smem, mma, tmem, , warpInstrs, , err] = r as [number, number, number, number, number, number, number, number, number, number];
      expect(regs).toBeGreaterThan(0);
      expect(spills).toBe(0);
      expect(sass).toBeGreaterThan(0);
      expect(smem).toBeGreaterThan(0);
      expect(mma).toBeGreaterThan(0);
      expect(tmem).toBeGreaterThanOrEqual(256); // S and O, 128 columns each
      expect(warpInstrs).toBeGreaterThan(0);
      expect(err).toBeLessThanOrEqual(2e-3);
    }
    // ours loads K and V by TMA
    expect(ours[6]).toBeGreaterThan(0);
  });

  it('mxfp8 and mxfp4 rows: ours and Triton the block-scaled kinds, our emulation on kind::tf32 / kind::f16, all right on the sim', async () => {
    let text = '';
    const before = process.exitCode;
    await benchTc((s) => { text += s; }, { target: 'sm_100a', only: 'mx_dot_scaled' });
    expect(process.exitCode, text).toBe(before);
    expect(text).not.toMatch(/skipped|MISMATCH|Triton failed/);
    expect(text).toContain('mx_dot_scaled (dotScaled / tl.dot_scaled, e8m0 scales per 32 along K): 128x128x128 tile');
    expect(text).toMatch(/Tessera's dotScaled issues the block-scaled kinds/);
    expect(text).toMatch(/No GPU was used: registers, spills, SASS, shared bytes and TMEM columns come from ptxas -arch sm_100a/);
    const want = {
      emulated: { mxfp8: /^kind::tf32$/, mxfp4: /^kind::f16$/ },
      native: { mxfp8: /^kind::mxf8f6f4\.block_scale\b/, mxfp4: /^kind::mxf4\.block_scale\b/ },
    } as const;
    for (const label of ['mxfp8', 'mxfp4'] as const) {
      const ours = mxRow(text, 'tessera', label);
      const emu = mxRow(text, 'tessera', `${label} emulated`);
      const tri = mxRow(text, 'triton \\S+', label);
      expect(ours.form).toMatch(want.native[label]);
      expect(emu.form).toMatch(want.emulated[label]);
      expect(tri.form).toMatch(want.native[label]);
      // ours copies its scales into tensor memory (tcgen05.cp)
      expect(ours.figs[7]!).toBeGreaterThan(0);
      for (const r of [ours, emu, tri]) {
        const [regs, , , smem, tmem, mma] = r.figs;
        expect(regs).toBeGreaterThan(0);
        expect(smem).toBeGreaterThan(0);
        expect(tmem).toBeGreaterThanOrEqual(32);
        expect(mma).toBeGreaterThan(0);
        expect(Number(r.err)).toBeLessThanOrEqual(1e-5);
      }
      // Triton stores its scales into tensor memory (tcgen05.st)
      expect(tri.figs[6]! + tri.figs[7]!).toBeGreaterThan(0);
    }
  });
});
