// 2-CTA MMA (`twoCta`, tcgen05_pair.ts) on the warp-specialized sm_100a loop (ws_tcgen05.ts):
// programs 2p and 2p+1 of a [2, 1, 1] cluster each run a load warp, an MMA warp and epilogue
// warps on their own ring; the even CTA's MMA warp issues one tcgen05.mma.cta_group::2 (M 256)
// per k-step for the pair, as CUTLASS's and Triton's 2-SM kernels do:
//   load warp   (both CTAs) from the S-th iteration on, waits its own empty[s]; expect_tx of
//               its A tile and half of B; A's boxes and B's half by the CTA's parity into the
//               stage's half-width B slot (pairCopies, ring_half_slot.ts)
//   MMA warp    even CTA: waits full[s], then PEER[s] (try_wait.acquire.cluster: the odd CTA's
//               half has landed); the pair MMAs; tcgen05.commit.cta_group::2 multicast to
//               empty[s] of both CTAs (each load warp's refill gated by its own), after the
//               loop one more to ACC_FULL of both CTAs
//               odd CTA (the relay, label PAIR_RELAY): waits its own full[s] and arrives on the
//               leader's PEER[s] (mapa, mbarrier.arrive.release.cluster); it issues nothing
//   PEER[s]     one arrival per stage use, the same phase sequence as full[s]: the leader waits
//               it with the parity of its full wait (the odd CTA refills stage s only after the
//               leader's commit of its previous use, so no phase is skipped)
//   epilogue    each CTA waits its own ACC_FULL and reads its 128 rows from its TMEM half
//   cluster     one barrier.cluster after the prologue (mbarriers initialised and TMEM
//               allocated in both CTAs) before the partitions part; the dealloc's cluster
//               barrier at the end (tmem_alloc.ts; the partitions' exited threads count as arrived)
// A persistent tile loop keeps cta_group::1 (tcgen05_pair.ts says why).
import type { Lowering } from '../context.js';
import { newBarriers, waitBarrier } from '../async/lower_tma.js';
import { planTmaRings } from './lower_tma_ring.js';
import type { WarpSpecializePlan } from './lower_warp_specialize.js';
import { pairLoop, pairRegs, type PairPlan } from './tcgen05_pair.js';

/** The odd CTA's MMA thread starts at this label (it relays its stage-full to the leader). */
export const PAIR_RELAY = 'ws_pair_relay';

export interface WsPair {
  readonly plan: PairPlan;
  /** b32: PEER[0]'s shared address (the leader's barriers the odd CTA arrives on). */
  readonly peer0: string;
  /** Persistent: ACC_PEER[0] (one per accumulator buffer): the odd CTA's epilogue has read the buffer. */
  readonly accPeer0?: string;
  readonly leader: string;
  readonly mask: string;
  readonly leaderRank: string;
}

/**
 * The warp-specialization plan with its loop's ring laid out again once the pair is planned:
 * each stage holds A and half of B (planWarpSpecialize laid it out before the pair halved B's
 * slot), and the stage bytes in its note.
 */
export function pairWsPlan(cx: Lowering, ws: WarpSpecializePlan, numStages: number): WarpSpecializePlan {
  const l = ws.loop;
  if (!l || !pairLoop(cx, l.ring.loop)) return ws;
  const ring = planTmaRings(cx, numStages, (o) => o !== l.ring.loop, undefined, true).get(l.ring.loop);
  if (!ring) cx.fail('2-CTA: the warp-specialized loop lost its ring');
  const was = `${l.ring.numStages} stages of ${l.ring.stageBytes} bytes`, now = `${l.ring.numStages} stages of ${ring!.stageBytes} bytes`;
  return { loop: { ...l, ring: { ...ring!, numStages: l.ring.numStages } }, notes: ws.notes.map((n) => n.replace(was, `${now} (A and half of B: 2-CTA)`)) };
}

/** The pair state of a warp-specialized loop (its PEER barriers, one per stage), if it runs on the CTA pair. */
export function wsPair(cx: Lowering, loop: WarpSpecializePlan['loop']): WsPair | undefined {
  const plan = loop && pairLoop(cx, loop.ring.loop);
  if (!plan) return undefined;
  const { leader, mask, leaderRank } = pairRegs(cx);
  const { bar } = newBarriers(cx, loop.ring.numStages);
  const accPeer = loop.tiles ? { accPeer0: newBarriers(cx, 2).bar } : {};
  return { plan, peer0: bar, leader, mask, leaderRank, ...accPeer };
}

/** The cluster barrier before the partitions part (lines for after the prologue, every thread, converged). */
export const wsPairOpen = (p: WsPair | undefined): string[] => (p ? [
  '\t// 2-CTA: both CTAs\' mbarriers initialised and TMEM halves allocated before a remote arrival or multicast commit (ws_tcgen05_pair.ts)',
  '\tbarrier.cluster.arrive.release.aligned;',
  '\tbarrier.cluster.wait.acquire.aligned;',
] : []);

const peerBar = (cx: Lowering, p: WsPair, idx: string, base = p.peer0): string => {
  const bar = cx.reg('b32');
  cx.emit(`mad.lo.u32 ${bar}, ${idx}, 8, ${base};`);
  return bar;
};

/** The leader's MMA thread, after its full wait of stage `idx`: the odd CTA's half of the stage has landed too. */
export function leaderPeerWait(cx: Lowering, p: WsPair, idx: string, parity: string): void {
  if (p.plan.sabotage === 'no-peer-wait') return;
  const bar = peerBar(cx, p, idx);
  const loop = cx.e.label('peer_wait'), done = cx.reg('pred');
  cx.emit('// 2-CTA: the odd CTA\'s half of the stage (its load warp\'s TMA) has landed: PEER, relayed by its MMA warp');
  cx.emit(`${loop}:`);
  cx.emit(`mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 ${done}, [${bar}], ${parity};`);
  cx.emit(`@!${done} bra.uni ${loop};`);
}

/**
 * Persistent: the leader's MMA thread, after its ACC_EMPTY wait of buffer `buf`: the odd CTA's
 * epilogue has read its half of the buffer too (ACC_PEER, relayed; the same phase sequence).
 */
export function leaderAccPeerWait(cx: Lowering, p: WsPair, buf: string, parity: string): void {
  const bar = peerBar(cx, p, buf, p.accPeer0!);
  const loop = cx.e.label('acc_peer_wait'), done = cx.reg('pred');
  cx.emit('// 2-CTA: the odd CTA\'s epilogue has read its rows of this buffer too (ACC_PEER, relayed by its MMA warp)');
  cx.emit(`${loop}:`);
  cx.emit(`mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 ${done}, [${bar}], ${parity};`);
  cx.emit(`@!${done} bra.uni ${loop};`);
}

/**
 * Persistent, the odd CTA's MMA thread before a tile reuses buffer `buf`: waits this CTA's
 * ACC_EMPTY of it (at `bar`, parity `parity`: its epilogue has read its rows), then tells the
 * leader (ACC_PEER). Before the tile's stage-fulls: the leader's MMAs into the buffer need both.
 */
export function relayAccEmpty(cx: Lowering, p: WsPair, bar: string, parity: string, buf: string): void {
  if (p.plan.sabotage !== 'relay-skips-acc-empty') waitBarrier(cx, bar, parity);
  relayToLeader(cx, p, buf, true);
}

/** The odd CTA's MMA thread, after its full wait of stage `idx` (or, `acc`, its ACC_EMPTY wait of buffer `idx`): arrive on the leader's PEER (ACC_PEER) barrier. */
export function relayToLeader(cx: Lowering, p: WsPair, idx: string, acc = false): void {
  const bar = peerBar(cx, p, idx, acc ? p.accPeer0! : p.peer0), remote = cx.reg('b32');
  cx.emit(acc ? '// 2-CTA: this CTA\'s epilogue has read its rows of the buffer -> the leader\'s ACC_PEER barrier' : '// 2-CTA: this CTA\'s half of the stage has landed -> the leader\'s PEER barrier');
  cx.emit(`mapa.shared::cluster.u32 ${remote}, ${bar}, ${p.leaderRank};`);
  cx.emit(`mbarrier.arrive.release.cluster.shared::cluster.b64 _, [${remote}];`);
}

/** The leader's commit of the MMAs issued so far to the barrier at `bar` in both CTAs (under `pred` if given). */
export const pairCommit = (p: WsPair, bar: string, pred?: string): string =>
  `${pred ? `@${pred} ` : ''}tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [${bar}], ${p.mask};`;

/** Where the MMA thread parts: the odd CTA's goes to the relay. */
export function toRelay(cx: Lowering, p: WsPair): void {
  cx.emit(`@!${p.leader} bra.uni ${PAIR_RELAY}; // 2-CTA: the odd CTA's MMA warp only relays its stage-full`);
}
