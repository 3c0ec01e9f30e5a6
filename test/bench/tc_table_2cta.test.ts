// The matmul_2cta table of bench:tc --target sm_100a (bench/tc_2cta.ts), built from the sources as
// the other table tests build theirs: Triton's Gluon kernel is read from the repository's corpus
// (scripts/corpus), found from bench/ as from dist/bench/; our pair kernel right on the sim in
// [2, 1, 1] clusters, with its cta_group::2 MMAs, TMA copies, TMEM columns and waits; Triton's beside it.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { benchTc } from '../../bench/tc_vs_triton.js';

describe('bench:tc table (sm_100a): matmul_2cta', () => {
  it('the pair row right on the sim, Triton\'s Gluon kernel beside it', async () => {
    let text = '';
    const before = process.exitCode;
    await benchTc((s) => { text += s; }, { target: 'sm_100a', only: 'matmul_2cta' });
    expect(process.exitCode, text).toBe(before);
    expect(text).not.toMatch(/MISMATCH|Triton failed/);
    expect(text).toMatch(/^ {2}kernel\s+regs\s+spills\s+SASS\s+smem B\s+mma\s+TMA\s+TMEM\s+waits {2}sim \(one pair, K 64\)$/m);
    // regs, spills 0, SASS, shared, 4 MMAs (BK 64 / k16), TMA copies, 256 TMEM columns, waits; the sim's check
    expect(text).toMatch(/^ {2}tessera twoCta 128x256x64\/CTA 8w, TMA ring\s+\d+\s+0\s+\d+\s+\d+\s+4\s+\d+\s+256\s+\d+ {2}vs JS \d\.\de-\d+, warp instructions \d+$/m);
    expect(text).toMatch(/^ {2}triton \S+ gluon 256x256x64 4w, no TMA\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+0\s+256\s+\d+ {2}n\/a$/m);
  }, 300_000);
});
