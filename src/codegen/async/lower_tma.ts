// Tensor descriptor loads and stores on sm_90a and sm_100a through TMA (PTX ISA "cp.async.bulk.tensor",
// "mbarrier"). The block travels between global memory and a tile of the shared scratch in the
// swizzled layout of smem_swizzle.ts (one box per column block, CU_TENSOR_MAP_SWIZZLE_{S}B), and
// between that tile and the value's registers with ld/st.shared.
//
//   load:  fence.proxy.async; bar.sync            (earlier users of the scratch are done)
//          thread 0: mbarrier.arrive.expect_tx [bar], bytes; cp.async.bulk.tensor per box
//          every thread: mbarrier.try_wait.parity [bar], phase (a loop); phase ^= 1
//          ld.shared in the value's layout
//   store: bar.sync; st.shared of the value; fence.proxy.async.shared::cta; bar.sync
//          thread 0: cp.async.bulk.tensor (global <- shared) per box; commit_group; wait_group.read 0
//          (wait_group 0; bar.sync instead when a later op of the program may touch global memory:
//          tma_store_wait.ts)
//
// Each load op owns one mbarrier (initialized once, in the prologue, by thread 0) and a phase
// register that flips after every wait, so the op may run any number of times (in loops).
import type { Op, Value } from '../../ir/ops.js';
import type { Layout } from '../../compiler/layout.js';
import { descOperands } from '../../ir/tensor_desc.js';
import type { Lowering, SmemAddr } from '../context.js';
import { slotOffsets } from '../smem/swizzle_addr.js';
import { byteSize } from '../../ir/types.js';
import { MEM_TYPE } from '../ptx_types.js';
import { chunkMask } from '../smem/smem_swizzle.js';
import { descElem, tensorMaps, tileGeometry, type TileGeometry, type TmaSabotage } from './tensor_map.js';
import { globalAccessFollows } from './tma_store_wait.js';
import { fenceGlobalWrites } from './proxy_fence.js';
import { stmatrixLayout } from '../../compiler/stmatrix.js';
import { storeByStmatrix } from './lower_stmatrix.js';
import { storeSubtiled, subtilePlan } from './tma_store_subtiled.js';
import { isDeferred } from './deferred_store_wait.js';

type Rule = (cx: Lowering, op: Op) => void;
type DescOp = Op<'desc_load'> | Op<'desc_store'>;

const sabotage = new WeakMap<Lowering, TmaSabotage>();
/** @internal Breaks the TMA lowering of `cx` on purpose (tests). */
export const setTmaSabotage = (cx: Lowering, s: TmaSabotage | undefined): void => void (s ? sabotage.set(cx, s) : sabotage.delete(cx));

interface PerKernel {
  elected?: string;
  maps: Map<number, string>;
  barriers: number;
}
const state = new WeakMap<Lowering, PerKernel>();
const perKernel = (cx: Lowering): PerKernel => {
  let s = state.get(cx);
  if (!s) state.set(cx, (s = { maps: new Map(), barriers: 0 }));
  return s;
};
/** mbarriers the kernel declared (the renderer places them in the shared buffer, past the scratch). */
export const tmaBarrierCount = (cx: Lowering): number => state.get(cx)?.barriers ?? 0;
/**
 * Where the mbarriers start, as the lowering writes it: the scratch's size is known only once the
 * whole kernel is lowered, so the renderer rewrites this name to `tessera_smem+<scratch bytes>`.
 */
export const TMA_BARRIER_SYMBOL = 'tessera_mbar';

/** Predicate: this thread is thread 0 (the one that issues TMA copies). */
export function elected(cx: Lowering): string {
  const s = perKernel(cx);
  if (!s.elected) {
    const { tid } = cx.thread();
    s.elected = cx.reg('pred');
    cx.e.emitPrologue(`setp.eq.u32 ${s.elected}, ${tid}, 0;`);
  }
  return s.elected;
}

/** Generic address of tensor map `i` (a kernel parameter), computed once. */
export function mapAddress(cx: Lowering, i: number): string {
  const s = perKernel(cx);
  let r = s.maps.get(i);
  if (!r) {
    r = cx.reg('b64');
    cx.e.emitPrologue(`mov.u64 ${r}, ${tensorMaps(cx).specs[i]!.name};`);
    cx.e.emitPrologue(`cvta.param.u64 ${r}, ${r};`);
    s.maps.set(i, r);
  }
  return r;
}

/**
 * `n` consecutive fresh mbarriers (arrival count 1, 8 bytes apart), initialized in the prologue by
 * thread 0, and a phase register (0) for them; returns the first one's shared address (`bar`, a
 * register set in the prologue) and the same address as a constant expression (`at`, for a
 * `mov.u32` where it is used: a loop that re-derives it keeps no register live for it).
 */
export function newBarriers(cx: Lowering, n: number, count: (k: number) => number = () => 1): { bar: string; phase: string; at: string } {
  const s = perKernel(cx);
  const p = elected(cx);
  const bar = cx.reg('b32');
  const phase = cx.reg('b32');
  const P = (l: string): void => cx.e.emitPrologue(l);
  const at = s.barriers ? `${TMA_BARRIER_SYMBOL}+${8 * s.barriers}` : TMA_BARRIER_SYMBOL;
  P(`mov.u32 ${bar}, ${TMA_BARRIER_SYMBOL};`);
  if (s.barriers) P(`add.u32 ${bar}, ${bar}, ${8 * s.barriers};`);
  P(`mov.u32 ${phase}, 0;`);
  for (let k = 0; k < n; k++) P(`@${p} mbarrier.init.shared::cta.b64 [${bar}${k ? `+${8 * k}` : ''}], ${count(k)};`);
  P('fence.mbarrier_init.release.cluster;');
  P('bar.sync 0;');
  s.barriers += n;
  return { bar, phase, at };
}
/** Spins until the mbarrier at `bar` completes the phase of parity `parity` (unless sabotaged). */
export function waitBarrier(cx: Lowering, bar: string, parity: string): void {
  if (sabotage.get(cx) === 'no-wait') return;
  const loop = cx.e.label('tma_wait');
  const done = cx.reg('pred');
  cx.emit(`${loop}:`);
  cx.emit(`mbarrier.try_wait.parity.shared::cta.b64 ${done}, [${bar}], ${parity};`);
  cx.emit(`@!${done} bra.uni ${loop};`);
}

/** A tile of `bytes` at the start of the shared scratch, which is 1024-aligned (the swizzle repeat). */
function tileBase(cx: Lowering, bytes: number): string {
  const t = cx.reg('b32');
  cx.emit(`mov.u32 ${t}, ${cx.smemBase(bytes)};`);
  return t;
}

/** Slot i's offset, whether swizzle_addr.ts hands the offsets back as an array or as an accessor. */
const perSlot = (o: readonly SmemAddr[] | ((i: number) => SmemAddr)) => (i: number): SmemAddr => (typeof o === 'function' ? o(i) : o[i]!);

/**
 * Shared address of the first element of each group of `vec` slots of the op's value, in the
 * swizzled tile at `tile`: element (row, col) is at swizzledOffset(row, col * eb) (smem_swizzle.ts).
 */
function slotAddresses(cx: Lowering, v: Value, l: Layout, g: TileGeometry, tile: string, vec: number): SmemAddr[] {
  const slots = cx.slots(v, l);
  const rank = g.block.length;
  if (rank === 2) {
    // 2-D: per-thread classes computed once (swizzle_addr.ts), each access a register + immediate
    const base = cx.reg('b32');
    cx.e.emitPrologue(`mov.u32 ${base}, ${cx.smemBase(g.bytes)};`); // the tile's address (the scratch start) as a register
    const at = perSlot(slotOffsets(cx, l, g.block, g.eb, { rows: g.rows, rowBytes: g.rowBytes, swizzle: g.swizzle }, base));
    return slots.map((_, i) => i).filter((i) => i % vec === 0).map(at);
  }
  const out: SmemAddr[] = [];
  for (let i = 0; i < slots.length; i += vec) {
    const s = slots[i]!;
    const row = cx.reg('b32');
    cx.emit(`mov.u32 ${row}, 0;`);
    let stride = 1;
    for (let d = rank - 2; d >= 0; d--) {
      cx.emit(`mad.lo.u32 ${row}, ${cx.coordReg(l, g.block, s, d)}, ${stride}, ${row};`);
      stride *= g.block[d]!;
    }
    const cb = cx.reg('b32');
    cx.emit(`mul.lo.u32 ${cb}, ${cx.coordReg(l, g.block, s, rank - 1)}, ${g.eb};`);
    const a = cx.reg('b32');
    if (!g.swizzle) {
      cx.emit(`mad.lo.u32 ${a}, ${row}, ${g.rowBytes}, ${cb};`);
    } else {
      const S = g.swizzle;
      const blk = cx.reg('b32');
      const x = cx.reg('b32');
      cx.emit(`shr.u32 ${blk}, ${cb}, ${Math.log2(S)};`);
      cx.emit(`and.b32 ${cb}, ${cb}, ${S - 1};`);
      cx.emit(`mad.lo.u32 ${a}, ${row}, ${S}, ${cb};`);
      cx.emit(`bfe.u32 ${x}, ${a}, 7, ${Math.log2(chunkMask(S) + 1)};`);
      cx.emit(`shl.b32 ${x}, ${x}, 4;`);
      cx.emit(`xor.b32 ${a}, ${a}, ${x};`);
      cx.emit(`mad.lo.u32 ${a}, ${blk}, ${g.rows * S}, ${a};`);
    }
    cx.emit(`add.u32 ${a}, ${a}, ${tile};`);
    out.push({ reg: a, imm: 0 });
  }
  return out;
}

/** ld/st.shared of one group of registers: 16-bit pairs as b32 words, wider types as vectors, bytes one by one. */
function moveGroup(cx: Lowering, dir: 'ld' | 'st', op: DescOp, at: SmemAddr, regs: string[], guard?: string): void {
  const addr = at.imm ? `${at.reg}+${at.imm}` : at.reg;
  const g = guard ? `@${guard} ` : '';
  const t = descElem(op);
  const eb = byteSize(t);
  if ((t === 'f16' || t === 'bf16') && regs.length >= 2) {
    const words: string[] = [];
    for (let k = 0; k < regs.length; k += 2) {
      const w = dir === 'st' ? cx.wordOf(regs[k]!, regs[k + 1]!) ?? cx.reg('b32') : cx.reg('b32');
      if (dir === 'st' && !cx.wordOf(regs[k]!, regs[k + 1]!)) cx.emit(`mov.b32 ${w}, {${regs[k]}, ${regs[k + 1]}};`);
      words.push(w);
    }
    const v = words.length > 1 ? `.v${words.length}` : '';
    const list = words.length > 1 ? `{${words.join(', ')}}` : words[0]!;
    if (dir === 'ld') {
      cx.emit(`ld.shared${v}.b32 ${list}, [${addr}];`);
      words.forEach((w, k) => {
        cx.emit(`mov.b32 {${regs[2 * k]}, ${regs[2 * k + 1]}}, ${w};`);
        cx.noteWord(regs[2 * k]!, regs[2 * k + 1]!, w);
      });
    } else cx.emit(`${g}st.shared${v}.b32 [${addr}], ${list};`);
    return;
  }
  if (eb >= 4 && regs.length > 1) {
    const list = `{${regs.join(', ')}}`;
    if (dir === 'ld') cx.emit(`ld.shared.v${regs.length}.${MEM_TYPE[t]} ${list}, [${addr}];`);
    else cx.emit(`${g}st.shared.v${regs.length}.${MEM_TYPE[t]} [${addr}], ${list};`);
    return;
  }
  regs.forEach((r, k) => {
    const a = at.imm + k * eb ? `[${at.reg}+${at.imm + k * eb}]` : `[${at.reg}]`;
    if (dir === 'ld') cx.emit(`ld.shared.${MEM_TYPE[t]} ${r}, ${a};`);
    else cx.emit(`${g}st.shared.${MEM_TYPE[t]} ${a}, ${r};`);
  });
}

/** The cp.async.bulk.tensor coordinates of box `j`, innermost first ({c0, c1, ...}). */
export function boxCoords(cx: Lowering, op: DescOp, g: TileGeometry, j: number): string {
  const offs = descOperands(op).offsets.map((v) => cx.regs(v)[0]!).reverse();
  if (j > 0) {
    const c = cx.reg('b32');
    cx.emit(`add.s32 ${c}, ${offs[0]}, ${j * g.box[0]!};`);
    offs[0] = c;
  }
  return `{${offs.join(', ')}}`;
}

const descLoad: Rule = (cx, o) => {
  const op = o as Op<'desc_load'>;
  const g = tileGeometry(op);
  const map = mapAddress(cx, tensorMaps(cx).mapFor(op, g));
  const { bar, phase } = newBarriers(cx, 1);
  const p = elected(cx);
  const rank = g.block.length;
  cx.emit(`// tensor descriptor load: ${g.boxes} TMA box(es) [${g.box.join(', ')}], swizzle ${g.swizzle || 'none'}`);
  fenceGlobalWrites(cx, op);
  cx.emit('fence.proxy.async.shared::cta;');
  cx.barrier();
  const tile = tileBase(cx, g.bytes);
  cx.emit(`@${p} mbarrier.arrive.expect_tx.shared::cta.b64 _, [${bar}], ${g.bytes};`);
  for (let j = 0; j < g.boxes; j++) {
    const dst = j ? `[${tile}+${j * g.rows * g.swizzle}]` : `[${tile}]`;
    cx.emit(`@${p} cp.async.bulk.tensor.${rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes ${dst}, [${map}, ${boxCoords(cx, op, g, j)}], [${bar}];`);
  }
  waitBarrier(cx, bar, phase);
  cx.emit(`xor.b32 ${phase}, ${phase}, 1;`);
  const v = op.results[0]!;
  const vec = cx.plan.vec.get(op) ?? 1;
  const regs = cx.newRegs(descElem(op), cx.slots(v).length);
  const addrs = slotAddresses(cx, v, cx.layoutOf(v), g, tile, vec);
  addrs.forEach((a, k) => moveGroup(cx, 'ld', op, a, regs.slice(k * vec, (k + 1) * vec)));
  cx.define(v, regs);
};

/** The whole tile staged at once: st.shared of every register group, then one TMA copy per box. */
function storeWholeTile(cx: Lowering, op: Op<'desc_store'>, g: TileGeometry, v: Value, layout: Layout, regs: string[], vec: number, map: string, p: string): void {
  const rank = g.block.length;
  const tile = tileBase(cx, g.bytes);
  if (rank === 2 && g.eb === 2 && stmatrixLayout(layout, g.block)) {
    // a 16-bit accumulator: stmatrix writes its 8x8 matrices as they are (lower_stmatrix.ts)
    cx.emit('// epilogue: registers -> stmatrix -> shared -> TMA store');
    storeByStmatrix(cx, v, layout, regs, g, tile);
  } else {
    const addrs = slotAddresses(cx, v, layout, g, tile, vec); // in the registers' layout
    // a layout larger than the block holds replicas: only the first copy of each element writes
    const slots = cx.slots(v, layout);
    addrs.forEach((a, k) => moveGroup(cx, 'st', op, a, regs.slice(k * vec, (k + 1) * vec), cx.canonical(layout, g.block, slots[k * vec]!)));
  }
  cx.emit('fence.proxy.async.shared::cta;'); // the generic-proxy writes, seen by the async proxy
  cx.barrier();
  for (let j = 0; j < g.boxes; j++) {
    const src = j ? `[${tile}+${j * g.rows * g.swizzle}]` : `[${tile}]`;
    cx.emit(`@${p} cp.async.bulk.tensor.${rank}d.global.shared::cta.tile.bulk_group [${map}, ${boxCoords(cx, op, g, j)}], ${src};`);
  }
  cx.emit(`@${p} cp.async.bulk.commit_group;`);
}

const descStore: Rule = (cx, o) => {
  const op = o as Op<'desc_store'>;
  const g = tileGeometry(op);
  const map = mapAddress(cx, tensorMaps(cx).mapFor(op, g));
  const p = elected(cx);
  const d = descOperands(op);
  const vi = op.operands.indexOf(d.value!);
  // The value comes in the store's own blocked layout (16-byte runs along rows), converted through
  // the scratch if need be: measured on the sim for a 64x64 f32 mma epilogue, writing the swizzled
  // tile straight from the accumulator layout costs more (8-byte stores, 2-way bank conflicts,
  // twice the address math) than the conflict-free conversion does. A tcgen05 accumulator keeps
  // its layout (a row per thread: 16-byte chunks, conflict-free; compiler/tcgen05_epilogue.ts).
  const regs = cx.operand(op, vi);
  const layout = cx.plan.expected.get(op)?.[vi] ?? cx.layoutOf(d.value!);
  const vec = cx.plan.vec.get(op) ?? 1;
  cx.emit(`// tensor descriptor store: ${g.boxes} TMA box(es) [${g.box.join(', ')}], swizzle ${g.swizzle || 'none'}`);
  cx.barrier();
  const sub = layout.kind === 'blocked' ? subtilePlan(cx, layout, g, vec) : undefined;
  // a tcgen05 accumulator wider than two boxes a thread: a column slice at a time through two small buffers
  if (sub && layout.kind === 'blocked') storeSubtiled(cx, layout, regs, g, vec, sub, map, p, (at, rs) => moveGroup(cx, 'st', op, at, rs), (j) => boxCoords(cx, op, g, j));
  else storeWholeTile(cx, op, g, d.value!, layout, regs, vec, map, p);
  if (isDeferred(cx, op)) cx.emit('// the wait is deferred: after the next tile\'s K loop, or before its loads where they may read these bytes (deferred_store_wait.ts)');
  else if (globalAccessFollows(cx.func, op)) {
    // a later access of the program may touch these bytes: the writes complete (visible to thread
    // 0), then the barrier orders them before every thread's later accesses (tma_store_wait.ts)
    cx.emit(`@${p} cp.async.bulk.wait_group 0;`);
    cx.barrier();
  } else cx.emit(`@${p} cp.async.bulk.wait_group.read 0;`); // the tile may be reused once read; the writes land by the kernel's end
};

/** The targets whose descriptor ops are TMA copies (compile.ts expands them elsewhere). */
export const hasTma = (cx: Lowering): boolean => cx.target === 'sm_90a' || cx.target === 'sm_100a';

/** desc_load / desc_store: TMA on sm_90a and sm_100a; the compile driver expands them into loads and stores elsewhere. */
export const TMA_RULES: Record<'desc_load' | 'desc_store', Rule> = {
  desc_load: (cx, op) => (hasTma(cx) ? descLoad(cx, op) : cx.fail('a tensor descriptor op reached the PTX backend of a target without TMA (it should have been expanded)')),
  desc_store: (cx, op) => (hasTma(cx) ? descStore(cx, op) : cx.fail('a tensor descriptor op reached the PTX backend of a target without TMA (it should have been expanded)')),
};
