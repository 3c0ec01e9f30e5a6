// Persistent warp-specialized matmuls on sm_100a (bench/ws_kernels.ts persistentWsMatmul,
// codegen/pipeline/ws_tcgen05.ts): the load and MMA warps walk the tile loop themselves, the ring
// runs on across tiles, and the accumulator is double-buffered in tensor memory (2 x N columns,
// ACC_FULL/ACC_EMPTY per buffer), so tile t+1's MMAs run while the epilogue warps store tile t.
// On the sim as a B200: bit for bit the JS reference (small integers: exact sums, exact f16) and
// the same kernel without warp specialization, at 1, 2 and 3+ tiles per program (both buffers
// reused, their phase bits wrapping), ragged shapes, K loops of 1 step and of more than 3 stages.
// Then a store overlapping an input: program order kept by ws_tiles.ts's run-time check.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';
import { expectBitwise } from './helpers.js';
import { ints, launch, persistentWsMatmul, reference, tileOrder, type Tile } from './persistent_ws_cases.js';
import { ACC_EMPTY_WAIT, ACC_FULL_WAIT } from '../../src/codegen/pipeline/ws_tcgen05.js';

const build = (t: Tile, ws: boolean, ptxas = false): CompileResult =>
  compile(persistentWsMatmul, { target: 'sm_100a', numWarps: t.numWarps, numStages: 3, ptxas, constexprs: { BM: t.BM, BN: t.BN, BK: t.BK, GROUP_M: 2, WS: ws } });
const T128: Tile = { BM: 128, BN: 128, BK: 64, numWarps: 4 };
const T256: Tile = { BM: 128, BN: 256, BK: 64, numWarps: 8 };

// tile, M, N, K, grids (programs): tiles per program 1, 2 and 3+
const CASES: [string, Tile, number, number, number, number[]][] = [
  ['128x128x64, 4 warps: 2x3 tiles, K 320 (5 steps > 3 stages)', T128, 256, 384, 320, [6, 2, 1]],
  ['128x128x64, 4 warps: ragged M 200, N 304, K 200 (4 steps, the last partial)', T128, 200, 304, 200, [3, 1]],
  ['128x256x64, 8 warps (TMEM 2 x 256 columns): 2x2 tiles, K 64 (1 step)', T256, 256, 512, 64, [4, 1]],
];

describe('persistent warp-specialized tcgen05 matmul, the accumulator double-buffered in TMEM (sim, sm_100a)', () => {
  it.each(CASES)('%s', (_, t, M, N, K, grids) => {
    const ws = build(t, true), plain = build(t, false);
    expect(ws.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/warp-specialized \(tcgen05\): .*inside tile loop %\d+, which the load and MMA warps run too: the accumulator double-buffered/);
    expect(ws.ptx).toMatch(new RegExp(`tcgen05\\.alloc\\.cta_group::1\\.sync\\.aligned\\.shared::cta\\.b32 \\[%r\\d+\\], ${2 * t.BN};`));
    expect(count(ws.ptx, /mbarrier\.init/)).toBe(3 * 2 + 4 + 1); // full/empty per stage, ACC_FULL/ACC_EMPTY per buffer, tile done
    const mma = ws.ptx.slice(ws.ptx.indexOf('ws_mma:'));
    expect(mma).toContain(ACC_EMPTY_WAIT);
    expect(ws.ptx.slice(0, ws.ptx.indexOf('ws_producer:'))).toContain(ACC_FULL_WAIT);
    const a = ints(M * K, 21), b = ints(K * N, 22);
    const tiles = tileOrder(Math.ceil(M / t.BM), Math.ceil(N / t.BN));
    const want = reference(a, b, M, N, K, t.BM, t.BN, tiles);
    for (const grid of grids) {
      const got = launch(ws, ws.ptx, a, b, M, N, K, grid);
      if (got instanceof Error) throw got;
      expectBitwise(got, want, `warp-specialized, grid ${grid} (${Math.ceil(tiles.length / grid)} tiles per program) vs JS`);
    }
    const p = launch(plain, plain.ptx, a, b, M, N, K, 1);
    if (p instanceof Error) throw p;
    expectBitwise(p, want, 'the same kernel without warp specialization vs JS');
  });

  it('a store overlapping an input (c is a): the next tile\'s loads wait for it (program order)', () => {
    const [M, N, K] = [256, 256, 256];
    const ws = build(T128, true);
    expect(ws.ptx).toContain('ws_mma:');
    const a = ints(Math.max(M * K, M * N), 31), b = ints(K * N, 32);
    const want = reference(a.slice(0, M * K), b, M, N, K, 128, 128, tileOrder(2, 2), true);
    const got = launch(ws, ws.ptx, a.slice(0, M * K), b, M, N, K, 1, true);
    if (got instanceof Error) throw got;
    expectBitwise(got, want, 'c aliasing a, one program walking all 4 tiles');
  });

  it.each([['128x128x64, 4 warps', T128], ['128x256x64, 8 warps', T256]] as const)('%s: ptxas for sm_100a clean, no spills', (_, t) => {
    const r = build(t, true, true);
    expect(r.ptx).toContain('ws_mma:');
    expect(r.ptx).toMatch(new RegExp(`tcgen05\\.alloc\\.cta_group::1\\.sync\\.aligned\\.shared::cta\\.b32 \\[%r\\d+\\], ${2 * t.BN};`));
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(r.metadata.ptxasLog).not.toMatch(/warning/i);
  });
});
