// TMA multicast for the sm_90a TMA ring (lower_tma_ring.ts) in a thread block cluster, as CUTLASS's
// sm90 multicast pipelines do it. A ring tile whose offsets (and the loop's bounds) do not depend on
// the program id along a cluster axis is the same tile in every CTA along that axis: in a 2x1
// cluster along M (clusterDims [2, 1, 1], programId(0) = the M tile) the CTAs load the same B tile.
// Each CTA of such a group loads 1/n of the tile (whole TMA boxes when their count divides, else
// 1/n of the rows, a 1024-byte multiple) and multicasts it to every CTA of the group: it lands at
// the same shared offset in each and completes tx-bytes on each one's mbarrier at the same offset,
// so a stage's full barrier still expects the whole stage's bytes, now from several sources.
//
// Reuse of a stage: a CTA's copy now writes into its peers' shared memory, so before a CTA refills
// a stage, the consumers of EVERY CTA of the cluster must be done with it. Each stage gets an
// "empty" mbarrier (arrival count = cluster size); before a refill of a stage used earlier in this
// run of the loop, thread 0 of each CTA arrives on the empty barrier of every CTA of the cluster
// (mapa + mbarrier.arrive.release.cluster.shared::cluster), then waits on its own. Arrivals are made
// only for refills that happen, so every CTA waits for every round that reaches it: when a CTA's
// loop ends, no peer arrives on its barriers or writes its stages any more (every copy into it was
// waited for by its full barrier), and it may exit without a cluster barrier. One cluster barrier
// (arrive.release / wait.acquire) opens each run of the ring: every CTA's mbarriers are
// initialised (the prologue) and every peer is done with the stages of the previous run before a
// copy or a remote arrival reaches them.
import type { Func, Op, Value } from '../../ir/ops.js';
import { descOperands } from '../../ir/tensor_desc.js';
import { isPure } from '../../ir/effects.js';
import type { Lowering } from '../context.js';
import { tensorMaps, type TileGeometry } from './tensor_map.js';
import { boxCoords, elected, mapAddress } from './lower_tma.js';

export type ClusterDims = readonly [number, number, number];

/** Ways tests break the multicast ring on purpose, to show the sim catches each. */
export const MULTICAST_SABOTAGE = ['local-release', 'no-cluster-barrier'] as const;
export type MulticastSabotage = (typeof MULTICAST_SABOTAGE)[number];

/** The compile option `clusterDims`, checked: [x, y, z] positive integers, at most 8 CTAs. */
export function clusterDimsError(d: unknown): string | undefined {
  const ok = Array.isArray(d) && d.length === 3 && d.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 1);
  if (!ok) return `option 'clusterDims' must be [x, y, z], positive integers, got ${JSON.stringify(d)}`;
  const n = (d as number[]).reduce((a, b) => a * b, 1);
  return n > 8 ? `option 'clusterDims' [${(d as number[]).join(', ')}] is ${n} CTAs per cluster; the portable maximum is 8` : undefined;
}

const settings = new WeakMap<object, { dims: ClusterDims; sabotage?: MulticastSabotage }>();
export function setCluster(cx: Lowering, dims: ClusterDims | undefined, sabotage?: MulticastSabotage): void {
  if (dims && dims[0] * dims[1] * dims[2] > 1) settings.set(cx, { dims, ...(sabotage ? { sabotage } : {}) });
}
export const multicastSabotage = (cx: Lowering): MulticastSabotage | undefined => settings.get(cx)?.sabotage;

/** How one ring tile is shared: along which cluster axes, in how many pieces, split how. */
export interface TileShare {
  /** Cluster axes (0 x, 1 y) the tile is the same along (their product is `pieces`). */
  readonly axes: readonly number[];
  readonly pieces: number;
  /** 'boxes': each CTA loads boxes/pieces whole boxes; 'rows': rows/pieces rows of every box. */
  readonly split: 'boxes' | 'rows';
}
export interface MulticastPlan {
  /** CTAs per cluster (the empty barriers' arrival count). */
  readonly size: number;
  readonly dims: ClusterDims;
  /** Per ring tile, in order: its share, or undefined (each CTA loads its own). */
  readonly shares: readonly (TileShare | undefined)[];
}

/** Whether value `v` is the same in every CTA of a cluster along `axes` (false when unsure). */
export function uniformChecker(f: Func, axes: readonly number[]): (v: Value) => boolean {
  const defs = new Map<number, Op>();
  const ivOf = new Map<number, Op>(); // a for's induction variable -> the for
  const params = new Set(f.body.args.map((a) => a.id));
  const see = (ops: readonly Op[]): void => {
    for (const o of ops) {
      for (const r of o.results) defs.set(r.id, o);
      if (o.kind === 'for') ivOf.set(o.regions[0]!.args[0]!.id, o);
      o.regions.forEach((r) => see(r.ops));
    }
  };
  see(f.body.ops);
  const memo = new Map<number, boolean>();
  const check = (v: Value): boolean => {
    const m = memo.get(v.id);
    if (m !== undefined) return m;
    memo.set(v.id, false); // a cycle (none in SSA) stays unsure
    let r: boolean;
    const d = defs.get(v.id);
    const loop = ivOf.get(v.id);
    if (params.has(v.id)) r = true;
    else if (loop) r = loop.operands.slice(0, 3).every(check);
    else if (!d || d.regions.length || !isPure(d)) r = false; // a carried value, an if/for result, a load
    else if (d.kind === 'program_id') r = !axes.includes((d as Op<'program_id'>).attrs.axis);
    else if (d.kind === 'cluster_cta_rank') r = false;
    else r = d.operands.every(check);
    memo.set(v.id, r);
    return r;
  };
  return check;
}

/** Whether every value of `vs` is the same in every CTA of the cluster (false when unsure or no cluster). */
export function sameInCluster(cx: Lowering, vs: readonly Value[]): boolean {
  const s = settings.get(cx);
  if (!s) return false;
  const check = uniformChecker(cx.func, [0, 1, 2].filter((a) => s.dims[a]! > 1));
  return vs.every(check);
}

/** Why the loops and branches around `loop` may run it a different number of times in the CTAs of a cluster, if they may. */
export const TILE_LOOP_DIFFERS = "the persistent tile loop's bounds or step differ between the CTAs of a cluster (walk cluster tiles: programId(2) stepping by numPrograms(2))";

/**
 * Every run of a multicast ring needs every CTA of the cluster (each sends its piece and its
 * releases, and takes the opening cluster barrier): a ring inside a loop whose trip count differs
 * between them (persistentTiles over programId(0) with an uneven tile count) or a branch taken by
 * some of them would wait for a peer that has left, or multicast into its exited CTA.
 */
function enclosingDiffers(f: Func, loop: Op, same: (v: Value) => boolean): string | undefined {
  const path: Op[] = [];
  const find = (ops: readonly Op[]): boolean => ops.some((o) => o === loop || (o.regions.some((r) => find(r.ops)) && (path.push(o), true)));
  find(f.body.ops);
  for (const o of path) {
    if (o.kind === 'for' && !o.operands.slice(0, 3).every(same)) return TILE_LOOP_DIFFERS;
    if (o.kind === 'if' && !o.operands.every(same)) return "an enclosing branch's condition differs between the CTAs of a cluster";
    if (o.kind !== 'for' && o.kind !== 'if') return `the ring is inside a '${o.kind}', whose trip count may differ between the CTAs of a cluster`;
  }
  // an early exit taken by some CTAs only: a peer would copy into, or wait for, a CTA that has left
  const exits = (ops: readonly Op[], sure: boolean): boolean =>
    ops.some((o) => (o.kind === 'exit_if' && !(sure && same(o.operands[0]!))) || o.regions.some((r) => exits(r.ops, sure && (o.kind !== 'if' || same(o.operands[0]!)))));
  if (exits(f.body.ops, true)) return "the kernel may return early in some CTAs of a cluster only (an exitIf whose condition differs between them)";
  return undefined;
}

interface SharedTile {
  readonly load: Op<'desc_load'>;
  readonly g: TileGeometry;
}

/**
 * The multicast plan of a ring loop, or why it has none (a string): no cluster, bounds that differ
 * between the CTAs of a cluster, or no tile shared.
 */
export function planMulticast(cx: Lowering, loop: Op, tiles: readonly SharedTile[]): MulticastPlan | string {
  const s = settings.get(cx);
  if (!s) return 'no cluster';
  const { dims } = s;
  if (dims[2] > 1) return 'clusters along z are not multicast';
  const clusterAxes = [0, 1].filter((a) => dims[a]! > 1);
  if (!loop.operands.slice(0, 3).every(uniformChecker(cx.func, clusterAxes))) return 'the loop bounds differ between the CTAs of a cluster';
  const around = enclosingDiffers(cx.func, loop, uniformChecker(cx.func, clusterAxes));
  if (around) return around;
  const shares = tiles.map((t): TileShare | undefined => {
    const axes = clusterAxes.filter((a) => descOperands(t.load).offsets.every(uniformChecker(cx.func, [a])));
    const pieces = axes.reduce((n, a) => n * dims[a]!, 1);
    if (pieces < 2) return undefined;
    if (t.g.boxes % pieces === 0) return { axes, pieces, split: 'boxes' };
    // a row slice keeps the swizzle pattern when it is a whole number of 8-row repeats
    if (t.g.block.length === 2 && t.g.rows % (8 * pieces) === 0) return { axes, pieces, split: 'rows' };
    return undefined;
  });
  if (shares.every((x) => !x)) return 'no tile is the same in two CTAs of a cluster';
  return { size: dims[0] * dims[1] * dims[2], dims, shares };
}

interface Regs {
  readonly rank: string;
  readonly x: string;
  readonly y: string;
}
const regsOf = new WeakMap<object, Regs>();
/** %cluster_ctarank and the CTA's x, y in its cluster, read once in the prologue. */
function clusterRegs(cx: Lowering): Regs {
  let r = regsOf.get(cx);
  if (!r) {
    r = { rank: cx.reg('b32'), x: cx.reg('b32'), y: cx.reg('b32') };
    cx.e.emitPrologue(`mov.u32 ${r.rank}, %cluster_ctarank;`);
    cx.e.emitPrologue(`mov.u32 ${r.x}, %cluster_ctaid.x;`);
    cx.e.emitPrologue(`mov.u32 ${r.y}, %cluster_ctaid.y;`);
    regsOf.set(cx, r);
  }
  return r;
}

/**
 * The ctaMask (u16 register) of a share's group and this CTA's piece in it. Ranks number x fastest
 * (rank = x + X y): along x the group is ranks X y .. X y + X - 1, along y the ranks x + X y'.
 */
function groupOf(cx: Lowering, dims: ClusterDims, share: TileShare): { mask: string; piece: string } {
  const { x, y } = clusterRegs(cx);
  const X = dims[0], Y = dims[1];
  const mask32 = cx.reg('b32'), mask = cx.reg('b16'), piece = cx.reg('b32');
  const along = (a: number): boolean => share.axes.includes(a);
  if (along(0) && along(1)) {
    cx.emit(`mov.u32 ${mask32}, ${(1 << (X * Y)) - 1};`);
    cx.emit(`mad.lo.u32 ${piece}, ${y}, ${X}, ${x};`);
  } else if (along(0)) {
    const sh = cx.reg('b32');
    cx.emit(`mul.lo.u32 ${sh}, ${y}, ${X};`);
    cx.emit(`mov.u32 ${mask32}, ${(1 << X) - 1};`);
    cx.emit(`shl.b32 ${mask32}, ${mask32}, ${sh};`);
    cx.emit(`mov.u32 ${piece}, ${x};`);
  } else {
    let m = 0;
    for (let k = 0; k < Y; k++) m |= 1 << (k * X);
    cx.emit(`mov.u32 ${mask32}, ${m};`);
    cx.emit(`shl.b32 ${mask32}, ${mask32}, ${x};`);
    cx.emit(`mov.u32 ${piece}, ${y};`);
  }
  cx.emit(`cvt.u16.u32 ${mask}, ${mask32};`);
  return { mask, piece };
}

/**
 * Thread 0's copies of a shared tile for the stage at `stage` (its full mbarrier at `bar`): this
 * CTA's piece, multicast to the group. The `tile offset` is the tile's offset in the stage;
 * `issuer` the predicate of the issuing thread (thread 0 when not given).
 */
export function issueShared(cx: Lowering, plan: MulticastPlan, share: TileShare, t: SharedTile, tileOffset: number, stage: string, bar: string, issuer?: string): void {
  const p = issuer ?? elected(cx); // the issuing thread: thread 0, or the warp-specialized producer's
  const { g, load } = t;
  const { mask, piece } = groupOf(cx, plan.dims, share);
  const rank = load.attrs.block.length;
  const pieceOf = (k: number): string => { // 1 when this CTA's piece is k
    const q = cx.reg('pred');
    cx.emit(`setp.eq.and.u32 ${q}, ${piece}, ${k}, ${p};`);
    return q;
  };
  cx.emit(`// multicast: piece ${share.split === 'boxes' ? `of ${g.boxes / share.pieces} box(es)` : `of ${g.rows / share.pieces} rows`} from each of ${share.pieces} CTAs`);
  if (share.split === 'boxes') {
    const per = g.boxes / share.pieces;
    const map = mapAddress(cx, tensorMaps(cx).mapFor(load, g));
    for (let k = 0; k < share.pieces; k++) {
      const q = pieceOf(k);
      for (let j = k * per; j < (k + 1) * per; j++) {
        const off = tileOffset + j * g.rows * g.swizzle;
        cx.emit(`@${q} cp.async.bulk.tensor.${rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [${stage}${off ? `+${off}` : ''}], [${map}, ${boxCoords(cx, load, g, j)}], [${bar}], ${mask};`);
      }
    }
    return;
  }
  // rows: a map whose box is rows/pieces rows; piece k starts k * rows/pieces rows in
  const rows = g.rows / share.pieces;
  const sub: TileGeometry = { ...g, box: [g.box[0]!, rows, ...g.box.slice(2)] };
  const map = mapAddress(cx, tensorMaps(cx).mapFor(load, sub));
  for (let k = 0; k < share.pieces; k++) {
    const q = pieceOf(k);
    for (let j = 0; j < g.boxes; j++) {
      const coords = boxCoords(cx, load, g, j).slice(1, -1).split(', ');
      const r = cx.reg('b32');
      cx.emit(`add.s32 ${r}, ${coords[1]}, ${k * rows};`);
      coords[1] = r;
      const off = tileOffset + j * g.rows * g.swizzle + k * rows * g.swizzle;
      cx.emit(`@${q} cp.async.bulk.tensor.${rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [${stage}${off ? `+${off}` : ''}], [${map}, {${coords.join(', ')}}], [${bar}], ${mask};`);
    }
  }
}

/** A cluster barrier of every thread (release/acquire): see the file comment. */
export function clusterSync(cx: Lowering): void {
  if (multicastSabotage(cx) === 'no-cluster-barrier') {
    cx.barrier();
    return;
  }
  cx.emit('barrier.cluster.arrive.release.aligned;');
  cx.emit('barrier.cluster.wait.acquire.aligned;');
}

/** The empty mbarriers' arrival count: every CTA of the cluster (1 when sabotaged to release locally). */
export const emptyCount = (cx: Lowering, plan: MulticastPlan): number => (multicastSabotage(cx) === 'local-release' ? 1 : plan.size);

/**
 * Thread 0 (predicate `q`, which includes it): arrive on the empty mbarrier at `empty` (this CTA's
 * shared address; the same offset in every CTA) of every CTA of the cluster.
 */
export function releaseStage(cx: Lowering, plan: MulticastPlan, q: string, empty: string): void {
  if (multicastSabotage(cx) === 'local-release') {
    cx.emit(`@${q} mbarrier.arrive.release.cta.shared::cta.b64 _, [${empty}];`);
    return;
  }
  const remote = cx.reg('b32');
  for (let k = 0; k < plan.size; k++) {
    cx.emit(`@${q} mapa.shared::cluster.u32 ${remote}, ${empty}, ${k};`);
    cx.emit(`@${q} mbarrier.arrive.release.cluster.shared::cluster.b64 _, [${remote}];`);
  }
}
