// The plain TMA multicast ring (codegen/async/tma_multicast.ts, pipeline/lower_tma_ring.ts) inside a
// persistent tile loop over programId(0) (persistentTiles' default) on the sim as sm_90: B's tile
// [k, 0] does not depend on the tile (N is one tile wide), so in a 2x1 cluster it is the same in
// both CTAs, but with 3 tiles on a grid of 2 CTA 0 runs tiles 0 and 2 and CTA 1 only tile 1.
// Multicast there made CTA 0's second run copy its half of B into CTA 1 after CTA 1 exited (the
// sim names the fault; on a GPU undefined, or a wait for CTA 1's half and releases that never
// come: a hang). The compiler refuses multicast for a ring whose
// enclosing tile loop's bounds or step differ between the CTAs of a cluster (the reason in the
// PTX), as the warp-specialized ring does (pipeline/ws_multicast.ts); the result is right. The
// instruction budget is lowered so that a hang would be named in seconds, not minutes. An exitIf or
// a branch that some CTAs of a cluster take (a grid rounded up to whole clusters) is refused alike.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27);
import { describe, expect, it } from 'vitest';
import { cdiv, constexpr, dot, exitIf, forLoop, ifThenElse, makeTensorDescriptor, persistentTiles, programId, ptr, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { compile } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { expectBitwise } from './helpers.js';
import { ints, reference } from './persistent_cases.js';

/** c = a @ b with N = BN: the B tile of a K step is the same for every output tile. */
const tileLoopMatmul = kernel(
  {
    name: 'mcast_tile_loop_matmul',
    params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() },
  },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    persistentTiles(cdiv(M, bm), (tile) => {
      const om = tile.mul(bm);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })]);
      dc.store([om, 0], acc!.to('f16'));
    });
  },
);

/** The same product with one tile per program and an early exit past the last tile (a grid rounded up to whole clusters). */
const exitMatmul = kernel(
  {
    name: 'mcast_exit_matmul',
    params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() },
  },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const tile = programId(0);
    exitIf(tile.ge(cdiv(M, bm)));
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const om = tile.mul(bm);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })]);
    dc.store([om, 0], acc!.to('f16'));
  },
);

/** The same with the ring and the store in a branch past the last tile instead of an exit. */
const branchMatmul = kernel(
  {
    name: 'mcast_branch_matmul',
    params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() },
  },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const tile = programId(0);
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    ifThenElse(tile.lt(cdiv(M, bm)), () => {
      const om = tile.mul(bm);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })]);
      dc.store([om, 0], acc!.to('f16'));
    });
  },
);

const [BM, BN, BK] = [64, 64, 64];
const [M, N, K] = [3 * BM, BN, 4 * BK]; // 3 tiles on 2 CTAs: trip counts 2 and 1; 4 K steps > 3 stages
const opts = { target: 'sm_90a' as const, numWarps: 4, numStages: 3, clusterDims: [2, 1, 1] as [number, number, number], constexprs: { BM, BN, BK } };

describe('plain TMA multicast ring in a persistent tile loop whose trip counts differ in a cluster (sim as sm_90)', () => {
  it('no multicast, the reason in the PTX', () => {
    const r = compile(tileLoopMatmul, { ...opts, ptxas: false });
    expect(r.ptx).toContain("// no TMA multicast: the persistent tile loop's bounds or step differ between the CTAs of a cluster");
    expect(r.ptx).not.toMatch(/multicast::cluster|barrier\.cluster/);
  });

  it('3 tiles on a 2x1 cluster: bit-exact (no hang)', async () => {
    const a = ints(M * K, 61), b = ints(K * N, 62);
    const c = new Uint16Array(M * N).fill(0x7e00); // NaN: a tile never stored shows
    await tileLoopMatmul.run({ a: a.bits, b: b.bits, c, M, N, K, BM, BN, BK } as never, { grid: [2], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 1, 1] });
    expectBitwise(c, f16Array(reference(a.vals, b.vals, M, N, K)), 'tile loop in a cluster vs JS');
  });

  it('an exitIf taken by one CTA of a cluster only: no multicast (the reason in the PTX), bit-exact on a grid of 4 for 3 tiles', async () => {
    const r = compile(exitMatmul, { ...opts, ptxas: false });
    expect(r.ptx).toContain('// no TMA multicast: the kernel may return early in some CTAs of a cluster only');
    expect(r.ptx).not.toMatch(/multicast::cluster|barrier\.cluster/);
    const a = ints(M * K, 63), b = ints(K * N, 64);
    const c = new Uint16Array(M * N).fill(0x7e00);
    await exitMatmul.run({ a: a.bits, b: b.bits, c, M, N, K, BM, BN, BK } as never, { grid: [4], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 1, 1] });
    expectBitwise(c, f16Array(reference(a.vals, b.vals, M, N, K)), 'early exit in a cluster vs JS');
  });

  it('a ring in a branch some CTAs of a cluster skip: no multicast (the reason in the PTX), bit-exact on a grid of 4 for 3 tiles', async () => {
    const r = compile(branchMatmul, { ...opts, ptxas: false });
    expect(r.ptx).toContain('// TMA ring:');
    expect(r.ptx).toContain("// no TMA multicast: an enclosing branch's condition differs between the CTAs of a cluster");
    expect(r.ptx).not.toMatch(/multicast::cluster|barrier\.cluster/);
    const a = ints(M * K, 65), b = ints(K * N, 66);
    const c = new Uint16Array(M * N).fill(0x7e00);
    await branchMatmul.run({ a: a.bits, b: b.bits, c, M, N, K, BM, BN, BK } as never, { grid: [4], device: 'sim', numWarps: 4, numStages: 3, clusterDims: [2, 1, 1] });
    expectBitwise(c, f16Array(reference(a.vals, b.vals, M, N, K)), 'branch in a cluster vs JS');
  });
});
