// Tensor memory (TMEM) of a kernel whose dots run on tcgen05 (sm_100a): one allocation for the
// whole kernel, made at its start and freed at every exit (PTX ISA "Tensor Memory Allocation"):
//   prologue  warp 0: tcgen05.alloc [tessera_smem], cols; tcgen05.relinquish_alloc_permit
//             all: fence::before_thread_sync, bar.sync, fence::after_thread_sync, ld.shared the
//             address, bar.sync (the word sits at the scratch's start, which the body reuses)
//   exits     all: fence::before_thread_sync, bar.sync (every warp's tcgen05.ld is done),
//             fence::after_thread_sync; warp 0: tcgen05.dealloc; then ret / exit
// Columns: the widest tcgen05 accumulator of the kernel (N f32/s32 cells per row; plus K/2 where
// the dot's A is read from TMEM, tcgen05_tmem_a.ts; plus the scales' columns of a block-scaled
// dot_scaled, lower_tcgen05_scaled.ts, twice for one its ring leaves in flight: tcgen05_inflight.ts), a power of two (twice that for a persistent
// warp-specialized loop, which double-buffers it: setTmemBuffers), >= 32 as alloc requires. Dots
// run one at a time (each waits for its MMAs and reads its
// accumulator back before the next), so they share the columns.
import type { Op, Value } from '../../ir/ops.js';
import { isTcgen05AccLayout } from '../../compiler/tcgen05_sector_layout.js';
import type { Lowering } from '../context.js';
import { tmemACols } from './tcgen05_tmem_a.js';
import { ctaGroup } from './tcgen05_group.js';
import { scaleColumns } from '../../compiler/tcgen05_scaled.js';
import { scaleSetsOf } from './tcgen05_inflight.js';

interface Tmem {
  /** b32 register with the allocation's TMEM address (lane 0, first column). */
  readonly addr: string;
  readonly cols: number;
  /** Predicate: this thread is in warp 0 (the warp that allocates and frees). */
  readonly warp0: string;
}
const state = new WeakMap<Lowering, Tmem>();
const buffers = new WeakMap<Lowering, number>();
const bases = new WeakMap<Lowering, string>();

/**
 * Allocates `k` accumulator buffers of the widest dot's columns (a persistent warp-specialized
 * loop double-buffers its accumulator: pipeline/ws_tcgen05.ts). Before the first tmem().
 */
export function setTmemBuffers(cx: Lowering, k: number): void {
  buffers.set(cx, k);
}
/** While set, accumulator rows are addressed from this b32 register (the current buffer) instead of the allocation's start. */
export function setAccBase(cx: Lowering, reg: string | undefined): void {
  if (reg) bases.set(cx, reg);
  else bases.delete(cx);
}
/** The TMEM address accumulator rows are read and written from. */
export const accBase = (cx: Lowering): string => bases.get(cx) ?? tmem(cx).addr;

const dotsOf = (ops: readonly Op[], out: Op[] = []): Op[] => {
  for (const o of ops) {
    if (o.kind === 'dot' || o.kind === 'dot_scaled') out.push(o);
    if (o.kind !== 'dot_scaled') o.regions.forEach((r) => dotsOf(r.ops, out));
  }
  return out;
};

/** Whether dot `op` is in the tcgen05 layout (the layout pass chose tcgen05 for it). */
export function isTcgen05Dot(cx: Lowering, op: Op): boolean {
  if (cx.target !== 'sm_100a') return false;
  const [a, b] = op.operands as [Value, Value];
  return isTcgen05AccLayout(cx.layoutOf(op.results[0]!), a.type.shape[0]!, b.type.shape[1]!, cx.numWarps);
}

/** The kernel's TMEM allocation, made (in the prologue) on first use. */
export function tmem(cx: Lowering): Tmem {
  let t = state.get(cx);
  if (t) return t;
  // a dot whose A is read from TMEM (tcgen05_tmem_a.ts) takes its K/2 columns beside its accumulator
  // a kept dot_scaled (lower_tcgen05_scaled.ts) takes its scales' columns beside its accumulator,
  // two sets of them when its MMAs stay in flight across a ring's iterations
  const widest = Math.max(...tcgen05Dots(cx).map((o) => o.results[0]!.type.shape[1]! + (o.kind === 'dot_scaled' ? scaleColumns(o) * scaleSetsOf(cx, o) : tmemACols(cx, o))));
  const cols = Math.max(32, 2 ** Math.ceil(Math.log2(widest))) * (buffers.get(cx) ?? 1);
  const P = (l: string): void => cx.e.emitPrologue(l);
  const { warp } = cx.thread();
  const warp0 = cx.reg('pred'), word = cx.reg('b32'), addr = cx.reg('b32');
  const done = cx.e.label('tmem_alloc');
  P(`// tensor memory: ${cols} columns for the tcgen05 accumulators (tmem_alloc.ts)`);
  P(`setp.eq.u32 ${warp0}, ${warp}, 0;`);
  P(`mov.u32 ${word}, ${cx.smemSymbol()};`);
  P(`@!${warp0} bra.uni ${done};`);
  P(`tcgen05.alloc.cta_group::${ctaGroup(cx)}.sync.aligned.shared::cta.b32 [${word}], ${cols};`);
  P(`tcgen05.relinquish_alloc_permit.cta_group::${ctaGroup(cx)}.sync.aligned;`);
  P(`${done}:`);
  P('tcgen05.fence::before_thread_sync;');
  P('bar.sync 0;');
  P('tcgen05.fence::after_thread_sync;');
  P(`ld.shared.b32 ${addr}, [${word}];`);
  P('bar.sync 0;');
  t = { addr, cols, warp0 };
  state.set(cx, t);
  return t;
}

/** The kernel's tcgen05 dots (the allocation is made when there is one). */
const tcgen05Dots = (cx: Lowering): Op[] => dotsOf(cx.func.body.ops).filter((o) => o.kind === 'dot_scaled' || isTcgen05Dot(cx, o));

/**
 * Frees the allocation before an exit; every thread runs it. The allocation is made now if no
 * dot has been lowered yet (the prologue runs before an early exit too).
 */
function dealloc(cx: Lowering): void {
  if (!state.get(cx) && !tcgen05Dots(cx).length) return;
  const t = tmem(cx);
  const skip = cx.e.label('tmem_free');
  cx.emit('tcgen05.fence::before_thread_sync;');
  if (ctaGroup(cx) === 2) {
    // a CTA pair frees and leaves together: neither exits while the other may still name it
    // in a pair instruction (pipeline/tcgen05_pair.ts)
    cx.emit('barrier.cluster.arrive.release.aligned;');
    cx.emit('barrier.cluster.wait.acquire.aligned;');
  } else cx.barrier();
  cx.emit('tcgen05.fence::after_thread_sync;');
  cx.emit(`@!${t.warp0} bra.uni ${skip};`);
  cx.emit(`tcgen05.dealloc.cta_group::${ctaGroup(cx)}.sync.aligned.b32 ${t.addr}, ${t.cols};`);
  cx.e.placeLabel(skip);
}

/** Wraps `return` and `exit_if` so a kernel holding TMEM frees it first (a CTA may not exit holding it). */
export function withTmem(rules: Record<string, (cx: Lowering, op: Op) => void>, cx: Lowering): void {
  if (cx.target !== 'sm_100a') return;
  const ret = rules.return!, exitIf = rules.exit_if!;
  rules.return = (c, op) => {
    dealloc(c);
    ret(c, op);
  };
  rules.exit_if = (c, op) => {
    if (!state.get(c) && !tcgen05Dots(c).length) return exitIf(c, op);
    // the condition is uniform: the whole CTA leaves together, after freeing
    const stay = c.e.label('exit_stay');
    c.emit(`@!${c.regs(op.operands[0]!)[0]!} bra.uni ${stay};`);
    dealloc(c);
    c.emit('exit;');
    c.e.placeLabel(stay);
  };
}
