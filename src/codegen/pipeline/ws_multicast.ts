// TMA multicast in the warp-specialized ring (lower_warp_specialize.ts) on sm_90a, launched in a
// thread block cluster: the protocol of the plain multicast ring (async/tma_multicast.ts), with
// the producer/consumer split of CUTLASS's sm90 warp-specialized multicast GEMMs.
//
//   producer:  a tile that is the same in every CTA of a group (planMulticast) is issued as this
//              CTA's 1/n piece with `.multicast::cluster`, landing in every CTA of the group at
//              the same offset and completing tx-bytes on each one's full barrier (the full
//              barrier still expects the whole stage); other tiles as before
//   consumers: a CTA's producer now writes into its peers' stages, so it may refill a stage only
//              once the consumers of EVERY CTA are done with it: every consumer thread arrives on
//              the empty barrier of every CTA of the cluster (mapa + arrive.release.cluster), whose
//              arrival count is 32*numWarps * cluster size
//   open:      one cluster barrier after the mbarriers are initialised, before the partitions part
//              (a peer's copy or arrival may reach this CTA's barriers as soon as it starts)
//   close:     the consumers release every stage use, so their last remote arrivals may reach a
//              peer that has finished its loop: every thread that has not left takes one more
//              cluster barrier before it exits (CUTLASS's kernels end the same way), the
//              producer's idle threads and its issuing thread as well (non-.aligned: the
//              producer warp diverges there)
// Only for a warp-specialized loop that is not inside a persistent tile loop: a tile loop's tiles
// depend on programId(0) and its trip count may differ between CTAs.
import type { Lowering } from '../context.js';
import { multicastSabotage, planMulticast, releaseStage, type MulticastPlan } from '../async/tma_multicast.js';
import type { TmaRingLoop } from './lower_tma_ring.js';

/** The multicast plan of a warp-specialized ring, or why there is none (said in the PTX). */
export function planWsMulticast(cx: Lowering, ring: TmaRingLoop, inTileLoop: boolean): MulticastPlan | string {
  const mc = planMulticast(cx, ring.loop, ring.tiles);
  if (typeof mc === 'string') return mc;
  if (inTileLoop) return 'the warp-specialized ring runs across a persistent tile loop (its tiles differ between the CTAs)';
  return mc;
}

/** The empty barriers' arrival count: every consumer thread of every CTA (of its own CTA when sabotaged). */
export const wsEmptyCount = (cx: Lowering, plan: MulticastPlan | undefined, consumers: number): number =>
  plan && multicastSabotage(cx) !== 'local-release' ? consumers * plan.size : consumers;

/** A consumer thread is done with the stage whose empty barrier is at `empty` (guarded by `pred` when given). */
export function wsRelease(cx: Lowering, plan: MulticastPlan | undefined, empty: string, pred?: string): void {
  const g = pred ? `@${pred} ` : '';
  if (!plan) {
    cx.emit(`${g}mbarrier.arrive.shared::cta.b64 _, [${empty}];`);
    return;
  }
  const q = pred ?? cx.reg('pred');
  if (!pred) cx.emit(`setp.eq.u32 ${q}, 0, 0;`);
  cx.emit('// multicast: this thread is done with the stage in every CTA of the cluster (their producers refill it)');
  releaseStage(cx, plan, q, empty);
}

/** The cluster barrier that opens the kernel (lines for after the prologue, all threads, converged). */
export function wsClusterOpen(cx: Lowering, plan: MulticastPlan | undefined): string[] {
  if (!plan) return [];
  if (multicastSabotage(cx) === 'no-cluster-barrier') return ['\t// sabotage: no cluster barrier after the mbarriers are initialised'];
  return [
    '\t// multicast: every CTA of the cluster has initialised its mbarriers before a peer\'s copy or arrival',
    '\tbarrier.cluster.arrive.release.aligned;',
    '\tbarrier.cluster.wait.acquire.aligned;',
  ];
}

/** The cluster barrier before a thread exits (may be divergent: not .aligned). */
export function wsClusterClose(cx: Lowering, plan: MulticastPlan | undefined): void {
  if (!plan) return;
  cx.emit('// multicast: no peer arrives on this CTA\'s barriers any more once every thread of the cluster is here');
  cx.emit('barrier.cluster.arrive.release;');
  cx.emit('barrier.cluster.wait.acquire;');
}
