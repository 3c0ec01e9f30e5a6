// dot on wgmma (sm_90a; PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"): the
// layout pass gave the result the wgmma accumulator layout (compiler/layout.ts wgmmaLayout), so
// each warpgroup (4 warps; 8 warps = 2 warpgroups, rows 64..127 of every 128 to the second)
// computes m64 blocks of the accumulator with wgmma.mma_async.m64nNk*, N per instruction from
// compiler/wgmma_kinds.ts. Operands:
//   A  from registers (16-bit, already in the wgmma accumulator layout: P in attention; the
//      fragment is the accumulator's pairs, as mma_a_regs.ts does for mma.sync), else from a
//      shared-memory tile through a matrix descriptor (wgmma_desc.ts) - the pipeliner's staged
//      tile (staged.ts) or the scratch, written from registers (lower_mma.ts storeStaged, the same
//      swizzled tiles mma.sync reads) [M, K] K-major;
//   B  from a descriptor: staged, or written as [K, N] (16-bit: MN-major, imm-trans-b 1) or as
//      its transpose [N, K] (K-major: tf32 and 8-bit always, as the ISA has no transpose for them;
//      16-bit when its layout runs along k).
// Order: st.shared, fence.proxy.async (generic writes made visible to the async proxy that
// wgmma reads through), bar.sync, wgmma.fence (the accumulator and A registers were written by
// ordinary instructions), the mma_async of every k-step, commit_group, wait_group 0 before the
// accumulator is read. The sim computes an in-flight wgmma at its covering wait and poisons its
// accumulators until then, so a missing or short wait is a wrong result or a named fault
// (option wgmmaSabotage, test/codegen/wgmma.test.ts).
import type { Op, Value } from '../../ir/ops.js';
import { isWgmmaLayout, permuteBlocked, regSlots, type BlockedLayout } from '../../compiler/layout.js';
import { dotInputPrecision } from '../../compiler/mma_kinds.js';
import { wgmmaKindOf, wgmmaN, type WgmmaKind } from '../../compiler/wgmma_kinds.js';
import type { Lowering } from '../context.js';
import { mmaAccum } from './mma_accum.js';
import { stagedBytes, tf32Regs } from './mma_fragments.js';
import { SWIZZLE_ALIGN, swizzleFor } from '../smem/smem_swizzle.js';
import { stagedTile } from '../smem/staged.js';
import { stagedOperand, zeroConst } from './mma_smem_operand.js';
import { descPlus, emitDesc, sliceOffset, type SwizzledTile } from './wgmma_desc.js';
import { storeStaged } from './lower_mma.js';
import { preloadedWgmmaA } from './wgmma_a_hoist.js';

/**
 * Ways to break the wgmma synchronization on purpose (tests show the sim catches each):
 * 'no-wait' drops the dot's wait_group (a pipelined loop keeps its wait after the loop),
 * 'no-proxy-fence' the fence.proxy.async before the dot.
 */
export const WGMMA_SABOTAGE = ['no-wait', 'no-proxy-fence'] as const;
export type WgmmaSabotage = (typeof WGMMA_SABOTAGE)[number];
const sabotageOf = new WeakMap<Lowering, WgmmaSabotage>();
/** @internal Sets the sabotage of one lowering (compile's `wgmmaSabotage` option). */
export const setWgmmaSabotage = (cx: Lowering, s: WgmmaSabotage | undefined): void => void (s ? sabotageOf.set(cx, s) : sabotageOf.delete(cx));
export const wgmmaSabotage = (cx: Lowering): WgmmaSabotage | undefined => sabotageOf.get(cx);

/** wgmma groups a dot may leave in flight (default 0: it waits for its own). */
const pendingOf = new WeakMap<Lowering, Map<Op, number>>();
export function setWgmmaPending(cx: Lowering, op: Op, n: number): void {
  let m = pendingOf.get(cx);
  if (!m) pendingOf.set(cx, (m = new Map()));
  m.set(op, n);
}

/** Lines around a dot's wgmma issue (before its fence, after its commit_group): the consumers' ping-pong turns (pipeline/ws_pingpong.ts). */
const issueOrderOf = new WeakMap<Lowering, Map<Op, { before: () => void; after: () => void }>>();
export function setWgmmaIssueOrder(cx: Lowering, op: Op, hooks: { before: () => void; after: () => void }): void {
  let m = issueOrderOf.get(cx);
  if (!m) issueOrderOf.set(cx, (m = new Map()));
  m.set(op, hooks);
}

/**
 * The dot of a pipelined loop whose wgmma may stay in flight into the next iteration (Triton's
 * wait for all but the most recent group), or undefined: a wgmma dot directly in the body, both
 * operands read from the loop's ring (`staged`: their value ids), accumulating in place into an
 * f32/32-bit carried value it alone uses and yields back to the same place - so nothing reads its
 * accumulator registers before the next iteration's wgmma (which may chain on them in flight)
 * or the wait after the loop.
 */
export function overlappedDot(cx: Lowering, loop: Op, staged: ReadonlySet<number>): Op | undefined {
  if (cx.target !== 'sm_90a') return undefined;
  const body = loop.regions[0]!;
  const y = body.ops[body.ops.length - 1]!;
  const uses = (id: number): number => {
    let n = 0;
    const walk = (ops: readonly Op[]): void => ops.forEach((o) => {
      n += o.operands.filter((v) => v.id === id).length;
      o.regions.forEach((r) => walk(r.ops));
    });
    walk(body.ops);
    return n;
  };
  const found = body.ops.filter((o) => {
    if (o.kind !== 'dot') return false;
    const [a, b, acc] = o.operands as [Value, Value, Value];
    const r = o.results[0]!;
    const [M] = a.type.shape as [number, number];
    if (!isWgmmaLayout(cx.layoutOf(r), M, cx.numWarps) || !staged.has(a.id) || !staged.has(b.id)) return false;
    if (!['f32', 'i32', 'u32'].includes(r.type.elem)) return false;
    const k = body.args.indexOf(acc) - 1;
    return k >= 0 && y.operands[k] === r && uses(acc.id) === 1 && uses(r.id) === 1;
  });
  return found.length === 1 ? found[0] : undefined;
}

/** The wgmma.mma_async instruction (without operands); fp8 a and b may differ (e4m3 x e5m2). */
export const wgmmaInstr = (k: WgmmaKind, n: number): string =>
  `wgmma.mma_async.sync.aligned.m64n${n}k${k.k}.${k.acc}.${k.input}.${k.inputB ?? k.input}`;

/** Immediates after scale-d: none for integers; imm-scale-a/b (and imm-trans for 16-bit). */
function immediates(k: WgmmaKind, aRegs: boolean, transA: boolean, transB: boolean): string {
  if (k.input === 's8' || k.input === 'u8') return '';
  if (!k.transposable) return ', 1, 1';
  return aRegs ? `, 1, 1, ${transB ? 1 : 0}` : `, 1, 1, ${transA ? 1 : 0}, ${transB ? 1 : 0}`;
}

interface Operand {
  /** The tile and where it is (b32 shared address), or registers (A only). */
  readonly tile?: SwizzledTile & { readonly base: string };
  /** Stored MN-major ([K, MN]). */
  readonly mnMajor: boolean;
}

const roundUp = (x: number, m: number): number => Math.ceil(x / m) * m;

/** Lowers `op` on wgmma; false when the dot is not in the wgmma layout (the caller goes on). */
export function wgmmaDot(cx: Lowering, op: Op): boolean {
  if (cx.target !== 'sm_90a') return false;
  const [a, b] = op.operands as [Value, Value];
  const r = op.results[0]!;
  const L = cx.layoutOf(r);
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const W = cx.numWarps;
  const kind = wgmmaKindOf(a.type.elem, b.type.elem, r.type.elem, dotInputPrecision(op));
  const NI = kind && wgmmaN(N, kind);
  if (!kind || !NI || K % kind.k !== 0 || !isWgmmaLayout(L, M, W)) return false;
  const eb = stagedBytes(a.type.elem);
  const sabotage = sabotageOf.get(cx);

  const pre = preloadedWgmmaA(cx, op);
  const aRegs = pre ? (i: number, kk: number): string[] => pre[i]![kk]! : aFragsFromAcc(cx, kind, a, W);
  const sa = aRegs ? undefined : stagedTile(cx, a);
  const sb = stagedTile(cx, b);
  const Lb = cx.layoutOf(b);
  // where b goes when we store it: [K, N] MN-major for 16-bit (unless its layout runs along k),
  // its transpose [N, K] otherwise
  const bT = !sb && (!kind.transposable || (Lb.kind === 'blocked' && Lb.order[0] === 0));
  const tileOf = (rows: number, cols: number): SwizzledTile => {
    const rowBytes = cols * eb;
    const swizzle = swizzleFor(rowBytes);
    if (swizzle === 0) cx.fail(`wgmma operand rows of ${rowBytes} bytes are narrower than the 32-byte swizzle`);
    return { rows, rowBytes, swizzle };
  };
  const aTile = !aRegs && !sa ? tileOf(M, K) : undefined;
  const bTile = !sb ? (bT ? tileOf(N, K) : tileOf(K, N)) : undefined;

  // the accumulator first: converting it goes through the same shared scratch
  const accIn = cx.operand(op, 2);
  let A: Operand = { mnMajor: false };
  let B: Operand;
  if (aTile || bTile) {
    const aBytes = aTile ? roundUp(M * K * eb, SWIZZLE_ALIGN) : 0;
    // the scratch's base (1024-aligned), once in the prologue: the staging stores' lane
    // offsets are computed there from it (swizzle_addr.ts)
    const sm = cx.reg('b32');
    cx.e.emitPrologue(`mov.u32 ${sm}, ${cx.smemBase(aBytes + (bTile ? K * N * eb : 0))};`);
    cx.barrier();
    const input = (v: Value): string[] => (kind.input === 'tf32' ? tf32Regs(cx, cx.regs(v)) : cx.regs(v));
    if (aTile) {
      storeStaged(cx, a.type.elem, input(a), cx.layoutOf(a), [M, K], aTile, sm, 0);
      A = { tile: { ...aTile, base: sm }, mnMajor: false };
    }
    let bBase = sm;
    if (aBytes) {
      bBase = cx.reg('b32');
      cx.e.emitPrologue(`add.u32 ${bBase}, ${sm}, ${aBytes};`);
    }
    if (bTile) {
      const lb = bT ? permuteBlocked(Lb as BlockedLayout, [1, 0]) : Lb;
      storeStaged(cx, b.type.elem, input(b), lb, bT ? [N, K] : [K, N], bTile, sm, aBytes);
    }
    B = bTile ? { tile: { ...bTile, base: bBase }, mnMajor: !bT } : stagedOperand(cx, 'wgmma', sb!, false, [K, N], eb);
    if (sa) A = stagedOperand(cx, 'wgmma', sa, true, [M, K], eb);
  } else {
    B = stagedOperand(cx, 'wgmma', sb!, false, [K, N], eb);
    if (sa) A = stagedOperand(cx, 'wgmma', sa, true, [M, K], eb);
  }
  if (B.mnMajor && !kind.transposable) cx.fail(`wgmma ${kind.input} reads B K-major only, but the staged b is [K, N]`);
  if (A.mnMajor && !kind.transposable) cx.fail(`wgmma ${kind.input} reads A K-major only, but the staged a is [K, M]`);
  // generic-proxy writes (st.shared here, cp.async in the pipeliner's ring) -> the async proxy
  if (sabotage !== 'no-proxy-fence') cx.emit('fence.proxy.async.shared::cta;');
  if (aTile || bTile) cx.barrier();

  // descriptors: one per operand tile, moved by constants per m block, n block and k-step;
  // warpgroup wg's A rows start at 64*wg
  const descA = A.tile ? emitDesc(cx, A.tile.base, A.tile, A.mnMajor) : undefined;
  if (descA && W === 8) {
    const { warp } = cx.thread();
    const wg = cx.reg('b32'), off = cx.reg('b64');
    cx.emit(`shr.u32 ${wg}, ${warp}, 2;`);
    cx.emit(`mul.wide.u32 ${off}, ${wg}, ${sliceOffset(A.tile!, A.mnMajor, 64, 0, eb) >> 4};`);
    cx.emit(`add.s64 ${descA}, ${descA}, ${off};`);
  }
  const descB = emitDesc(cx, B.tile!.base, B.tile!, B.mnMajor);

  // a zero accumulator is not materialized: each fragment's first wgmma has scale-d 0 (D = A*B)
  const zero = zeroConst(cx, op.operands[2]!);
  const acc = mmaAccum(cx, kind, r.type.elem, regSlots(L, [M, N]), accIn, cx.mayClobber(op, 2));
  const scale = cx.reg('pred');
  cx.emit(`setp.ne.b32 ${scale}, 1, 0;`);
  const noScale = zero ? cx.reg('pred') : scale;
  if (zero) cx.emit(`setp.ne.b32 ${noScale}, 0, 0;`);
  const MI = M / (16 * W); // m64 blocks per warpgroup
  // D lists per (m block, n block); wgmma reads and writes D (no separate C): where the fragment's
  // input is another register (a fresh accumulator), it is copied in first, unless scale-d 0
  const dOf: string[][] = [];
  for (let i = 0; i < MI; i++) for (let nb = 0; nb < N / NI; nb++) {
    const d: string[] = [];
    for (let j = 0; j < NI / 8; j++) {
      const f = acc.frag(i * 16 * W, i * 16 * W + 8, nb * NI + 8 * j);
      d.push(f.d);
      if (zero || f.c === f.d) continue;
      const cs = f.c.split(', ');
      f.d.split(', ').forEach((x, k) => x !== cs[k] && cx.emit(`mov.b32 ${x}, ${cs[k]};`));
    }
    dOf.push(d);
  }
  const aFrags: string[][][] = [];
  if (aRegs) for (let i = 0; i < MI; i++) aFrags.push(Array.from({ length: K / kind.k }, (_, kk) => aRegs(i, kk)));
  const order = issueOrderOf.get(cx)?.get(op);
  order?.before();
  cx.emit('wgmma.fence.sync.aligned;');
  const instr = wgmmaInstr(kind, NI);
  const imm = immediates(kind, !!aRegs, A.mnMajor, B.mnMajor);
  for (let i = 0; i < MI; i++) {
    const r0 = i * 16 * W;
    for (let nb = 0; nb < N / NI; nb++) {
      const d = dOf[i * (N / NI) + nb]!;
      for (let kk = 0; kk < K / kind.k; kk++) {
        const aOp = aRegs ? `{${aFrags[i]![kk]!.join(', ')}}` : descPlus(cx, descA!, sliceOffset(A.tile!, A.mnMajor, r0, kk * kind.k, eb));
        const bOp = descPlus(cx, descB, sliceOffset(B.tile!, B.mnMajor, nb * NI, kk * kind.k, eb));
        cx.emit(`${instr} {${d.join(', ')}}, ${aOp}, ${bOp}, ${kk === 0 ? noScale : scale}${imm};`);
      }
    }
  }
  cx.emit('wgmma.commit_group.sync.aligned;');
  order?.after();
  if (sabotage !== 'no-wait') cx.emit(`wgmma.wait_group.sync.aligned ${pendingOf.get(cx)?.get(op) ?? 0};`);
  // the wgmma that read a ring's stage has completed (wait 0; overlapped: wait 1 completed the
  // previous iteration's, whose stage the ring then refills): the ring may overwrite it
  sa?.release?.();
  sb?.release?.();
  cx.define(r, acc.result());
  return true;
}

/**
 * The A fragments (4 b32 registers of m64 block i at k-step kk) read from `a`'s registers, when a
 * is 16-bit and already in the wgmma accumulator layout (the same rows per warp as the dot's).
 * PTX ISA register-A fragment: register q holds row g + 8*(q&1), columns 2t + 8*(q>>1) .. +1 of
 * the warp's 16 rows - the accumulator's (c0,c1)/(c2,c3) pairs of n8 blocks 2kk and 2kk+1.
 */
function aFragsFromAcc(cx: Lowering, kind: WgmmaKind, a: Value, W: number): ((i: number, kk: number) => string[]) | undefined {
  const [M, K] = a.type.shape as [number, number];
  const L = cx.layoutOf(a);
  if (kind.bytes !== 2 || !isWgmmaLayout(L, M, W)) return undefined;
  const regs = cx.regs(a);
  const reg = (i: number): string => regs[regs.length === 1 ? 0 : i]!;
  const at = new Map(regSlots(L, [M, K]).map((s, i) => [`${s.off[0]},${s.off[1]}`, i]));
  const pack = (r: number, c: number): string => {
    const lo = reg(at.get(`${r},${c}`)!), hi = reg(at.get(`${r},${c + 1}`)!);
    const known = cx.wordOf(lo, hi);
    if (known) return known;
    const w = cx.reg('b32');
    cx.emit(`mov.b32 ${w}, {${lo}, ${hi}};`);
    return w;
  };
  return (i, kk) => {
    const r0 = i * 16 * W;
    return [pack(r0, 16 * kk), pack(r0 + 8, 16 * kk), pack(r0, 16 * kk + 8), pack(r0 + 8, 16 * kk + 8)];
  };
}
