// Warp specialization on sm_100a (a `for` with `warpSpecialize: true` whose only dot runs on
// tcgen05 with its accumulator in tensor memory), as Triton partitions its cc 100 matmuls:
//
//   CTA:        numWarps epilogue warps (tid < 32*numWarps: every layout is theirs, unchanged)
//               + one warpgroup after them: warp numWarps loads, warp numWarps+1 issues the
//               MMAs, the other two leave (setmaxnreg acts on whole warpgroups)
//   mbarriers:  full[s] (1 arrival + the stage's bytes), empty[s] (1 arrival: the MMA thread's
//               tcgen05.commit), ACC_FULL (1 arrival: the commit after the K loop)
//   load:       one thread; iteration i: from the S-th on, wait empty[i%S] (the MMAs that read
//               the stage S iterations ago have completed); expect_tx full[i%S]; TMA copies
//   MMA:        one thread; iteration i: wait full[i%S]; tcgen05.mma per k-step on stage i%S
//               (the first one of the loop overwrites: enable_input_d false); tcgen05.commit ->
//               empty[i%S] (it arrives when those MMAs, and every earlier one, are done); after
//               the loop, if it ran, tcgen05.commit -> ACC_FULL
//   epilogue:   setmaxnreg.inc; the kernel's code; at the loop: wait ACC_FULL (if it ran),
//               tcgen05.fence::after_thread_sync, then tcgen05_resident.ts reads the accumulator
//               with tcgen05.ld; barriers are `bar.sync 1, 32*numWarps`
// Persistent (the K loop directly in a top-level tile loop, ws_tiles.ts): the load and MMA
// threads walk the same tiles, the ring runs on across tiles, and the accumulator is
// double-buffered in tensor memory (2 x N columns): tile t accumulates into buffer t%2, so the
// MMAs of tile t+1 run while the epilogue warps read and store tile t. Per buffer b two more
// mbarriers: ACC_FULL[b] (the MMA thread's commit after the tile's K loop) and ACC_EMPTY[b]
// (every epilogue thread arrives, after tcgen05.fence::before_thread_sync, when it reaches the
// next tile: the buffer's tcgen05.ld are done). The MMA thread waits ACC_EMPTY[b] before it
// reuses buffer b (from the third tile on), each side keeping one phase bit per buffer.
// The K loop's body holds the ring's loads, the dot and the offsets' arithmetic only (the MMA
// warp runs nothing else), its one carried value is the dot's zero-initialized accumulator.
// Program order before the loop, the ring's place in shared memory and the register split are
// lower_warp_specialize.ts's (the sm_90a form); a loop this form cannot take falls back to the
// plain tcgen05 ring with the reason in the 'pipeline' stage.
import type { Op, Value } from '../../ir/ops.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';
import { tcgen05KindOf } from '../../compiler/tcgen05_kinds.js';
import { movFor, type Lowering } from '../context.js';
import { boxCoords, mapAddress, newBarriers, waitBarrier } from '../async/lower_tma.js';
import { tensorMaps } from '../async/tensor_map.js';
import { regKind } from '../ptx_types.js';
import { stagedBytes } from '../tensor_cores/mma_fragments.js';
import { stagedOperand, zeroConst } from '../tensor_cores/mma_smem_operand.js';
import { emitTcgen05Desc, instrDesc } from '../tensor_cores/tcgen05_desc.js';
import { residentOf, residentSlot } from '../tensor_cores/tcgen05_resident.js';
import { setAccBase, setTmemBuffers, tmem } from '../tensor_cores/tmem_alloc.js';
import { descPlus, sliceOffset } from '../tensor_cores/wgmma_desc.js';
import { inflightDot } from './tcgen05_ring.js';
import type { TmaRingLoop } from './lower_tma_ring.js';
import type { WarpSpecializedLoop, WarpSpecializePlan } from './lower_warp_specialize.js';
import { consumerTileStart, producerTiles, tileBarrier, type WsTileRegs } from './ws_tiles.js';
import { pairCopies } from './tcgen05_pair.js';
import { leaderAccPeerWait, leaderPeerWait, pairCommit, PAIR_RELAY, relayAccEmpty, relayToLeader, toRelay, wsPair, wsPairOpen, type WsPair } from './ws_tcgen05_pair.js';

type Rule = (cx: Lowering, op: Op) => void;

/** Marks the epilogue's wait (a comment in the PTX; the sabotage test moves the tcgen05.ld above it). */
export const ACC_FULL_WAIT = "// warp specialization (tcgen05): wait for the MMA warp's final commit (ACC_FULL)";
/** Marks the MMA thread's wait for a free accumulator buffer (persistent). */
export const ACC_EMPTY_WAIT = '// warp specialization (tcgen05): wait until the epilogue warps have read this buffer (ACC_EMPTY)';
/** The label the load and MMA warps start at. */
export const WS_PARTITIONS = 'ws_producer';
/** The MMA warp's code starts at this label. */
export const WS_MMA = 'ws_mma';

/** Why the tcgen05 form cannot take `op` with ring `ring`, or undefined (sm_100a only). */
export function tcgen05WsWhyNot(cx: Lowering, op: Op, ring: TmaRingLoop, tileLoop: Op | undefined): string | undefined {
  const slot = residentSlot(cx, op);
  if (!slot) return 'its dot is not one tcgen05 dot accumulating in place into a carried value (the accumulator must stay in tensor memory)';
  if (inflightDot(cx, ring) !== slot.dot) return 'the tcgen05 dot does not read both operands from the ring (the MMA warp issues from ring stages only)';
  if (op.operands.length !== 4) return 'the loop carries more than the accumulator (the MMA warp runs only the dot)';
  if (!zeroConst(cx, op.operands[3]!)) return 'the accumulator does not start at zero (the MMA warp would wait for the epilogue warps to store it)';
  const body = op.regions[0]!.ops;
  const slice = new Set(ring.slice);
  const extra = body.find((o) => o !== slot.dot && o.kind !== 'yield' && !ring.skip.has(o) && !slice.has(o));
  if (extra) return `the body computes ${extra.kind} %${extra.results[0]?.id ?? '?'} besides the dot (the MMA warp runs only the dot)`;
  const [a, b] = slot.dot.operands as [Value, Value];
  const kind = tcgen05KindOf(a.type.elem, b.type.elem, slot.dot.results[0]!.type.elem, dotInputPrecision(slot.dot));
  if (!kind || a.type.shape[1]! % kind.k) return 'no tcgen05 kind for the dot';
  if (tileLoop) {
    const N = b.type.shape[1]!;
    if (2 * Math.max(32, 2 ** Math.ceil(Math.log2(N))) > 512) return `two accumulator buffers of ${N} columns do not fit tensor memory's 512`;
    const others: Op[] = [];
    const find = (ops: readonly Op[]): void => ops.forEach((o) => {
      if (o.kind === 'dot' && o !== slot.dot) others.push(o);
      o.regions.forEach((r) => find(r.ops));
    });
    find(cx.func.body.ops);
    if (others.length) return 'the kernel has another dot (the double-buffered accumulator owns tensor memory)';
  }
  return undefined;
}

/** The note of the 'pipeline' stage for a loop taken by this form. */
export function tcgen05WsNote(cx: Lowering, l: WarpSpecializedLoop, regs: number): string {
  return `warp-specialized (tcgen05): a load warp (TMA, ${l.ring.tiles.length} tile(s)) and an MMA warp in 1 warpgroup, ${cx.numWarps / 4} epilogue warpgroup(s), ${l.ring.numStages} stages of ${l.ring.stageBytes} bytes, full/empty mbarriers (the MMAs commit to empty), ACC_FULL after the K loop; setmaxnreg ${regs}/${l.consumerRegs} (launch ${l.maxnreg})${l.tiles ? `; inside tile loop %${l.tiles.loop.regions[0]!.args[0]!.id}, which the load and MMA warps run too: the accumulator double-buffered in tensor memory (ACC_FULL/ACC_EMPTY per buffer), the next tile's MMAs overlap the epilogue` : ''}${l.preWrite ? `; the load warp starts after the epilogue warps' writes before the loop (${l.preWrite.kind}): program order` : ''}`;
}

interface State {
  readonly l: WarpSpecializedLoop;
  readonly full: string;
  readonly empty: string;
  readonly accFull: string;
  /** A register holding 0: the parity of ACC_FULL's one phase. */
  readonly zero: string;
  readonly start?: { bar: string; phase: string };
  /** Persistent: the tile-done barrier (ws_tiles.ts), ACC_EMPTY[0], and the epilogue's buffer registers. */
  readonly tile?: WsTileRegs;
  readonly accEmpty?: string;
  readonly epi?: { buf: string; base: string; fullBits: string };
  /** A 2-CTA pair (ws_tcgen05_pair.ts): the even CTA's MMA warp issues for both. */
  readonly pair?: WsPair;
}

/**
 * Arms the sm_100a form: the ring reserved for the whole kernel, epilogue barriers named ones,
 * `rules.for` lowers the K loop's epilogue side. Returns the entry branch and the partitions' code.
 */
export function withWsTcgen05(rules: Record<string, Rule>, cx: Lowering, plan: WarpSpecializePlan, producerRegs: number): { entry: () => string[]; producer: () => void } | undefined {
  const l = plan.loop;
  if (!l) return undefined;
  const n = 32 * cx.numWarps;
  const S = l.ring.numStages;
  cx.reserveShared(S * l.ring.stageBytes);
  cx.barrierThreads = n;
  // full[S], empty[S], ACC_FULL (two with a tile loop), then ACC_EMPTY[2] (every epilogue thread)
  const { bar, phase } = newBarriers(cx, 2 * S + (l.tiles ? 4 : 1), (k) => (k >= 2 * S + 2 ? n : 1));
  const empty = cx.reg('b32'), accFull = cx.reg('b32');
  cx.e.emitPrologue(`add.u32 ${empty}, ${bar}, ${8 * S};`);
  cx.e.emitPrologue(`add.u32 ${accFull}, ${bar}, ${16 * S};`);
  let tiled: Pick<State, 'tile' | 'accEmpty' | 'epi'> = {};
  if (l.tiles) {
    setTmemBuffers(cx, 2);
    const accEmpty = cx.reg('b32');
    cx.e.emitPrologue(`add.u32 ${accEmpty}, ${bar}, ${16 * S + 16};`);
    const [buf, base, fullBits] = [cx.reg('b32'), cx.reg('b32'), cx.reg('b32')];
    cx.e.emitPrologue('// warp specialization (tcgen05): the epilogue\'s accumulator buffer and its ACC_FULL phase bits, kept across tiles');
    cx.e.emitPrologue(`mov.u32 ${buf}, 0;`);
    cx.e.emitPrologue(`mov.u32 ${fullBits}, 0;`);
    tiled = { tile: tileBarrier(cx, n), accEmpty, epi: { buf, base, fullBits } };
  }
  const pair = wsPair(cx, l);
  const st: State = { l, full: bar, empty, accFull, zero: phase, ...tiled, ...(l.preWrite ? { start: newBarriers(cx, 1, () => n) } : {}), ...(pair ? { pair } : {}) };
  const plain = rules.for!;
  const started = (c: Lowering): void => {
    if (!st.start) return;
    c.emit('// the writes before the loop are done: the load warp may load (program order)');
    c.emit('fence.proxy.async.global;');
    c.emit(`mbarrier.arrive.shared::cta.b64 _, [${st.start.bar}];`);
  };
  cx.enterRingLive(); // the load warp may fill any stage from the kernel's start until the loop ends
  rules.for = (c, op) => {
    if (op === l.tiles?.loop) {
      // the epilogue's scratch stays past the ring for the whole tile loop; its tcgen05.ld read the current buffer
      started(c);
      setAccBase(c, st.epi!.base);
      try {
        plain(c, op);
      } finally {
        setAccBase(c, undefined);
      }
      return c.leaveRingLive();
    }
    if (op !== l.ring.loop) return plain(c, op);
    if (!l.tiles) started(c);
    epilogueWait(c, op, st);
    if (!l.tiles) c.leaveRingLive();
  };
  return {
    entry: () => {
      const { tid } = cx.thread();
      const p = cx.reg('pred');
      return [
        ...wsPairOpen(st.pair),
        `\t// warp specialization (tcgen05): warp ${cx.numWarps} loads, warp ${cx.numWarps + 1} issues the MMAs (ws_tcgen05.ts)`,
        `\tsetp.ge.u32 ${p}, ${tid}, ${n};`,
        `\t@${p} bra.uni ${WS_PARTITIONS};`,
        `\tsetmaxnreg.inc.sync.aligned.u32 ${l.consumerRegs};`,
      ];
    },
    producer: () => {
      cx.emit('ret;');
      cx.e.placeLabel(WS_PARTITIONS);
      partitions(cx, st, producerRegs);
    },
  };
}

const loopTy = (op: Op): 's64' | 's32' => (regKind(op.operands[0]!.type.elem) === 'b64' ? 's64' : 's32');

/** The epilogue warps at the K loop: wait for ACC_FULL; tcgen05_resident.ts then reads the accumulator. */
function epilogueWait(cx: Lowering, op: Op, st: State): void {
  const slot = residentSlot(cx, op)!;
  const res = residentOf(cx, slot.dot);
  if (!res) cx.fail('warp-specialized tcgen05 loop without its resident accumulator');
  const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  cx.emit(`// warp-specialized loop (epilogue warps): the load and MMA warps run its ${st.l.ring.numStages}-stage ring`);
  let accFull = st.accFull, parity = st.zero;
  if (st.epi) {
    const { buf, base, fullBits } = st.epi;
    const later = st.tile!.later;
    cx.emit('// the previous tile\'s accumulator buffer is read (its tcgen05.ld waited for): the MMA warp may reuse it');
    const prevEmpty = cx.reg('b32');
    cx.emit(`mad.lo.u32 ${prevEmpty}, ${buf}, 8, ${st.accEmpty!};`);
    cx.emit(`@${later} tcgen05.fence::before_thread_sync;`);
    cx.emit(`@${later} mbarrier.arrive.shared::cta.b64 _, [${prevEmpty}];`);
    cx.emit(`@${later} xor.b32 ${buf}, ${buf}, 1;`);
    consumerTileStart(cx, st.tile!); // sets `later`
    cx.emit(`mad.lo.u32 ${base}, ${buf}, ${tmemCols(st)}, ${tmem(cx).addr};`);
    accFull = cx.reg('b32');
    parity = cx.reg('b32');
    cx.emit(`mad.lo.u32 ${accFull}, ${buf}, 8, ${st.accFull};`);
    cx.emit(`shr.u32 ${parity}, ${fullBits}, ${buf};`);
    cx.emit(`and.b32 ${parity}, ${parity}, 1;`);
  }
  // the MMA warp commits to ACC_FULL only when it ran an iteration: the same bounds decide here
  cx.emit(`setp.lt.${loopTy(op)} ${res!.started}, ${lb}, ${ub};`);
  const skip = cx.e.label('acc_none');
  cx.emit(`@!${res!.started} bra.uni ${skip};`);
  cx.emit(ACC_FULL_WAIT);
  waitBarrier(cx, accFull, parity);
  if (st.epi) flipBit(cx, st.epi.fullBits, st.epi.buf);
  cx.emit('tcgen05.fence::after_thread_sync;');
  cx.e.placeLabel(skip);
  op.results.forEach((r, k) => cx.define(r, cx.regsIn(op.operands[3 + k]!, cx.layoutOf(r))));
}

/** Flips bit `k` (a register) of `bits`. */
function flipBit(cx: Lowering, bits: string, k: string): void {
  const m = cx.reg('b32');
  cx.emit(`shl.b32 ${m}, 1, ${k};`);
  cx.emit(`xor.b32 ${bits}, ${bits}, ${m};`);
}

/** Columns of one accumulator buffer (half the allocation when double-buffered). */
const tmemCols = (st: State): number => {
  const n = st.l.ring.loop.results[0]!.type.shape[1]!;
  return Math.max(32, 2 ** Math.ceil(Math.log2(n)));
};

/** Next stage: address and barriers advance; past the last, back to stage 0 with the phase bit flipped. */
function advance(cx: Lowering, S: number, SB: number, regs: { rd: string; full: string; empty: string; idx: string; phase: string }): void {
  const wrap = cx.reg('pred');
  const { rd, full, empty, idx, phase } = regs;
  cx.emit(`add.u32 ${idx}, ${idx}, 1;`);
  cx.emit(`add.u32 ${rd}, ${rd}, ${SB};`);
  cx.emit(`add.u32 ${full}, ${full}, 8;`);
  cx.emit(`add.u32 ${empty}, ${empty}, 8;`);
  cx.emit(`setp.eq.u32 ${wrap}, ${idx}, ${S};`);
  cx.emit(`@${wrap} mov.u32 ${idx}, 0;`);
  cx.emit(`@${wrap} sub.u32 ${rd}, ${rd}, ${S * SB};`);
  cx.emit(`@${wrap} sub.u32 ${full}, ${full}, ${8 * S};`);
  cx.emit(`@${wrap} sub.u32 ${empty}, ${empty}, ${8 * S};`);
  cx.emit(`@${wrap} xor.b32 ${phase}, ${phase}, 1;`);
}

/** The ring position registers of one partition, at stage 0, phase 0. */
function ringStart(cx: Lowering, st: State): { rd: string; full: string; empty: string; idx: string; phase: string } {
  const [rd, full, empty, idx, phase] = [0, 1, 2, 3, 4].map(() => cx.reg('b32')) as [string, string, string, string, string];
  cx.emit(`mov.u32 ${rd}, ${cx.smemSymbol()};`);
  cx.emit(`mov.u32 ${full}, ${st.full};`);
  cx.emit(`mov.u32 ${empty}, ${st.empty};`);
  cx.emit(`mov.u32 ${idx}, 0;`);
  cx.emit(`mov.u32 ${phase}, 0;`);
  return { rd, full, empty, idx, phase };
}

/** The K loop's head in one partition: iv from lb, `body` per iteration, then the stage advances. */
function kLoop(cx: Lowering, l: TmaRingLoop, name: string, pos: ReturnType<typeof ringStart>, body: (iv: string) => void): void {
  const op = l.loop;
  const ivT = op.operands[0]!.type.elem;
  const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  const iv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
  const top = cx.e.label(name), end = cx.e.label(`end${name}`), done = cx.reg('pred');
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${loopTy(op)} ${done}, ${iv}, ${ub};`);
  cx.emit(`@${done} bra.uni ${end};`);
  body(iv);
  advance(cx, l.numStages, l.stageBytes, pos);
  cx.emit(`add.${loopTy(op)} ${iv}, ${iv}, ${l.step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
}

/** The warpgroup after the epilogue warps: register budget lowered, then the load and MMA threads. */
function partitions(cx: Lowering, st: State, producerRegs: number): void {
  const { tid } = cx.thread();
  const n = 32 * cx.numWarps;
  cx.emit(`setmaxnreg.dec.sync.aligned.u32 ${producerRegs};`);
  const [isLoad, isMma] = [cx.reg('pred'), cx.reg('pred')];
  cx.emit(`setp.eq.u32 ${isLoad}, ${tid}, ${n};`);
  cx.emit(`setp.eq.u32 ${isMma}, ${tid}, ${n + 32};`);
  cx.scope(() => {
    // the scalars both threads recompute (before they part: the MMA thread branches past the load code)
    for (const o of st.l.remat) cx.lowerOp(o);
    cx.emit(`@${isMma} bra ${WS_MMA};`);
    cx.emit(`@!${isLoad} ret;`); // one thread of each warp works; the other two warps have nothing to do
    loadThread(cx, st);
    cx.emit('ret;');
    cx.e.placeLabel(WS_MMA);
    mmaThread(cx, st);
    cx.emit('ret;');
  });
}

/** The load thread: fills stage i%S once the MMAs that read it S iterations ago are done. */
function loadThread(cx: Lowering, st: State): void {
  const l = st.l.ring;
  const S = l.numStages;
  const body = l.loop.regions[0]!;
  const maps = l.tiles.map((t) => mapAddress(cx, tensorMaps(cx).mapFor(t.load, t.g)));
  if (st.start) {
    cx.emit('// the epilogue warps\' writes before the loop first (program order: the loads must see them)');
    waitBarrier(cx, st.start.bar, st.start.phase);
  }
  cx.emit('// the load warp: TMA into the ring');
  const pos = ringStart(cx, st);
  const count = cx.reg('b32');
  cx.emit(`mov.u32 ${count}, 0;`);
  const k = (): void => kLoop(cx, l, 'wsload', pos, (iv) => {
    const fresh = cx.e.label('wsfresh'), first = cx.reg('pred'), parity = cx.reg('b32');
    // the stage's previous use (S iterations ago): its MMAs' commit must have arrived
    cx.emit(`setp.lt.u32 ${first}, ${count}, ${S};`);
    cx.emit(`@${first} bra.uni ${fresh};`);
    cx.emit(`xor.b32 ${parity}, ${pos.phase}, 1;`);
    waitBarrier(cx, pos.empty, parity);
    cx.e.placeLabel(fresh);
    cx.scope(() => {
      cx.define(body.args[0]!, [iv]);
      for (const o of l.slice) cx.lowerOp(o);
      if (st.pair) return pairCopies(cx, l, st.pair.plan, maps, pos.rd, pos.full); // A and half of B (ws_tcgen05_pair.ts)
      cx.emit(`mbarrier.arrive.expect_tx.shared::cta.b64 _, [${pos.full}], ${l.tiles.reduce((s, t) => s + t.g.bytes, 0)};`);
      l.tiles.forEach((t, k) => {
        for (let j = 0; j < t.g.boxes; j++) {
          const off = t.offset + j * t.g.rows * t.g.swizzle;
          cx.emit(`cp.async.bulk.tensor.${t.load.attrs.block.length}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [${pos.rd}${off ? `+${off}` : ''}], [${maps[k]}, ${boxCoords(cx, t.load, t.g, j)}], [${pos.full}];`);
        }
      });
    });
    cx.emit(`add.u32 ${count}, ${count}, 1;`);
  });
  if (st.l.tiles) producerTiles(cx, st.l.tiles, st.tile!, l.tiles.map((t) => t.load), k);
  else k();
}

/** The MMA thread: waits for each stage, issues its MMAs and commits them to the stage's empty barrier. */
function mmaThread(cx: Lowering, st: State): void {
  const l = st.l.ring;
  const dot = residentSlot(cx, l.loop)!.dot;
  const [a, b] = dot.operands as [Value, Value];
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const kind = tcgen05KindOf(a.type.elem, b.type.elem, dot.results[0]!.type.elem, dotInputPrecision(dot))!;
  const eb = stagedBytes(a.type.elem);
  const tileOf = (v: Value) => l.tiles.find((t) => t.value.id === v.id)!;
  const [ta, tb] = [tileOf(a), tileOf(b)];
  const mem = tmem(cx);
  const pair = st.pair;
  if (pair) toRelay(cx, pair);
  cx.emit('// the MMA warp: tcgen05.mma on each full stage, committed to its empty barrier');
  const pos = ringStart(cx, st);
  const ran = cx.reg('pred'), on = cx.reg('pred');
  cx.emit(`setp.ne.b32 ${ran}, 0, 0;`); // false until the first MMA: it overwrites the accumulator
  cx.emit(`setp.ne.b32 ${on}, 1, 0;`);
  const idesc = cx.reg('b32');
  const acc = st.epi ? cx.reg('b32') : mem.addr; // the current tile's buffer
  const kl = (): void => kLoop(cx, l, 'wsmma', pos, () => {
    waitBarrier(cx, pos.full, pos.phase); // the stage's TMA copies have landed
    if (pair) leaderPeerWait(cx, pair, pos.idx, pos.phase); // and the odd CTA's
    const base = (t: typeof ta): string => {
      const r = cx.reg('b32');
      cx.emit(`add.u32 ${r}, ${pos.rd}, ${t.offset};`);
      return r;
    };
    const staged = (t: typeof ta, r: string) => ({ base: r, rows: t.g.rows, rowBytes: t.g.rowBytes, swizzle: t.g.swizzle, transposed: !!t.trans });
    const A = stagedOperand(cx, 'tcgen05', staged(ta, base(ta)), true, [M, K], eb);
    const B = stagedOperand(cx, 'tcgen05', staged(tb, base(tb)), false, [K, N], eb);
    if ((A.mnMajor || B.mnMajor) && !kind.transposable) cx.fail(`tcgen05 ${kind.input} operands are read K-major only, but a staged operand is MN-major`);
    const da = emitTcgen05Desc(cx, A.tile.base, A.tile, A.mnMajor);
    const db = emitTcgen05Desc(cx, B.tile.base, B.tile, B.mnMajor);
    cx.emit(`mov.b32 ${idesc}, 0x${instrDesc(kind, pair ? 2 * M : M, N, A.mnMajor, B.mnMajor).toString(16)};`); // a pair: M 256
    for (let kk = 0; kk < K / kind.k; kk++) {
      const ad = descPlus(cx, da, sliceOffset(A.tile, A.mnMajor, 0, kk * kind.k, eb));
      const bd = descPlus(cx, db, sliceOffset(B.tile, B.mnMajor, 0, kk * kind.k, eb));
      cx.emit(`tcgen05.mma.cta_group::${pair ? 2 : 1}.kind::${kind.kindName} [${acc}], ${ad}, ${bd}, ${idesc}, ${kk === 0 ? ran : on};`);
    }
    if (pair) cx.emit(`${pairCommit(pair, pos.empty)} // the stage's empty barrier in both CTAs`);
    else cx.emit(`tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [${pos.empty}]; // the stage's empty barrier: released when these MMAs are done`);
    cx.emit(`setp.ne.b32 ${ran}, 1, 0;`);
  });
  if (!st.l.tiles) {
    kl();
    cx.emit('// every MMA of the loop: the epilogue warps may read the accumulator');
    if (!pair) cx.emit(`@${ran} tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [${st.accFull}];`);
    else {
      cx.emit(`${pairCommit(pair, st.accFull, ran)} // ACC_FULL in both CTAs`);
      relayThread(cx, st, pair);
    }
    return;
  }
  // persistent: the same tiles as the epilogue's, buffer t%2 for tile t
  const t = st.l.tiles;
  const [buf, tiles, emptyBits, accFull, accEmpty, parity] = [0, 1, 2, 3, 4, 5].map(() => cx.reg('b32')) as [string, string, string, string, string, string];
  [buf, tiles, emptyBits].forEach((r) => cx.emit(`mov.u32 ${r}, 0;`));
  const tl = t.loop;
  const [tlb, tub, tstep] = [0, 1, 2].map((i) => cx.regs(tl.operands[i]!)[0]!) as [string, string, string];
  const ivT = tl.operands[0]!.type.elem;
  const tiv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${tiv}, ${tlb};`);
  const top = cx.e.label('wsmma_tile'), end = cx.e.label('endwsmma_tile'), done = cx.reg('pred'), reuse = cx.reg('pred');
  cx.emit('// MMA tile loop: the epilogue\'s tile sequence; the accumulator alternates between two TMEM buffers');
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${loopTy(tl)} ${done}, ${tiv}, ${tub};`);
  cx.emit(`@${done} bra.uni ${end};`);
  cx.emit(`mad.lo.u32 ${accEmpty}, ${buf}, 8, ${st.accEmpty!};`);
  cx.emit(`mad.lo.u32 ${accFull}, ${buf}, 8, ${st.accFull};`);
  cx.emit(`mad.lo.u32 ${acc}, ${buf}, ${tmemCols(st)}, ${mem.addr};`);
  // the buffer's previous tile (two ago) must have been read by every epilogue thread
  const fresh = cx.e.label('acc_fresh');
  cx.emit(`setp.lt.u32 ${reuse}, ${tiles}, 2;`);
  cx.emit(`@${reuse} bra.uni ${fresh};`);
  cx.emit(`shr.u32 ${parity}, ${emptyBits}, ${buf};`);
  cx.emit(`and.b32 ${parity}, ${parity}, 1;`);
  cx.emit(ACC_EMPTY_WAIT);
  waitBarrier(cx, accEmpty, parity);
  if (pair) leaderAccPeerWait(cx, pair, buf, parity); // and the odd CTA's epilogue
  flipBit(cx, emptyBits, buf);
  cx.emit('tcgen05.fence::after_thread_sync;');
  cx.e.placeLabel(fresh);
  cx.scope(() => {
    cx.define(tl.regions[0]!.args[0]!, [tiv]);
    for (const o of t.remat) cx.lowerOp(o);
    cx.emit(`setp.ne.b32 ${ran}, 0, 0;`);
    kl();
  });
  cx.emit('// every MMA of the tile: the epilogue warps may read its buffer');
  if (pair) cx.emit(`${pairCommit(pair, accFull, ran)} // ACC_FULL in both CTAs`);
  else cx.emit(`@${ran} tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [${accFull}];`);
  cx.emit(`xor.b32 ${buf}, ${buf}, 1;`);
  cx.emit(`add.u32 ${tiles}, ${tiles}, 1;`);
  cx.emit(`add.${loopTy(tl)} ${tiv}, ${tiv}, ${tstep};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  if (pair) relayThread(cx, st, pair);
}

/** The odd CTA's MMA thread (2-CTA): walks the ring, relaying each stage-full to the leader's PEER barrier. */
function relayThread(cx: Lowering, st: State, pair: WsPair): void {
  cx.emit('ret;');
  cx.e.placeLabel(PAIR_RELAY);
  const pos = ringStart(cx, st);
  const k = (): void => kLoop(cx, st.l.ring, 'wsrelay', pos, () => {
    waitBarrier(cx, pos.full, pos.phase);
    relayToLeader(cx, pair, pos.idx);
  });
  const t = st.l.tiles;
  if (!t) return k();
  // persistent: the MMA thread's tile sequence; from the third tile on, once this CTA's epilogue
  // has read buffer t%2 (its ACC_EMPTY), the leader hears it (ACC_PEER) before it reuses the buffer
  const [buf, tiles, emptyBits, accEmpty, parity] = [0, 1, 2, 3, 4].map(() => cx.reg('b32')) as [string, string, string, string, string];
  [buf, tiles, emptyBits].forEach((r) => cx.emit(`mov.u32 ${r}, 0;`));
  const tl = t.loop;
  const [tlb, tub, tstep] = [0, 1, 2].map((i) => cx.regs(tl.operands[i]!)[0]!) as [string, string, string];
  const ivT = tl.operands[0]!.type.elem;
  const tiv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${tiv}, ${tlb};`);
  const top = cx.e.label('wsrelay_tile'), end = cx.e.label('endwsrelay_tile'), fresh = cx.e.label('relay_fresh');
  const [done, reuse] = [cx.reg('pred'), cx.reg('pred')];
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${loopTy(tl)} ${done}, ${tiv}, ${tub};`);
  cx.emit(`@${done} bra.uni ${end};`);
  cx.emit(`setp.lt.u32 ${reuse}, ${tiles}, 2;`);
  cx.emit(`@${reuse} bra.uni ${fresh};`);
  cx.emit(`mad.lo.u32 ${accEmpty}, ${buf}, 8, ${st.accEmpty!};`);
  cx.emit(`shr.u32 ${parity}, ${emptyBits}, ${buf};`);
  cx.emit(`and.b32 ${parity}, ${parity}, 1;`);
  relayAccEmpty(cx, pair, accEmpty, parity, buf);
  flipBit(cx, emptyBits, buf);
  cx.e.placeLabel(fresh);
  cx.scope(() => {
    cx.define(tl.regions[0]!.args[0]!, [tiv]);
    for (const o of t.remat) cx.lowerOp(o);
    k();
  });
  cx.emit(`xor.b32 ${buf}, ${buf}, 1;`);
  cx.emit(`add.u32 ${tiles}, ${tiles}, 1;`);
  cx.emit(`add.${loopTy(tl)} ${tiv}, ${tiv}, ${tstep};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
}
