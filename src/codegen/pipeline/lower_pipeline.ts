// Lowering of a pipelined `for` (compiler/pipeline.ts decides which loops and loads): the loads
// become cp.async copies into a ring of B = numStages - 1 shared-memory stages, B iterations
// ahead (Triton's pipeliner allocates the same numStages - 1 buffers).
//
//   stage:   | 0 | 1 | .. | B-1 |   each stage holds every pipelined tile of one iteration, each
//                                  tile swizzled (smem_swizzle.ts) at a 1024-byte aligned offset
//   prologue: issue iterations 0..B-1 into stages 0..B-1, one commit group each
//   iteration i:  cp.async.wait_group B-1   -> this thread's copies for iteration i have landed
//                 bar.sync                  -> everyone's have
//                 the body: dots read their tiles from stage i%B (ldmatrix into registers); once
//                 the last of them has read (StagedTile.release), before its mma:
//                   bar.sync                -> every warp is done reading stage i%B
//                   issue iteration i+B into stage i%B (skipped past the end), commit
//                 the rest of the body, overlapping the copies
//   after:        cp.async.wait_group 0
// Every thread commits exactly one group per issue, empty or not, so "B-1 most recent groups
// pending" always means "iteration i has landed". The first barrier makes other warps' copies
// visible; the second makes overwriting the stage just read safe. With B = 1 (numStages 2) the
// copy of i+1 still overlaps iteration i's mma.
// On sm_90a a wgmma dot may stay in flight into the next iteration (lower_wgmma.ts
// overlappedDot): its stage is read until the next iteration's wgmma.wait_group 1, so the ring
// has B = S stages and the copies still run D = S-1 ahead: the prologue issues 0..S-2,
// iteration i waits with cp.async.wait_group S-2 and, once the dot's wait has completed the
// wgmma of i-1 (its release), issues i+S-1 into stage (i-1)%S, after the second barrier; a
// wgmma.wait_group 0 follows the loop.
import type { Op } from '../../ir/ops.js';
import { byteSize, pointee, type PtrType } from '../../ir/types.js';
import { layoutKey, permuteBlocked, regSlots } from '../../compiler/layout.js';
import type { PipelinedLoad, PipelinedLoop, PipelinePlan } from '../../compiler/pipeline.js';
import { movFor, type Lowering } from '../context.js';
import { backEdge, hoistConversions } from '../lower_control.js';
import { hoistWgmmaA, hoistsWgmmaA } from '../tensor_cores/wgmma_a_hoist.js';
import { withTcgen05AHoist } from '../tensor_cores/tcgen05_a_hoist.js';
import { hoistAFragments, hoistsA } from '../tensor_cores/mma_a_hoist.js';
import { regKind } from '../ptx_types.js';
import { SWIZZLE_ALIGN, swizzleFor, swizzledTileBytes } from '../smem/smem_swizzle.js';
import { setStaged } from '../smem/staged.js';
import { overlappedDot, setWgmmaPending } from '../tensor_cores/lower_wgmma.js';
import { slotOffsets, type TileGeom } from '../smem/swizzle_addr.js';
import { newBarriers, waitBarrier } from '../async/lower_tma.js';
import { setDoubleScales, setInflight } from '../tensor_cores/tcgen05_inflight.js';
import { scaleColumns, scaledOperands } from '../../compiler/tcgen05_scaled.js';
import { residentSlot } from '../tensor_cores/tcgen05_resident.js';
import { EMPTY_WAIT, FINAL_WAIT } from './tcgen05_ring.js';
import { scaleSlotOffsets } from './ring_scales.js';

type Rule = (cx: Lowering, op: Op) => void;

/**
 * Ways to break the pipeline on purpose (an internal compile option): tests show the sim, which
 * lands cp.async data only at the covering wait, then computes a wrong result (racecheck
 * reports no-wait, no-barrier and no-release-barrier: test/e2e/sanitize.test.ts).
 *  'no-wait': no cp.async.wait_group in the loop; 'short-wait': wait_group B (one group too
 *  few landed); 'no-barrier': no bar.sync after the wait; 'no-release-barrier': no bar.sync
 *  between the last read of a stage and the copies that overwrite it (a wrong result on the sim
 *  with one stage only: with more, the copies land after the next barrier).
 */
export type PipelineSabotage = 'no-wait' | 'short-wait' | 'no-barrier' | 'no-release-barrier';
export const PIPELINE_SABOTAGE: readonly PipelineSabotage[] = ['no-wait', 'short-wait', 'no-barrier', 'no-release-barrier'];

export interface Tile {
  readonly c: PipelinedLoad;
  readonly shape: readonly [number, number];
  readonly bytes: number;
  readonly geom: TileGeom;
  /** Byte offset of the tile inside a stage. */
  readonly offset: number;
}
export interface Ring {
  readonly tiles: Tile[];
  readonly stageBytes: number;
}

const alignUp = (n: number, a: number): number => Math.ceil(n / a) * a;

/** A stage: the tiles one after another, each swizzled (plain rows below 32 bytes), 1024-aligned. */
export function ringOf(l: PipelinedLoop): Ring {
  let offset = 0;
  const tiles = l.loads.map((c): Tile => {
    const ptr = c.load.operands[0]!;
    // a transposed load's tile is stored [C, R]: its copies run along the stored rows
    const shape = (c.transposed ? [ptr.type.shape[1], ptr.type.shape[0]] : ptr.type.shape) as [number, number];
    const bytes = byteSize(pointee(ptr.type.elem as PtrType));
    const rowBytes = shape[1] * bytes;
    const geom: TileGeom = { rows: shape[0], rowBytes, swizzle: swizzleFor(rowBytes) };
    offset = alignUp(offset, geom.swizzle ? SWIZZLE_ALIGN : 16);
    const t = { c, shape, bytes, geom, offset };
    offset += alignUp(swizzledTileBytes(shape[0], rowBytes), 16);
    return t;
  });
  // every stage starts aligned, so every stage's tiles are
  return { tiles, stageBytes: tiles.some((t) => t.geom.swizzle) ? alignUp(offset, SWIZZLE_ALIGN) : offset };
}

/** Ops a loop body may hold and still leave the shared scratch alone (no conversion, no staging). */
const REGISTER_ONLY = new Set(['const', 'arange', 'splat', 'broadcast', 'expand_dims', 'unary', 'binary', 'cmp', 'select', 'fma', 'cast', 'bitcast', 'addptr', 'hint', 'program_id', 'num_programs', 'yield']);

/**
 * Whether the loop's body may use the shared scratch while the ring is live. When it cannot, the
 * ring shares the scratch's bytes (as Triton reuses its pipeline buffers): the barrier before the
 * prologue and the one every scratch user starts with keep the two apart in time.
 */
function bodyUsesScratch(cx: Lowering, l: PipelinedLoop): boolean {
  const staged = new Set(l.loads.map((c) => c.load.results[0]!.id));
  return l.loop.regions[0]!.ops.some((o) => {
    if (l.skip.has(o)) return false;
    // a native dot_scaled stages in the scratch what the ring does not (lower_tcgen05_scaled.ts)
    if (o.kind === 'dot_scaled') return o.operands.slice(0, -1).some((v) => !staged.has(v.id)) || converts(cx, o, o.operands.length - 1);
    if (o.kind === 'dot') return (!staged.has(o.operands[0]!.id) && !hoistsA(cx, o, l.loop) && !hoistsWgmmaA(cx, o, l.loop)) || !staged.has(o.operands[1]!.id) || converts(cx, o, 2);
    if (!REGISTER_ONLY.has(o.kind)) return true;
    return o.operands.some((_, i) => converts(cx, o, i));
  });
}
function converts(cx: Lowering, o: Op, i: number): boolean {
  const v = o.operands[i]!;
  const want = cx.plan.expected.get(o)?.[i];
  return v.type.shape.length > 0 && want !== undefined && layoutKey(want) !== layoutKey(cx.layoutOf(v));
}

/**
 * `rules` with `for` lowered by the pipeliner where the plan says so. A ring lives at the start
 * of shared memory: reserved (kept out of the scratch) while its loop runs when its body uses the
 * scratch, else overlapping it. Loops run one after another, so their rings overlap each other,
 * and the scratch outside them (an epilogue) overlaps every ring.
 */
export function withPipeline(rules: Record<string, Rule>, cx: Lowering, plan: PipelinePlan | undefined, sabotage?: PipelineSabotage, scaledInflight = true): void {
  if (!plan?.loops.size) return;
  if (!scaledInflight) noScaledInflight.add(cx);
  let own = 0;
  let shared = 0;
  const owners = new Set<Op>();
  for (const l of plan.loops.values()) {
    const st = stagesOf(cx, l);
    // before anything is lowered: the TMEM allocation counts a dot_scaled's two scale-column sets
    if (st.tc5?.kind === 'dot_scaled') setDoubleScales(cx, st.tc5);
    const bytes = st.B * ringOf(l).stageBytes;
    if (bodyUsesScratch(cx, l)) {
      own = Math.max(own, bytes);
      owners.add(l.loop);
    } else shared = Math.max(shared, bytes);
  }
  cx.reserveShared(own);
  cx.sharedBytes = Math.max(cx.sharedBytes, shared);
  const plain = rules.for!;
  rules.for = (c, op) => {
    const l = plan.loops.get(op);
    if (!l) plain(c, op);
    // a tcgen05 dot's loop-invariant A is held past the ring (or past the reserved ring and the scratch start)
    else if (owners.has(op)) c.withRingLive(() => withTcgen05AHoist(c, op, 0, () => pipelinedFor(c, op, l, sabotage)));
    else withTcgen05AHoist(c, op, stagesOf(c, l).B * ringOf(l).stageBytes, () => pipelinedFor(c, op, l, sabotage));
  };
}

/** One cp.async per copy: its element slot, destination (register relative to the stage + imm) and guard. */
export interface Copy {
  readonly slot: number;
  readonly reg: string;
  readonly imm: number;
  readonly only?: string;
}

/** The copies of `t` for this thread, with destinations relative to a stage (computed once, before the loop). */
export function copiesOf(cx: Lowering, t: Tile): Copy[] {
  const { layout, vec, transposed } = t.c;
  // in the stored tile's terms (a transposed load's registers relabeled, as lower_mma stages b^T)
  const stored = transposed ? permuteBlocked(layout, [1, 0]) : layout;
  const slots = regSlots(stored, t.shape);
  const offs = t.c.scales ? scaleSlotOffsets(cx, stored, t.shape) : slotOffsets(cx, stored, t.shape, t.bytes, t.geom);
  const out: Copy[] = [];
  slots.forEach((s, i) => {
    if (s.off[1]! % vec !== 0) return;
    const only = cx.canonical(stored, t.shape, s);
    const o = offs(i);
    out.push({ slot: i, reg: o.reg, imm: t.offset + o.imm, ...(only ? { only } : {}) });
  });
  return out;
}

/**
 * The cp.async copies of one iteration (its address slice lowered) into the stage at `stage`:
 * masked-off copies read nothing and zero-fill (src-size 0). No commit: the caller's.
 */
export function emitCopies(cx: Lowering, ring: Ring, copies: readonly Copy[][], stage: string): void {
  const dst = new Map<string, string>();
  ring.tiles.forEach((t, k) => {
    const load = t.c.load;
    const ptrs = cx.operand(load, 0);
    const mask = load.attrs.hasMask ? cx.operand(load, 1) : undefined;
    const n = t.c.vec * t.bytes;
    for (const c of copies[k]!) {
      let d = dst.get(c.reg);
      if (!d) {
        d = cx.reg('b32');
        cx.emit(`add.u32 ${d}, ${stage}, ${c.reg};`);
        dst.set(c.reg, d);
      }
      let size = '';
      if (mask) {
        // masked-off copies read nothing and zero-fill (src-size 0)
        const sz = cx.reg('b32');
        cx.emit(`selp.u32 ${sz}, ${n}, 0, ${mask[mask.length === 1 ? 0 : c.slot]};`);
        size = `, ${sz}`;
      }
      const at = c.only ? `@${c.only} ` : '';
      const addr = c.imm ? `[${d}+${c.imm}]` : `[${d}]`;
      cx.emit(`${at}cp.async.${n === 16 ? 'cg' : 'ca'}.shared.global ${addr}, [${ptrs[c.slot]}], ${n}${size};`);
    }
  });
}

/** (op, operand) pairs of the body that read a pipelined tile: each reader releases once. */
function readers(l: PipelinedLoop): number {
  const staged = new Set(l.loads.map((c) => c.load.results[0]!.id));
  let n = 0;
  for (const o of l.loop.regions[0]!.ops) if (!l.skip.has(o)) n += o.operands.filter((v) => staged.has(v.id)).length;
  return n;
}

/** Lowerings compiled with option scaledInflight false: a dot_scaled waits for its MMAs. */
const noScaledInflight = new WeakSet<Lowering>();

/**
 * The loop's tcgen05 dot that may stay in flight across iterations (sm_100a): the loop's resident
 * dot (its accumulator in TMEM), the loop's only dot, both operands ring tiles. A native
 * dot_scaled too (its scales staged or not: the ones from registers get two scratch areas as
 * they get two TMEM column sets, tcgen05_inflight.ts) where both sets fit TMEM's 512 columns.
 */
function inflightTcgen05(cx: Lowering, l: PipelinedLoop): Op | undefined {
  if (cx.target !== 'sm_100a' || l.numStages < 2) return undefined;
  const slot = residentSlot(cx, l.loop);
  if (!slot) return undefined;
  const staged = new Set(l.loads.map((c) => c.load.results[0]!.id));
  if (slot.dot.kind === 'dot_scaled') {
    // its ring holds Triton's S-1 stages (stagesOf): one stage cannot be refilled while MMAs read it
    if (l.numStages < 3 || noScaledInflight.has(cx) || l.loop.regions[0]!.ops.some((o) => o.kind === 'dot')) return undefined;
    const { a, b } = scaledOperands(slot.dot);
    const N = b.type.shape[1]!;
    return staged.has(a.id) && staged.has(b.id) && 2 ** Math.ceil(Math.log2(N + 2 * scaleColumns(slot.dot))) <= 512 ? slot.dot : undefined;
  }
  const [a, b] = slot.dot.operands;
  if (!staged.has(a!.id) || !staged.has(b!.id)) return undefined;
  return l.loop.regions[0]!.ops.filter((o) => o.kind === 'dot').length === 1 ? slot.dot : undefined;
}

/**
 * The ring's stages B and how far ahead its copies run (D): B = S-1 and D = B, or, when a wgmma
 * dot of the loop stays in flight into the next iteration (lower_wgmma.ts overlappedDot) or a
 * tcgen05 dot's MMAs do (tc5), one stage more for it to keep reading: B = S and D = S-1 (Triton's
 * ring of S buffers for tl.dot, its MMAs in flight). A dot_scaled's MMAs in flight keep Triton's
 * S-1 buffers for tl.dot_scaled (whose MMAs wait, so its ring is the waiting one): B = S-1 and
 * the copies one stage less ahead, D = S-2 (hence S >= 3: inflightTcgen05). The same shared
 * memory as Triton at every numStages (at S = 2 the dot waits, on Triton's one stage).
 */
function stagesOf(cx: Lowering, l: PipelinedLoop): { B: number; D: number; overlapped?: Op; tc5?: Op } {
  const overlapped = overlappedDot(cx, l.loop, new Set(l.loads.map((c) => c.load.results[0]!.id)));
  const S = l.numStages;
  if (overlapped) return { B: S, D: S - 1, overlapped };
  const tc5 = inflightTcgen05(cx, l);
  if (tc5?.kind === 'dot_scaled') return { B: S - 1, D: S - 2, tc5 };
  return tc5 ? { B: S, D: S - 1, tc5 } : { B: S - 1, D: S - 1 };
}

/**
 * The EMPTY mbarriers of a cp.async ring whose tcgen05 MMAs stay in flight (one per stage, as
 * tcgen05_ring.ts has for TMA): the dot of iteration i commits to `rd` (stage i%S's); before the
 * copies of i+S-1 overwrite stage (i-1)%S every thread waits for the commit of i-1 (`waitPrev`),
 * and after the loop for the last one. Every commit is waited for once, so the per-stage parity
 * bits stay right when the loop runs again.
 */
function tcgen05Empties(cx: Lowering, S: number): { rd: string; idx: string; waitPrev: (marker: string) => void; advance: () => void } {
  const { bar: empty0, phase: bits } = newBarriers(cx, S);
  const r = (): string => cx.reg('b32');
  const [rd, prev, idx, prevIdx] = [r(), r(), r(), r()];
  cx.emit(`mov.u32 ${rd}, ${empty0};`);
  cx.emit(`mov.u32 ${prev}, ${empty0};`);
  cx.emit(`mov.u32 ${idx}, 0;`);
  cx.emit(`mov.u32 ${prevIdx}, 0;`);
  const pending = cx.reg('pred'); // MMAs committed and not yet waited for
  cx.emit(`setp.ne.b32 ${pending}, 0, 0;`);
  const waitPrev = (marker: string): void => {
    const skip = cx.e.label('mma_none');
    cx.emit(marker);
    cx.emit(`@!${pending} bra.uni ${skip};`);
    const parity = r(), bit = r();
    cx.emit(`bfe.u32 ${parity}, ${bits}, ${prevIdx}, 1;`);
    waitBarrier(cx, prev, parity);
    cx.emit(`shl.b32 ${bit}, 1, ${prevIdx};`);
    cx.emit(`xor.b32 ${bits}, ${bits}, ${bit};`);
    cx.e.placeLabel(skip);
  };
  const advance = (): void => {
    cx.emit(`mov.u32 ${prev}, ${rd};`);
    cx.emit(`mov.u32 ${prevIdx}, ${idx};`);
    cx.emit(`setp.ne.b32 ${pending}, 1, 0;`);
    // the stage index wraps; the barrier's address (and the ring's stage, pipelinedFor) follow from it
    const q = cx.reg('pred');
    cx.emit(`add.u32 ${idx}, ${idx}, 1;`);
    cx.emit(`setp.eq.u32 ${q}, ${idx}, ${S};`);
    cx.emit(`selp.b32 ${idx}, 0, ${idx}, ${q};`);
    cx.emit(`mad.lo.u32 ${rd}, ${idx}, 8, ${empty0};`);
  };
  return { rd, idx, waitPrev, advance };
}

function pipelinedFor(cx: Lowering, op: Op, l: PipelinedLoop, sabotage?: PipelineSabotage): void {
  const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  const ivT = op.operands[0]!.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const body = op.regions[0]!;
  const { B, D, overlapped: wgmmaOverlapped, tc5 } = stagesOf(cx, l);
  const overlapped = wgmmaOverlapped ?? tc5;
  if (wgmmaOverlapped) setWgmmaPending(cx, wgmmaOverlapped, 1);
  const ring = ringOf(l);
  const SB = ring.stageBytes;
  const carried = op.operands.slice(3).map((v, k) => cx.copy(v.type.elem, cx.regsIn(v, cx.layoutOf(op.results[k]!))));
  hoistConversions(cx, op);
  hoistAFragments(cx, op);
  hoistWgmmaA(cx, op);
  cx.emit(`// pipelined loop: ${B} stages of ${SB} bytes, ${ring.tiles.length} tile(s) by cp.async${tc5 ? '; the tcgen05 MMAs stay in flight, committed to an empty mbarrier per stage' : ''}`);
  const empties = tc5 ? tcgen05Empties(cx, B) : undefined;
  // a dot_scaled's scale-column set of this iteration, i%2 (tcgen05_inflight.ts)
  const scaleSet = tc5?.kind === 'dot_scaled' ? cx.reg('b32') : undefined;
  if (scaleSet) cx.emit(`mov.u32 ${scaleSet}, 0;`);
  const copies = ring.tiles.map((t) => copiesOf(cx, t));
  const ring0 = cx.reg('b32');
  const ringEnd = cx.reg('b32');
  cx.emit(`mov.u32 ${ring0}, ${cx.smemSymbol()};`);
  cx.emit(`add.u32 ${ringEnd}, ${ring0}, ${B * SB};`);
  // a previous pipelined loop (or an earlier run of this one) may still be reading the ring
  cx.barrier();

  /**
   * Issues the copies of the iteration whose induction variable is `iv` into the stage at `stage`;
   * commits. The address slice is lowered again for `iv`; the body's own values are kept.
   */
  const issue = (iv: string, stage: string): void => {
    const p = cx.reg('pred');
    const skip = cx.e.label('pipe_skip');
    cx.emit(`setp.ge.${ty} ${p}, ${iv}, ${ub};`);
    cx.emit(`@${p} bra.uni ${skip};`);
    // the address slice is lowered per element but a copy reads its chunk's first address only:
    // the rest is removed with the function's dead code (dead_code.ts)
    const redefined = [body.args[0]!, ...l.slice.flatMap((o) => o.results)];
    cx.preserving(redefined, () => cx.scope(() => {
      cx.define(body.args[0]!, [iv]);
      for (const o of l.slice) cx.lowerOp(o);
      emitCopies(cx, ring, copies, stage);
    }));
    cx.e.placeLabel(skip);
    cx.emit('cp.async.commit_group;');
  };

  // prologue: iterations 0..D-1 into stages 0..D-1
  for (let j = 0; j < D; j++) {
    const ivj = cx.newRegs(ivT, 1)[0]!;
    const st = cx.reg('b32');
    cx.emit(`add.${ty} ${ivj}, ${lb}, ${j * l.step};`);
    cx.emit(`add.u32 ${st}, ${ring0}, ${j * SB};`);
    issue(ivj, st);
  }

  // the stage iteration i reads is the one iteration i + B is copied into; overlapped, i + B - 1
  // goes into the stage iteration i - 1 read (`prev`)
  const rd = cx.reg('b32');
  cx.emit(`mov.u32 ${rd}, ${ring0};`);
  const prev = overlapped ? cx.reg('b32') : rd;
  if (overlapped) cx.emit(`add.u32 ${prev}, ${ring0}, ${(B - 1) * SB};`);
  const iv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
  const top = cx.e.label('pfor');
  const end = cx.e.label('endpfor');
  const p = cx.reg('pred');
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${ty} ${p}, ${iv}, ${ub};`);
  cx.emit(`@${p} bra.uni ${end};`);
  if (sabotage !== 'no-wait') cx.emit(`cp.async.wait_group ${sabotage === 'short-wait' ? D : D - 1};`);
  if (sabotage !== 'no-barrier') cx.barrier();

  // the next copies go out once every reader of the stage has read it (or at the end of the body)
  let pending = readers(l);
  let issued = false;
  const issueNext = (): void => {
    if (issued) return;
    issued = true;
    // the stage is read by the previous iteration's MMAs alone: wait for their commit instead
    if (empties) empties.waitPrev(EMPTY_WAIT);
    else if (sabotage !== 'no-release-barrier') cx.barrier();
    const ivn = cx.newRegs(ivT, 1)[0]!;
    cx.emit(`add.${ty} ${ivn}, ${iv}, ${D * l.step};`);
    issue(ivn, prev);
  };
  const release = (): void => {
    if (--pending === 0) issueNext();
  };

  const yields = cx.scope(() => {
    cx.define(body.args[0]!, [iv]);
    body.args.slice(1).forEach((a, k) => {
      cx.define(a, carried[k]!);
      cx.own(a, body);
    });
    for (const t of ring.tiles) {
      const base = cx.reg('b32');
      cx.emit(`add.u32 ${base}, ${rd}, ${t.offset};`);
      setStaged(cx, t.c.load.results[0]!, { base, ...t.geom, transposed: t.c.transposed, release });
    }
    let out: string[][] = [];
    if (tc5) setInflight(cx, tc5, { commitTo: empties!.rd, generic: true, ...(scaleSet ? { scaleSet } : {}) });
    try {
      for (const o of body.ops) {
        if (o.kind === 'yield') {
          issueNext();
          out = o.operands.map((v, i) => cx.regsIn(v, cx.layoutOf(op.results[i]!)));
        } else if (!l.skip.has(o)) cx.lowerOp(o);
      }
    } finally {
      if (tc5) setInflight(cx, tc5, undefined);
    }
    issueNext();
    for (const t of ring.tiles) setStaged(cx, t.c.load.results[0]!, undefined);
    return out;
  });
  backEdge(cx, op, carried, yields);
  empties?.advance();
  if (scaleSet) cx.emit(`xor.b32 ${scaleSet}, ${scaleSet}, 1;`);
  // the next stage, wrapping at the end of the ring
  if (empties) {
    // the stage follows the EMPTY barriers' index, already advanced (both start at stage 0)
    cx.emit(`mov.u32 ${prev}, ${rd};`);
    cx.emit(`mad.lo.u32 ${rd}, ${empties.idx}, ${SB}, ${ring0};`);
  } else if (B > 1) {
    const q = cx.reg('pred');
    if (overlapped) cx.emit(`mov.u32 ${prev}, ${rd};`);
    cx.emit(`add.u32 ${rd}, ${rd}, ${SB};`);
    cx.emit(`setp.eq.u32 ${q}, ${rd}, ${ringEnd};`);
    cx.emit(`selp.b32 ${rd}, ${ring0}, ${rd}, ${q};`);
  }
  cx.emit(`add.${ty} ${iv}, ${iv}, ${l.step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  cx.emit('cp.async.wait_group 0;');
  if (wgmmaOverlapped) cx.emit('wgmma.wait_group.sync.aligned 0;');
  if (empties) {
    empties.waitPrev(FINAL_WAIT);
    cx.emit('tcgen05.fence::after_thread_sync;');
  }
  op.results.forEach((r, k) => cx.define(r, carried[k]!));
}
