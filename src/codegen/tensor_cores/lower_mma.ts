// dot on tensor cores: mma.sync m16n8k16 (f16/bf16), m16n8k8 (tf32), m16n8k32 (s8/u8, fp8: mma_fp8.ts); the
// form per dtype is the table in compiler/mma_kinds.ts. The accumulator lives in the mma layout
// (compiler/layout.ts `mmaLayout`, warp grid from compiler/mma_warps.ts: a blocked layout whose per-thread pairs are the c0..c3
// fragment registers). a and b are staged in shared memory as swizzled tiles (smem_swizzle.ts, the
// layout the cp.async ring and Hopper's TMA and wgmma use too): the XOR of each 16-byte chunk with
// the row's position in its 8-row repeat puts the 8 rows of every ldmatrix phase in 8 distinct
// bank groups (no bank conflicts) with no padding. a is read with ldmatrix.x4 (one m16 x 32-byte
// fragment), 16-bit b with ldmatrix.x4.trans (two n8k16 fragments; a b whose layout runs along k
// is staged transposed, [N, K], and read with plain ldmatrix.x4), tf32 and 8-bit b with scalar
// loads from plain padded rows (mma_fragments.ts); mma_accum.ts holds the C/D fragments in the
// instruction's type. Lane addresses are one register per 8-row swizzle class (swizzle_addr.ts),
// the k-loop's other offsets immediates or XORs. An a already in the accumulator layout with
// warps along M (P in attention) stays in registers (mma_a_regs.ts); a loop-invariant a (Q) is
// read into fragments once, before its loop (mma_a_hoist.ts).
import type { Op, Value } from '../../ir/ops.js';
import { isFp8, type ElemType } from '../../ir/types.js';
import { ctaTile, isMmaLayout, permuteBlocked, regSlots, type Layout } from '../../compiler/layout.js';
import { dotInputPrecision, mmaKindOf, type MmaKind } from '../../compiler/mma_kinds.js';
import { addrStr, type Lowering, type SmemAddr } from '../context.js';
import { mmaAccum, mmaInstr } from './mma_accum.js';
import { aFragsInRegs, preloadedA } from './mma_a_regs.js';
import { bScalarLane, loadScalarB, packBytes, scalarBPitch, stagedBytes, tf32Regs } from './mma_fragments.js';
import { SWIZZLE_ALIGN, swizzleFor } from '../smem/smem_swizzle.js';
import { stagedTile, type StagedTile } from '../smem/staged.js';
import { prologueSink, slotOffsets, SwizzledLanes, type TileGeom } from '../smem/swizzle_addr.js';
import { fp8MmaInstr, fp8StepAsF16, fp8WordToF16x2, hasFp8Mma, isFp8Kind } from './mma_fp8.js';

const stagedDesc = (t: StagedTile): string => `${t.transposed ? 'transposed ' : ''}${t.rows} rows of ${t.rowBytes} bytes`;

const alignUp = (n: number, a: number): number => Math.ceil(n / a) * a;

/** The swizzled geometry of a [rows, rowBytes] tile staged in the scratch. */
const scratchGeom = (rows: number, rowBytes: number): TileGeom => ({ rows, rowBytes, swizzle: swizzleFor(rowBytes) });

/**
 * Writes a tile to shared memory for the mma, packed (stagedBytes: 1, 2 or 4 bytes an element)
 * in geometry `g` at `bias` (a register or symbol) + `baseBytes`; rows of a row-contiguous
 * blocked layout go out as one st.shared of up to 16 bytes per thread (a 16-byte chunk stays
 * whole under the swizzle; plain rows as wide as their pitch's alignment allows), else element
 * by element.
 */
export function storeStaged(cx: Lowering, t: ElemType, regs: string[], l: Layout, shape: readonly number[], g: TileGeom, bias: string, baseBytes: number): void {
  const eb = stagedBytes(t);
  const b = l.kind === 'blocked' ? l : undefined;
  const cta = b ? ctaTile(b) : [];
  const rowAlign = g.swizzle ? 16 : g.rowBytes & -g.rowBytes;
  const align = Math.min(16, rowAlign, baseBytes === 0 ? 16 : baseBytes & -baseBytes);
  const v = b && b.order[0] === 1 && cta.every((c, d) => c <= shape[d]!) ? Math.min(align / eb, b.sizePerThread[1]!) : 1;
  // fp8 lives in 16-bit registers; the byte packing below works on b32 words
  const byte32 = (r: string): string => {
    if (!isFp8(t)) return r;
    const w = cx.reg('b32');
    cx.emit(`cvt.u32.u16 ${w}, ${r};`);
    return w;
  };
  const per = 4 / eb; // elements per 32-bit word
  const offs = slotOffsets(cx, l, shape, eb, g, bias);
  const addr = (i: number): SmemAddr => {
    const o = offs(i);
    return { reg: o.reg, imm: o.imm + baseBytes };
  };
  const n = regSlots(l, shape).length;
  if (v < per || regs.length === 1) {
    for (let i = 0; i < n; i++) cx.emit(`st.shared.b${8 * eb} ${addrStr(addr(i))}, ${byte32(regs[regs.length === 1 ? 0 : i]!)};`);
    return;
  }
  for (let i = 0; i < n; i += v) {
    const words: string[] = [];
    for (let k = 0; k < v; k += per) {
      if (per === 1) words.push(regs[i + k]!);
      else if (per === 4) {
        // bytes just unpacked from a loaded word go back as that word
        const b = regs.slice(i + k, i + k + 4);
        words.push(cx.byteWordOf(b) ?? packBytes(cx, b.map(byte32)));
      }
      else {
        // halves just unpacked from a loaded word go back as that word
        let w = cx.wordOf(regs[i + k]!, regs[i + k + 1]!);
        if (!w) {
          w = cx.reg('b32');
          cx.emit(`mov.b32 ${w}, {${regs[i + k]}, ${regs[i + k + 1]}};`);
        }
        words.push(w);
      }
    }
    const st = words.length === 1 ? 'st.shared.b32' : `st.shared.v${words.length}.b32`;
    cx.emit(`${st} ${addrStr(addr(i))}, ${words.length === 1 ? words[0] : `{${words.join(', ')}}`};`);
  }
}

/** The lane's coordinates for ldmatrix addressing (prologue): warp (wm, wn), lane&7, bits 3 and 4. */
export function laneCoords(cx: Lowering, WN: number): { wm: string; wn: string; rr: string; t0: string; t1: string } {
  const { lane, warp } = cx.thread();
  const P = (s: string): void => cx.e.emitPrologue(s);
  const q = (): string => cx.reg('b32');
  const wm = q(), wn = q(), mi = q(), rr = q(), t0 = q(), t1 = q();
  P(`shr.u32 ${wm}, ${warp}, ${Math.log2(WN)};`);
  P(`and.b32 ${wn}, ${warp}, ${WN - 1};`);
  P(`shr.u32 ${mi}, ${lane}, 3;`);
  P(`and.b32 ${rr}, ${lane}, 7;`);
  P(`and.b32 ${t0}, ${mi}, 1;`);
  P(`shr.u32 ${t1}, ${mi}, 1;`);
  return { wm, wn, rr, t0, t1 };
}

/**
 * Lane (row, byte column < colSpan) registers -> addresses at (row + dr, column + dc) in a tile
 * read by ldmatrix: a register per 8-row class, the k-step's chunk bits XORed in once per
 * execution (swizzle_addr.ts `atXor`), a ring's stage base added once per execution.
 */
export function ldmatrixLanes(cx: Lowering, g: TileGeom, row: string, col: string, colSpan: number, staged: StagedTile | undefined, bias: () => string): (dr: number, dc: number) => SmemAddr {
  const ln = new SwizzledLanes(prologueSink(cx), g, row, col, { align: 16, span: colSpan }, staged ? undefined : bias());
  const made = new Map<string, string>();
  const once = (key: string, line: (r: string) => string): string => {
    let r = made.get(key);
    if (!r) {
      r = cx.reg('b32');
      cx.emit(line(r));
      made.set(key, r);
    }
    return r;
  };
  return (dr, dc) => {
    const at = ln.atXor(dr, dc);
    let r = at.reg;
    if (staged) r = once(`${r}+`, (d) => `add.u32 ${d}, ${at.reg}, ${staged.base};`);
    const rb = r;
    if (at.xor) r = once(`${rb}^${at.xor}`, (d) => `xor.b32 ${d}, ${rb}, ${at.xor};`);
    return { reg: r, imm: at.imm };
  };
}

/** a's ldmatrix.x4 addresses: lane row 8*wm + (lane&7) + 8*WM*(lane>>3 & 1), byte column 16*(lane>>4). */
export function aLanes(cx: Lowering, WM: number, WN: number, gA: TileGeom, staged: StagedTile | undefined, bias: () => string): (dr: number, dc: number) => SmemAddr {
  const { wm, rr, t0, t1 } = laneCoords(cx, WN);
  const P = (s: string): void => cx.e.emitPrologue(s);
  const row = cx.reg('b32'), row1 = cx.reg('b32'), col = cx.reg('b32');
  P(`mad.lo.u32 ${row}, ${t0}, ${8 * WM}, ${rr};`);
  P(`mad.lo.u32 ${row1}, ${wm}, 8, ${row};`);
  P(`shl.b32 ${col}, ${t1}, 4;`);
  return ldmatrixLanes(cx, gA, row1, col, 32, staged, bias);
}

/** The a fragments of m16 tile t at k-step kk: one ldmatrix.x4 (tf32: rounded as loaded). */
export function loadAFrag(cx: Lowering, kind: MmaKind, at: (dr: number, dc: number) => SmemAddr, WM: number, t: number, kk: number): string[] {
  const f = [0, 1, 2, 3].map(() => cx.reg('b32'));
  cx.emit(`ldmatrix.sync.aligned.m8n8.x4.shared.b16 {${f.join(', ')}}, ${addrStr(at(t * 16 * WM, kk * 32))};`);
  // tf32: shared memory holds the f32 inputs; each fragment is rounded (cvt.rna) as it is
  // loaded, so the mma never sees the low 13 bits (and copies into shared stay raw bytes)
  return kind.input === 'tf32' ? tf32Regs(cx, f) : f;
}

/** Lowers `op` on tensor cores; false when the dot is not in the mma layout (caller uses FMA). */
export function mmaDot(cx: Lowering, op: Op): boolean {
  const [a, b] = op.operands as [Value, Value];
  const r = op.results[0]!;
  const L = cx.layoutOf(r);
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const ti = a.type.elem;
  const tc = r.type.elem;
  // the layout pass chose tensor cores (and the warp grid) when it gave the result an mma layout
  const kind = mmaKindOf(ti, b.type.elem, tc, dotInputPrecision(op));
  if (!kind || K % kind.k !== 0 || !isMmaLayout(L, M, N, cx.numWarps)) return false;
  const mma = L;
  const [WM, WN] = mma.warpsPerCTA as [number, number];
  const TM = M / (16 * WM); // m16 tiles per warp
  const TN = N / (8 * WN); // n8 tiles per warp
  const eb = kind.bytes;
  // where each operand comes from: a from registers (already in a matching accumulator layout,
  // mma_a_regs.ts, or loaded before the loop: mma_a_hoist.ts), an operand a ring staged
  // (stagedTile), or the scratch
  const aRegs = preloadedA(cx, op) ?? aFragsInRegs(cx, kind, a, WM);
  const sa = aRegs ? undefined : stagedTile(cx, a);
  const sb = stagedTile(cx, b);
  if (sa && (sa.transposed || sa.rows !== M || sa.rowBytes !== K * eb)) cx.fail(`dot: operand a staged as ${stagedDesc(sa)}, expected [${M}, ${K}] of ${eb}-byte elements`);
  if (sb && (eb !== 2 || (sb.transposed ? sb.rows !== N || sb.rowBytes !== K * 2 : sb.rows !== K || sb.rowBytes !== N * 2))) {
    cx.fail(`dot: operand b staged as ${stagedDesc(sb)}, expected [${K}, ${N}] or its transpose of 2-byte elements`);
  }
  const stageA = !aRegs && !sa, stageB = !sb;
  // a 16-bit b whose layout runs along k first (K^T in attention) is staged as its transpose
  // [N, K], so a thread's and a warp's stores go along rows (wide, no bank conflicts), and
  // non-.trans ldmatrix reads the same fragments (bT below); a ring may hold b transposed too
  const Lb = cx.layoutOf(b);
  const LbT = !sb && eb === 2 && Lb.kind === 'blocked' && Lb.order[0] === 0 ? Lb : undefined;
  const bT = sb ? sb.transposed : LbT !== undefined;
  const gA: TileGeom = sa ?? scratchGeom(M, K * eb);
  // tf32 and 8-bit b: scalar loads from plain rows padded so the 32 lanes hit 32 banks
  const gB: TileGeom = sb ?? (eb !== 2 ? { rows: K, rowBytes: scalarBPitch(kind, N), swizzle: 0 } : bT ? scratchGeom(N, K * 2) : scratchGeom(K, N * 2));
  const bOff = stageA ? alignUp(M * K * eb, gB.swizzle ? SWIZZLE_ALIGN : 16) : 0;

  // per-lane ldmatrix row addresses (lane l feeds row l&7 of matrix l>>3), computed once
  const { lane } = cx.thread();
  const P = (s: string): void => cx.e.emitPrologue(s);
  const q = (): string => cx.reg('b32');
  const sm = q();
  // the accumulator first: converting it to the mma layout goes through the same shared scratch
  const accIn = cx.operand(op, 2);
  if (stageA || stageB) {
    cx.needShared(bOff + (stageB ? gB.rows * gB.rowBytes : 0));
    P(`mov.u32 ${sm}, ${cx.smemBase()};`);
    cx.barrier();
    if (stageA) storeStaged(cx, ti, cx.regs(a), cx.layoutOf(a), [M, K], gA, sm, 0);
    if (LbT) storeStaged(cx, ti, cx.regs(b), permuteBlocked(LbT, [1, 0]), [N, K], gB, sm, bOff);
    else if (stageB) storeStaged(cx, ti, cx.regs(b), Lb, [K, N], gB, sm, bOff);
    cx.barrier();
  }
  const bBase = (): string => {
    const r = q();
    P(`add.u32 ${r}, ${sm}, ${bOff};`);
    return r;
  };

  const { wm, wn, rr, t0, t1 } = laneCoords(cx, WN);
  const aAt = aRegs ? undefined : aLanes(cx, WM, WN, gA, sa, () => sm);
  let bAt: ((dr: number, dc: number) => SmemAddr) | undefined;
  let bLane = '';
  const pb = gB.rowBytes;
  if (bT) {
    // b^T (ldmatrix): n-row 8*wn + 8*WN*(mi>>1) + (lane&7), byte column 16*(mi&1): matrices
    // (tile j, k 0-7), (tile j, k 8-15), then tile j+1: b0, b1 of two n8 tiles
    const row = q(), col = q();
    P(`mad.lo.u32 ${row}, ${t1}, ${WN}, ${wn};`);
    P(`mad.lo.u32 ${row}, ${row}, 8, ${rr};`);
    P(`shl.b32 ${col}, ${t0}, 4;`);
    bAt = ldmatrixLanes(cx, gB, row, col, 32, sb, bBase);
  } else if (eb === 2) {
    // b (ldmatrix.trans): k-row (lane&7) + 8*(mi&1), column 8*wn + 8*WN*(mi>>1)
    const row = q(), col = q();
    P(`mad.lo.u32 ${row}, ${t0}, 8, ${rr};`);
    P(`mad.lo.u32 ${col}, ${t1}, ${WN}, ${wn};`); // n-tile wn + WN*(mi>>1), in units of 8 columns
    P(`shl.b32 ${col}, ${col}, 4;`);
    bAt = ldmatrixLanes(cx, gB, row, col, 32 * WN, sb, bBase);
  } else {
    // the rings stage 2-byte operands only: tf32 and 8-bit b come from the scratch
    bLane = bScalarLane(cx, kind, lane, wn, pb, bBase());
  }

  // a carried accumulator used by this dot only is accumulated in place (no copy in, none out)
  const acc = mmaAccum(cx, kind, tc, regSlots(L, [M, N]), accIn, cx.mayClobber(op, 2));
  // fp8: the fp8 form on sm_89+; on sm_80 each k32 step becomes two f16 mmas (mma_fp8.ts)
  const fp8 = isFp8Kind(kind);
  const f16Steps = fp8 && !hasFp8Mma(cx);
  const instr = !fp8 ? mmaInstr(kind) : f16Steps ? mmaInstr({ input: 'f16', k: 16, bytes: 2, acc: kind.acc }) : fp8MmaInstr(cx, kind);
  const widen = (fmt: MmaKind['input'], regs: string[]): (readonly [string, string])[] =>
    regs.map((w) => fp8WordToF16x2(cx, fmt as 'e4m3' | 'e5m2', w));
  for (let kk = 0; kk < K / kind.k; kk++) {
    const af: string[][] = [];
    for (let t = 0; t < TM; t++) {
      if (aRegs) {
        af.push(aRegs(t, kk));
        continue;
      }
      af.push(loadAFrag(cx, kind, aAt!, WM, t, kk));
    }
    const bf: string[][] = [];
    for (let j = 0; j < TN; j += eb === 2 ? 2 : 1) {
      if (eb !== 2) {
        bf.push(loadScalarB(cx, kind, bLane, pb, kk, j, WN));
        continue;
      }
      const at = bT ? bAt!(j * 8 * WN, kk * 32) : bAt!(kk * 16, j * 8 * WN * 2);
      const tr = bT ? '' : '.trans';
      if (j + 1 < TN) {
        const f = [q(), q(), q(), q()];
        cx.emit(`ldmatrix.sync.aligned.m8n8.x4${tr}.shared.b16 {${f.join(', ')}}, ${addrStr(at)};`);
        bf.push([f[0]!, f[1]!], [f[2]!, f[3]!]);
      } else {
        const f = [q(), q()];
        cx.emit(`ldmatrix.sync.aligned.m8n8.x2${tr}.shared.b16 {${f.join(', ')}}, ${addrStr(at)};`);
        bf.push(f);
      }
    }
    // the last k-step's fragments are in registers: a ring may start overwriting the stage
    if (kk === K / kind.k - 1) {
      sa?.release?.();
      sb?.release?.();
    }
    if (f16Steps) {
      const aw = af.map((f) => widen(kind.input, f)), bw = bf.map((f) => widen(kind.inputB ?? kind.input, f));
      for (let t = 0; t < TM; t++) {
        for (let j = 0; j < TN; j++) {
          // the first of the two f16 mmas reads C from the fragment's input, the second its own D
          const f = acc.frag(2 * t * 8 * WM, (2 * t + 1) * 8 * WM, j * 8 * WN);
          fp8StepAsF16(aw[t]!, bw[j]!).forEach((h, n) => cx.emit(`${instr} {${f.d}}, {${h.a.join(', ')}}, {${h.b.join(', ')}}, {${n === 0 ? f.c : f.d}};`));
        }
      }
      continue;
    }
    for (let t = 0; t < TM; t++) {
      for (let j = 0; j < TN; j++) {
        const f = acc.frag(2 * t * 8 * WM, (2 * t + 1) * 8 * WM, j * 8 * WN);
        cx.emit(`${instr} {${f.d}}, {${af[t]!.join(', ')}}, {${bf[j]!.join(', ')}}, {${f.c}};`);
      }
    }
  }
  cx.define(r, acc.result());
  return true;
}
