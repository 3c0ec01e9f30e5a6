// The cp.async producer across a persistent tile loop (sm_90a; ws_cpasync.ts with ws_tiles.ts):
// a persistentTiles loop whose K loop has `warpSpecialize: true` and pointer loads (Triton's
// `ptrs += BK` form). The producer warpgroup's 128 threads walk the tile sequence themselves,
// recompute each tile's coordinates and pointer bases, and keep filling the one ring (stage and
// phase run on across tiles); the epilogue is a pointer store (no span), so the producer waits
// for the previous tile's `tile done` before each later tile. On the sim as an sm_90: 1, 2 and 3+
// tiles per program, ragged M/N/K, bit for bit a JS reference (small integers), the interpreter
// and the same kernel without the option (the plain cp.async ring); the PTX's structure; ptxas
// for sm_90a clean, no spills, the producer within setmaxnreg.dec's 40 registers.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, runOn } from './helpers.js';
import type { RunArgs } from '../../src/runtime/kernel.js';
import { wsPtrPersistent, wsPtrPersistent16, wsPtrPersistentTma } from './ws_cpasync_cases.js';
import { ints, launch, reference, tileOrder } from './persistent_ws_cases.js';
import { matmulRef, pipelineText, producerRegisters, simPtx, smallInts } from './ws_cpasync_helpers.js';

// what the runtime specializes for these arguments: 16-aligned pointers and strides
const SPEC = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } };
type TileShape = readonly [number, number, number];
const build = (tile: TileShape, numWarps: number, ptxas = false): CompileResult =>
  compile(wsPtrPersistent, { target: 'sm_90a', numWarps, numStages: 3, ptxas, specialization: SPEC as never, constexprs: { BM: tile[0], BN: tile[1], BK: tile[2], WS: true } });

// tile, numWarps, M, N, K, grids (programs): 1, 2 and 3+ tiles per program
const CASES: [string, TileShape, number, number, number, number, number[]][] = [
  ['128x128x64, 4 warps: 2x2 tiles, K 320 (5 steps > 3 stages); grid 8: programs without a tile', [128, 128, 64], 4, 256, 256, 320, [8, 4, 2, 1]],
  ['128x128x64, 8 warps: ragged M 300, N 144, K 208 (3x2 tiles, K not a multiple of BK)', [128, 128, 64], 8, 300, 144, 208, [6, 3, 2]],
  ['128x128x64, 4 warps: ragged M 200, N 80, K 48 (1 partial step), 2x1 tiles', [128, 128, 64], 4, 200, 80, 48, [1]],
  ['128x256x64, 8 warps: ragged M 136, N 272, K 144, 2x2 tiles', [128, 256, 64], 8, 136, 272, 144, [2]],
];

describe('persistent warp-specialized matmul of pointer loads (sim, sm_90a, cp.async producer)', () => {
  it.each(CASES)('%s', async (_, tile, numWarps, M, N, K, grids) => {
    const [BM, BN, BK] = tile;
    const a = f16Array(smallInts(M * K, 41)), b = f16Array(smallInts(K * N, 42));
    const args = (ws: boolean, c: Float32Array): RunArgs => ({ a, b, c, M, N, K, BM, BN, BK, WS: ws });
    const ptx = simPtx(wsPtrPersistent, args(true, new Float32Array(M * N)), numWarps, 3);
    expect(ptx).toContain('ws_producer:');
    expect(ptx).toMatch(/cp\.async\.mbarrier\.arrive\.noinc/);
    expect(ptx).toContain('// producer tile loop');
    const want = matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K);
    const run = async (dev: 'interpret' | 'sim', ws: boolean, grid: number): Promise<Float32Array> => {
      const c = new Float32Array(M * N).fill(NaN); // a tile never stored shows
      await runOn(dev, wsPtrPersistent, args(ws, c), [grid], { numWarps, numStages: 3 });
      return c;
    };
    const tiles = Math.ceil(M / BM) * Math.ceil(N / BN);
    let sim: Float32Array | undefined;
    for (const grid of grids) {
      sim = await run('sim', true, grid);
      expect(Array.from(sim), `grid ${grid}: ${Math.ceil(tiles / grid)} tiles per program`).toEqual(Array.from(want)); // exact: small integers
    }
    expect(Array.from(await run('interpret', true, grids[grids.length - 1]!))).toEqual(Array.from(want));
    // bit for bit the plain cp.async ring's result (the same wgmma in the same order)
    expect(Array.from(await run('sim', false, grids[grids.length - 1]!))).toEqual(Array.from(sim!));
  });
});

describe('the PTX: the cp.async producer walks the tiles', () => {
  it.each([[4], [8]] as const)('128x128x64, %i warps: its tile loop around its K loop, the ring position kept, a done wait per later tile', (numWarps) => {
    const r = build([128, 128, 64], numWarps);
    expect(pipelineText(r)).toMatch(/warp-specialized: 1 producer warpgroup \(cp\.async by its 128 threads, 2 tile\(s\), full\[s\] expects 128 arrivals\).*inside tile loop %\d+, which the producer runs too.*\(after the previous tile is done: the tile loop writes memory, and pointer loads have no span to compare\)/);
    expect(r.metadata.producerWarps).toBe(4);
    const at = r.ptx.indexOf('ws_producer:');
    const [consumers, producer] = [r.ptx.slice(0, at), r.ptx.slice(at)];
    const pos = (re: RegExp): number => producer.search(re);
    // the producer's tile loop (stepping by numPrograms) encloses its K loop and its copies
    expect(pos(/\$L_wstile_\d+:/)).toBeGreaterThan(0);
    expect(pos(/\$L_wsprod_\d+:/)).toBeGreaterThan(pos(/\$L_wstile_\d+:/));
    expect(pos(/cp\.async\.cg\.shared\.global/)).toBeGreaterThan(pos(/\$L_wsprod_\d+:/));
    expect(pos(/\$L_endwstile_\d+:/)).toBeGreaterThan(pos(/\$L_endwsprod_\d+:/));
    expect(producer).toMatch(/%nctaid\.x/);
    // it waits on tile done (a pointer store has no span: always, from the second tile on), empty; the consumers on full
    expect(count(producer, /mbarrier\.try_wait\.parity/)).toBe(2);
    expect(count(consumers, /mbarrier\.try_wait\.parity/)).toBe(1);
    expect(consumers).toMatch(/mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\];/); // tile done
    expect(consumers).toContain('// ring position (stage, phase) carried over from the previous tile');
    expect(consumers).not.toMatch(/cp\.async/);
    expect(producer).not.toMatch(/bar\.sync|cp\.async\.bulk|expect_tx/);
    expect(count(producer, /cp\.async\.mbarrier\.arrive\.noinc\.shared\.b64 \[%r\d+\];/)).toBe(1);
  });

  it.each([['128x128x64, 4 warps', [128, 128, 64], 4], ['128x128x64, 8 warps', [128, 128, 64], 8], ['128x256x64, 8 warps', [128, 256, 64], 8]] as const)('%s: ptxas for sm_90a clean, no spills, the producer within 40 registers', (_, tile, numWarps) => {
    const r = build(tile, numWarps, true);
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(r.metadata.ptxasLog).not.toMatch(/warning/i);
    const regs = producerRegisters(r.cubin!);
    expect(regs.dealloc).toBe(40);
    expect(regs.alloc).toBe(Number(/setmaxnreg\.inc\.sync\.aligned\.u32 (\d+);/.exec(r.ptx)![1]));
    expect(regs.maxReg).toBeLessThan(40);
  });
});

describe('program order: the epilogue\'s pointer store overlaps the next tile\'s input', () => {
  // c [256, 128] f16 on a [256, 64]'s own buffer: tile 0 stores c rows 0..127, which are a's rows
  // 0..255, and tile 1 (rows 128..255) reads them: the producer waits for tile 0's `tile done`
  it('c passed as a\'s own buffer, one program: tile 1 reads what tile 0 stored', () => {
    const [M, N, K] = [256, 128, 64];
    const a = ints(M * K, 21), b = ints(K * N, 22, 1 / 8);
    const order = tileOrder(2, 1);
    expect(order).toEqual([[0, 0], [1, 0]]);
    const r = compile(wsPtrPersistent16, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, specialization: SPEC as never, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } });
    expect(r.ptx).toContain('// producer tile loop');
    const got = launch(r, r.ptx, a, b, M, N, K, 1, true);
    if (got instanceof Error) throw got;
    expectBitwise(got, reference(a, b, M, N, K, 128, 128, order, true), 'c = a (aliased), program order');
  });
});

describe('a descriptor (TMA) store in the tile loop of pointer loads', () => {
  // no span to compare the pointer loads with: ordered as for a pointer store (the deferred
  // bulk-store wait completes before the tile-done arrival)
  it.each([[1], [2]] as const)('128x128x64, 4 warps, ragged M 200, N 272, K 144, grid %i; and c on a\'s own buffer', (grid) => {
    const r = compile(wsPtrPersistentTma, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, specialization: SPEC as never, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } });
    expect(pipelineText(r)).toMatch(/inside tile loop %\d+, which the producer runs too.*\(after the previous tile is done: the tile loop writes memory, and pointer loads have no span to compare\)/);
    expect(r.ptx).toMatch(/cp\.async\.bulk\.tensor\.2d\.global\.shared::cta/);
    const [M, N, K] = [200, 272, 144];
    const a = ints(M * K, 61), b = ints(K * N, 62);
    const got = launch(r, r.ptx, a, b, M, N, K, grid);
    if (got instanceof Error) throw got;
    expectBitwise(got, reference(a, b, M, N, K, 128, 128, tileOrder(2, 3)), 'TMA store epilogue vs JS');
    const [M2, N2, K2] = [256, 128, 64];
    const a2 = ints(M2 * K2, 21), b2 = ints(K2 * N2, 22, 1 / 8);
    const aliased = launch(r, r.ptx, a2, b2, M2, N2, K2, 1, true);
    if (aliased instanceof Error) throw aliased;
    expectBitwise(aliased, reference(a2, b2, M2, N2, K2, 128, 128, tileOrder(2, 1), true), 'c = a (aliased), program order');
  });
});
