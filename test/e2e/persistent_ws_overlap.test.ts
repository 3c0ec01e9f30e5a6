// Persistent warp-specialized matmuls (sm_90a; bench/ws_kernels.ts persistentWsMatmul,
// codegen/pipeline/ws_tiles.ts): the producer warpgroup runs the tile loop itself and fills the
// ring with the next tile's stages while the consumers run this tile's epilogue (stmatrix, TMA
// store); both keep the ring's stage and phase across tiles. On the sim as an sm_90: bit for bit
// the JS reference (small integers: exact sums, exact f16) and the same kernel without warp
// specialization, at 1, 2 and 3+ tiles per program, ragged shapes, K loops of 1 step and of more
// steps than stages. Then the PTX's structure (the producer's tile loop, no barrier with the
// consumers in it), a store overlapping an input (program order kept by the run-time check), and
// the sabotage: consumers that restart the ring at each tile fail.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { count } from '../codegen/gate.js';
import { expectBitwise } from './helpers.js';
import { build, ints, launch, neverOrdered, parts, reference, resetPhasePerTile, tileOrder, type Tile } from './persistent_ws_cases.js';

const T128: Tile = { BM: 128, BN: 128, BK: 64, numWarps: 4 };
const T256: Tile = { BM: 128, BN: 256, BK: 64, numWarps: 8 };

// tile, M, N, K, grids (programs): tiles per program 1, 2 and 3+
const CASES: [string, Tile, number, number, number, number[]][] = [
  ['128x128x64, 4 warps: 2x3 tiles, K 320 (5 steps > 3 stages)', T128, 256, 384, 320, [6, 3, 2]],
  ['128x128x64, 4 warps: ragged M 200, N 304, K 64 (1 step)', T128, 200, 304, 64, [6, 3, 1]],
  ['128x128x64, 4 warps: ragged K 200 (4 steps, the last partial)', T128, 136, 256, 200, [2, 1]],
  ['128x256x64, 8 warps: 2x2 tiles, K 256 (4 steps)', T256, 256, 512, 256, [4, 2, 1]],
  ['128x256x64, 8 warps: ragged M 200, N 264, K 72 (2 steps), 2x2 tiles', T256, 200, 264, 72, [3, 1]],
];

describe('persistent warp-specialized matmul: the next tile\'s loads overlap the epilogue (sim, sm_90a)', () => {
  it.each(CASES)('%s', (_, t, M, N, K, grids) => {
    const ws = build(t, true), plain = build(t, false);
    expect(ws.metadata.producerWarps).toBe(4);
    expect(ws.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/warp-specialized: .*inside tile loop %\d+, which the producer runs too/);
    const a = ints(M * K, 11), b = ints(K * N, 12);
    const tiles = tileOrder(Math.ceil(M / t.BM), Math.ceil(N / t.BN));
    const want = reference(a, b, M, N, K, t.BM, t.BN, tiles);
    for (const grid of grids) {
      const got = launch(ws, ws.ptx, a, b, M, N, K, grid);
      if (got instanceof Error) throw got;
      expectBitwise(got, want, `warp-specialized, grid ${grid} (${Math.ceil(tiles.length / grid)} tiles per program) vs JS`);
    }
    const p = launch(plain, plain.ptx, a, b, M, N, K, grids[grids.length - 1]!);
    if (p instanceof Error) throw p;
    expectBitwise(p, want, 'the same kernel without warp specialization vs JS');
  });

  it.each([['128x128x64, 4 warps', T128], ['128x256x64, 8 warps', T256]] as const)('%s: ptxas-clean, no spills, setmaxnreg split', (_, t) => {
    const r = build(t, true, true);
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(r.metadata.ptxasLog).not.toMatch(/warning/i);
    expect(count(r.ptx, /setmaxnreg\.dec\.sync\.aligned\.u32 40;/)).toBe(1);
    expect(count(r.ptx, /stmatrix\.sync\.aligned/)).toBeGreaterThan(0);
    expect(count(r.ptx, /cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group/)).toBeGreaterThan(0);
  });
});

describe('the PTX: a producer tile loop that never waits for the epilogue', () => {
  const { consumer, producer } = parts(build(T128, true).ptx);
  it('the producer walks the tiles itself, its K loop inside its tile loop', () => {
    const at = (re: RegExp): number => producer.search(re);
    expect(at(/\$L_wstile_\d+:/)).toBeGreaterThan(0);
    expect(at(/\$L_wsprod_\d+:/)).toBeGreaterThan(at(/\$L_wstile_\d+:/));
    expect(at(/\$L_endwstile_\d+:/)).toBeGreaterThan(at(/\$L_endwsprod_\d+:/));
    expect(producer).toMatch(/%nctaid\.x/); // the tile loop's step: numPrograms
  });
  it('no barrier between the partitions after they part: the producer has no bar.sync at all', () => {
    expect(producer).not.toMatch(/\bbar\.sync|\bbarrier\./);
    expect(consumer).not.toMatch(/bar\.sync 0;[\s\S]*setmaxnreg\.inc[\s\S]*bar\.sync 0;/); // consumers meet at barrier 1 only
    expect(consumer.slice(consumer.indexOf('setmaxnreg.inc'))).not.toMatch(/bar\.sync 0;/);
  });
  it("the producer's only wait besides the ring's is the tile-done one, skipped unless a store may overlap an input", () => {
    const waits = producer.match(/mbarrier\.try_wait\.parity[^\n]*/g) ?? [];
    expect(waits.length).toBe(2); // empty stage; tile done
    expect(producer).toMatch(/@!%p\d+ bra\.uni \$L_wstile_go_\d+;\n\s*\$L_tma_wait_\d+:/);
  });
  it('the consumers keep the ring position across tiles: set once, in the prologue', () => {
    const k = consumer.indexOf('// ring position (stage, phase) carried over from the previous tile');
    expect(k).toBeGreaterThan(0);
    const prologueSetup = /\/\/ warp specialization: the consumers' ring position[^\n]*\n(?:\s*mov\.u32 (%r\d+), [^\n]*\n){5}/.exec(consumer);
    expect(prologueSetup).not.toBeNull();
    expect(prologueSetup!.index).toBeLessThan(consumer.indexOf('setmaxnreg.inc'));
    expect(consumer.slice(k)).not.toMatch(/mov\.u32 %r\d+, 0;\n\s*mov\.u32 %r\d+, 0;\n/);
  });
});

describe('program order: a store that overlaps an input', () => {
  // c [256, 128] on a [256, 64]'s own buffer: tile 0 stores c rows 0..127, which are a's rows
  // 0..255, and tile 1 (rows 128..255, one K step) reads them: a producer running ahead of tile
  // 0's epilogue would read the old values
  const [M, N, K] = [256, 128, 64];
  const a = ints(M * K, 21), b = ints(K * N, 22, 1 / 8);
  const order = tileOrder(2, 1);
  const want = reference(a, b, M, N, K, 128, 128, order, true);
  const r = build(T128, true);
  it('c passed as a\'s own buffer, one program: each tile reads what the tile before stored (the run-time overlap check)', () => {
    expect(order).toEqual([[0, 0], [1, 0]]);
    const got = launch(r, r.ptx, a, b, M, N, K, 1, true);
    if (got instanceof Error) throw got;
    expectBitwise(got, want, 'c = a (aliased), program order');
  });
  it('sabotage: without the tile-done wait, the second tile reads stale rows', () => {
    const got = launch(r, neverOrdered(r.ptx), a, b, M, N, K, 1, true);
    if (got instanceof Error) expect(got.message).toMatch(/tessera-sim: /);
    else expect(Array.from(got)).not.toEqual(Array.from(want));
  });
});

describe('sabotage: consumers that restart the ring at each tile', () => {
  it('a named fault or a wrong result on the sim, never a pass', () => {
    // 2 tiles of one K step on one program: tile 1 waits on stage 0's finished phase and reads
    // tile 0's operands (with 4+ tiles the reset consumers wait on a phase nobody completes: a hang)
    const [M, N, K] = [256, 128, 64];
    const a = ints(M * K, 31), b = ints(K * N, 32);
    const r = build(T128, true);
    const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 1));
    const control = launch(r, r.ptx, a, b, M, N, K, 1);
    expect(control).toBeInstanceOf(Uint16Array);
    expectBitwise(control as Uint16Array, want, 'control');
    const got = launch(r, resetPhasePerTile(r.ptx), a, b, M, N, K, 1);
    if (got instanceof Error) expect(got.message).toMatch(/tessera-sim: /);
    else expect(Array.from(got)).not.toEqual(Array.from(want));
  });
});
