// Shared memory of a block-scaled dotScaled on the sm_100a cp.async ring (pipeline/lower_pipeline.ts
// stagesOf), against Triton 3.8's tl.dot_scaled at the same numStages (the tile of bench/tc_mx.ts:
// 128x128x128, 4 warps, b stored [N, K], e8m0 scales; Triton's figures below are its
// metadata.shared for GPUTarget('cuda', 100, 32), docs/compiler.md's mx table). Triton holds
// numStages-1 buffers of a, b and both scale tiles (its MMAs wait each iteration; mxfp8 adds a
// 16384-byte copy of b) and one 8-byte mbarrier. Ours holds the same numStages-1 stages of a, b and
// the scale chunks (the scales go on into TMEM by tcgen05.cp from the stage: no scratch), the MMAs
// in flight from numStages 3 (one EMPTY mbarrier per stage after the ring), waiting at 2 (one
// mbarrier). Before: the in-flight ring held numStages stages (67600 / 34832 bytes at numStages 2).
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { ringKernel } from '../e2e/dot_scaled_ring_cases.js';
import type { Case } from '../e2e/dot_scaled_cases.js';
import { count } from './gate.js';

const SPEC = Object.fromEntries(['a', 'b', 'as', 'bs', 'c'].map((n) => [n, { divisibleBy16: true }]));
const TILE = { M: 128, N: 128, K: 256, BM: 128, BN: 128, BK: 128 } as const;

/** [label, case, bytes of one stage (a + b + 512 a scale chunk), Triton 3.8's shared bytes at numStages 2, 3, 4]. */
const ROWS: [string, Case, number, Record<number, number>][] = [
  ['mxfp8', { fa: 'e4m3', fb: 'e4m3', ...TILE }, 128 * 128 * 2 + 2 * 512, { 2: 50184, 3: 83976 }],
  ['mxfp4', { fa: 'e2m1', fb: 'e2m1', ...TILE }, 128 * 64 * 2 + 2 * 512, { 2: 17416, 3: 34824 }],
];

describe('dotScaled on the cp.async ring: Triton\'s numStages-1 stages, the scales copied to TMEM from the stage', () => {
  for (const [label, c, stage, triton] of ROWS) {
    for (const S of [2, 3, 4]) {
      it(`${label}, numStages ${S}: ${S - 1} stage(s) of ${stage} bytes, then the mbarriers${triton[S] ? ', within Triton\'s but for its extra barriers' : ''}`, () => {
        const r = compile(ringKernel(c, `dss_${label}_${S}`).trace({}), { target: 'sm_100a', numWarps: 4, numStages: S, ptxas: true, specialization: SPEC });
        expect(r.metadata.spills).toBe(0);
        const ptx = r.ptx;
        const inflight = S >= 3;
        expect(ptx).toContain(`// pipelined loop: ${S - 1} stages of ${stage} bytes, 4 tile(s) by cp.async${inflight ? '; the tcgen05 MMAs stay in flight' : ''}`);
        expect(ptx.includes('the tcgen05 MMAs stay in flight')).toBe(inflight);
        // the mbarriers right after the ring: an EMPTY one per stage in flight, else the MMA barrier
        const bars = inflight ? S - 1 : 1;
        const inits = [...ptx.matchAll(/mov\.u32 (%r\d+), tessera_smem\+(\d+);\n(?:[^\n]*\n)*?\s*@%p\d+ mbarrier\.init\.shared::cta\.b64 \[\1\]/g)];
        expect(inits.map((m) => Number(m[2]))).toEqual([(S - 1) * stage]);
        expect(count(ptx, /mbarrier\.init\.shared::cta\.b64/)).toBe(bars);
        // no scale scratch: nothing is stored to shared memory from registers (no st.shared at all)
        expect(count(ptx, /\bst\.shared\./)).toBe(0);
        expect(count(ptx, /\btcgen05\.cp\./)).toBeGreaterThan(0);
        // the whole buffer: the stages and the barriers, 8 bytes each (no rounding past them)
        expect(r.metadata.sharedBytes).toBe((S - 1) * stage + 8 * bars);
        // Triton's: at or below it, but for the EMPTY barriers past Triton's one (numStages 3: 8 bytes)
        if (triton[S]) expect(r.metadata.sharedBytes).toBeLessThanOrEqual(triton[S]! + 8 * (bars - 1));
      });
    }
  }
});
