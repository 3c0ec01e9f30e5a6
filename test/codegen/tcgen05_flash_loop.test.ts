// The key loop of flash attention on sm_100a (bench/kernels.ts flashAttention, the bench's
// configuration: BM = BN = D = 64, 4 warps, 3 stages; and D = 128 on 8 warps): what each
// iteration issues, per warp. Numerical cases: test/e2e/tcgen05_tmem_a.test.ts; the figures beside
// Triton's: `npm run bench:tc -- --target sm_100a --only flash` (docs/compiler.md).
//   P's rounding  the tcgen05 accumulator layout holds a row a thread (order [0, 1]); P's f32 ->
//                 half rounding goes in pairs along the row (cvt.rn.{f16,bf16}x2.f32, lower_cast.ts
//                 castPairs) and tcgen05.st stores those words (tcgen05_tmem_a.ts), no scalar cvt
//                 and no repacking
//   MMA issue     the descriptors, k-step offsets, MMAs and commit of both dots are the elected
//                 thread's: the other warps branch past them (tcgen05_issue.ts)
//   TMEM rows     each thread's row address in tensor memory (its warp's lane quarter) and P's
//                 columns are computed once, in the prologue (tcgen05_row_addr.ts)
//   back edge     acc * alpha + P V and l * alpha + sum(p) are written into acc's and l's own
//                 registers (lower_elementwise.ts, in place): the back edge copies m_i alone
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import type { KernelDef } from '../../src/lang/index.js';
import { flashAttention, type Half } from '../../bench/kernels.js';
import { count, gateTargets } from './gate.js';

const CONFIGS = [
  { BM: 64, BN: 64, D: 64, numWarps: 4 },
  { BM: 128, BN: 64, D: 128, numWarps: 8 },
] as const;

/** The sm_100a PTX of the flash kernel (3 stages; pointers and L divisible by 16, as the bench specializes them). */
function flashPtx(t: Half, c: (typeof CONFIGS)[number]): string {
  const f = (flashAttention[t] as unknown as KernelDef).trace({ BM: c.BM, BN: c.BN, D: c.D });
  const spec = Object.fromEntries(['q', 'k', 'v', 'o', 'L'].map((n) => [n, { divisibleBy16: true }]));
  return gateTargets(f, ['sm_100a'], { numWarps: c.numWarps, numStages: 3, specialization: spec })['sm_100a']!.ptx;
}

/** The pipelined key loop's body: from its head to its end label. */
function loopOf(ptx: string): string {
  const start = ptx.indexOf('\n$L_pfor'), end = ptx.indexOf('\n$L_endpfor');
  expect(start, 'a pipelined loop').toBeGreaterThan(0);
  return ptx.slice(start, end);
}

describe.each(['f16', 'bf16'] as const)('flash attention\'s key loop on sm_100a (%s)', (t) => {
  it.each(CONFIGS)('BM $BM, BN $BN, D $D, $numWarps warps: P rounded in pairs and stored to TMEM as those words', (c) => {
    const loop = loopOf(flashPtx(t, c));
    // a thread holds BN/2 (M = 64, .16x32bx2) or BN/(numWarps/4) (M = 128, .32x32b) columns of P
    const perThread = c.BM === 64 ? c.BN / 2 : c.BN / (c.numWarps / 4);
    expect(count(loop, new RegExp(`cvt\\.rn\\.${t}x2\\.f32`)), 'pairs').toBe(perThread / 2);
    expect(count(loop, new RegExp(`cvt\\.rn\\.${t}\\.f32`)), 'scalar roundings').toBe(0);
    expect(count(loop, /mov\.b32 %r\d+, \{%h\d+, %h\d+\}/), 'halves packed again').toBe(0);
  });
});

/** The loop without its MMA-issue regions (`@!p bra.uni $L_mma_issued_n` up to that label): what warps 1.. run. */
function outsideIssue(loop: string): { rest: string; regions: string[] } {
  const regions: string[] = [];
  const rest = loop.replace(/^\s*@!%p\d+ bra\.uni (\$L_mma_issued_\d+);\n([\s\S]*?)^\1:$/gm, (_m, _l, body: string) => {
    regions.push(body);
    return '';
  });
  return { rest, regions };
}

describe.each(['f16', 'bf16'] as const)('flash attention\'s key loop on sm_100a (%s): the MMA issue', (t) => {
  it.each(CONFIGS)('BM $BM, BN $BN, D $D, $numWarps warps: warps other than 0 branch past both dots\' descriptors, MMAs and commits', (c) => {
    const { rest, regions } = outsideIssue(loopOf(flashPtx(t, c)));
    expect(regions.length, 'S = Q K^T and P V').toBe(2);
    expect(count(regions.join('\n'), /tcgen05\.mma\./), 'MMAs: a k-step of 16 each').toBe(c.D / 16 + c.BN / 16);
    expect(count(regions.join('\n'), /tcgen05\.commit\./)).toBe(2);
    for (const re of [/tcgen05\.mma\./, /tcgen05\.commit\./, /mov\.b64 %rd\d+, \{/, /add\.s64/]) expect(count(rest, re), `${re} outside the issue`).toBe(0);
    // every thread waits for the commits and reads S and the P V product back
    expect(count(rest, /mbarrier\.try_wait/)).toBe(2);
    expect(count(rest, /tcgen05\.ld\./)).toBeGreaterThanOrEqual(2);
  });
});

describe.each(['f16', 'bf16'] as const)('flash attention\'s key loop on sm_100a (%s): loop-invariant and carried registers', (t) => {
  it.each(CONFIGS)('BM $BM, BN $BN, D $D, $numWarps warps: no TMEM row address computed in the loop; the back edge copies m_i only', (c) => {
    const loop = loopOf(flashPtx(t, c));
    // the lane quarter (32 * (w % 4)) << 16 of a row address
    expect(count(loop, /shl\.b32 %r\d+, %r\d+, 21;/), 'row addresses').toBe(0);
    // m_i: one row a thread, one register; acc (D / 2 or D / (numWarps / 4) columns) and l_i: none
    expect(count(loop, /^\s*mov\.b32 %f\d+, %f\d+;/), 'f32 copies').toBe(1);
  });
});
