// dot on tcgen05 (sm_100a; PTX ISA "TensorCore 5th Generation Family Instructions"): the layout
// pass gave the result the tcgen05 layout (compiler/tcgen05_kinds.ts: one accumulator row per
// thread, as tcgen05.ld.32x32b reads it back), and the accumulator lives in tensor memory
// (tmem_alloc.ts) while the MMAs run. One dot, in order:
//   operands   a [M, K] K-major and b ([K, N] MN-major for 16-bit, else its transpose [N, K]) in
//              swizzled shared tiles: the pipeliner's ring stage (staged.ts) or the scratch,
//              written from registers (lower_mma.ts storeStaged) - the tiles wgmma reads;
//              fence.proxy.async (the MMA reads them through the async proxy)
//              (a 16-bit register A in the accumulator layout, flash attention's P, goes to
//              TMEM instead and the MMA reads `[a_tmem]`: tcgen05_tmem_a.ts)
//   acc in     a non-zero accumulator is stored to TMEM (tcgen05.st.32x32b, wait::st); a zero
//              one is never materialized: the first k-step has enable_input_d false
//   MMA        fence::before_thread_sync, bar.sync, fence::after_thread_sync; thread 0 issues
//              one tcgen05.mma (M 128 x N) per k-step with sm_100 descriptors (tcgen05_desc.ts)
//              and tcgen05.commit to the kernel's mbarrier; every thread waits for its phase
//   epilogue   tcgen05.ld.32x32b.xN from the warp's lane quarter, tcgen05.wait::ld
// The sim computes the MMAs when the mbarrier's phase is tested and poisons tcgen05.ld results
// until wait::ld, so a missing wait or fence is a wrong result or a named fault
// (test/e2e/matmul_tcgen05.test.ts breaks the PTX on purpose).
import type { Op, Value } from '../../ir/ops.js';
import type { ElemType } from '../../ir/types.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';
import { permuteBlocked, type BlockedLayout, type Layout } from '../../compiler/layout.js';
import { tcgen05SectorRun } from '../../compiler/tcgen05_sector_layout.js';
import { tcgen05KindOf } from '../../compiler/tcgen05_kinds.js';
import type { Lowering } from '../context.js';
import { storeStaged } from './lower_mma.js';
import { elected, newBarriers } from '../async/lower_tma.js';
import { stagedBytes, tf32Regs } from './mma_fragments.js';
import { SWIZZLE_ALIGN, swizzleFor } from '../smem/smem_swizzle.js';
import { stagedTile } from '../smem/staged.js';
import { stagedOperand, zeroConst, type SmemOperand } from './mma_smem_operand.js';
import { emitTcgen05Desc, instrDesc } from './tcgen05_desc.js';
import { isTcgen05Dot, tmem } from './tmem_alloc.js';
import { residentOf } from './tcgen05_resident.js';
import { inflightOf } from './tcgen05_inflight.js';
import { storeATmem, tmemACols } from './tcgen05_tmem_a.js';
import { hoistedTcgen05A } from './tcgen05_a_hoist.js';
import { skipToIssueEnd } from './tcgen05_issue.js';
import { rowAddresses } from './tcgen05_row_addr.js';
import { descPlus, sliceOffset, type SwizzledTile } from './wgmma_desc.js';
import { tcgen05ReadsMnMajor } from '../../compiler/ring_8bit_tcgen05.js';

type Operand = SmemOperand;

/** Widest tcgen05.ld / st of the 32x32b shape (.x128: 128 registers). */
const MAX_X = 128;

const roundUp = (x: number, m: number): number => Math.ceil(x / m) * m;

/** The kernel's one mbarrier the MMAs commit to, and its phase register. */
const barriers = new WeakMap<Lowering, { bar: string; phase: string }>();
const mmaBarrier = (cx: Lowering): { bar: string; phase: string } => {
  let b = barriers.get(cx);
  if (!b) barriers.set(cx, (b = newBarriers(cx, 1)));
  return b;
};

/** Lowers `op` on tcgen05; false when the dot is not in the tcgen05 layout (the caller goes on). */
export function tcgen05Dot(cx: Lowering, op: Op): boolean {
  if (!isTcgen05Dot(cx, op)) return false;
  const [a, b] = op.operands as [Value, Value];
  const r = op.results[0]!;
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const kind = tcgen05KindOf(a.type.elem, b.type.elem, r.type.elem, dotInputPrecision(op));
  if (!kind || K % kind.k !== 0) return false;
  const eb = stagedBytes(a.type.elem);
  const mem = tmem(cx);

  const sa = stagedTile(cx, a);
  const sb = stagedTile(cx, b);
  const Lb = cx.layoutOf(b);
  // where b goes when we store it: [K, N] MN-major for 16-bit (unless its layout runs along k),
  // its transpose [N, K] otherwise
  const bT = !sb && (!kind.transposable || (Lb.kind === 'blocked' && Lb.order[0] === 0));
  const tileOf = (rows: number, c: number): SwizzledTile => {
    const rowBytes = c * eb;
    const swizzle = swizzleFor(rowBytes);
    if (swizzle === 0) cx.fail(`tcgen05 operand rows of ${rowBytes} bytes are narrower than the 32-byte swizzle`);
    return { rows, rowBytes, swizzle };
  };
  // a register A already in the accumulator layout (flash attention's P) goes to TMEM instead
  const aInTmem = !sa && tmemACols(cx, op) > 0;
  // a loop-invariant A stored once before its loop (tcgen05_a_hoist.ts)
  const aHoisted = sa || aInTmem ? undefined : hoistedTcgen05A(cx, op);
  const aTile = !sa && !aInTmem && !aHoisted ? tileOf(M, K) : undefined;
  const bTile = !sb ? (bT ? tileOf(N, K) : tileOf(K, N)) : undefined;

  // the accumulator first: converting it goes through the same shared scratch
  // a loop's resident accumulator (tcgen05_resident.ts) stays in TMEM: nothing to store or load
  const resident = residentOf(cx, op);
  const zero = !resident && zeroConst(cx, op.operands[2]!);
  const accIn = zero || resident ? undefined : cx.operand(op, 2);
  let A: Operand | undefined, B: Operand;
  if (aTile || bTile) {
    const aBytes = aTile ? roundUp(M * K * eb, SWIZZLE_ALIGN) : 0;
    const sm = cx.reg('b32');
    cx.e.emitPrologue(`mov.u32 ${sm}, ${cx.smemBase(aBytes + (bTile ? K * N * eb : 0))};`);
    cx.barrier();
    const input = (v: Value): string[] => (kind.input === 'tf32' ? tf32Regs(cx, cx.regs(v)) : cx.regs(v));
    if (aTile) storeStaged(cx, a.type.elem, input(a), cx.layoutOf(a), [M, K], aTile, sm, 0);
    let bBase = sm;
    if (aBytes) {
      bBase = cx.reg('b32');
      cx.e.emitPrologue(`add.u32 ${bBase}, ${sm}, ${aBytes};`);
    }
    if (bTile) {
      const lb = bT ? permuteBlocked(Lb as BlockedLayout, [1, 0]) : Lb;
      storeStaged(cx, b.type.elem, input(b), lb, bT ? [N, K] : [K, N], bTile, sm, aBytes);
    }
    A = aTile ? { tile: { ...aTile, base: sm }, mnMajor: false } : aHoisted ?? (sa && stagedOperand(cx, 'tcgen05', sa, true, [M, K], eb));
    B = bTile ? { tile: { ...bTile, base: bBase }, mnMajor: !bT } : stagedOperand(cx, 'tcgen05', sb!, false, [K, N], eb);
  } else {
    A = aHoisted ?? (sa && stagedOperand(cx, 'tcgen05', sa, true, [M, K], eb));
    B = stagedOperand(cx, 'tcgen05', sb!, false, [K, N], eb);
  }
  if ((A?.mnMajor || B.mnMajor) && !tcgen05ReadsMnMajor(kind)) cx.fail(`tcgen05 ${kind.input} operands are read K-major only, but a staged operand is MN-major`);
  // a dot left in flight by its TMA ring (tcgen05_inflight.ts): operands written by TMA (the
  // async proxy already), MMAs committed to the stage's empty barrier, no wait here
  const flight = resident && sa && sb ? inflightOf(cx, op) : undefined;
  // generic-proxy writes (st.shared here, cp.async in the pipeliner's ring) -> the async proxy
  if (!flight || flight.generic) cx.emit('fence.proxy.async.shared::cta;');

  // an in-flight dot reads no rows back: no lane offsets computed in its loop
  const rows = flight ? undefined : tmemRows(cx, M, N, cx.layoutOf(r));
  if (accIn && !resident) storeAcc(cx, rows!, accIn, r.type.elem);
  const aTmem = aInTmem ? storeATmem(cx, a, N, kind.k) : undefined;
  // every warp's shared stores and TMEM stores before thread 0's MMAs
  cx.emit('tcgen05.fence::before_thread_sync;');
  cx.barrier();
  // the MMAs' descriptors, issue and commit are the elected thread's: warps other than its
  // (warp 0) branch past them (tcgen05_issue.ts), as Triton's cc 100 kernels do
  const pair = flight?.pair;
  // in flight on the cp.async ring, no other thread issues a tcgen05 op in the loop: the fence
  // after the barrier is the issuing warp's alone (the final wait fences every thread)
  const fenceInIssue = !!flight?.generic && !pair;
  if (!fenceInIssue) cx.emit('tcgen05.fence::after_thread_sync;');
  const issue = pair ? undefined : skipToIssueEnd(cx, mem.warp0);
  if (fenceInIssue) cx.emit('tcgen05.fence::after_thread_sync;');
  const descA = A && emitTcgen05Desc(cx, A.tile.base, A.tile, A.mnMajor);
  const descB = emitTcgen05Desc(cx, B.tile.base, B.tile, B.mnMajor);
  const idesc = cx.reg('b32');
  // a CTA pair's MMA (pipeline/tcgen05_pair.ts) is M 256: this CTA's 128 rows and the peer's
  const group = pair ? 2 : 1;
  cx.emit(`mov.b32 ${idesc}, 0x${instrDesc(kind, pair ? 2 * M : M, N, !!A?.mnMajor, B.mnMajor).toString(16)};`);
  const acc = cx.reg('pred');
  cx.emit(`setp.ne.b32 ${acc}, 1, 0;`);
  // first k-step: D = A*B for a zero accumulator (or a resident one not yet started)
  const fresh = resident ? resident.started : zero ? cx.reg('pred') : acc;
  if (zero) cx.emit(`setp.ne.b32 ${fresh}, 0, 0;`);
  const one = pair ? pair.issuer : elected(cx);
  const mb = flight ? undefined : mmaBarrier(cx);
  for (let kk = 0; kk < K / kind.k; kk++) {
    const ad = A ? descPlus(cx, descA!, sliceOffset(A.tile, A.mnMajor, 0, kk * kind.k, eb)) : `[${aTmem!(kk)}]`;
    const bd = descPlus(cx, descB, sliceOffset(B.tile, B.mnMajor, 0, kk * kind.k, eb));
    cx.emit(`@${one} tcgen05.mma.cta_group::${group}.kind::${kind.kindName} [${mem.addr}], ${ad}, ${bd}, ${idesc}, ${kk === 0 ? fresh : acc};`);
  }
  if (flight) {
    if (pair) cx.emit(`@${one} tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [${flight.commitTo}], ${pair.mask}; // the stage's empty barrier in both CTAs`);
    else cx.emit(`@${one} tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [${flight.commitTo}]; // the stage's empty barrier`);
    issue?.();
    cx.emit(`setp.ne.b32 ${resident!.started}, 1, 0;`);
    cx.define(r, cx.regs(op.operands[2]!));
    return true;
  }
  const { bar, phase } = mb!;
  commitAndWait(cx, one, bar, phase, resident?.started, 'mma_wait', issue);
  // the MMAs have read their ring stages: the ring may overwrite them
  sa?.release?.();
  sb?.release?.();

  if (resident) {
    // the value in registers is not read (tcgen05_resident.ts loads the loop's result from TMEM)
    cx.define(r, cx.regs(op.operands[2]!));
    return true;
  }
  cx.define(r, loadAcc(cx, rows!, r.type.elem));
  return true;
}

/** This thread's accumulator row in TMEM and the chunks (first column, count) of one ld/st each. */
export interface TmemRows {
  readonly at: (c: number) => string;
  readonly chunks: readonly (readonly [number, number])[];
  /** The ld/st shape and, for 16x32bx2 (M = 64), the second half's column offset. */
  readonly shape: '32x32b' | '16x32bx2';
  readonly split: number;
  /** One ld/st each: the thread's registers it moves (columns in order) and its TMEM address. */
  readonly pieces: readonly { readonly regs: readonly number[]; readonly addr: () => string }[];
}

/**
 * The TMEM address of this thread's row of an M x N accumulator: lane 32*(w%4) (the warp's
 * quarter), columns from (w/4)*cols with 8 warps; M = 64: the 16x32bx2 shape, the second half
 * of the columns N/2 on.
 */
/**
 * The elected thread commits the MMAs issued so far to `bar`; every thread waits for its phase and
 * flips it, then orders its later tcgen05 accesses after the MMAs. `started` (a resident
 * accumulator's flag) is set after the commit: the next MMA accumulates.
 */
export function commitAndWait(cx: Lowering, one: string, bar: string, phase: string, started: string | undefined, label: string, issueEnd?: () => void): void {
  cx.emit(`@${one} tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [${bar}];`);
  issueEnd?.(); // the other warps' branch past the issue lands here
  if (started) cx.emit(`setp.ne.b32 ${started}, 1, 0;`);
  const loop = cx.e.label(label);
  const done = cx.reg('pred');
  cx.e.placeLabel(loop);
  cx.emit(`mbarrier.try_wait.parity.shared::cta.b64 ${done}, [${bar}], ${phase};`);
  cx.emit(`@!${done} bra.uni ${loop};`);
  cx.emit(`xor.b32 ${phase}, ${phase}, 1;`);
  cx.emit('tcgen05.fence::after_thread_sync;');
}

export function tmemRows(cx: Lowering, M: number, N: number, layout?: Layout): TmemRows {
  const wn = cx.numWarps / 4;
  const s = layout ? tcgen05SectorRun(layout, M, N, cx.numWarps) : 0;
  if (s) return sectorRows(cx, M, N, wn, s);
  const half = M === 64;
  const cols = half ? N / 2 : N / wn;
  // rows addressed from the allocation's start are loop-invariant: computed once, in the prologue
  // (tcgen05_row_addr.ts); from a buffer register that changes (setAccBase), here
  const row = rowAddresses(cx, wn, cols);
  const chunks: [number, number][] = [];
  for (let c = 0; c < cols; c += MAX_X) chunks.push([c, Math.min(MAX_X, cols - c)]);
  const pieces = chunks.map(([c, n]) => ({ regs: Array.from({ length: n }, (_, j) => c + j), addr: () => row(c) }));
  return { at: row, chunks, shape: half ? '16x32bx2' : '32x32b', split: half ? N / 2 : 0, pieces };
}

/**
 * The sector layout's rows (compiler/tcgen05_sector_layout.ts): one 16x32bx2.x{s} (split s) per
 * 16 TMEM lanes and 2s-column group; the group's address is the warp's row address (lane 32(w%4),
 * its 2s-column slot with 8 warps) plus 16 lanes (M = 128, second repeat) and the group's column.
 */
function sectorRows(cx: Lowering, M: number, N: number, wn: number, s: number): TmemRows {
  const row = rowAddresses(cx, wn, 2 * s);
  const reps = M === 64 ? 1 : 2;
  const groups = N / (2 * s * wn);
  const pieces: { regs: number[]; addr: () => string }[] = [];
  // registers in the blocked layout's order (regSlots: M fastest): rep + reps * (group * s + j)
  for (let g = 0; g < groups; g++) {
    for (let rep = 0; rep < reps; rep++) {
      const regs = Array.from({ length: s }, (_, j) => rep + reps * (g * s + j));
      const off = rep * (16 << 16) + g * 2 * s * wn;
      pieces.push({ regs, addr: () => (off ? `${row(0)}+${off}` : row(0)) });
    }
  }
  const fail = (): never => cx.fail('internal: the sector layout has no column chunks (tcgen05 A from TMEM needs the row layout)');
  return { at: fail, chunks: [], shape: '16x32bx2', split: s, pieces };
}

/**
 * f16 accumulators: one value in the low 16 bits of a 32-bit TMEM cell. They move two columns a
 * register: tcgen05.ld `.pack::16b` joins the low halves of columns 2j and 2j+1 into one register,
 * tcgen05.st `.unpack::16b` splits one back (high halves zero), so the halves are plain f16 pairs.
 */
const isHalfAcc = (t: ElemType): boolean => t === 'f16';

/**
 * tcgen05.st of an accumulator's registers of type `t` (one row a thread; one register: a splat),
 * then wait::st.
 */
export function storeAcc(cx: Lowering, rows: TmemRows, regs: readonly string[], t: ElemType): void {
  const split = rows.split ? `, ${rows.split}` : '';
  if (isHalfAcc(t)) {
    const splat = regs.length === 1 ? cx.reg('b32') : undefined;
    if (splat) cx.emit(`mov.b32 ${splat}, {${regs[0]}, ${regs[0]}};`);
    for (const p of rows.pieces) {
      const rs = Array.from({ length: p.regs.length / 2 }, (_, j) => {
        if (splat) return splat;
        const w = cx.reg('b32');
        cx.emit(`mov.b32 ${w}, {${regs[p.regs[2 * j]!]}, ${regs[p.regs[2 * j + 1]!]}};`);
        return w;
      });
      cx.emit(`tcgen05.st.sync.aligned.${rows.shape}.x${rs.length}.unpack::16b.b32 [${p.addr()}]${split}, {${rs.join(', ')}};`);
    }
    cx.emit('tcgen05.wait::st.sync.aligned;');
    return;
  }
  for (const p of rows.pieces) {
    const rs = p.regs.map((r) => regs[regs.length === 1 ? 0 : r]!);
    cx.emit(`tcgen05.st.sync.aligned.${rows.shape}.x${rs.length}.b32 [${p.addr()}]${split}, {${rs.join(', ')}};`);
  }
  cx.emit('tcgen05.wait::st.sync.aligned;');
}

/** tcgen05.ld of the accumulator into fresh registers, then wait::ld. */
export function loadAcc(cx: Lowering, rows: TmemRows, t: ElemType): string[] {
  const cols = rows.pieces.reduce((s, p) => s + p.regs.length, 0);
  const out = cx.newRegs(t, cols);
  const split = rows.split ? `, ${rows.split}` : '';
  if (isHalfAcc(t)) {
    // a word per column pair of a piece: its low half the first column's value
    const pairs: [number, number, string][] = [];
    for (const p of rows.pieces) {
      const words = cx.newRegs('u32', p.regs.length / 2);
      words.forEach((w, j) => pairs.push([p.regs[2 * j]!, p.regs[2 * j + 1]!, w]));
      cx.emit(`tcgen05.ld.sync.aligned.${rows.shape}.x${words.length}.pack::16b.b32 {${words.join(', ')}}, [${p.addr()}]${split};`);
    }
    cx.emit('tcgen05.wait::ld.sync.aligned;');
    for (const [lo, hi, w] of pairs) cx.emit(`mov.b32 {${out[lo]}, ${out[hi]}}, ${w};`);
    return out;
  }
  for (const p of rows.pieces) cx.emit(`tcgen05.ld.sync.aligned.${rows.shape}.x${p.regs.length}.b32 {${p.regs.map((r) => out[r]).join(', ')}}, [${p.addr()}]${split};`);
  cx.emit('tcgen05.wait::ld.sync.aligned;');
  return out;
}

