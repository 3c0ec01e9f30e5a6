// The cp.async producer of a warp-specialized loop (sm_90a): a loop with `warpSpecialize: true`
// whose pointer loads ride the cp.async ring (compiler/pipeline.ts decides which: Triton's
// `ptrs += BK` form, masks included) and feed wgmma dots. The structure is the TMA producer's
// (lower_warp_specialize.ts): a ring of S stages with full/empty mbarriers, consumers unchanged
// (wait full, compute, arrive empty). What differs is the producer:
//
//   every one of its 128 threads issues cp.async copies (16-byte chunks where AxisInfo proves
//   them) into the stage, swizzled as the wgmma descriptors read it (lower_pipeline.ts's stage
//   geometry), then `cp.async.mbarrier.arrive.noinc` on full[s]: the arrival comes once that
//   thread's copies have landed, and .noinc does not raise the pending count first, so full[s]
//   is init'ed with 128 arrivals (one per producer thread, every thread arrives every stage,
//   even one with no copy to issue).
//
// The copies are those of the load's own layout (numWarps warps): the producer plays consumer
// threads. Producer thread t (0..127) is consumer thread t, and with 8 consumer warps also t+128
// (a second pass). Everything thread-dependent (the address slice, the tensors before the loop it
// reads, the stage offsets) is lowered again per iteration and pass under that thread
// (Lowering.asThread), in the producer's own code: no value crosses from the consumers.
// Masked copies zero-fill (src-size 0) as in the plain cp.async ring. The consumers' wgmma fence
// the generic-proxy writes into the async proxy (fence.proxy.async.shared::cta) as they do for
// the plain ring, after their full wait has acquired the copies.
import type { Op, Value } from '../../ir/ops.js';
import type { PipelinedLoop, PipelinePlan } from '../../compiler/pipeline.js';
import type { Lowering } from '../context.js';
import { setStaged } from '../smem/staged.js';
import { copiesOf, emitCopies, ringOf } from './lower_pipeline.js';
import type { TmaRingLoop } from './lower_tma_ring.js';

/** Threads of the producer warpgroup: all of them issue copies. */
export const CP_PRODUCER_THREADS = 128;

/** The ring of a warp-specialized loop fed by cp.async: no TMA tiles; the pipeliner's loads instead. */
export interface WsCpRing {
  readonly ring: TmaRingLoop;
  readonly cp: PipelinedLoop;
}

/** Why the loop's pointer loads cannot be the producer's (a reason), or the ring they fill. */
export function planWsCpAsync(cx: Lowering, op: Op, S: number, pipeline: PipelinePlan | undefined): string | WsCpRing {
  const body = op.regions[0]!;
  const cp = pipeline?.loops.get(op);
  if (!cp) return 'its pointer loads are not on the cp.async ring (the pipeline notes say why)';
  if (cx.target !== 'sm_90a') return 'pointer loads: the sm_100a load warp issues TMA only (no cp.async producer there)';
  const onRing = new Set<Op>(cp.loads.map((c) => c.load));
  const left = body.ops.find((o) => (o.kind === 'load' || o.kind === 'desc_load') && !onRing.has(o));
  if (left?.kind === 'desc_load') return `desc_load %${left.results[0]!.id} beside pointer loads: one loop's producer issues either TMA or cp.async, not both`;
  if (left) return `load %${left.results[0]!.id} is not on the cp.async ring (the pipeline notes say why)`;
  const stageBytes = ringOf(cp).stageBytes;
  return { ring: { loop: op, numStages: S, step: cp.step, tiles: [], stageBytes, slice: [...cp.slice], skip: new Set(cp.skip) }, cp };
}

/** The values the consumers' dots read from the stage (the loads' results). */
export const cpStaged = (cp: PipelinedLoop): Set<number> => new Set(cp.loads.map((c) => c.load.results[0]!.id));

/** The consumers' body on the stage at `rd`: the dots read the landed tiles; the loads and their address math are gone. */
export function lowerCpRingBody(cx: Lowering, op: Op, cp: PipelinedLoop, iv: string, carried: readonly string[][], rd: string): string[][] {
  const body = op.regions[0]!;
  const ring = ringOf(cp);
  return cx.scope(() => {
    cx.define(body.args[0]!, [iv]);
    body.args.slice(1).forEach((a, k) => {
      cx.define(a, carried[k]!);
      cx.own(a, body);
    });
    for (const t of ring.tiles) {
      const base = cx.reg('b32');
      cx.emit(`add.u32 ${base}, ${rd}, ${t.offset};`);
      setStaged(cx, t.c.load.results[0]!, { base, ...t.geom, transposed: t.c.transposed });
    }
    let out: string[][] = [];
    for (const o of body.ops) {
      if (o.kind === 'yield') out = o.operands.map((v, i) => cx.regsIn(v, cx.layoutOf(op.results[i]!)));
      else if (!cp.skip.has(o)) cx.lowerOp(o);
    }
    for (const t of ring.tiles) setStaged(cx, t.c.load.results[0]!, undefined);
    return out;
  });
}

/**
 * The consumer threads the producer thread plays, one per pass: (tid, lane, warp) registers,
 * computed once in the producer's code. Producer thread t is consumer thread t + 128*pass.
 */
export function producerPasses(cx: Lowering): { tid: string; lane: string; warp: string }[] {
  const { tid } = cx.thread();
  const passes = Math.ceil((32 * cx.numWarps) / CP_PRODUCER_THREADS);
  return Array.from({ length: passes }, (_, p) => {
    const [t, lane, warp] = [cx.reg('b32'), cx.reg('b32'), cx.reg('b32')];
    cx.emit(`sub.u32 ${t}, ${tid}, ${32 * cx.numWarps - p * CP_PRODUCER_THREADS};`);
    cx.emit(`and.b32 ${lane}, ${t}, 31;`);
    cx.emit(`shr.u32 ${warp}, ${t}, 5;`);
    return { tid: t, lane, warp };
  });
}

/**
 * One iteration's copies (induction variable `iv`) into the stage at `wr`, from every producer
 * thread, then its arrival on `full` once they have landed. `tensors` are the ops before the loop
 * the address slice reads that are tiles (thread-dependent): lowered again under each pass.
 */
export function issueCpStage(cx: Lowering, cp: PipelinedLoop, passes: ReturnType<typeof producerPasses>, tensors: readonly Op[], iv: string, wr: string, full: string): void {
  const body = cp.loop.regions[0]!;
  const ring = ringOf(cp);
  const redefined: Value[] = [body.args[0]!, ...tensors.flatMap((o) => o.results), ...cp.slice.flatMap((o) => o.results)];
  passes.forEach((thread, p) => {
    if (passes.length > 1) cx.emit(`// the copies of consumer threads ${p * CP_PRODUCER_THREADS}..${(p + 1) * CP_PRODUCER_THREADS - 1}`);
    cx.preserving(redefined, () => cx.scope(() => cx.asThread(thread, () => {
      cx.define(body.args[0]!, [iv]);
      for (const o of tensors) cx.lowerOp(o);
      for (const o of cp.slice) cx.lowerOp(o);
      emitCopies(cx, ring, ring.tiles.map((t) => copiesOf(cx, t)), wr);
    })));
  });
  // this thread's copies of the stage land, then it arrives (no pending-count increment: full[s] expects 128)
  cx.emit(`cp.async.mbarrier.arrive.noinc.shared.b64 [${full}];`);
}
