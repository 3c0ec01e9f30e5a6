// Flash attention's TMA form on sm_100a (bench/fa3_kernels.ts without `WS`): the key loop's K and
// V descriptor loads are on the TMA ring (pipeline/lower_tma_ring.ts), S - 1 iterations ahead.
// Before, each iteration issued K's and V's cp.async.bulk.tensor and waited on their mbarrier in
// place, so nothing overlapped the loads with the MMAs. What the loop's PTX must show:
//   prologue    the first S - 1 stages issued before the loop (both tiles' boxes each)
//   iteration   the copies issued in the loop arrive on a different mbarrier register than the one
//               the loop waits on (the next stage's, not the current one's), and come before the
//               iteration's first tcgen05.mma: the next stage is in flight while the MMAs run
//   release     a bar.sync between the full-barrier wait and the refill: every thread has waited
//               for the commits of the MMAs that read the refilled stage (previous iteration)
//   state       the ring carries only its stage index (and the parity bits) across the back edge:
//               the stage's and the mbarriers' shared addresses are derived in each iteration from
//               the symbols, before they are used. Before, four pointers (read/write stage, read/write
//               mbarrier) were advanced and wrapped on the back edge against bases held from before
//               the loop, all live across the body; with them ptxas took 211 registers for the
//               flash_d128 row instead of 184 (docs/compiler.md)
// Numerical cases: test/e2e/tcgen05_flash_tma_ring.test.ts; sabotage: ..._sabotage.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { fa3Attention } from '../../bench/fa3_kernels.js';
import { gateTargets } from './gate.js';

const CONFIGS = [
  // the bench's flash_d128 row (bench/tc_fa3.ts)
  { BM: 128, BN: 128, D: 128, numWarps: 8, numStages: 2, boxes: 2 },
  { BM: 64, BN: 64, D: 64, numWarps: 4, numStages: 3, boxes: 1 },
] as const;

/** The key loop: from the label of the loop holding the MMAs to its end label. */
function keyLoop(ptx: string): { before: string; loop: string } {
  const mma = ptx.indexOf('tcgen05.mma.');
  expect(mma, 'an MMA').toBeGreaterThan(0);
  const heads = [...ptx.slice(0, mma).matchAll(/\n\$L_(t?for)_(\d+):/g)];
  expect(heads.length, 'a loop around the MMAs').toBeGreaterThan(0);
  const h = heads[heads.length - 1]!;
  const end = ptx.indexOf(`\n$L_end${h[1]}_`, h.index);
  expect(end).toBeGreaterThan(h.index!);
  return { before: ptx.slice(0, h.index), loop: ptx.slice(h.index, end) };
}

const LOAD = /cp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[[^\]]+\], \[[^\]]+\], \[(%r\d+)\];/g;
const WAIT = /mbarrier\.try_wait\.parity\.shared::cta\.b64 %p\d+, \[(%r\d+)\]/g;

describe('flash attention (TMA form) on sm_100a: K and V on the TMA ring', () => {
  it.each(CONFIGS)('BM $BM, BN $BN, D $D, $numWarps warps, $numStages stages: the next stage\'s copies are issued before the current one is read, not waited for in place', (c) => {
    const r = gateTargets(fa3Attention.trace({ BM: c.BM, BN: c.BN, D: c.D, CAUSAL: false, WS: false }), ['sm_100a'], { numWarps: c.numWarps, numStages: c.numStages })['sm_100a']!;
    const { before, loop } = keyLoop(r.ptx);
    const perStage = 2 * c.boxes; // K's and V's boxes
    const loads = [...loop.matchAll(LOAD)];
    const waits = [...loop.matchAll(WAIT)];
    expect(loads.length, 'one stage of copies per iteration').toBe(perStage);
    const loadBars = new Set(loads.map((m) => m[1]));
    // the copies go to another stage's mbarrier, never waited for in this iteration (before: K's
    // and V's own mbarriers, each waited for right after its copies)
    expect(waits.length).toBeGreaterThan(0);
    for (const w of waits) expect(loadBars.has(w[1]), `a wait on the mbarrier the loop's copies arrive on (${w[1]})`).toBe(false);
    expect(loadBars.size, 'one mbarrier per stage').toBe(1);
    // the stage read now is waited for first
    expect(waits[0]!.index!, 'the full-barrier wait precedes the refill').toBeLessThan(loads[0]!.index!);
    // the refill is in flight before this iteration's MMAs are issued
    expect(loads[loads.length - 1]!.index!).toBeLessThan(loop.indexOf('tcgen05.mma.'));
    // the stage refilled was read by the previous iteration: every thread is past its commit waits
    expect(loop.slice(waits[0]!.index!, loads[0]!.index!)).toMatch(/bar\.sync 0;/);
    // the prologue: stages 0..S-2 issued after the ring's opening comment, before the loop
    const ring = before.lastIndexOf('// TMA ring:');
    expect(ring, 'the ring\'s comment before the loop').toBeGreaterThan(0);
    expect([...before.slice(ring).matchAll(LOAD)].length, 'the prologue: stages 0..S-2').toBe((c.numStages - 1) * perStage);
  });
});

/** The instruction lines of `text` that write `reg` (as their first operand). */
const defsOf = (text: string, reg: string): RegExpMatchArray[] => [...text.matchAll(new RegExp(`\\n\\t(?:@!?%p\\d+ )?[a-z][\\w.:]* ${reg}(?=[,;\\s])`, 'g'))];

describe('flash attention (TMA form) on sm_100a: the ring\'s state across the loop', () => {
  it.each(CONFIGS)('BM $BM, BN $BN, D $D, $numWarps warps, $numStages stages: the stage and mbarrier addresses are derived in the iteration, only the stage index is advanced', (c) => {
    const r = gateTargets(fa3Attention.trace({ BM: c.BM, BN: c.BN, D: c.D, CAUSAL: false, WS: false }), ['sm_100a'], { numWarps: c.numWarps, numStages: c.numStages })['sm_100a']!;
    const { loop } = keyLoop(r.ptx);
    const used = [
      // the full-barrier wait (the loop's first; the others wait for the MMAs' commits)
      ...[...loop.matchAll(WAIT)].slice(0, 1).map((m) => [m[1]!, m.index!] as const),
      ...[...loop.matchAll(LOAD)].map((m) => [m[1]!, m.index!] as const),
      ...[...loop.matchAll(/cp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes \[(%r\d+)/g)].map((m) => [m[1]!, m.index!] as const),
    ];
    expect(used.length, 'the loop\'s wait and copies').toBe(1 + 2 * 2 * c.boxes);
    for (const [reg, at] of used) {
      // written in this iteration before its use (before: a pointer carried from the last one)
      const first = defsOf(loop, reg)[0];
      expect(first, `${reg} written in the loop`).toBeDefined();
      expect(first!.index!, `${reg} derived before its use, not carried from the previous iteration`).toBeLessThan(at);
    }
    // what the back edge advances by a constant: the stage index by 1 (before: also the four
    // pointers by the stage's bytes and the mbarriers' 8)
    const advanced = [...loop.matchAll(/\n\tadd\.u32 (%r\d+), \1, (\d+);/g)].map((m) => Number(m[2]));
    expect(advanced, 'the ring registers advanced in the loop').toEqual([1]);
  });
});
