// The run-time address math of swizzled tiles (codegen/smem/swizzle_addr.ts) against the layout's
// definition (smem_swizzle.ts swizzledOffset): the PTX it emits is evaluated here, line by line,
// for every row and 16-byte chunk of tiles of each swizzle width, as register + immediate, and
// as register XOR constant + immediate (the ldmatrix k-steps).
import { describe, expect, it } from 'vitest';
import { emitSwizzledOffset, SwizzledLanes, type Sink, type TileGeom } from '../../src/codegen/smem/swizzle_addr.js';
import { swizzledOffset, swizzleFor } from '../../src/codegen/smem/smem_swizzle.js';

/** A sink that evaluates the u32 arithmetic it is given (the forms swizzle_addr.ts emits). */
function evalSink(init: Record<string, number>): Sink & { regs: Map<string, number> } {
  const regs = new Map(Object.entries(init));
  let n = 0;
  const v = (x: string): number => (/^\d+$/.test(x) ? Number(x) : regs.get(x)!);
  return {
    regs,
    reg: () => `%t${n++}`,
    emit(line) {
      const m = /^(\S+) (%\w+), (.*);$/.exec(line);
      if (!m) throw new Error(`unparsed: ${line}`);
      const [, op, d, rest] = m as unknown as [string, string, string, string];
      const a = rest.split(', ').map(v);
      const r = {
        'shr.u32': () => a[0]! >>> a[1]!,
        'and.b32': () => a[0]! & a[1]!,
        'xor.b32': () => a[0]! ^ a[1]!,
        'shl.b32': () => a[0]! << a[1]!,
        'add.u32': () => a[0]! + a[1]!,
        'bfe.u32': () => (a[0]! >>> a[1]!) & ((1 << a[2]!) - 1),
        'mad.lo.u32': () => a[0]! * a[1]! + a[2]!,
        'mul.lo.u32': () => a[0]! * a[1]!,
      }[op];
      if (!r) throw new Error(`unexpected op ${op}`);
      regs.set(d, r() >>> 0);
    },
  };
}

const GEOMS: TileGeom[] = [
  { rows: 64, rowBytes: 64, swizzle: swizzleFor(64) }, // 64-byte swizzle, one block
  { rows: 32, rowBytes: 128, swizzle: swizzleFor(128) }, // 128-byte swizzle
  { rows: 16, rowBytes: 256, swizzle: swizzleFor(256) }, // two 128-byte column blocks
  { rows: 24, rowBytes: 32, swizzle: swizzleFor(32) }, // 32-byte swizzle
  { rows: 8, rowBytes: 16, swizzle: swizzleFor(16) }, // too narrow: plain rows
];

describe('swizzled tile addresses in PTX', () => {
  it.each(GEOMS)('emitSwizzledOffset = swizzledOffset for every row and chunk (%o)', (g) => {
    expect(g.swizzle).toBe(g.rowBytes >= 32 ? Math.min(128, g.rowBytes) : 0);
    for (let r = 0; r < g.rows; r++) {
      for (let c = 0; c < g.rowBytes; c += 16) {
        const s = evalSink({ '%row': r, '%col': c });
        const off = emitSwizzledOffset(s, g, '%row', '%col');
        expect(s.regs.get(off), `row ${r}, byte ${c}`).toBe(swizzledOffset(r, c, g.rows, g.rowBytes, g.swizzle));
      }
    }
  });

  // lanes' columns: anywhere (no facts), or multiples of 16 below 32 (ldmatrix of a), or runs of
  // 8 halves below 64 bytes (a blocked layout's 4 threads of a row)
  const COLS = [undefined, { align: 16, span: 32 }, { align: 16, span: 64 }] as const;
  it.each(GEOMS.flatMap((g) => COLS.map((c) => [g, c] as const)))('SwizzledLanes.at reaches every (row + dr, col + dc) by a register plus an immediate (%o, lanes %o)', (g, cols) => {
    const base = 5 * 1024;
    for (let r0 = 0; r0 < 8; r0++) {
      for (let c0 = 0; c0 < Math.min(g.rowBytes, cols?.span ?? 32); c0 += cols?.align ?? 16) {
        const s = evalSink({ '%row': r0, '%col': c0, '%base': base });
        const lanes = new SwizzledLanes(s, g, '%row', '%col', cols, '%base');
        for (let dr = 0; r0 + dr < g.rows; dr++) {
          for (let dc = 0; c0 + dc < g.rowBytes; dc += 2) {
            // within the lane's run, or whole runs past it (what a layout's slots are)
            if (cols && dc % cols.span >= cols.align) continue;
            const a = lanes.at(dr, dc);
            expect(s.regs.get(a.reg)! + a.imm, `lane (${r0}, ${c0}) + (${dr}, ${dc})`).toBe(base + swizzledOffset(r0 + dr, c0 + dc, g.rows, g.rowBytes, g.swizzle));
          }
        }
      }
    }
  });

  it.each(GEOMS.filter((g) => g.swizzle))('SwizzledLanes.atXor: one register per 8-row class, the k-step XORed in, on a 1024-aligned base (%o)', (g) => {
    const base = 3 * 1024;
    for (let r0 = 0; r0 < 8; r0++) {
      for (const c0 of [0, 16]) {
        const s = evalSink({ '%row': r0, '%col': c0, '%base': base });
        const lanes = new SwizzledLanes(s, g, '%row', '%col', { align: 16, span: 32 }, '%base');
        const regs = new Set<string>();
        for (let dr = 0; r0 + dr < g.rows; dr += 8) {
          for (let dc = 0; c0 + dc < g.rowBytes; dc += 32) {
            const a = lanes.atXor(dr, dc);
            regs.add(a.reg);
            expect((s.regs.get(a.reg)! ^ a.xor) + a.imm).toBe(base + swizzledOffset(r0 + dr, c0 + dc, g.rows, g.rowBytes, g.swizzle));
          }
        }
        expect(regs.size).toBe(1);
      }
    }
  });

  it('negative offsets are refused', () => {
    const lanes = new SwizzledLanes(evalSink({}), GEOMS[0]!, '%row', '%col');
    expect(() => lanes.at(-1, 0)).toThrow(/negative offset/);
  });
});
