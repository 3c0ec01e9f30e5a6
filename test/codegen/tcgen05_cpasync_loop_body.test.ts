// The loop body of the cp.async ring with its tcgen05 MMAs in flight (sm_100a; pipeline/lower_pipeline.ts,
// tensor_cores/lower_tcgen05.ts + tcgen05_issue.ts), instruction by instruction against what Triton
// 3.8's cc 100 loop spends (docs/compiler.md, "Blackwell: npm run bench:tc"):
// - the MMA block (tcgen05.fence::after_thread_sync, descriptors, instruction descriptor, MMAs, commit)
//   is run by warp 0 alone, the other warps branch over it (Triton: `@!warp0 bra` around it), instead
//   of every warp building descriptors for MMAs predicated off;
// - no TMEM lane offset (the epilogue's) is computed in the loop;
// - the stage advances by one index wrap (add, setp, selp) from which the EMPTY barrier and the ring
//   stage follow by one mad.lo each, not three add/setp/selp wraps.
// Results on the sim: test/e2e/tcgen05_cpasync_inflight.test.ts and tcgen05_cpasync_8bit.test.ts.
import { describe, expect, it } from 'vitest';
import type { Func } from '../../src/ir/ops.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { matmulAligned, matmulFp8 } from '../../bench/kernels.js';
import { count, gateTargets } from './gate.js';

const ALIGNED = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, M: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } } as const;

function loopOf(f: Func, numWarps: number, numStages: number): string {
  const ptx = gateTargets(f, ['sm_100a'], { numWarps, numStages, specialization: ALIGNED })['sm_100a']!.ptx;
  expect(ptx).toContain('the tcgen05 MMAs stay in flight, committed to an empty mbarrier per stage');
  const from = ptx.search(/^\$L_pfor_\d+:/m), to = ptx.search(/^\$L_endpfor_\d+:/m);
  expect(from).toBeGreaterThan(0);
  return ptx.slice(from, to);
}

const cases: [string, () => Func, number, number][] = [
  ['f16 128x128x32, 4 warps, 3 stages', () => new Kernel(matmulAligned.f16).trace({ BM: 128, BN: 128, BK: 32 }), 4, 3],
  ['bf16 128x256x64, 8 warps, 2 stages', () => new Kernel(matmulAligned.bf16).trace({ BM: 128, BN: 256, BK: 64 }), 8, 2],
  ['e4m3 128x128x64, 4 warps, 3 stages', () => new Kernel(matmulFp8).trace({ BM: 128, BN: 128, BK: 64 }), 4, 3],
];

describe('the cp.async ring loop with tcgen05 MMAs in flight', () => {
  it.each(cases)('%s: the MMA block on warp 0 only', (_, f, numWarps, S) => {
    const body = loopOf(f(), numWarps, S);
    const skip = /^\s*@!(%p\d+) bra\.uni (\$L_mma_(?:issue_skip|issued)_\d+);$/m.exec(body);
    expect(skip, 'a warp-uniform branch over the MMA block').not.toBeNull();
    const start = body.indexOf(skip![0]), end = body.indexOf(`${skip![2]}:`);
    expect(end).toBeGreaterThan(start);
    const block = body.slice(start, end), rest = body.slice(0, start) + body.slice(end);
    expect(count(block, /tcgen05\.mma\.cta_group::1/)).toBeGreaterThan(0);
    expect(count(block, /tcgen05\.commit/)).toBe(1);
    expect(count(block, /tcgen05\.fence::after_thread_sync/)).toBe(1);
    expect(count(block, /mov\.b64 %rd\d+, \{/)).toBe(2); // the two shared-memory descriptors
    for (const re of [/tcgen05\.mma/, /tcgen05\.commit/, /tcgen05\.fence::after_thread_sync/, /mov\.b64 %rd\d+, \{/, /bfe\.u32 %r\d+, %r\d+, 4, 14;/]) {
      expect(count(rest, re), `${re} outside the block`).toBe(0);
    }
    // the fence before the barrier stays on every warp (their cp.async writes, then the barrier)
    expect(count(rest, /tcgen05\.fence::before_thread_sync/)).toBe(1);
  });

  it.each(cases)('%s: no TMEM lane offset in the loop; one stage-index wrap', (_, f, numWarps, S) => {
    const body = loopOf(f(), numWarps, S);
    expect(count(body, /shl\.b32 %r\d+, %r\d+, 21;/)).toBe(0);
    expect(count(body, /^\s*selp\.b32/)).toBe(1);
    expect(count(body, /^\s*mad\.lo\.u32 %r\d+, %r\d+, 8, %r\d+;/)).toBe(1); // the EMPTY barrier of the stage
    expect(count(body, /^\s*mad\.lo\.u32 %r\d+, %r\d+, \d{4,}, %r\d+;/)).toBe(1); // the ring stage
  });
});
