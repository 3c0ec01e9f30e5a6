// FlashAttention-3's ping-pong between two consumer warpgroups (sm_90a, numWarps 8): in a warp-
// specialized attention loop (a wgmma dot and a reduction - the online softmax - in the body) the
// two warpgroups take turns issuing their wgmma, so one warpgroup's softmax runs while the
// other's GEMM occupies the tensor cores. The order is kept by two named barriers of 256 threads
// (both consumer warpgroups), one per warpgroup, as CUTLASS's ping-pong "order barrier" and FA3's
// warp-scheduler barriers do:
//
//   warpgroup w, at each wgmma dot of the body: bar.sync 2+w, 256      (its turn: the other arrived)
//                                               wgmma.fence .. mma_async .. commit_group
//                                               bar.arrive 3-w, 256    (the other's turn)
//                                               wait_group, the softmax (overlapping the other's wgmma)
//
// so the issue order is WG0 S, WG1 S, WG0 PV, WG1 PV, WG0 S', ... Before the loop warpgroup 1
// arrives on warpgroup 0's barrier (when the loop runs at all), and it skips its arrive after the
// body's last dot in the last iteration: every barrier gets as many arrivals as waits (no
// arrive is left pending at the kernel's end). Barrier 0 is the CTA's (the prologue), 1 the
// consumers' `bar.sync 1, 32*numWarps` (context.ts barrier()); the turn sections hold only the
// wgmma issue (the dot's own barriers come before its fence), so neither can deadlock on them.
// It only reorders issue across warpgroups: each warpgroup computes the same values in the same
// order (bit for bit the kernel without warp specialization).
import type { Op } from '../../ir/ops.js';
import { isWgmmaLayout } from '../../compiler/layout.js';
import type { Lowering } from '../context.js';
import { setWgmmaIssueOrder } from '../tensor_cores/lower_wgmma.js';
import { isCombiner } from './ws_attention.js';

/** The named barrier of consumer warpgroup 0's turn (warpgroup 1's is the next). */
export const PINGPONG_BARRIER = 2;
/** Threads of each order barrier: both consumer warpgroups. */
const PINGPONG_THREADS = 256;

/**
 * The body's wgmma dots the two consumer warpgroups take turns issuing, or why the loop has no
 * ping-pong: only with two consumer warpgroups (numWarps 8) and an attention body (a reduction
 * between wgmma dots), none left in flight across iterations (`overlapped`).
 */
export function pingPongDots(cx: Lowering, loop: Op, overlapped: Op | undefined): Op[] | string {
  if (cx.target !== 'sm_90a') return `target ${cx.target}`;
  if (cx.numWarps !== 8) return `${cx.numWarps / 4} consumer warpgroup(s)`;
  const body = loop.regions[0]!.ops;
  if (!body.some(isCombiner)) return 'no reduction in the body (not an attention loop)';
  if (overlapped) return 'a wgmma stays in flight across iterations';
  const dots = body.filter((o) => o.kind === 'dot' && isWgmmaLayout(cx.layoutOf(o.results[0]!), o.operands[0]!.type.shape[0]!, cx.numWarps));
  return dots.length ? dots : 'no wgmma dot in the body';
}

/** The note of the 'pipeline' stage. */
export const pingPongNote = (dots: readonly Op[]): string =>
  `; consumer ping-pong: the 2 consumer warpgroups take turns issuing the ${dots.length} wgmma dot(s) (named barriers ${PINGPONG_BARRIER}/${PINGPONG_BARRIER + 1}, ${PINGPONG_THREADS} threads)`;

/**
 * Arms the ping-pong of one consumer loop: before the loop (lb < ub: it runs) warpgroup 1 gives
 * warpgroup 0 the first turn; each dot of `dots` syncs on its warpgroup's barrier before its
 * issue and arrives on the other's after it. Returns the call for the top of each iteration
 * (after the exit test), which decides whether this is warpgroup 1's last arrive to skip.
 */
export function armPingPong(cx: Lowering, dots: readonly Op[], lb: string, ub: string, ty: string): (iv: string, step: number) => void {
  const { warp } = cx.thread();
  const [wg, mine, other] = [cx.reg('b32'), cx.reg('b32'), cx.reg('b32')];
  const [second, first, skip] = [cx.reg('pred'), cx.reg('pred'), cx.reg('pred')];
  cx.emit(`// consumer ping-pong: warpgroup w issues its wgmma after bar.sync ${PINGPONG_BARRIER}+w, then arrives on the other's (ws_pingpong.ts)`);
  cx.emit(`shr.u32 ${wg}, ${warp}, 2;`);
  cx.emit(`add.u32 ${mine}, ${wg}, ${PINGPONG_BARRIER};`);
  cx.emit(`sub.u32 ${other}, ${PINGPONG_BARRIER + 1}, ${wg};`);
  cx.emit(`setp.ne.u32 ${second}, ${wg}, 0;`);
  cx.emit(`setp.lt.${ty} ${first}, ${lb}, ${ub};`);
  cx.emit(`and.pred ${first}, ${first}, ${second};`);
  cx.emit(`@${first} bar.arrive ${PINGPONG_BARRIER}, ${PINGPONG_THREADS}; // warpgroup 0 goes first`);
  const last = dots[dots.length - 1]!;
  for (const d of dots) {
    setWgmmaIssueOrder(cx, d, {
      before: () => cx.emit(`bar.sync ${mine}, ${PINGPONG_THREADS}; // ping-pong: this warpgroup's turn`),
      after: () => cx.emit(`${d === last ? `@!${skip} ` : ''}bar.arrive ${other}, ${PINGPONG_THREADS}; // ping-pong: the other warpgroup's turn`),
    });
  }
  return (iv, step) => {
    const nx = cx.reg(ty === 's64' ? 'b64' : 'b32');
    cx.emit(`add.${ty} ${nx}, ${iv}, ${step};`);
    cx.emit(`setp.ge.${ty} ${skip}, ${nx}, ${ub};`);
    cx.emit(`and.pred ${skip}, ${skip}, ${second}; // warpgroup 1's last turn: no arrive left pending`);
  };
}
