// Lowering of a pipelined `for` (compiler/pipeline.ts decides which loops and loads): the loads
// become cp.async copies into a ring of S = numStages shared-memory stages, S-1 iterations ahead.
//
//   stage:   | 0 | 1 | .. | S-1 |   each stage holds every pipelined tile of one iteration, each
//                                  tile swizzled (smem_swizzle.ts) at a 1024-byte aligned offset
//   prologue: issue iterations 0..S-2 into stages 0..S-2, one commit group each
//   iteration i:  cp.async.wait_group S-2   -> this thread's copies for iteration i have landed
//                 bar.sync                  -> everyone's have, and everyone is done with i-1
//                 issue iteration i+S-1 into stage (i-1)%S (skipped past the end), commit
//                 the body: dots read their tiles from stage i%S
//   after:        cp.async.wait_group 0
// Every thread commits exactly one group per issue, empty or not, so "S-2 most recent groups
// pending" always means "iteration i has landed". The barrier is what makes the stage written
// in iteration i (read in i-1) safe, and what makes other warps' copies visible.
// On sm_90a a wgmma dot may stay in flight into the next iteration (lower_wgmma.ts
// overlappedDot): then copies run D = S-2 iterations ahead (prologue 0..S-3, wait_group S-3,
// issue i+S-2 into stage (i-2)%S, whose wgmma the dot's wait_group 1 of iteration i-1 completed),
// and a wgmma.wait_group 0 follows the loop.
import type { Op } from '../ir/ops.js';
import { byteSize, pointee, type PtrType } from '../ir/types.js';
import { layoutKey, regSlots } from '../compiler/layout.js';
import type { PipelinedLoad, PipelinedLoop, PipelinePlan } from '../compiler/pipeline.js';
import { movFor, type Lowering } from './context.js';
import { backEdge, hoistConversions } from './lower_control.js';
import { regKind } from './ptx_types.js';
import { SWIZZLE_ALIGN, swizzleFor, swizzledTileBytes } from './smem_swizzle.js';
import { setStaged } from './staged.js';
import { overlappedDot, setWgmmaPending } from './lower_wgmma.js';
import { slotOffsets, type TileGeom } from './swizzle_addr.js';

type Rule = (cx: Lowering, op: Op) => void;

/**
 * Ways to break the pipeline on purpose (an internal compile option): tests show the sim, which
 * lands cp.async data only at the covering wait, then computes a wrong result.
 *  'no-wait': no cp.async.wait_group in the loop; 'short-wait': wait_group S-1 (one group too
 *  few landed); 'no-barrier': no bar.sync after the wait.
 */
export type PipelineSabotage = 'no-wait' | 'short-wait' | 'no-barrier';
export const PIPELINE_SABOTAGE: readonly PipelineSabotage[] = ['no-wait', 'short-wait', 'no-barrier'];

interface Tile {
  readonly c: PipelinedLoad;
  readonly shape: readonly [number, number];
  readonly bytes: number;
  readonly geom: TileGeom;
  /** Byte offset of the tile inside a stage. */
  readonly offset: number;
}
interface Ring {
  readonly tiles: Tile[];
  readonly stageBytes: number;
}

const alignUp = (n: number, a: number): number => Math.ceil(n / a) * a;

/** A stage: the tiles one after another, each swizzled (plain rows below 32 bytes), 1024-aligned. */
function ringOf(l: PipelinedLoop): Ring {
  let offset = 0;
  const tiles = l.loads.map((c): Tile => {
    const ptr = c.load.operands[0]!;
    const shape = ptr.type.shape as [number, number];
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
    if (o.kind === 'dot') return !staged.has(o.operands[0]!.id) || !staged.has(o.operands[1]!.id) || converts(cx, o, 2);
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
 * of shared memory: reserved (kept out of the scratch) when its loop body uses the scratch, else
 * overlapping it. Loops run one after another, so their rings overlap each other.
 */
export function withPipeline(rules: Record<string, Rule>, cx: Lowering, plan: PipelinePlan | undefined, sabotage?: PipelineSabotage): void {
  if (!plan?.loops.size) return;
  let own = 0;
  let shared = 0;
  for (const l of plan.loops.values()) {
    const bytes = l.numStages * ringOf(l).stageBytes;
    if (bodyUsesScratch(cx, l)) own = Math.max(own, bytes);
    else shared = Math.max(shared, bytes);
  }
  cx.reserveShared(own);
  cx.sharedBytes = Math.max(cx.sharedBytes, shared);
  const plain = rules.for!;
  rules.for = (c, op) => {
    const l = plan.loops.get(op);
    if (l) pipelinedFor(c, op, l, sabotage);
    else plain(c, op);
  };
}

/** One cp.async per copy: its element slot, destination (register relative to the stage + imm) and guard. */
interface Copy {
  readonly slot: number;
  readonly reg: string;
  readonly imm: number;
  readonly only?: string;
}

/** The copies of `t` for this thread, with destinations relative to a stage (computed once, before the loop). */
function copiesOf(cx: Lowering, t: Tile): Copy[] {
  const { layout, vec } = t.c;
  const slots = regSlots(layout, t.shape);
  const offs = slotOffsets(cx, layout, t.shape, t.bytes, t.geom);
  const out: Copy[] = [];
  slots.forEach((s, i) => {
    if (s.off[1]! % vec !== 0) return;
    const only = cx.canonical(layout, t.shape, s);
    out.push({ slot: i, reg: offs[i]!.reg, imm: t.offset + offs[i]!.imm, ...(only ? { only } : {}) });
  });
  return out;
}

function pipelinedFor(cx: Lowering, op: Op, l: PipelinedLoop, sabotage?: PipelineSabotage): void {
  const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  const ivT = op.operands[0]!.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const body = op.regions[0]!;
  const S = l.numStages;
  // a wgmma dot that stays in flight into the next iteration still reads its stage then: the
  // copies run S-2 iterations ahead, so the stage they overwrite was read two iterations ago
  // (lower_wgmma.ts overlappedDot; its wgmma.wait_group 1 completed that one)
  const overlapped = S >= 3 ? overlappedDot(cx, op, new Set(l.loads.map((c) => c.load.results[0]!.id))) : undefined;
  if (overlapped) setWgmmaPending(cx, overlapped, 1);
  const D = overlapped ? S - 2 : S - 1; // issue distance
  const ring = ringOf(l);
  const SB = ring.stageBytes;
  const carried = op.operands.slice(3).map((v, k) => cx.copy(v.type.elem, cx.regsIn(v, cx.layoutOf(op.results[k]!))));
  hoistConversions(cx, op);
  cx.emit(`// pipelined loop: ${S} stages of ${SB} bytes, ${ring.tiles.length} tile(s) by cp.async`);
  const copies = ring.tiles.map((t) => copiesOf(cx, t));
  const ring0 = cx.reg('b32');
  const ringEnd = cx.reg('b32');
  cx.emit(`mov.u32 ${ring0}, ${cx.smemSymbol()};`);
  cx.emit(`add.u32 ${ringEnd}, ${ring0}, ${S * SB};`);
  // a previous pipelined loop (or an earlier run of this one) may still be reading the ring
  cx.barrier();

  /** Issues the copies of the iteration whose induction variable is `iv` into the stage at `stage`; commits. */
  const issue = (iv: string, stage: string): void => {
    const p = cx.reg('pred');
    const skip = cx.e.label('pipe_skip');
    cx.emit(`setp.ge.${ty} ${p}, ${iv}, ${ub};`);
    cx.emit(`@${p} bra.uni ${skip};`);
    // the address slice is lowered per element but a copy reads its chunk's first address only:
    // the rest is removed with the function's dead code (dead_code.ts)
    cx.scope(() => {
      cx.define(body.args[0]!, [iv]);
      for (const o of l.slice) cx.lowerOp(o);
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
    });
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

  const rd = cx.reg('b32');
  const wr = cx.reg('b32');
  cx.emit(`mov.u32 ${rd}, ${ring0};`);
  cx.emit(`add.u32 ${wr}, ${ring0}, ${D * SB};`);
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
  const ivn = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`add.${ty} ${ivn}, ${iv}, ${D * l.step};`);
  issue(ivn, wr);

  const yields = cx.scope(() => {
    cx.define(body.args[0]!, [iv]);
    body.args.slice(1).forEach((a, k) => {
      cx.define(a, carried[k]!);
      cx.own(a, body);
    });
    for (const t of ring.tiles) {
      const base = cx.reg('b32');
      cx.emit(`add.u32 ${base}, ${rd}, ${t.offset};`);
      setStaged(cx, t.c.load.results[0]!, { base, ...t.geom, transposed: false });
    }
    let out: string[][] = [];
    for (const o of body.ops) {
      if (o.kind === 'yield') out = o.operands.map((v, i) => cx.regsIn(v, cx.layoutOf(op.results[i]!)));
      else if (!l.skip.has(o)) cx.lowerOp(o);
    }
    for (const t of ring.tiles) setStaged(cx, t.c.load.results[0]!, undefined);
    return out;
  });
  backEdge(cx, op, carried, yields);
  // next stages: rd and wr advance by one stage, wrapping at the end of the ring
  for (const r of [rd, wr]) {
    const q = cx.reg('pred');
    cx.emit(`add.u32 ${r}, ${r}, ${SB};`);
    cx.emit(`setp.eq.u32 ${q}, ${r}, ${ringEnd};`);
    cx.emit(`selp.b32 ${r}, ${ring0}, ${r}, ${q};`);
  }
  cx.emit(`add.${ty} ${iv}, ${iv}, ${l.step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  cx.emit('cp.async.wait_group 0;');
  if (overlapped) cx.emit('wgmma.wait_group.sync.aligned 0;');
  op.results.forEach((r, k) => cx.define(r, carried[k]!));
}
