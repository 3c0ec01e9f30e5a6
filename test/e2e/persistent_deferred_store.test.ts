// The epilogue's bulk-store wait deferred across a persistent warp-specialized tile loop
// (codegen/async/deferred_store_wait.ts): the consumers' thread 0 commits the tile's TMA store and
// waits for it only after the next tile's K loop (before the epilogue rewrites the shared tile),
// before the tile-done arrival where a store may overlap an input (c aliasing a), and after the
// tile loop. On the sim (which reads a store's shared source when its group is waited for, and
// writes global memory at a full wait): bit for bit the JS reference, the interpreter and the
// same kernel without warp specialization at 1, 2 and 3+ tiles per program, ragged shapes, K
// loops of one step and of more steps than stages; the PTX's structure; c aliasing a. The
// sabotages: persistent_deferred_store_sabotage.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { expectBitwise } from './helpers.js';
import { build, ints, launch, parts, persistentWsMatmul, reference, tileOrder, type Tile } from './persistent_ws_cases.js';

const T128: Tile = { BM: 128, BN: 128, BK: 64, numWarps: 4 };
const T256: Tile = { BM: 128, BN: 256, BK: 64, numWarps: 8 };

const CASES: [string, Tile, number, number, number, number[]][] = [
  ['128x128x64, 4 warps: 3x2 tiles, K 384 (6 steps > 3 stages)', T128, 384, 256, 384, [6, 3, 2, 1]],
  ['128x128x64, 4 warps: ragged M 328, N 200, K 40 (1 partial step)', T128, 328, 200, 40, [6, 2, 1]],
  ['128x256x64, 8 warps: ragged M 136, N 520, K 136 (3 steps, the last partial)', T256, 136, 520, 136, [6, 3, 1]],
];

describe('deferred epilogue-store wait: results (sim, sm_90a)', () => {
  it.each(CASES)('%s', (_, t, M, N, K, grids) => {
    const ws = build(t, true), plain = build(t, false);
    const a = ints(M * K, 41), b = ints(K * N, 42);
    const want = reference(a, b, M, N, K, t.BM, t.BN, tileOrder(Math.ceil(M / t.BM), Math.ceil(N / t.BN)));
    for (const grid of grids) {
      const got = launch(ws, ws.ptx, a, b, M, N, K, grid);
      if (got instanceof Error) throw got;
      expectBitwise(got, want, `warp-specialized, grid ${grid} vs JS`);
    }
    const p = launch(plain, plain.ptx, a, b, M, N, K, 2);
    if (p instanceof Error) throw p;
    expectBitwise(p, want, 'without warp specialization vs JS');
  });

  it('the interpreter agrees (ragged, 3 tiles on 2 programs)', async () => {
    const [M, N, K] = [200, 264, 72];
    const a = ints(M * K, 43), b = ints(K * N, 44);
    const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 3));
    const c = new Uint16Array(M * N);
    await persistentWsMatmul.run({ a, b, c, M, N, K, BM: 128, BN: 128, BK: 64, GROUP_M: 2, WS: 1 }, { grid: [2], device: 'interpret', numWarps: 4 });
    expectBitwise(c, want, 'interpreter vs JS');
    const r = build(T128, true);
    const got = launch(r, r.ptx, a, b, M, N, K, 2);
    if (got instanceof Error) throw got;
    expectBitwise(got, c, 'sim vs interpreter');
  });
});

describe('deferred epilogue-store wait: the PTX', () => {
  for (const [name, t] of [['128x128x64', T128], ['128x256x64', T256]] as const) {
    const { consumer } = parts(build(t, true).ptx);
    it(`${name}: no wait right after the store; one after the K loop, before the epilogue's barrier`, () => {
      const commit = consumer.indexOf('cp.async.bulk.commit_group;');
      const back = consumer.indexOf('bra.uni $L_for_', commit);
      expect(commit).toBeGreaterThan(0);
      expect(back).toBeGreaterThan(commit);
      expect(consumer.slice(commit, back)).not.toMatch(/cp\.async\.bulk\.wait_group/);
      const endK = consumer.search(/\$L_endwsfor_\d+:/);
      const reuse = consumer.search(/\/\/ deferred epilogue store: the previous tile's store has drained[^\n]*\n\s*@%p\d+ cp\.async\.bulk\.wait_group 0;/);
      const epilogue = consumer.indexOf('// epilogue: registers -> stmatrix');
      expect(endK).toBeGreaterThan(0);
      expect(reuse).toBeGreaterThan(endK);
      expect(reuse).toBeLessThan(epilogue);
      expect(consumer.slice(reuse, epilogue)).toMatch(/bar\.sync 1, \d+;/); // the wait, then the barrier, then stmatrix
    });
    it(`${name}: a full wait before the tile-done arrival (under the overlap predicate) and after the tile loop`, () => {
      expect(consumer).toMatch(/and\.pred %p\d+, %p\d+, %p\d+;\n\s*\/\/ deferred epilogue store: the next tile's loads may read[^\n]*\n\s*and\.pred (%p\d+), [^\n]*\n\s*@\1 cp\.async\.bulk\.wait_group 0;\n\s*\/\/ tile done/);
      expect(consumer).toMatch(/\$L_endfor_\d+:\n\s*\/\/ deferred epilogue store: the last tile's store[^\n]*\n\s*@%p\d+ cp\.async\.bulk\.wait_group 0;/);
      expect(consumer).not.toMatch(/wait_group\.read/);
    });
  }
});

describe('deferred epilogue-store wait: program order', () => {
  it('c aliasing a: each tile reads what the tile before stored (the full wait before the tile-done arrival)', () => {
    const [M, N, K] = [256, 128, 64];
    const a = ints(M * K, 51), b = ints(K * N, 52, 1 / 8);
    const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 1), true);
    const r = build(T128, true);
    const got = launch(r, r.ptx, a, b, M, N, K, 1, true);
    if (got instanceof Error) throw got;
    expectBitwise(got, want, 'c = a, program order');
  });
});
