// 2-CTA MMA (tcgen05 `.cta_group::2`, Triton's `two_ctas`; compile option `twoCta`, sm_100a, launched
// with clusterDims [2, 1, 1]): the two CTAs of a cluster, programs 2p and 2p+1 along M, each own a
// 128-row tile of C with the same N columns; together they compute one 256 x N tile with one
// MMA per k-step, issued by the even CTA (the leader). The plain tcgen05 TMA ring
// (tcgen05_ring.ts) changes so:
//   loads      each CTA loads its own A rows [128, BK] and HALF of B's columns: the even CTA B's
//              boxes 0..h-1, the odd one boxes h..2h-1, each into its stage's B slot, which holds
//              h boxes only (ring_half_slot.ts: the MMA reads a K x N/2 matrix at the same
//              descriptor address in each CTA); each CTA's FULL barrier expects its own bytes
//   PEER[s]    one more mbarrier per stage, waited on by the leader only: the odd CTA's thread 0,
//              once its FULL[s] phase completes, arrives on the leader's PEER[s] (mapa,
//              mbarrier.arrive.release.cluster); the leader waits FULL[s] and PEER[s]
//              (try_wait.acquire.cluster) before it issues: both halves of the stage have landed
//   MMA        leader's thread 0: tcgen05.mma.cta_group::2 (M 256 in the instruction descriptor),
//              tcgen05.commit.cta_group::2 ... multicast::cluster to EMPTY[s] of both CTAs
//              (ctaMask 0b11 at the pair's ranks), so each CTA waits on its own EMPTY[s] before it
//              refills its stage, and once after the loop before reading its TMEM half
//   TMEM       alloc / relinquish / dealloc .cta_group::2 (one .cta_group per kernel): the same
//              columns in both CTAs; D rows 0-127 in the even CTA's, 128-255 in the odd one's, so
//              each CTA's epilogue reads its own 128 rows as the ::1 kernel does
//   cluster    barrier.cluster before the ring: both CTAs' mbarriers initialised and both TMEM
//              halves allocated before a remote arrival or a multicast commit reaches them
// The warp-specialized loop (plain or persistent) runs the same pair protocol with a load warp,
// an MMA warp and epilogue warps: ws_tcgen05_pair.ts. Taken only where the whole kernel fits it
// (every tcgen05 instruction names the same .cta_group); anything else keeps ::1 and says why in
// the 'pipeline' stage.
import type { Op } from '../../ir/ops.js';
import { descOperands } from '../../ir/tensor_desc.js';
import type { Lowering } from '../context.js';
import { boxCoords, elected, newBarriers } from '../async/lower_tma.js';
import { uniformChecker } from '../async/tma_multicast.js';
import { isTcgen05Dot } from '../tensor_cores/tmem_alloc.js';
import { setPairKernel } from '../tensor_cores/tcgen05_group.js';
import { regKind } from '../ptx_types.js';
import { planTmaRings, type TmaRingLoop } from './lower_tma_ring.js';
import { halveSlot } from './ring_half_slot.js';
import { inflightDot } from './tcgen05_ring.js';
import type { WarpSpecializedLoop } from './lower_warp_specialize.js';

/** Ways tests break the pair ring on purpose, to show the sim catches each. */
export const TWO_CTA_SABOTAGE = ['no-peer-wait', 'relay-skips-acc-empty'] as const;
export type TwoCtaSabotage = (typeof TWO_CTA_SABOTAGE)[number];

export interface PairPlan {
  readonly loop: Op;
  /** The index (in the ring's tiles) of B, whose boxes the CTAs split. */
  readonly bTile: number;
  readonly sabotage?: TwoCtaSabotage;
}
interface PairRegs {
  /** Predicate: this thread issues the pair's MMAs (thread 0 of the even CTA). */
  readonly issuer: string;
  /** Predicate: this CTA is the even one (the leader). */
  readonly leader: string;
  /** u16 ctaMask of the pair (both CTAs' bits). */
  readonly mask: string;
  /** b32: the leader's %cluster_ctarank. */
  readonly leaderRank: string;
}
const plans = new WeakMap<Lowering, PairPlan>();
const regsOf = new WeakMap<Lowering, PairRegs>();

const opsOf = (ops: readonly Op[], out: Op[] = []): Op[] => {
  for (const o of ops) {
    out.push(o);
    o.regions.forEach((r) => opsOf(r.ops, out));
  }
  return out;
};

/**
 * Decides whether the kernel runs its tcgen05 dot on CTA pairs; returns the note for the
 * 'pipeline' stage (taken, or why not). `ws`: the loop warp specialization took, if any (its
 * ring then is the one planned, ws_tcgen05_pair.ts lays it out again with B's half slot).
 */
export function planTwoCta(cx: Lowering, numStages: number, skipLoops: (op: Op) => boolean, ws: WarpSpecializedLoop | undefined, sabotage?: TwoCtaSabotage): string {
  const why = ((): string | PairPlan => {
    const all = opsOf(cx.func.body.ops);
    const dots = all.filter((o) => o.kind === 'dot');
    if (dots.length !== 1 || !isTcgen05Dot(cx, dots[0]!)) return 'the kernel needs exactly one dot, on tcgen05 (every tcgen05 instruction of a kernel names the same .cta_group)';
    if (all.some((o) => o.kind === 'exit_if')) return 'an early exit (both CTAs of a pair must run the MMAs to the end)';
    const dot = dots[0]!;
    const loop = all.find((o) => o.kind === 'for' && o.regions[0]!.ops.includes(dot));
    // a warp-specialized K loop may sit in a persistent tile loop (ws_tcgen05_pair.ts)
    const tileLoop = loop && loop === ws?.ring.loop ? ws.tiles?.loop : undefined;
    if (!loop || !(cx.func.body.ops.includes(loop) || tileLoop)) return "the dot is not in a top-level K loop (nor in a warp-specialized one directly in a persistent tile loop)";
    const ring = loop === ws?.ring.loop ? ws.ring : planTmaRings(cx, numStages, skipLoops).get(loop);
    if (!ring) return 'the K loop has no TMA ring (descriptor loads and numStages >= 2)';
    if (inflightDot(cx, ring) !== dot) return 'the dot does not stay in flight on the tcgen05 ring';
    const [a, b] = dot.operands;
    if (a!.type.shape[0] !== 128) return `A has ${a!.type.shape[0]} rows per CTA; the pair MMA takes 128 (M 256)`;
    if (cx.layoutOf(dot.results[0]!).kind !== 'blocked') return 'the accumulator layout is not the tcgen05 one';
    const bt = ring.tiles.findIndex((t) => t.value.id === b!.id);
    const tb = ring.tiles[bt]!;
    if (tb.trans) return 'B is read K-major (8-bit or tf32 operands): only a 16-bit [K, N] B splits its boxes';
    if (tb.g.boxes % 2 !== 0) return `B's ${tb.g.boxes} TMA box(es) do not split in two halves of N (N per CTA must be a multiple of the 128-byte swizzle)`;
    const uniform = uniformChecker(cx.func, [0]);
    if (tileLoop && !tileLoop.operands.slice(0, 3).every(uniform)) return "the persistent tile loop's bounds or step may differ between the two CTAs of a pair (walk pair tiles: programId(2) stepping by numPrograms(2) on a grid [2, 1, n], each CTA's rows offset by programId(0), as bench/ws_cluster_kernels.ts)";
    if (!loop.operands.slice(0, 3).every(uniform)) return 'the loop bounds may differ between the two CTAs of a pair';
    if (!descOperands(tb.load).offsets.every(uniform)) return "B's tile depends on programId(0): the pair's CTAs must load the same B";
    return { loop, bTile: bt, ...(sabotage ? { sabotage } : {}) };
  })();
  if (typeof why === 'string') return `twoCta: kept cta_group::1: ${why}`;
  plans.set(cx, why);
  setPairKernel(cx);
  // each CTA's stages hold only its half of B's boxes (the rings are planned after this)
  const ring = why.loop === ws?.ring.loop ? ws.ring : planTmaRings(cx, numStages, skipLoops).get(why.loop)!;
  halveSlot(cx, ring.tiles[why.bTile]!.load);
  if (why.loop === ws?.ring.loop) return 'twoCta: the warp-specialized K loop runs as one 256-row tcgen05.mma.cta_group::2 per k-step on the CTA pair: each load warp its A and half of B, the even CTA\'s MMA warp issues once the odd CTA\'s stage-full is relayed to it (ws_tcgen05_pair.ts)';
  return 'twoCta: the K loop runs as one 256-row tcgen05.mma.cta_group::2 per k-step on the CTA pair (tcgen05_pair.ts)';
}

/** The pair plan of ring loop `loop`, if it runs on the CTA pair. */
export const pairLoop = (cx: Lowering, loop: Op): PairPlan | undefined => (plans.get(cx)?.loop === loop ? plans.get(cx) : undefined);

/** The pair's registers (prologue): rank, leader predicate, issuing thread, ctaMask. */
export function pairRegs(cx: Lowering): PairRegs {
  let r = regsOf.get(cx);
  if (r) return r;
  const P = (l: string): void => cx.e.emitPrologue(l);
  const rank = cx.reg('b32'), odd = cx.reg('b32'), leaderRank = cx.reg('b32'), m32 = cx.reg('b32');
  const leader = cx.reg('pred'), issuer = cx.reg('pred'), mask = cx.reg('b16');
  const one = elected(cx);
  P('// 2-CTA pair (tcgen05_pair.ts): the even CTA of the cluster issues the MMAs');
  P(`mov.u32 ${rank}, %cluster_ctarank;`);
  P(`and.b32 ${odd}, ${rank}, 1;`);
  P(`sub.u32 ${leaderRank}, ${rank}, ${odd};`);
  P(`setp.eq.u32 ${leader}, ${odd}, 0;`);
  P(`and.pred ${issuer}, ${leader}, ${one};`);
  P(`shl.b32 ${m32}, 3, ${leaderRank};`);
  P(`cvt.u16.u32 ${mask}, ${m32};`);
  r = { issuer, leader, mask, leaderRank };
  regsOf.set(cx, r);
  return r;
}

/** The pair ring's extra state: PEER barriers (one per stage) and their parity bits. */
export interface PairRing {
  readonly peer0: string;
  readonly phase: string;
}
export function pairRing(cx: Lowering, S: number): PairRing {
  pairRegs(cx);
  const { bar, phase } = newBarriers(cx, S);
  // both CTAs' barriers initialised (and TMEM halves allocated) before the peer reaches them
  cx.emit('barrier.cluster.arrive.release.aligned;');
  cx.emit('barrier.cluster.wait.acquire.aligned;');
  return { peer0: bar, phase };
}

/**
 * After this CTA's FULL wait of stage `idx`: the odd CTA's thread 0 tells the leader its half
 * landed; the leader waits for that (parity bit `idx` of the PEER bits).
 */
export function peerHandshake(cx: Lowering, pr: PairRing, plan: PairPlan, idx: string): void {
  const { leader, leaderRank } = pairRegs(cx);
  const one = elected(cx);
  const bar = cx.reg('b32'), remote = cx.reg('b32'), sender = cx.reg('pred');
  cx.emit(`mad.lo.u32 ${bar}, ${idx}, 8, ${pr.peer0};`);
  cx.emit('// 2-CTA: the odd CTA\'s half of the stage has landed -> the leader\'s PEER barrier');
  cx.emit(`and.pred ${sender}, ${one}, !${leader};`);
  cx.emit(`@${sender} mapa.shared::cluster.u32 ${remote}, ${bar}, ${leaderRank};`);
  cx.emit(`@${sender} mbarrier.arrive.release.cluster.shared::cluster.b64 _, [${remote}];`);
  if (plan.sabotage === 'no-peer-wait') return;
  const skip = cx.e.label('peer_skip'), loop = cx.e.label('peer_wait');
  const parity = cx.reg('b32'), bit = cx.reg('b32'), done = cx.reg('pred');
  cx.emit(`@!${leader} bra.uni ${skip};`);
  cx.emit(`bfe.u32 ${parity}, ${pr.phase}, ${idx}, 1;`);
  cx.emit(`${loop}:`);
  cx.emit(`mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 ${done}, [${bar}], ${parity};`);
  cx.emit(`@!${done} bra.uni ${loop};`);
  cx.emit(`shl.b32 ${bit}, 1, ${idx};`);
  cx.emit(`xor.b32 ${pr.phase}, ${pr.phase}, ${bit};`);
  cx.e.placeLabel(skip);
}

/**
 * issueStage for the pair ring: expect_tx of this CTA's bytes (A and half of B), A's boxes as
 * usual, B's half (by the CTA's parity) into the stage's first B box slots.
 */
export function issuePairStage(cx: Lowering, l: TmaRingLoop, plan: PairPlan, maps: readonly string[], ub: string, iv: string, stage: string, bar: string): void {
  const op = l.loop;
  const body = op.regions[0]!;
  const ty = regKind(op.operands[0]!.type.elem) === 'b64' ? 's64' : 's32';
  const q = cx.reg('pred');
  const skip = cx.e.label('tma_skip');
  cx.emit(`setp.ge.${ty} ${q}, ${iv}, ${ub};`);
  cx.emit(`@${q} bra.uni ${skip};`);
  cx.scope(() => {
    cx.define(body.args[0]!, [iv]);
    for (const o of l.slice) cx.lowerOp(o);
    pairCopies(cx, l, plan, maps, stage, bar, elected(cx));
  });
  cx.e.placeLabel(skip);
}

/**
 * One CTA's share of a pair stage (the offsets' slice lowered): expect_tx of its bytes on `bar`,
 * A's boxes, B's half by the CTA's parity. Issued under predicate `p` (one thread), or by every
 * thread that runs it when undefined (the warp-specialized load thread, ws_tcgen05_pair.ts).
 */
export function pairCopies(cx: Lowering, l: TmaRingLoop, plan: PairPlan, maps: readonly string[], stage: string, bar: string, p?: string): void {
  const { leader } = pairRegs(cx);
  let even = leader, odd = cx.reg('pred');
  if (p) {
    even = cx.reg('pred');
    cx.emit(`and.pred ${even}, ${p}, ${leader};`);
    cx.emit(`and.pred ${odd}, ${p}, !${leader};`);
  } else cx.emit(`not.pred ${odd}, ${leader};`);
  const g = p ? `@${p} ` : '';
  const bytes = l.tiles.reduce((n, t, k) => n + (k === plan.bTile ? t.g.bytes / 2 : t.g.bytes), 0);
  cx.emit(`${g}mbarrier.arrive.expect_tx.shared::cta.b64 _, [${bar}], ${bytes};`);
  l.tiles.forEach((t, k) => {
    const cp = (pred: string, j: number, slot: number): void => {
      const off = t.offset + slot * t.g.rows * t.g.swizzle;
      cx.emit(`${pred}cp.async.bulk.tensor.${t.load.attrs.block.length}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [${stage}${off ? `+${off}` : ''}], [${maps[k]}, ${boxCoords(cx, t.load, t.g, j)}], [${bar}];`);
    };
    if (k !== plan.bTile) {
      for (let j = 0; j < t.g.boxes; j++) cp(g, j, j);
      return;
    }
    const h = t.g.boxes / 2;
    cx.emit(`// 2-CTA: B's columns split: boxes 0..${h - 1} in the even CTA, ${h}..${2 * h - 1} in the odd one, each into the stage's B slot of ${h} box(es)`);
    for (let j = 0; j < h; j++) cp(`@${even} `, j, j);
    for (let j = 0; j < h; j++) cp(`@${odd} `, h + j, j);
  });
}
