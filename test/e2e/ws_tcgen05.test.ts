// Warp-specialized matmuls on the sim as a B200 (compiled for sm_100a, pipeline/ws_tcgen05.ts): a
// load warp fills a ring of TMA stages, an MMA warp issues tcgen05.mma on them and commits each
// stage's MMAs to its empty barrier, the numWarps epilogue warps wait for ACC_FULL and read the
// accumulator from tensor memory. Inputs are small integers, so every summation order gives the
// same f32 bits: the warp-specialized kernel, the same kernel without the option (the tcgen05
// ring), the interpreter and the JS reference agree bit for bit. Ragged M/N and K not a multiple
// of BK exercise TMA's zero fill.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, runOn, simDevice } from './helpers.js';
import { ints, matmulRef } from './desc_matmul_cases.js';
import { wsMatmul } from './ws_cases.js';
import { ACC_FULL_WAIT } from '../../src/codegen/pipeline/ws_tcgen05.js';

const pipelineText = (r: CompileResult): string => r.stages.find((s) => s.name === 'pipeline')!.text;
const build = (tile: readonly [number, number, number], numWarps: number, ws: boolean, ptxas = false): CompileResult =>
  compile(wsMatmul, { target: 'sm_100a', numWarps, numStages: 3, ptxas, constexprs: { BM: tile[0], BN: tile[1], BK: tile[2], WS: ws } });

// [BM, BN, BK], numWarps (epilogue warps), M, N, K: K / BK > numStages, so every stage is reused
const CASES: [string, [number, number, number], number, number, number, number][] = [
  ['128x128x64, 4 warps', [128, 128, 64], 4, 128, 128, 320],
  ['128x256x64, 8 warps (2 epilogue warpgroups, TMEM 256 columns)', [128, 256, 64], 8, 128, 256, 256],
  ['ragged: M 200, N 136, K 200 (not a multiple of BK) over 2x2 programs, 4 warps', [128, 128, 64], 4, 200, 136, 200],
];

describe('the sim as an sm_100', () => {
  it('compiles for sm_100a', () => expect(simDevice().target).toBe('sm_100a'));
});

describe('warp-specialized tcgen05 matmul on the sim (sm_100a, bit-exact)', () => {
  it.each(CASES)('%s', async (_, tile, numWarps, M, N, K) => {
    const [BM, BN, BK] = tile;
    const r = build(tile, numWarps, true);
    expect(pipelineText(r)).toMatch(/warp-specialized \(tcgen05\): a load warp \(TMA, 2 tile\(s\)\) and an MMA warp/);
    // the structure: one warpgroup after the epilogue warps, the register split, the barriers
    expect(r.metadata.producerWarps).toBe(4);
    expect(r.ptx).toContain(`.reqntid ${32 * (numWarps + 4)}, 1, 1`);
    expect(count(r.ptx, /setmaxnreg\.dec\.sync\.aligned\.u32 40;/)).toBe(1);
    expect(count(r.ptx, /setmaxnreg\.inc\.sync\.aligned\.u32 \d+;/)).toBe(1);
    expect(count(r.ptx, /mbarrier\.init/)).toBe(7); // full[3], empty[3], ACC_FULL
    const mma = r.ptx.slice(r.ptx.indexOf('ws_mma:'));
    const load = r.ptx.slice(r.ptx.indexOf('ws_producer:'), r.ptx.indexOf('ws_mma:'));
    const epilogue = r.ptx.slice(0, r.ptx.indexOf('ws_producer:'));
    // MMAs only in the MMA warp, each stage's committed to its empty barrier, then one to ACC_FULL
    expect(count(epilogue, /tcgen05\.mma|cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe(0);
    expect(count(mma, /tcgen05\.mma\.cta_group::1\.kind::f16 /)).toBe(BK / 16);
    expect(count(mma, /tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one[^\n]*the stage's empty barrier/)).toBe(1);
    expect(count(mma, /tcgen05\.commit/)).toBe(2);
    expect(count(load, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe(1 + (2 * BN) / 128);
    expect(count(load, /tcgen05/)).toBe(0);
    // the epilogue: the ACC_FULL wait before the accumulator's tcgen05.ld, no consumer bar.sync 0
    const tail = epilogue.slice(epilogue.indexOf(ACC_FULL_WAIT));
    expect(tail.search(/mbarrier\.try_wait/)).toBeGreaterThan(0);
    expect(tail.search(/mbarrier\.try_wait/)).toBeLessThan(tail.search(/tcgen05\.ld\.sync/));
    expect(epilogue.slice(epilogue.indexOf('setmaxnreg.inc'))).not.toMatch(/bar\.sync 0;/);

    const af = ints(M * K, 7 + K + N), bf = ints(K * N, 8 + K + N);
    const want = matmulRef(af, bf, M, N, K);
    const grid = [Math.ceil(M / BM), Math.ceil(N / BN)];
    const run = async (dev: 'interpret' | 'sim', ws: boolean): Promise<Float32Array> => {
      const c = new Float32Array(M * N);
      await runOn(dev, wsMatmul, { a: f16Array(af), b: f16Array(bf), c, M, N, K, BM, BN, BK, WS: ws }, grid, { numWarps, numStages: 3 });
      return c;
    };
    const sim = await run('sim', true);
    expectBitwise(sim, want, 'sim (warp-specialized) vs JS');
    expectBitwise(sim, await run('interpret', true), 'sim vs interpreter');
    expectBitwise(sim, await run('sim', false), 'warp-specialized vs the tcgen05 ring');
  });

  it.each([['128x128x64, 4 warps', [128, 128, 64], 4], ['128x256x64, 8 warps', [128, 256, 64], 8]] as const)('%s: ptxas for sm_100a clean, no spills, the register split honoured', (_, tile, numWarps) => {
    const r = build(tile, numWarps, true, true);
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(r.metadata.ptxasLog).not.toMatch(/warning/i); // ptxas warns when it cannot honour setmaxnreg
    expect(r.metadata.registers).toBeLessThanOrEqual(Number(/\.maxnreg (\d+)/.exec(r.ptx)![1]));
  });
});

describe('loops the sm_100a form does not take say why and keep the tcgen05 ring', () => {
  it('numWarps 2 is not whole epilogue warpgroups', () => {
    const r = compile(wsMatmul, { target: 'sm_100a', numWarps: 2, numStages: 3, ptxas: false, constexprs: { BM: 64, BN: 64, BK: 64, WS: true } });
    expect(pipelineText(r)).toMatch(/not warp-specialized: numWarps 2 is not whole consumer warpgroups/);
    expect(r.ptx).not.toContain('setmaxnreg');
  });
});
