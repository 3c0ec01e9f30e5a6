// dot_scaled on a block-scaled tcgen05 kind (sm_100a; PTX ISA "Block Scaling" of tcgen05.mma):
// the ops compiler/tcgen05_scaled.ts keeps (e4m3/e5m2 on mxf8f6f4, packed e2m1 on mxf4 with ue8m0
// scales or on mxf4nvf4 with ue4m3 ones (nvfp4), M 128). One op, in order:
//   operands   a [M, K] and b's transpose [N, K] as bytes (one e4m3/e5m2 code, or two packed
//              e2m1 codes along K), K-major in swizzled shared tiles (the 8-bit tiles
//              lower_tcgen05.ts stages for kind::f8f6f4); on mxf8f6f4, e2m3 / e3m2 / e2m1 in
//              padded 8-bit containers (tcgen05_padded_operand.ts)
//   scales     each scale byte s[r][g] (row r of a / column r of b, K group g) to shared memory
//              in the ((32,4),4) tile tcgen05.cp.32x128b.warpx4 reads: 512 bytes per 128 rows and
//              4 groups, row r%32 at 16-byte row r%32, byte 4*((r/32)%4) + g%4 (zeros first
//              where a chunk is not full, so every copied byte is written)
//   fences     fence.proxy.async (the copies and MMAs read shared memory through the async
//              proxy), tcgen05 fence / bar.sync / fence (every warp's stores before thread 0)
//   acc in     a non-zero accumulator tcgen05.st to TMEM (a zero one: enable_input_d false first;
//              a K loop's accumulator stays in TMEM across iterations: tcgen05_resident.ts)
//   thread 0   tcgen05.cp.32x128b.warpx4 of each scale chunk into TMEM columns after the
//              accumulator (every lane quarter gets the 32 rows: the MMA reads row r's scale in
//              lane r%32 of each quarter, column base + r/32, byte = the scale factor id), then
//              one tcgen05.mma.kind::mxf8f6f4.block_scale.scale_vec::1X per K step of 32 (mxf4:
//              .scale_vec::2X per 64, two groups; mxf4nvf4 .scale_vec::4X, four groups of 16),
//              the step starting at group g reading chunk
//              g/4 with scale factor id g%4 (the instruction descriptor's fields),
//              commit to the kernel's mbarrier. A thread's tcgen05.cp is ordered before its later
//              tcgen05.mma (the ISA pipelines them), so no wait between them.
//   epilogue   every thread waits for the phase, tcgen05.ld of the accumulator (lower_tcgen05.ts)
// Left in flight by the cp.async ring (tcgen05_inflight.ts: a and b ring tiles, the accumulator
// resident): the MMAs commit to the stage's EMPTY barrier and nothing waits here; the scales go
// to this iteration's set of TMEM columns (and of scratch, for scales from registers), the
// ring's `scaleSet` (i%2), so the next iteration's tcgen05.cp and stores leave alone what the
// MMAs still in flight read.
import type { Op, Value } from '../../ir/ops.js';
import { permuteBlocked, regSlots, type BlockedLayout } from '../../compiler/layout.js';
import { scaledK, scaledKindOf, scaledOperands, type ScaledKind } from '../../compiler/tcgen05_scaled.js';
import type { Lowering } from '../context.js';
import { containerBits, paddedScratchBytes, stageScaledOperands, type StagedOperand } from './tcgen05_padded_operand.js';
import { elected, newBarriers } from '../async/lower_tma.js';
import { SWIZZLE_ALIGN, swizzleFor } from '../smem/smem_swizzle.js';
import { zeroConst } from './mma_smem_operand.js';
import { residentOf } from './tcgen05_resident.js';
import { emitTcgen05Desc } from './tcgen05_desc.js';
import { tmem } from './tmem_alloc.js';
import { inflightOf } from './tcgen05_inflight.js';
import { scaleColumns } from '../../compiler/tcgen05_scaled.js';
import { commitAndWait, loadAcc, storeAcc, tmemRows } from './lower_tcgen05.js';
import { descPlus, sliceOffset, type SwizzledTile } from './wgmma_desc.js';
import { stagedTile, type StagedTile } from '../smem/staged.js';
import { REG_KIND } from '../ptx_types.js';

/** Bytes of one tcgen05.cp.32x128b.warpx4 source: 32 rows of 16 bytes (128 rows x 4 groups). */
const CHUNK = 512;
/** Bit 46 of a shared-memory descriptor as a bit of its high word: the fixed sm_100 version 0b001. */
const VERSION_HI = 1 << 14;

const roundUp = (x: number, m: number): number => Math.ceil(x / m) * m;

/** The kernel's mbarrier for block-scaled MMAs, and its phase register. */
const barriers = new WeakMap<Lowering, { bar: string; phase: string }>();
const mmaBarrier = (cx: Lowering): { bar: string; phase: string } => {
  let b = barriers.get(cx);
  if (!b) barriers.set(cx, (b = newBarriers(cx, 1)));
  return b;
};

/**
 * The block-scaled instruction descriptor (its own table): B's scale factor id 4-5, A type 7-9,
 * B type 10-12, N >> 3 17-22, scale type 23 (1: ue8m0, 0: ue4m3), M >> 7 27-28, A's scale factor id 29-30.
 */
export function scaledInstrDesc(kind: ScaledKind, M: number, N: number, sfId: number): number {
  return ((sfId << 4) | (kind.aCode << 7) | (kind.bCode << 10) | ((N >> 3) << 17) | (Number(!kind.ue4m3) << 23) | ((M >> 7) << 27) | (sfId << 29)) >>> 0;
}

/**
 * Stores scale tile s [R, G] (R rows of a or columns of b, G groups of 32 or 16 along K) as bytes in
 * the cp source layout at `base`: byte ((g/4)*nb + r/128)*512 + (r%32)*16 + ((r/32)%4)*4 + g%4,
 * nb = the 128-row blocks of R (chunk g/4 of block h lands in columns 4*((g/4)*nb + h)).
 */
function storeScales(cx: Lowering, s: Value, base: string, nb: number, mask: number): void {
  const l = cx.layoutOf(s);
  const shape = s.type.shape;
  const regs = cx.regs(s);
  const slots = regSlots(l, shape);
  const wide = REG_KIND[s.type.elem as keyof typeof REG_KIND] === 'b16';
  slots.forEach((slot, i) => {
    const r = cx.coordReg(l, shape, slot, 0), g = cx.coordReg(l, shape, slot, 1);
    const a = cx.reg('b32'), t = cx.reg('b32');
    cx.emit(`shr.u32 ${a}, ${g}, 2;`);
    cx.emit(`mul.lo.u32 ${a}, ${a}, ${nb};`);
    cx.emit(`shr.u32 ${t}, ${r}, 7;`);
    cx.emit(`add.u32 ${a}, ${a}, ${t};`);
    cx.emit(`shl.b32 ${a}, ${a}, 9;`); // * 512
    cx.emit(`and.b32 ${t}, ${r}, 31;`);
    cx.emit(`mad.lo.u32 ${a}, ${t}, 16, ${a};`);
    cx.emit(`bfe.u32 ${t}, ${r}, 5, 2;`);
    cx.emit(`mad.lo.u32 ${a}, ${t}, 4, ${a};`);
    cx.emit(`and.b32 ${t}, ${g}, 3;`);
    cx.emit(`add.u32 ${a}, ${a}, ${t};`);
    cx.emit(`add.u32 ${a}, ${a}, ${base};`);
    let v = regs[regs.length === 1 ? 0 : i]!;
    if (wide) {
      const w = cx.reg('b32');
      cx.emit(`cvt.u32.u16 ${w}, ${v};`);
      v = w;
    }
    if (mask !== 0xff) {
      const w = cx.reg('b32');
      cx.emit(`and.b32 ${w}, ${v}, ${mask};`);
      v = w;
    }
    cx.emit(`st.shared.b8 [${a}], ${v};`);
  });
}

/** The sm_100 descriptor of a cp source chunk at b32 shared address `addr`: no swizzle, 16-byte rows, 8-row groups 128 bytes apart. */
function chunkDesc(cx: Lowering, addr: string): string {
  const lo = cx.reg('b32'), d = cx.reg('b64');
  cx.emit(`bfe.u32 ${lo}, ${addr}, 4, 14;`);
  cx.emit(`mov.b64 ${d}, {${lo}, 0x${((128 >> 4) | VERSION_HI).toString(16)}};`);
  return d;
}

/** Lowers a kept dot_scaled (compiler/tcgen05_scaled.ts) on the block-scaled tcgen05 kind. */
export function tcgen05DotScaled(cx: Lowering, op: Op): void {
  if (cx.target !== 'sm_100a') cx.fail('a dot_scaled reached the codegen off sm_100a (compiler/inline_dot_scaled.ts inlines it elsewhere)');
  const kind = scaledKindOf(op);
  // kind::mxf4nvf4 and .scale_vec::4X are PTX ISA 8.7 (the others are in sm_100a's 8.6)
  if (kind.kindName === 'mxf4nvf4') cx.requirePtxVersion(8.7);
  const { a, sa, b, sb, acc: accV } = scaledOperands(op);
  if (!sa || !sb) cx.fail('a block-scaled dot_scaled needs both scales');
  // K in bytes of a staged tile's row (elements / perByte)
  const M = a.type.shape[0]!, K = scaledK(op) / kind.perByte;
  const N = b.type.shape[1]!;
  const G = (K * kind.perByte) / kind.group;
  /** Scale groups one MMA reads (1X: 1, 2X: 2, 4X: 4). */
  const perMma = kind.k / kind.group;
  const chunks = Math.ceil(G / 4);
  const nbB = Math.ceil(N / 128);
  // operands and scales the cp.async ring copied into its stage (compiler/pipeline_scaled.ts):
  // read there; the rest is stored from registers into the scratch
  const st = { a: stagedTile(cx, a), b: stagedTile(cx, b), sa: stagedTile(cx, sa), sb: stagedTile(cx, sb) };
  const tileOf = (rows: number): SwizzledTile => {
    const swizzle = swizzleFor(K);
    if (swizzle === 0) cx.fail(`block-scaled operand rows of ${K} bytes are narrower than the 32-byte swizzle`);
    return { rows, rowBytes: K, swizzle };
  };
  const aTile = tileOf(M), bTile = tileOf(N);
  const ringTile = (t: StagedTile | undefined, want: SwizzledTile, transposed: boolean): void => {
    if (t && (t.transposed !== transposed || t.rows !== want.rows || t.rowBytes !== want.rowBytes || t.swizzle !== want.swizzle)) cx.fail('a staged block-scaled operand is not the K-major swizzled tile the MMA reads');
  };
  ringTile(st.a, aTile, false);
  ringTile(st.b, bTile, true);
  // scratch: [a][b][a's scales][b's scales], each part only when not staged
  const aBytes = st.a ? 0 : roundUp(M * K, SWIZZLE_ALIGN), bBytes = st.b ? 0 : roundUp(N * K, SWIZZLE_ALIGN);
  const saBytes = st.sa ? 0 : chunks * CHUNK, sbBytes = st.sb ? 0 : chunks * nbB * CHUNK;
  // left in flight by its ring: two sets of the scales' scratch (and TMEM columns), i%2 this iteration's
  const resident = residentOf(cx, op);
  const flight = resident && st.a && st.b ? inflightOf(cx, op) : undefined;
  if (flight && !flight.scaleSet) cx.fail('a dot_scaled left in flight needs the ring\'s scale-column set');
  const sets = flight ? 2 : 1;
  const scratch = aBytes + bBytes + sets * (saBytes + sbBytes);
  const mem = tmem(cx);
  // the operands not on the ring, stored from registers (6-/4-bit ones of mxf8f6f4 repacked into
  // padded containers through a raw area after the scratch; the ring stages 8-bit containers only)
  const { aFormat, bFormat } = (op as Op<'dot_scaled'>).attrs;
  const aBits = containerBits(kind.kindName, aFormat), bBits = containerBits(kind.kindName, bFormat);
  if ((st.a && aBits !== 8) || (st.b && bBits !== 8)) cx.fail('a padded 6-/4-bit block-scaled operand reached the ring (compiler/pipeline_scaled.ts must refuse it)');
  const staged: StagedOperand[] = [];
  if (!st.a || !st.b) {
    const La = cx.layoutOf(a), Lb = cx.layoutOf(b);
    if (La.kind !== 'blocked' || Lb.kind !== 'blocked') cx.fail('block-scaled dot_scaled operands must be in blocked layouts');
    if (!st.a) staged.push({ elem: a.type.elem, regs: cx.regs(a), layout: La, shape: [M, a.type.shape[1]!], tile: aTile, offset: 0, bits: aBits });
    if (!st.b) staged.push({ elem: b.type.elem, regs: cx.regs(b), layout: permuteBlocked(Lb as BlockedLayout, [1, 0]), shape: [N, b.type.shape[0]!], tile: bTile, offset: aBytes, bits: bBits });
  }
  const total = scratch + paddedScratchBytes(staged);

  // a loop's resident accumulator (tcgen05_resident.ts) stays in TMEM: nothing to store or load
  const zero = !resident && zeroConst(cx, accV);
  const accIn = zero || resident ? undefined : cx.operand(op, op.operands.length - 1);
  const sm = cx.reg('b32');
  if (total) {
    cx.e.emitPrologue(`mov.u32 ${sm}, ${cx.smemBase(total)};`);
    // the scratch may still be read by an earlier user
    cx.barrier();
  }
  const at = (t: StagedTile | undefined, off: number): string => {
    if (t) return t.base;
    const r = cx.reg('b32');
    cx.emit(`add.u32 ${r}, ${sm}, ${off};`);
    return r;
  };
  const aBase = at(st.a, 0), bBase = at(st.b, aBytes);
  // the scales' scratch: this iteration's set in flight
  let scales = '';
  if (saBytes || sbBytes) {
    scales = cx.reg('b32');
    if (flight) {
      cx.emit(`mad.lo.u32 ${scales}, ${flight.scaleSet}, ${saBytes + sbBytes}, ${sm};`);
      cx.emit(`add.u32 ${scales}, ${scales}, ${aBytes + bBytes};`);
    } else cx.emit(`add.u32 ${scales}, ${sm}, ${aBytes + bBytes};`);
  }
  const scaleAt = (t: StagedTile | undefined, off: number): string => {
    if (t) return t.base;
    const r = cx.reg('b32');
    cx.emit(`add.u32 ${r}, ${scales}, ${off};`);
    return r;
  };
  const saBase = scaleAt(st.sa, 0), sbBase = scaleAt(st.sb, saBytes);
  if (staged.length) stageScaledOperands(cx, sm, staged, scratch);
  if ((saBytes || sbBytes) && (G % 4 !== 0 || N % 128 !== 0)) {
    // bytes no scale lands in are copied too: zero them first (one word a thread a round)
    const words = (saBytes + sbBytes) / 4, T = cx.numWarps * 32;
    const { tid } = cx.thread();
    const w = cx.reg('b32'), p = cx.reg('pred'), z = cx.reg('b32');
    cx.emit(`mov.b32 ${z}, 0;`);
    for (let i = 0; i < words; i += T) {
      cx.emit(`add.u32 ${w}, ${tid}, ${i};`);
      cx.emit(`setp.lt.u32 ${p}, ${w}, ${words};`);
      cx.emit(`mad.lo.u32 ${w}, ${w}, 4, ${scales};`);
      cx.emit(`@${p} st.shared.b32 [${w}], ${z};`);
    }
    cx.barrier();
  }
  // ue4m3: dotScaled ignores the sign bit; the MMA faults on it (its scales are unsigned)
  const mask = kind.ue4m3 ? 0x7f : 0xff;
  if (!st.sa) storeScales(cx, sa, saBase, 1, mask);
  if (!st.sb) storeScales(cx, sb, sbBase, nbB, mask);
  // generic-proxy shared stores (st.shared here, cp.async in the ring) -> the async proxy
  // tcgen05.cp and tcgen05.mma read through
  cx.emit('fence.proxy.async.shared::cta;');
  const rows = tmemRows(cx, M, N);
  if (accIn) storeAcc(cx, rows, accIn, 'f32');
  cx.emit('tcgen05.fence::before_thread_sync;');
  cx.barrier();
  cx.emit('tcgen05.fence::after_thread_sync;');

  const one = elected(cx);
  // TMEM columns: the accumulator 0..N-1, A's scale chunks (4 columns each), then B's (4 * nbB each)
  // (in flight: this iteration's set of them, SC columns after the other set)
  let colBase = mem.addr;
  if (flight) {
    colBase = cx.reg('b32');
    cx.emit(`mad.lo.u32 ${colBase}, ${flight.scaleSet}, ${scaleColumns(op)}, ${mem.addr}; // this iteration's scale-column set`);
  }
  const col = (c: number): string => {
    const t = cx.reg('b32');
    cx.emit(`add.u32 ${t}, ${colBase}, ${c};`);
    return t;
  };
  const saCol = (j: number): number => N + 4 * j;
  const sbCol = (j: number): number => N + 4 * chunks + 4 * nbB * j;
  for (let j = 0; j < chunks; j++) {
    const src = cx.reg('b32');
    cx.emit(`add.u32 ${src}, ${saBase}, ${j * CHUNK};`);
    cx.emit(`@${one} tcgen05.cp.cta_group::1.32x128b.warpx4 [${col(saCol(j))}], ${chunkDesc(cx, src)};`);
    for (let h = 0; h < nbB; h++) {
      const sb2 = cx.reg('b32');
      cx.emit(`add.u32 ${sb2}, ${sbBase}, ${(j * nbB + h) * CHUNK};`);
      cx.emit(`@${one} tcgen05.cp.cta_group::1.32x128b.warpx4 [${col(sbCol(j) + 4 * h)}], ${chunkDesc(cx, sb2)};`);
    }
  }
  const descA = emitTcgen05Desc(cx, aBase, aTile, false);
  const descB = emitTcgen05Desc(cx, bBase, bTile, false);
  // MMA kk reads groups perMma*kk.. : scale factor id (its first byte in the cell) and chunk
  const ids = new Map<number, string>();
  const idOf = (id: number): string => {
    let r = ids.get(id);
    if (!r) {
      ids.set(id, (r = cx.reg('b32')));
      cx.emit(`mov.b32 ${r}, 0x${scaledInstrDesc(kind, M, N, id).toString(16)};`);
    }
    return r;
  };
  const accP = cx.reg('pred');
  cx.emit(`setp.ne.b32 ${accP}, 1, 0;`);
  let fresh = resident ? resident.started : accP;
  if (zero) {
    fresh = cx.reg('pred');
    cx.emit(`setp.ne.b32 ${fresh}, 0, 0;`);
  }
  const saRegs = Array.from({ length: chunks }, (_, j) => col(saCol(j)));
  const sbRegs = Array.from({ length: chunks }, (_, j) => col(sbCol(j)));
  for (let kk = 0; kk < G / perMma; kk++) {
    const g = kk * perMma;
    const id = idOf(g % 4);
    const ad = descPlus(cx, descA, sliceOffset(aTile, false, 0, kk * kind.kBytes, 1));
    const bd = descPlus(cx, descB, sliceOffset(bTile, false, 0, kk * kind.kBytes, 1));
    cx.emit(`@${one} tcgen05.mma.cta_group::1.kind::${kind.kindName}.block_scale.scale_vec::${kind.scaleVec} [${mem.addr}], ${ad}, ${bd}, ${id}, [${saRegs[g >> 2]}], [${sbRegs[g >> 2]}], ${kk === 0 ? fresh : accP};`);
  }
  if (flight) {
    // the stage's EMPTY barrier completes when these MMAs and copies are done: the ring waits for it
    cx.emit(`@${one} tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [${flight.commitTo}]; // the stage's empty barrier`);
    cx.emit(`setp.ne.b32 ${resident!.started}, 1, 0;`);
    cx.define(op.results[0]!, cx.regs(accV));
    return;
  }
  const { bar, phase } = mmaBarrier(cx);
  commitAndWait(cx, one, bar, phase, resident?.started, 'mma_scaled_wait');
  // the copies and MMAs have read the ring's stage: it may be overwritten
  for (const t of [st.a, st.b, st.sa, st.sb]) t?.release?.();
  // resident: the value in registers is not read (tcgen05_resident.ts loads the loop's result)
  cx.define(op.results[0]!, resident ? cx.regs(accV) : loadAcc(cx, rows, 'f32'));
}
