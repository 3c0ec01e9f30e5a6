// A K loop's accumulator kept in tensor memory (sm_100a), as Triton keeps it: where a loop's
// only tcgen05 dot accumulates in place into a carried value (the dot is directly in the body,
// its acc is the carried value and nothing else reads it, its result only goes back to the same
// place through the yield), the accumulator never visits registers inside the loop:
//   before the loop  a loaded init is stored to TMEM (tcgen05.st) and `started` set; a zero
//                    init is not stored: `started` false makes the first MMA D = A*B
//   each iteration   the dot issues its MMAs with enable_input_d = started on its first k-step,
//                    then sets started (lower_tcgen05.ts), and waits for them as usual (its
//                    operand tiles are reused), but reads nothing back
//   after the loop   the loop's result is read from TMEM (tcgen05.ld); a loop that ran no
//                    iteration with a zero init gives zeros without reading TMEM
// Only one tcgen05 dot may sit in the loop (recursively), so its columns are the loop's alone; a
// block-scaled dot_scaled (lower_tcgen05_scaled.ts) counts as one and may be the resident one.
import type { Op, Value } from '../../ir/ops.js';
import { sameLayout } from '../../compiler/layout.js';
import type { Lowering } from '../context.js';
import { movFor } from '../context.js';
import { loadAcc, storeAcc, tmemRows } from './lower_tcgen05.js';
import { zeroConst } from './mma_smem_operand.js';
import { isTcgen05Dot } from './tmem_alloc.js';

interface Resident {
  /** Predicate register: the accumulator in TMEM holds a value (false: the next MMA overwrites). */
  readonly started: string;
}
const residents = new WeakMap<Lowering, Map<Op, Resident>>();

/** The resident state of dot `op` while its loop is being lowered, or undefined. */
export const residentOf = (cx: Lowering, op: Op): Resident | undefined => residents.get(cx)?.get(op);

const countUses = (ops: readonly Op[], id: number): number =>
  ops.reduce((n, o) => n + o.operands.filter((v) => v.id === id).length + o.regions.reduce((m, r) => m + countUses(r.ops, id), 0), 0);
const dotsIn = (ops: readonly Op[], out: Op[] = []): Op[] => {
  for (const o of ops) {
    if (o.kind === 'dot' || o.kind === 'dot_scaled') out.push(o);
    if (o.kind !== 'dot_scaled') o.regions.forEach((r) => dotsIn(r.ops, out));
  }
  return out;
};

/** The loop's resident dot and its carried slot, or undefined (see the header). */
export function residentSlot(cx: Lowering, loop: Op): { dot: Op; k: number } | undefined {
  const body = loop.regions[0];
  if (loop.kind !== 'for' || !body) return undefined;
  // a kept dot_scaled (lower_tcgen05_scaled.ts) is a tcgen05 dot too, its accumulator the last operand
  const dots = dotsIn(body.ops).filter((d) => d.kind === 'dot_scaled' || isTcgen05Dot(cx, d));
  if (dots.length !== 1 || !body.ops.includes(dots[0]!)) return undefined;
  const dot = dots[0]!;
  const y = body.ops[body.ops.length - 1]!;
  const acc = dot.kind === 'dot_scaled' ? dot.operands.at(-1)! : dot.operands[2]!, r = dot.results[0]!;
  const k = body.args.indexOf(acc) - 1;
  if (k < 0 || y.kind !== 'yield' || y.operands[k] !== r) return undefined;
  if (countUses(body.ops, acc.id) !== 1 || countUses(body.ops, r.id) !== 1) return undefined;
  if (!sameLayout(cx.layoutOf(loop.results[k]!), cx.layoutOf(r))) return undefined;
  return { dot, k };
}

/** Wraps `for` (outermost: around the cp.async and TMA rings too) with the resident accumulator. */
export function withResidentAcc(rules: Record<string, (cx: Lowering, op: Op) => void>, cx: Lowering): void {
  if (cx.target !== 'sm_100a') return;
  const inner = rules.for!;
  rules.for = (c, op) => {
    const slot = residentSlot(c, op);
    if (!slot) return inner(c, op);
    const r = slot.dot.results[0]!;
    const [M, N] = r.type.shape as [number, number];
    const init = op.operands[3 + slot.k]!;
    const zero = zeroConst(c, init);
    const started = c.reg('pred');
    c.emit(`// the accumulator of this loop's dot stays in tensor memory (tcgen05_resident.ts)`);
    if (zero) c.emit(`setp.ne.b32 ${started}, 0, 0;`);
    else {
      storeAcc(c, tmemRows(c, M, N, c.layoutOf(op.results[slot.k]!)), c.regsIn(init, c.layoutOf(op.results[slot.k]!)), r.type.elem);
      c.emit(`setp.ne.b32 ${started}, 1, 0;`);
    }
    let m = residents.get(c);
    if (!m) residents.set(c, (m = new Map()));
    m.set(slot.dot, { started });
    try {
      inner(c, op);
    } finally {
      m.delete(slot.dot);
    }
    c.define(op.results[slot.k]!, readBack(c, op.results[slot.k]!, M, N, zero ? started : undefined));
  };
}

/** The loop's result from TMEM; with `started` (a zero init), zeros when no MMA ran. */
function readBack(cx: Lowering, v: Value, M: number, N: number, started: string | undefined): string[] {
  const rows = tmemRows(cx, M, N, cx.layoutOf(v));
  if (!started) return loadAcc(cx, rows, v.type.elem);
  const none = cx.e.label('acc_zero'), done = cx.e.label('acc_done');
  cx.emit(`@!${started} bra.uni ${none};`);
  const out = loadAcc(cx, rows, v.type.elem);
  cx.emit(`bra.uni ${done};`);
  cx.e.placeLabel(none);
  const z = v.type.elem === 'f32' ? '0f00000000' : '0';
  out.forEach((o) => cx.emit(`${movFor(v.type.elem)} ${o}, ${z};`));
  cx.e.placeLabel(done);
  return out;
}
