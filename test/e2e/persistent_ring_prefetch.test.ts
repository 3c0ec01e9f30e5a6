// The plain (non-warp-specialized) TMA ring across a persistent tile loop on sm_90a
// (codegen/pipeline/ring_prefetch.ts): at the end of each tile's K loop thread 0 issues the next
// tile's first stages, so they land during this tile's epilogue; the epilogue's tile lies past
// the ring (shared = ring + tile) and its bulk-store wait is deferred to after the next K loop.
// On the sim: bit for bit the JS reference, the interpreter and the warp-specialized kernel at 1,
// 2 and 3+ tiles per program, ragged shapes, K loops of one step and of more steps than stages;
// the PTX (prefetch copies before the epilogue, the waits, the shared size, the 227 KiB gate);
// c aliasing a (no prefetch where a store may overlap an input, checked at run time). The
// sabotages: persistent_deferred_store_sabotage.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';
import { expectBitwise } from './helpers.js';
import { build, ints, launch, persistentWsMatmul, reference, tileOrder, type Tile } from './persistent_ws_cases.js';
import { cdiv, constexpr, dot, forLoop, groupedTile, makeTensorDescriptor, persistentTiles, ptr, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { simDevice } from './helpers.js';

/** The persistent matmul storing its tile twice (c and c2): the epilogue is not one store, so neither prefetch nor deferral. */
const twoStores = kernel(
  { name: 'persistent_two_stores', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), c2: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', WS: constexpr() } },
  ({ a, b, c, c2, M, N, K, WS }) => {
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [128, 64]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [64, 128]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [128, 128]);
    const dc2 = makeTensorDescriptor(c2, [M, N], [N, 1], [128, 128]);
    const tilesM = cdiv(M, 128), tilesN = cdiv(N, 128);
    persistentTiles(tilesM.mul(tilesN), (tile) => {
      const [pm, pn] = groupedTile(tile, tilesM, tilesN, 2);
      const om = pm.mul(128), on = pn.mul(128);
      const [acc] = forLoop(0, K, 64, [zeros([128, 128], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })], { warpSpecialize: Boolean(WS) });
      const h = acc!.to('f16');
      dc.store([om, on], h);
      dc2.store([om, on], h);
    });
  },
);

const T128: Tile = { BM: 128, BN: 128, BK: 64, numWarps: 4 };
const T256: Tile = { BM: 128, BN: 256, BK: 64, numWarps: 8 };
const TMA_LOAD = /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes/;

const CASES: [string, Tile, number, number, number, number[]][] = [
  ['128x128x64, 4 warps: 2x3 tiles, K 320 (5 steps > 3 stages)', T128, 256, 384, 320, [6, 4, 3, 2, 1]],
  ['128x128x64, 4 warps: ragged M 200, N 304, K 64 (1 step)', T128, 200, 304, 64, [6, 3, 1]],
  ['128x128x64, 4 warps: ragged K 200 (4 steps, the last partial)', T128, 136, 256, 200, [2, 1]],
  ['128x256x64, 8 warps: 2x2 tiles, K 256 (4 steps)', T256, 256, 512, 256, [4, 2, 1]],
  ['128x256x64, 8 warps: ragged M 200, N 264, K 40 (1 partial step)', T256, 200, 264, 40, [3, 1]],
];

describe('plain persistent ring: the next tile\'s stages prefetched before the epilogue (sim, sm_90a)', () => {
  it.each(CASES)('%s', (_, t, M, N, K, grids) => {
    const plain = build(t, false), ws = build(t, true);
    expect(plain.metadata.producerWarps ?? 0).toBe(0);
    const a = ints(M * K, 71), b = ints(K * N, 72);
    const want = reference(a, b, M, N, K, t.BM, t.BN, tileOrder(Math.ceil(M / t.BM), Math.ceil(N / t.BN)));
    for (const grid of grids) {
      const got = launch(plain, plain.ptx, a, b, M, N, K, grid);
      if (got instanceof Error) throw got;
      expectBitwise(got, want, `plain ring, grid ${grid} vs JS`);
    }
    const w = launch(ws, ws.ptx, a, b, M, N, K, 2);
    if (w instanceof Error) throw w;
    expectBitwise(w, want, 'warp-specialized vs JS');
  });

  it('the interpreter agrees (ragged, 3 tiles on 2 programs)', async () => {
    const [M, N, K] = [200, 264, 136];
    const a = ints(M * K, 73), b = ints(K * N, 74);
    const c = new Uint16Array(M * N);
    await persistentWsMatmul.run({ a, b, c, M, N, K, BM: 128, BN: 128, BK: 64, GROUP_M: 2, WS: 0 }, { grid: [2], device: 'interpret', numWarps: 4 });
    expectBitwise(c, reference(a, b, M, N, K, 128, 128, tileOrder(2, 3)), 'interpreter vs JS');
    const r = build(T128, false);
    const got = launch(r, r.ptx, a, b, M, N, K, 2);
    if (got instanceof Error) throw got;
    expectBitwise(got, c, 'sim vs interpreter');
  });
});

describe('plain persistent ring prefetch: the PTX', () => {
  it.each([['128x128x64', T128, 6, 32768], ['128x256x64', T256, 10, 65536]] as const)('%s: the next tile\'s copies after the K loop, before the epilogue; ptxas-clean', (_, t, perIssue, tileBytes) => {
    const r = build(t, false, true);
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    const ptx = r.ptx;
    const endK = ptx.search(/\$L_endtfor_\d+:/);
    const pf = ptx.indexOf('// the next tile\'s first stages, before this tile\'s epilogue');
    const epilogue = ptx.indexOf('// epilogue: registers -> stmatrix');
    expect(endK).toBeGreaterThan(0);
    expect(pf).toBeGreaterThan(endK);
    expect(epilogue).toBeGreaterThan(pf);
    // stages 0..D-1 (D = 1: the wgmma stays in flight) of the next tile: as many copies as the prologue's
    expect(count(ptx.slice(pf, epilogue), TMA_LOAD)).toBe(perIssue / 2);
    expect(count(ptx, TMA_LOAD)).toBe(perIssue + perIssue / 2);
    // the prologue is skipped where the previous tile prefetched it; its full store wait sits before its copies
    expect(ptx).toMatch(/@%p\d+ bra\.uni \$L_prefetched_\d+;\n\s*\/\/ deferred epilogue store: the previous tile's store completes before this tile's loads[^\n]*\n\s*@%p\d+ cp\.async\.bulk\.wait_group 0;/);
    // no wait between the store's commit and the tile loop's back edge; the reuse wait after the prefetch
    const commit = ptx.indexOf('cp.async.bulk.commit_group;');
    expect(ptx.slice(commit, ptx.indexOf('bra.uni $L_for_', commit))).not.toMatch(/wait_group/);
    expect(ptx.slice(pf, epilogue)).toMatch(/\$L_noprefetch_\d+:\n\s*\/\/ deferred epilogue store: the previous tile's store has drained[^\n]*\n\s*@%p\d+ cp\.async\.bulk\.wait_group 0;/);
    // shared memory: the ring, then the epilogue's tile past it (no longer aliasing the drained ring)
    expect(r.metadata.sharedBytes).toBeGreaterThanOrEqual(3 * (perIssue === 6 ? 32768 : 49152) + tileBytes);
    expect(r.metadata.sharedBytes).toBeLessThanOrEqual(227 * 1024);
  });

  it('gated where the ring and the tile past it do not fit 227 KiB: 4 stages of 128x256x64 keep the old ring', () => {
    const r = compile(persistentWsMatmul, { target: 'sm_90a', numWarps: 8, numStages: 4, constexprs: { BM: 128, BN: 256, BK: 64, GROUP_M: 2, WS: 0 } });
    expect(r.ptx).toMatch(/no next-tile prefetch: the ring \(196608 B\) and the epilogue's tile past it need \d+ B of shared memory, over sm_90's 232448/);
    expect(r.ptx).not.toMatch(/the next tile's first stages/);
    expect(r.ptx).toMatch(/cp\.async\.bulk\.commit_group;\n\s*@%p\d+ cp\.async\.bulk\.wait_group 0;\n\s*bar\.sync 0;/); // waited where stored
    const [M, N, K] = [256, 512, 320];
    const a = ints(M * K, 75), b = ints(K * N, 76);
    const got = launch(r, r.ptx, a, b, M, N, K, 1);
    if (got instanceof Error) throw got;
    expectBitwise(got, reference(a, b, M, N, K, 128, 256, tileOrder(2, 2)), '4 stages, no prefetch, vs JS');
  });
});

describe('4 stages (two stages prefetched per tile)', () => {
  it.each([[64, '1 step: the second prefetched stage is past the end'], [320, '5 steps']] as const)('128x128x64, 4 warps, K %i (%s)', (K, _why) => {
    const r = compile(persistentWsMatmul, { target: 'sm_90a', numWarps: 4, numStages: 4, constexprs: { BM: 128, BN: 128, BK: 64, GROUP_M: 2, WS: 0 } });
    const pf = r.ptx.indexOf('// the next tile\'s first stages');
    expect(pf).toBeGreaterThan(0);
    expect(count(r.ptx.slice(pf, r.ptx.indexOf('// epilogue: registers -> stmatrix')), TMA_LOAD)).toBe(6); // stages 0 and 1
    const [M, N] = [384, 256];
    const a = ints(M * K, 95), b = ints(K * N, 96);
    const want = reference(a, b, M, N, K, 128, 128, tileOrder(3, 2));
    for (const grid of [4, 1]) {
      const got = launch(r, r.ptx, a, b, M, N, K, grid);
      if (got instanceof Error) throw got;
      expectBitwise(got, want, `4 stages, grid ${grid} vs JS`);
    }
  });
});

describe('where the epilogue is not one descriptor store: the old form', () => {
  it.each([['plain ring', false], ['warp-specialized', true]] as const)('%s: two stores per tile, waited where stored; both right', (_, ws) => {
    const r = compile(twoStores, { target: 'sm_90a', numWarps: 4, numStages: 3, constexprs: { WS: ws } });
    expect(r.ptx).toMatch(ws ? /the epilogue's bulk-store wait is not deferred: the epilogue's only global access is not one descriptor store/ : /no next-tile prefetch: the epilogue's only global access is not one descriptor store/);
    expect(r.ptx).not.toMatch(/deferred epilogue store|the next tile's first stages/);
    const [M, N, K] = [256, 384, 192];
    const a = ints(M * K, 91), b = ints(K * N, 92);
    const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 3));
    const dev = simDevice().native;
    const bufs = [a.byteLength, b.byteLength, M * N * 2, M * N * 2].map((n) => dev.alloc(n));
    try {
      dev.upload(bufs[0]!, a);
      dev.upload(bufs[1]!, b);
      dev.launch(r, [...bufs, M, N, K], [2, 1, 1]);
      dev.synchronize();
      expectBitwise(dev.download(bufs[2]!, new Uint16Array(M * N)), want, 'c');
      expectBitwise(dev.download(bufs[3]!, new Uint16Array(M * N)), want, 'c2');
    } finally {
      bufs.forEach((x) => dev.free(x));
    }
  });
});

describe('plain persistent ring prefetch: program order', () => {
  it('c aliasing a, one program: no prefetch (the run-time overlap check), each tile reads what the one before stored', () => {
    const [M, N, K] = [256, 128, 64];
    const a = ints(M * K, 81), b = ints(K * N, 82, 1 / 8);
    const r = build(T128, false);
    const got = launch(r, r.ptx, a, b, M, N, K, 1, true);
    if (got instanceof Error) throw got;
    expectBitwise(got, reference(a, b, M, N, K, 128, 128, tileOrder(2, 1), true), 'c = a, program order');
  });
});
