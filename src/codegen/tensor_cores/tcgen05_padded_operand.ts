// The 6- and 4-bit operands of kind::mxf8f6f4 in shared memory (PTX ISA, tcgen05 "Packing format
// used for matrix A and B by .kind::mxf8f6f4 in Shared Memory"): the tile is the 8-bit K-major
// canonical layout of K bytes a row (one byte slot per element), and each of its 16-byte chunks
// holds its 16 elements packed from the low bits, then padding: 16 x 6 bits = 12 bytes + 4
// (what cp.async.bulk.tensor's .b6x16_p32 writes), 16 x 4 bits = 8 bytes + 8 (.b4x16_p64);
// element k of a chunk at bit (k % 16) * bits. docs/sim-ptx.md's tcgen05.mma entry is the sim's
// reading of the same table.
//
// dotScaled's tiles hold e2m3 / e3m2 as one code a byte (its low 6 bits) and e2m1 as u8 bytes
// packed two a byte along K, low nibble first (8 such bytes are already a chunk's packed half) or
// as f4e2m1, one code a byte in its low nibble.
// Registers of a blocked layout do not hold whole chunks, so the staging goes through shared
// memory twice: every thread stores its bytes row-major into a raw scratch (storeStaged, no
// swizzle), a barrier, then each thread repacks whole chunks, one (row, chunk) unit at a time:
// 16 code bytes (6-bit, f4e2m1) or 8 packed bytes (u8 e2m1) read as words, written as one 16-byte store to
// the chunk's place in the swizzled tile (padding zero).
import type { Layout } from '../../compiler/layout.js';
import type { ElemType } from '../../ir/types.js';
import type { Lowering } from '../context.js';
import { emitSwizzledOffset } from '../smem/swizzle_addr.js';
import { storeStaged } from './lower_mma.js';
import type { SwizzledTile } from './wgmma_desc.js';

/** Bits of an element in its container: 6 (e2m3 / e3m2), 4 (e2m1), 8 (staged as it is). */
export type ContainerBits = 8 | 6 | 4;

/** The container of a dotScaled operand of `format` on kind `kindName` (mxf4* reads packed bytes as they are). */
export function containerBits(kindName: string, format: string): ContainerBits {
  if (kindName !== 'mxf8f6f4') return 8;
  return format === 'e2m1' ? 4 : format === 'e2m3' || format === 'e3m2' ? 6 : 8;
}

/** One operand to stage: its registers in `layout` over `shape` ([rows, bytes a row] as the registers hold it). */
export interface StagedOperand {
  readonly elem: ElemType;
  readonly regs: string[];
  readonly layout: Layout;
  readonly shape: readonly [number, number];
  /** the tile the MMA's descriptor reads (K bytes a row, one byte slot per element), and its byte offset from the base */
  readonly tile: SwizzledTile;
  readonly offset: number;
  readonly bits: ContainerBits;
}

/** Scratch bytes the raw copies of `ops`' padded operands take (after the tiles). */
export const paddedScratchBytes = (ops: readonly StagedOperand[]): number =>
  ops.reduce((s, o) => s + (o.bits === 8 ? 0 : Math.ceil((o.shape[0] * o.shape[1]) / 16) * 16), 0);

/**
 * Stores `ops` at shared address `sm` (+ each offset): 8-bit ones straight into their swizzled
 * tiles, padded ones through the raw scratch at sm + scratch (paddedScratchBytes of it).
 */
export function stageScaledOperands(cx: Lowering, sm: string, ops: readonly StagedOperand[], scratch: number): void {
  const raw: number[] = [];
  let at = scratch;
  for (const o of ops) {
    if (o.bits === 8) {
      storeStaged(cx, o.elem, o.regs, o.layout, o.shape, o.tile, sm, o.offset);
      raw.push(-1);
      continue;
    }
    // f4e2m1 registers are b16 holding a byte, as fp8's are: stored as fp8 bytes
    const elem = o.elem === 'f4e2m1' ? 'f8e4m3' : o.elem;
    storeStaged(cx, elem, o.regs, o.layout, o.shape, { rows: o.shape[0], rowBytes: o.shape[1], swizzle: 0 }, sm, at);
    raw.push(at);
    at += Math.ceil((o.shape[0] * o.shape[1]) / 16) * 16;
  }
  if (!ops.some((o) => o.bits !== 8)) return;
  // every thread's raw bytes before any thread reads a whole chunk
  cx.barrier();
  ops.forEach((o, i) => {
    if (o.bits !== 8) repack(cx, sm, o, raw[i]!);
  });
}

/** Packs 4 code bytes of word x (6 low bits each) into the low 24 bits of a fresh register. */
function pack6x4(cx: Lowering, x: string): string {
  let p = cx.reg('b32');
  cx.emit(`and.b32 ${p}, ${x}, 63;`);
  for (let j = 1; j < 4; j++) {
    const y = cx.reg('b32'), q = cx.reg('b32');
    cx.emit(`bfe.u32 ${y}, ${x}, ${8 * j}, 6;`);
    cx.emit(`bfi.b32 ${q}, ${y}, ${p}, ${6 * j}, 6;`);
    p = q;
  }
  return p;
}

/** Packs the low nibbles of the 4 code bytes of word x into the low 16 bits of a fresh register. */
function pack4x4(cx: Lowering, x: string): string {
  let p = cx.reg('b32');
  cx.emit(`and.b32 ${p}, ${x}, 15;`);
  for (let j = 1; j < 4; j++) {
    const y = cx.reg('b32'), q = cx.reg('b32');
    cx.emit(`bfe.u32 ${y}, ${x}, ${8 * j}, 4;`);
    cx.emit(`bfi.b32 ${q}, ${y}, ${p}, ${4 * j}, 4;`);
    p = q;
  }
  return p;
}

/** Rewrites the raw rows of `o` at sm + rawOff into its padded tile, a (row, 16-element chunk) unit a thread a round. */
function repack(cx: Lowering, sm: string, o: StagedOperand, rawOff: number): void {
  const rows = o.shape[0], rawRow = o.shape[1];
  const K = o.tile.rowBytes;
  const C = K / 16, units = rows * C, T = cx.numWarps * 32;
  // bytes of one chunk's 16 codes in the raw rows: a byte each (6-bit, f4e2m1) or packed two a byte (u8 e2m1)
  const unpacked = o.bits === 6 || o.elem === 'f4e2m1';
  const srcChunk = unpacked ? 16 : 8;
  if (unpacked ? rawRow !== K : 2 * rawRow !== K) cx.fail(`padded staging: raw rows of ${rawRow} bytes do not hold K = ${K} elements`);
  const { tid } = cx.thread();
  const rawBase = cx.reg('b32'), tileBase = cx.reg('b32'), zero = cx.reg('b32');
  cx.emit(`add.u32 ${rawBase}, ${sm}, ${rawOff};`);
  cx.emit(`add.u32 ${tileBase}, ${sm}, ${o.offset};`);
  cx.emit(`mov.b32 ${zero}, 0;`);
  const sink = { emit: (s: string) => cx.emit(s), reg: () => cx.reg('b32') };
  // tile shapes are powers of two, so C is one (row and chunk by shift and mask)
  if ((C & (C - 1)) !== 0) cx.fail(`padded staging: ${C} chunks a row is not a power of two`);
  for (let i = 0; i * T < units; i++) {
    const u = cx.reg('b32'), row = cx.reg('b32'), c = cx.reg('b32'), col = cx.reg('b32'), src = cx.reg('b32');
    cx.emit(`add.u32 ${u}, ${tid}, ${i * T};`);
    let guard = '';
    if ((i + 1) * T > units) {
      const p = cx.reg('pred');
      cx.emit(`setp.lt.u32 ${p}, ${u}, ${units};`);
      guard = `@${p} `;
    }
    cx.emit(`shr.u32 ${row}, ${u}, ${Math.log2(C)};`);
    cx.emit(`and.b32 ${c}, ${u}, ${C - 1};`);
    cx.emit(`mad.lo.u32 ${src}, ${row}, ${rawRow}, ${rawBase};`);
    const s2 = cx.reg('b32');
    cx.emit(`mad.lo.u32 ${s2}, ${c}, ${srcChunk}, ${src};`);
    cx.emit(`shl.b32 ${col}, ${c}, 4;`);
    const dst = emitSwizzledOffset(sink, o.tile, row, col, tileBase);
    let words: string[];
    if (o.bits === 4 && unpacked) {
      // 16 code bytes -> 16 nibbles (element k at bit 4k)
      const x = [cx.reg('b32'), cx.reg('b32'), cx.reg('b32'), cx.reg('b32')];
      cx.emit(`${guard}ld.shared.v4.b32 {${x.join(', ')}}, [${s2}];`);
      const p = x.map((w) => pack4x4(cx, w));
      const w0 = cx.reg('b32'), w1 = cx.reg('b32');
      cx.emit(`bfi.b32 ${w0}, ${p[1]}, ${p[0]}, 16, 16;`);
      cx.emit(`bfi.b32 ${w1}, ${p[3]}, ${p[2]}, 16, 16;`);
      words = [w0, w1, zero, zero];
    } else if (o.bits === 4) {
      // 8 packed bytes: element k of the chunk already at bit 4k
      const x = [cx.reg('b32'), cx.reg('b32')];
      cx.emit(`${guard}ld.shared.v2.b32 {${x.join(', ')}}, [${s2}];`);
      words = [...x, zero, zero];
    } else {
      // 16 code bytes -> 4 x 24 bits -> 3 words (element k at bit 6k)
      const x = [cx.reg('b32'), cx.reg('b32'), cx.reg('b32'), cx.reg('b32')];
      cx.emit(`${guard}ld.shared.v4.b32 {${x.join(', ')}}, [${s2}];`);
      const p = x.map((w) => pack6x4(cx, w));
      const w0 = cx.reg('b32'), t1 = cx.reg('b32'), w1 = cx.reg('b32'), t2 = cx.reg('b32'), w2 = cx.reg('b32');
      cx.emit(`bfi.b32 ${w0}, ${p[1]}, ${p[0]}, 24, 8;`);
      cx.emit(`shr.u32 ${t1}, ${p[1]}, 8;`);
      cx.emit(`bfi.b32 ${w1}, ${p[2]}, ${t1}, 16, 16;`);
      cx.emit(`shr.u32 ${t2}, ${p[2]}, 16;`);
      cx.emit(`bfi.b32 ${w2}, ${p[3]}, ${t2}, 8, 24;`);
      words = [w0, w1, w2, zero];
    }
    cx.emit(`${guard}st.shared.v4.b32 [${dst}], {${words.join(', ')}};`);
  }
}
