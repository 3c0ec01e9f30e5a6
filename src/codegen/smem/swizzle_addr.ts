// Per-thread addresses into a swizzled tile (smem_swizzle.ts) for the accesses of one op: the
// writes of a staging store or a cp.async ring, the row addresses of ldmatrix.
//
// The swizzle is an XOR of the 16-byte chunk index with the row's position in its 8-row repeat,
// so an access (row r + dr, byte column c + dc) is not (r, c) plus an immediate in general. But
// the pattern repeats every 8 rows and every column block of S bytes:
//   offset(r + dr, c + dc) = offset(r + dr % 8, c + dc % S) + (dr - dr % 8)·S + ⌊dc / S⌋·R·S
// so one register per class (dr % 8, dc % S) serves every access, the rest being immediates.
// Fewer still where the lane's column is known (LaneCols): bytes inside its chunk are
// immediates, and chunk bits it leaves 0 are an XOR of the row class (the swizzle permutes
// address bits 4..6 only), so an ldmatrix sweep over a 128-byte swizzle holds one register and
// XORs its k-steps 1..3 in (as Triton's MMAv2 lowering derives its per-k-step offsets).
import { blockedOf, ctaTile, parentDim, parentShape, regSlots, wraps, type Layout } from '../../compiler/layout.js';
import type { Lowering, SmemAddr } from '../context.js';
import type { SwizzleBytes } from './smem_swizzle.js';

/** Geometry of a tile in shared memory: R rows of rowBytes, swizzled S bytes wide (0: plain rows). */
export interface TileGeom {
  readonly rows: number;
  readonly rowBytes: number;
  readonly swizzle: SwizzleBytes;
}

/** Emits one PTX line (prologue or body) and allocates b32 registers. */
export interface Sink {
  emit(line: string): void;
  reg(): string;
}

/** The column's share of a swizzled offset: its in-block bytes and its block's offset (+ bias). */
interface ColPart {
  readonly inb: string;
  readonly base?: string;
}

function colPart(s: Sink, g: TileGeom, col: string, bias?: string): ColPart {
  const S = g.swizzle;
  if (S === 0 || g.rowBytes <= S) return { inb: col, ...(bias ? { base: bias } : {}) };
  const blk = s.reg(), inb = s.reg(), base = s.reg();
  s.emit(`shr.u32 ${blk}, ${col}, ${Math.log2(S)};`);
  s.emit(`and.b32 ${inb}, ${col}, ${S - 1};`);
  if (bias) s.emit(`mad.lo.u32 ${base}, ${blk}, ${g.rows * S}, ${bias};`);
  else s.emit(`mul.lo.u32 ${base}, ${blk}, ${g.rows * S};`);
  return { inb, base };
}

// fresh registers throughout: an in-place update reads its own destination, which would keep
// an unused offset alive through dead_code.ts
function rowPart(s: Sink, g: TileGeom, row: string, c: ColPart): string {
  const S = g.swizzle;
  const t = s.reg();
  if (S === 0) s.emit(`mad.lo.u32 ${t}, ${row}, ${g.rowBytes}, ${c.inb};`);
  else {
    const x = s.reg(), xs = s.reg(), sw = s.reg();
    // the row's position in its repeat: bits of row·S above 128 bytes, S/16 - 1 of them kept
    s.emit(`bfe.u32 ${x}, ${row}, ${Math.log2(128 / S)}, ${Math.log2(S / 16)};`);
    s.emit(`shl.b32 ${xs}, ${x}, 4;`);
    s.emit(`xor.b32 ${sw}, ${c.inb}, ${xs};`);
    s.emit(`mad.lo.u32 ${t}, ${row}, ${S}, ${sw};`);
  }
  if (!c.base) return t;
  const off = s.reg();
  s.emit(`add.u32 ${off}, ${t}, ${c.base};`);
  return off;
}

/**
 * PTX computing the byte offset from the tile base (plus `bias`) of (row, byte column) held in
 * registers (smem_swizzle.ts `swizzledOffset`, done at run time). Returns the offset register.
 */
export function emitSwizzledOffset(s: Sink, g: TileGeom, row: string, col: string, bias?: string): string {
  return rowPart(s, g, row, colPart(s, g, col, bias));
}

/** What is known of every lane's byte column: a multiple of `align`, below `span` (powers of two). */
export interface LaneCols {
  readonly align: number;
  readonly span: number;
}
const ANY_COL: LaneCols = { align: 1, span: Infinity };

/**
 * Offsets (relative to the tile base, plus `bias`) of one thread's accesses at (row + dr,
 * col + dc), dr, dc ≥ 0. Besides the class rule of the header: bytes of dc inside the lane's
 * 16-byte chunk (below `cols.align`) are immediates, and a class that differs from (dr % 8, 0)
 * only in chunk bits the lane's column leaves 0 (dc % S a multiple of `cols.span` ≤ S) is that
 * register XOR dc % S (the swizzle permutes address bits 4..6 only), one `xor` instead of a
 * class; `bias` must then be 128-byte aligned (tile bases are 1024-aligned).
 */
export class SwizzledLanes {
  private readonly classes = new Map<string, string>();
  private readonly colParts = new Map<number, ColPart>();
  constructor(
    private readonly s: Sink,
    readonly g: TileGeom,
    private readonly row: string,
    private readonly col: string,
    private readonly cols: LaneCols = ANY_COL,
    /** Added to every class register (a tile base that does not change: the scratch's). */
    private readonly bias?: string,
  ) {}

  private split(dr: number, dc: number): { ar: number; ac: number; imm: number; xorable: boolean } {
    if (dr < 0 || dc < 0) throw new Error(`swizzled access at a negative offset (${dr}, ${dc})`);
    const { rows, swizzle: S } = this.g;
    const dcIn = dc % Math.min(this.cols.align, 16);
    const rest = dc - dcIn;
    const ar = dr % 8, ac = rest % S;
    return { ar, ac, imm: (dr - ar) * S + ((rest - ac) / S) * rows * S + dcIn, xorable: this.cols.span <= S && ac % this.cols.span === 0 };
  }

  at(dr: number, dc: number): SmemAddr {
    if (this.g.swizzle === 0) {
      if (dr < 0 || dc < 0) throw new Error(`swizzled access at a negative offset (${dr}, ${dc})`);
      return { reg: this.cls(0, 0), imm: dr * this.g.rowBytes + dc };
    }
    const { ar, ac, imm, xorable } = this.split(dr, dc);
    if (!ac) return { reg: this.cls(ar, 0), imm };
    if (!xorable) return { reg: this.cls(ar, ac), imm };
    const key = `${ar},0^${ac}`;
    let r = this.classes.get(key);
    if (!r) {
      r = this.s.reg();
      this.s.emit(`xor.b32 ${r}, ${this.cls(ar, 0)}, ${ac};`);
      this.classes.set(key, r);
    }
    return { reg: r, imm };
  }

  /**
   * The same access as a register, an XOR left to the caller and an immediate, where the XOR
   * rule applies (else xor 0): for ldmatrix, whose k-steps within a block differ by chunk bits
   * only, the XOR goes where the tile base is added (per execution for a ring's stage), so the
   * loop holds one register per 8-row class instead of one per k-step.
   */
  atXor(dr: number, dc: number): SmemAddr & { readonly xor: number } {
    if (this.g.swizzle === 0) return { ...this.at(dr, dc), xor: 0 };
    const { ar, ac, imm, xorable } = this.split(dr, dc);
    if (!ac || !xorable) return { ...this.at(dr, dc), xor: 0 };
    return { reg: this.cls(ar, 0), imm, xor: ac };
  }

  /** The register of class (ar, ac): the full swizzled offset of (row + ar, col + ac); column parts shared. */
  private cls(ar: number, ac: number): string {
    const key = `${ar},${ac}`;
    let r = this.classes.get(key);
    if (r) return r;
    let c = this.colParts.get(ac);
    if (!c) {
      let col = this.col;
      if (ac) {
        col = this.s.reg();
        this.s.emit(`add.u32 ${col}, ${this.col}, ${ac};`);
      }
      c = colPart(this.s, this.g, col, this.bias);
      this.colParts.set(ac, c);
    }
    let row = this.row;
    if (ar) {
      row = this.s.reg();
      this.s.emit(`add.u32 ${row}, ${this.row}, ${ar};`);
    }
    r = rowPart(this.s, this.g, row, c);
    this.classes.set(key, r);
    return r;
  }
}

/** Sinks writing to the function's prologue (computed once) or to the current point of the body. */
export const prologueSink = (cx: Lowering): Sink => ({ emit: (l) => cx.e.emitPrologue(l), reg: () => cx.reg('b32') });
export const bodySink = (cx: Lowering): Sink => ({ emit: (l) => cx.emit(l), reg: () => cx.reg('b32') });

/**
 * Offsets from the tile base of the register slots of a 2-D tile in layout `l` (elements of
 * `eb` bytes), for a tile of geometry `g`, by slot index, computed when first asked for (an
 * access that covers several slots asks for its first only); `bias` (a register or symbol) is
 * added to every offset register. Without replication the classes are computed once, in the
 * prologue, from the thread's base coordinate; a wrapping layout gets each slot's coordinate in
 * the body.
 */
export function slotOffsets(cx: Lowering, l: Layout, shape: readonly number[], eb: number, g: TileGeom, bias?: string): (i: number) => SmemAddr {
  const slots = regSlots(l, shape);
  const b = blockedOf(l);
  const ps = parentShape(l, shape);
  const [d0, d1] = [parentDim(l, 0), parentDim(l, 1)];
  if (b && !wraps(b, ps, d0) && !wraps(b, ps, d1)) {
    const P = prologueSink(cx);
    const base = cx.base(b);
    const col = cx.reg('b32');
    P.emit(`mul.lo.u32 ${col}, ${base[d1]}, ${eb};`);
    // a thread's column: its coordinate times sizePerThread, below the CTA tile
    const run = b.sizePerThread[d1]! * eb;
    const cols = { align: run & -run, span: 2 ** Math.ceil(Math.log2(ctaTile(b)[d1]! * eb)) };
    const lanes = new SwizzledLanes(P, g, base[d0]!, col, cols, bias);
    return (i) => lanes.at(slots[i]!.off[d0]!, slots[i]!.off[d1]! * eb);
  }
  const B = bodySink(cx);
  return (i) => {
    const s = slots[i]!;
    if (!b) {
      const z = cx.reg('b32');
      cx.emit(`mov.u32 ${z}, 0;`);
      return new SwizzledLanes(B, g, z, z, ANY_COL, bias).at(0, 0);
    }
    const row = cx.coordReg(l, shape, s, d0);
    const col = cx.reg('b32');
    cx.emit(`mul.lo.u32 ${col}, ${cx.coordReg(l, shape, s, d1)}, ${eb};`);
    return new SwizzledLanes(B, g, row, col, ANY_COL, bias).at(0, 0);
  };
}
