// FA3's consumer ping-pong (pipeline/ws_pingpong.ts): in the warp-specialized attention loop
// (bench/fa3_kernels.ts) at numWarps 8 the two consumer warpgroups take turns issuing their wgmma,
// ordered by named barriers 2 and 3 of 256 threads (bar.sync on its own before the issue,
// bar.arrive on the other's after the commit, before the wait), so one warpgroup's softmax runs
// against the other's wgmma. The PTX's structure; one consumer warpgroup and the warp-specialized
// matmul keep theirs unchanged; on the sim as sm_90 the results are bit for bit those of the
// kernel without warp specialization (the ping-pong only reorders issue across warpgroups), at
// D 64 and 128, causal and not, ragged L, several programs.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';
import { expectClose, runOn } from './helpers.js';
import { compileFa3, fa3Attention, fa3Inputs, fa3Want, type Fa3Shape } from './fa3_cases.js';
import { wsMatmul } from './ws_cases.js';

/** The consumers' loop body of a warp-specialized PTX (from its comment to the back edge). */
function consumerLoop(ptx: string): { before: string; body: string; producer: string } {
  const at = ptx.indexOf('ws_producer:');
  const loop = ptx.indexOf('// warp-specialized loop (consumers)');
  expect(at).toBeGreaterThan(loop);
  expect(loop).toBeGreaterThan(0);
  const rest = ptx.slice(loop, at);
  return { before: ptx.slice(0, loop), body: rest.slice(0, rest.indexOf('bra.uni $L_wsfor')), producer: ptx.slice(at) };
}

describe('the ping-pong PTX (sm_90a)', () => {
  it.each([[64, false], [128, true]] as const)('D %i (causal %s), 8 consumer warps: each wgmma issue between bar.sync on its warpgroup\'s barrier and bar.arrive on the other\'s', (D, causal) => {
    const r = compileFa3({ D, BN: 128, stages: 2, causal, warps: 8 }, true);
    expect(r.stages.find((x) => x.name === 'pipeline')!.text).toMatch(/consumer ping-pong: the 2 consumer warpgroups take turns issuing the 2 wgmma dot\(s\) \(named barriers 2\/3, 256 threads\)/);
    const { body, producer } = consumerLoop(r.ptx);
    const ptx = r.ptx;
    // the barrier ids: 2 + warpgroup (its own), 3 - warpgroup (the other's), from the warp index
    expect(ptx).toMatch(/shr\.u32 (%r\d+), %r\d+, 2;\n\s*add\.u32 (%r\d+), \1, 2;\n\s*sub\.u32 (%r\d+), 3, \1;/);
    const [, , mine, other] = /shr\.u32 (%r\d+), %r\d+, 2;\n\s*add\.u32 (%r\d+), \1, 2;\n\s*sub\.u32 (%r\d+), 3, \1;/.exec(ptx)!;
    // warpgroup 1 gives warpgroup 0 the first turn, before the loop, when it runs
    expect(count(ptx, /@%p\d+ bar\.arrive 2, 256;/)).toBe(1);
    // per dot of the body (S = Q K^T, O += P V): sync, fence, mma_async (and descriptor adds), commit, arrive, wait:
    // nothing else inside a turn (no barrier that could deadlock against the other warpgroup's wait)
    expect(count(body, new RegExp(`bar\\.sync ${mine}, 256;`))).toBe(2);
    expect(count(body, new RegExp(`bar\\.arrive ${other}, 256;`))).toBe(2);
    const turns = [...body.matchAll(/bar\.sync %r\d+, 256;[^\n]*\n\s*wgmma\.fence\.sync\.aligned;\n(?:\s*(?:wgmma\.mma_async|add\.s64)[^\n]*\n)+\s*wgmma\.commit_group\.sync\.aligned;\n\s*(@!%p\d+ )?bar\.arrive %r\d+, 256;[^\n]*\n\s*wgmma\.wait_group\.sync\.aligned 0;/g)];
    expect(turns.length).toBe(2);
    // the last dot's arrive is skipped in warpgroup 1's last iteration (no arrive left pending)
    expect(turns[0]![1]).toBeUndefined();
    expect(turns[1]![1]).toMatch(/@!%p\d+ /);
    // none of the ping-pong's barriers in the producer
    expect(producer).not.toMatch(/bar\.(sync|arrive) (%r|[23],)/);
  });

  it('one consumer warpgroup (numWarps 4) has no ping-pong; nor has the warp-specialized matmul on 8 warps (no reduction: not attention)', () => {
    for (const D of [64, 128] as const) {
      const r = compileFa3({ D, BN: 128, stages: 2, causal: true, warps: 4 }, true);
      expect(r.ptx).not.toMatch(/bar\.arrive|bar\.sync (%r|[23],)/);
      expect(r.stages.find((x) => x.name === 'pipeline')!.text).not.toMatch(/ping-pong/);
    }
    const m = compile(wsMatmul, { target: 'sm_90a', numWarps: 8, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 256, BK: 64, WS: true } });
    expect(m.stages.find((x) => x.name === 'pipeline')!.text).toMatch(/warp-specialized: 1 producer warpgroup/);
    expect(m.ptx).not.toMatch(/bar\.arrive|bar\.sync (%r|[23],)|ping-pong/);
  });
});

const CASES: [string, Fa3Shape & { warps: 8 }][] = [
  ['D 64 causal, L 257: 3 programs, BN 64 through 3 stages', { L: 257, D: 64, BN: 64, stages: 3, causal: true, warps: 8 }],
  ['D 64, L 190: ragged, BN 128', { L: 190, D: 64, BN: 128, stages: 2, causal: false, warps: 8 }],
  ['D 128, L 383: 3 programs, 6 KV steps of 64 through 2 stages', { L: 383, D: 128, BN: 64, stages: 2, causal: false, warps: 8 }],
  ['D 128 causal, L 140, BN 128: the last program has one KV step', { L: 140, D: 128, BN: 128, stages: 2, causal: true, warps: 8 }],
];

describe('ping-pong attention on the sim (sm_90a as sm_90): bit for bit the kernel without warp specialization', () => {
  it.each(CASES)('%s', async (_, s) => {
    const { L, D, BN, stages, causal } = s;
    const BM = 128;
    expect(compileFa3(s, true).ptx).toMatch(/bar\.arrive 2, 256/);
    const x = fa3Inputs(L, D, 31 + D + (causal ? 1 : 0));
    const run = async (ws: boolean): Promise<Float32Array> => {
      const o = new Float32Array(L * D);
      await runOn('sim', fa3Attention, { ...x, o, L, BM, BN, D, CAUSAL: causal, WS: ws }, [Math.ceil(L / BM)], { numWarps: 8, numStages: stages });
      return o;
    };
    const ws = await run(true);
    expectClose(ws, fa3Want(x, L, D, causal), 2e-3, 'sim vs JS');
    expect(Array.from(ws)).toEqual(Array.from(await run(false)));
  });
});
