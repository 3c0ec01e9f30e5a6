// dot on tensor cores: mma.sync.m16n8k16 (f16/bf16 inputs, f32 accumulate).
// The accumulator lives in the mma layout (compiler/layout.ts `mmaLayout`: a blocked layout
// whose per-thread pairs are the c0..c3 fragment registers). a and b are staged row-major in
// shared memory with rows padded to an odd number of 16-byte chunks, which makes every 8-lane
// phase of ldmatrix touch 8 distinct 16-byte bank groups (no bank conflicts). a is read with
// ldmatrix.x4 (one m16k16 fragment), b with ldmatrix.x4.trans (two n8k16 fragments).
import type { Op, Value } from '../ir/ops.js';
import type { ElemType } from '../ir/types.js';
import { ctaTile, layoutKey, regSlots, type Layout } from '../compiler/layout.js';
import { mmaLayoutOf } from '../compiler/layout_assign.js';
import { addrStr, type Lowering } from './context.js';
import { fromF32, toF32 } from './lower_elementwise.js';
import { storeTile } from './lower_shared.js';
import { isHalf } from './ptx_types.js';
import { stagedTile, type StagedTile } from './staged.js';

/** Row pitch in bytes: `bytes` rounded up to an odd number of 16-byte chunks. */
export const paddedPitch = (bytes: number): number => {
  const chunks = Math.ceil(bytes / 16);
  return (chunks % 2 === 1 ? chunks : chunks + 1) * 16;
};

/**
 * Writes a 2-byte-element tile to shared memory with row pitch `pitch` bytes; rows of a
 * row-contiguous blocked layout go out as one st.shared of up to 16 bytes per thread.
 */
export function storeStaged(cx: Lowering, t: ElemType, regs: string[], l: Layout, shape: readonly number[], pitch: number, baseBytes: number): void {
  const strides = [pitch / 2, 1];
  const b = l.kind === 'blocked' ? l : undefined;
  const cta = b ? ctaTile(b) : [];
  const v = b && b.order[0] === 1 && cta.every((c, d) => c <= shape[d]!) ? Math.min(8, b.sizePerThread[1]!) : 1;
  if (v < 2 || regs.length === 1) return storeTile(cx, t, regs, l, shape, strides, baseBytes);
  const addrs = cx.linearAddrs(l, shape, 2, strides, baseBytes);
  for (let i = 0; i < addrs.length; i += v) {
    const words: string[] = [];
    for (let k = 0; k < v; k += 2) {
      const w = cx.reg('b32');
      cx.emit(`mov.b32 ${w}, {${regs[i + k]}, ${regs[i + k + 1]}};`);
      words.push(w);
    }
    const st = words.length === 1 ? 'st.shared.b32' : `st.shared.v${words.length}.b32`;
    cx.emit(`${st} ${addrStr(addrs[i]!)}, ${words.length === 1 ? words[0] : `{${words.join(', ')}}`};`);
  }
}

/**
 * Adds the tile's shared address to the lane offset `lane`: once, in the prologue, for the
 * scratch (base `sm` + `off`); per execution for a staged tile (its stage changes per iteration).
 */
function stageAt(cx: Lowering, lane: string, staged: StagedTile | undefined, sm: string, off: number): void {
  if (!staged) {
    cx.e.emitPrologue(`add.u32 ${lane}, ${lane}, ${sm};`);
    if (off) cx.e.emitPrologue(`add.u32 ${lane}, ${lane}, ${off};`);
    return;
  }
  const rel = cx.reg('b32');
  cx.e.emitPrologue(`mov.u32 ${rel}, ${lane};`);
  cx.emit(`add.u32 ${lane}, ${rel}, ${staged.base};`);
}

/** Lowers `op` on tensor cores; false when the dot is not in the mma layout (caller uses FMA). */
export function mmaDot(cx: Lowering, op: Op): boolean {
  const [a, b] = op.operands as [Value, Value];
  const r = op.results[0]!;
  const L = cx.layoutOf(r);
  const mma = mmaLayoutOf(op, cx.numWarps);
  if (!mma || layoutKey(L) !== layoutKey(mma)) return false;
  const [M, K] = a.type.shape as [number, number];
  const N = b.type.shape[1]!;
  const ti = a.type.elem;
  const tc = r.type.elem;
  const [WM, WN] = mma.warpsPerCTA as [number, number];
  const TM = M / (16 * WM); // m16 tiles per warp
  const TN = N / (8 * WN); // n8 tiles per warp
  const pa = paddedPitch(K * 2);
  const pb = paddedPitch(N * 2);
  const bOff = M * pa;
  // an operand the pipeliner already staged (stagedTile) is read where it is
  const sa = stagedTile(cx, a), sb = stagedTile(cx, b);
  if (!sa || !sb) {
    cx.needShared(bOff + K * pb);
    cx.barrier();
    if (!sa) storeStaged(cx, ti, cx.regs(a), cx.layoutOf(a), [M, K], pa, 0);
    if (!sb) storeStaged(cx, ti, cx.regs(b), cx.layoutOf(b), [K, N], pb, bOff);
    cx.barrier();
  }

  // per-lane ldmatrix row addresses (lane l feeds row l&7 of matrix l>>3), computed once
  const { lane, warp } = cx.thread();
  const P = (s: string): void => cx.e.emitPrologue(s);
  const q = (): string => cx.reg('b32');
  const wm = q(), wn = q(), mi = q(), rr = q(), t0 = q(), aLane = q(), bLane = q();
  P(`shr.u32 ${wm}, ${warp}, ${Math.log2(WN)};`);
  P(`and.b32 ${wn}, ${warp}, ${WN - 1};`);
  P(`shr.u32 ${mi}, ${lane}, 3;`);
  P(`and.b32 ${rr}, ${lane}, 7;`);
  // a: row 8*wm + (lane&7) + 8*WM*(mi&1), byte column 16*(mi>>1)
  P(`and.b32 ${t0}, ${mi}, 1;`);
  P(`mad.lo.u32 ${aLane}, ${t0}, ${8 * WM}, ${rr};`);
  P(`mad.lo.u32 ${aLane}, ${wm}, 8, ${aLane};`);
  P(`mul.lo.u32 ${aLane}, ${aLane}, ${pa};`);
  // b: k-row (lane&7) + 8*(mi&1), column 8*wn + 8*WN*(mi>>1)
  P(`mad.lo.u32 ${bLane}, ${t0}, 8, ${rr};`);
  P(`mul.lo.u32 ${bLane}, ${bLane}, ${pb};`);
  P(`shr.u32 ${t0}, ${mi}, 1;`);
  P(`mad.lo.u32 ${aLane}, ${t0}, 16, ${aLane};`);
  P(`mad.lo.u32 ${t0}, ${t0}, ${WN}, ${wn};`); // n-tile wn + WN*(mi>>1), in units of 8 columns
  P(`mad.lo.u32 ${bLane}, ${t0}, 16, ${bLane};`);
  const sm = q();
  if (!sa || !sb) P(`mov.u32 ${sm}, ${cx.smemBase()};`);
  stageAt(cx, aLane, sa, sm, 0);
  stageAt(cx, bLane, sb, sm, bOff);

  // accumulator registers in f32, indexed by slot offset
  const slots = regSlots(L, [M, N]);
  const accIn = cx.operand(op, 2);
  const acc = slots.map((_, i) => {
    const d = cx.reg('f32');
    const src = accIn[accIn.length === 1 ? 0 : i]!;
    cx.emit(`mov.f32 ${d}, ${isHalf(tc) ? toF32(cx, tc, src) : src};`);
    return d;
  });
  const at = new Map(slots.map((s, i) => [`${s.off[0]},${s.off[1]}`, i]));
  const accAt = (row: number, col: number): string => acc[at.get(`${row},${col}`)!]!;

  const ty = ti === 'bf16' ? 'bf16' : 'f16';
  for (let kk = 0; kk < K / 16; kk++) {
    const af: string[][] = [];
    for (let t = 0; t < TM; t++) {
      const f = [q(), q(), q(), q()];
      cx.emit(`ldmatrix.sync.aligned.m8n8.x4.shared.b16 {${f.join(', ')}}, ${addrStr({ reg: aLane, imm: t * 16 * WM * pa + kk * 32 })};`);
      af.push(f);
    }
    const bf: string[][] = [];
    for (let j = 0; j < TN; j += 2) {
      const imm = kk * 16 * pb + j * 8 * WN * 2;
      if (j + 1 < TN) {
        const f = [q(), q(), q(), q()];
        cx.emit(`ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {${f.join(', ')}}, ${addrStr({ reg: bLane, imm })};`);
        bf.push([f[0]!, f[1]!], [f[2]!, f[3]!]);
      } else {
        const f = [q(), q()];
        cx.emit(`ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {${f.join(', ')}}, ${addrStr({ reg: bLane, imm })};`);
        bf.push(f);
      }
    }
    for (let t = 0; t < TM; t++) {
      for (let j = 0; j < TN; j++) {
        const r0 = 2 * t * 8 * WM, r1 = (2 * t + 1) * 8 * WM, c = j * 8 * WN;
        const d = [accAt(r0, c), accAt(r0, c + 1), accAt(r1, c), accAt(r1, c + 1)].join(', ');
        cx.emit(`mma.sync.aligned.m16n8k16.row.col.f32.${ty}.${ty}.f32 {${d}}, {${af[t]!.join(', ')}}, {${bf[j]!.join(', ')}}, {${d}};`);
      }
    }
  }
  if (isHalf(tc)) {
    const out = cx.newRegs(tc, acc.length);
    acc.forEach((f, i) => fromF32(cx, tc, f, out[i]!));
    cx.define(r, out);
  } else cx.define(r, acc);
  return true;
}
