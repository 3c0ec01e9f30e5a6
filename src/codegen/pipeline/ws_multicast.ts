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
// Across a persistent tile loop (ws_tiles.ts) as well, when the tile loop's bounds and step are
// the same in every CTA of the cluster (a loop over cluster tiles: programId(2) stepping by
// numPrograms(2) in a grid [X, Y, n], each CTA's tile offset by its programId(0)/(1), as
// docs/compiler.md shows): then every CTA of a cluster runs the same number of tiles and K steps,
// the tiles' offsets are checked as for a top-level loop (the tile loop's induction variable is
// the same in the cluster), the ring's stage and phase run on across tiles in every CTA alike, and
// the consumers release every stage use of every tile to every CTA. A tile loop over programId(0)
// (persistentTiles' default) hands the CTAs of a cluster unrelated tiles and trip counts that may
// differ: no multicast, said in the PTX.
import type { Lowering } from '../context.js';
import { multicastSabotage, planMulticast, releaseStage, sameInCluster, TILE_LOOP_DIFFERS, type MulticastPlan } from '../async/tma_multicast.js';
import type { WsTileLoop } from './ws_tiles.js';
import type { TmaRingLoop } from './lower_tma_ring.js';

/** The multicast plan of a warp-specialized ring, or why there is none (said in the PTX). */
export function planWsMulticast(cx: Lowering, ring: TmaRingLoop, tiles: WsTileLoop | undefined): MulticastPlan | string {
  const mc = planMulticast(cx, ring.loop, ring.tiles);
  if (mc === 'no cluster') return mc;
  if (tiles && !sameInCluster(cx, tiles.loop.operands.slice(0, 3))) {
    return TILE_LOOP_DIFFERS;
  }
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
