// The TMA ring's stage and mbarrier addresses with multicast (codegen/pipeline/lower_tma_ring.ts):
// the loop derives them from the stage index with a `mad` of two bases held in registers set
// before the ring, not from the symbols in each iteration as the ring without clusters does.
// Re-derived from the symbols, ptxas kept the shared window's base in a vector register for the
// whole kernel and moved it to a uniform one (R2UR) for each TMA copy: 632 SASS instructions on
// the bench's 2x1 row against 606 held (docs/compiler.md, flash_d128). The sim runs are in
// test/e2e/tma_multicast.test.ts.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { wsMatmul } from '../e2e/ws_cases.js';
import { count } from './gate.js';

/** The bench's plain TMA ring (bench/tc_ws.ts), in 2x1 clusters or without. */
const ring = (cluster: boolean) =>
  compile(wsMatmul, { target: 'sm_90a', numWarps: 8, numStages: 3, ptxas: true, constexprs: { BM: 128, BN: 256, BK: 64, WS: false }, ...(cluster ? { clusterDims: [2, 1, 1] as const } : {}) });

/** The ring's loop (its label to its back edge) and the kernel's text before it. */
function ringLoop(ptx: string): { before: string; loop: string } {
  const top = /\n(\$L_tfor_\d+):/.exec(ptx);
  expect(top, 'the ring loop').not.toBeNull();
  const end = ptx.indexOf(`bra.uni ${top![1]};`, top!.index);
  expect(end).toBeGreaterThan(top!.index);
  return { before: ptx.slice(0, top!.index), loop: ptx.slice(top!.index, end) };
}

const SYMBOL_MOV = /\n\tmov\.u32 %r\d+, tessera_smem(\+\d+)?;/g;

describe('the TMA ring with multicast (sm_90a, 2x1 clusters): the addresses\' bases held across the loop', () => {
  const r = ring(true);

  it('the loop reads no symbol: its stages\' and mbarriers\' addresses are mads of the stage index and two bases set before it', () => {
    const { before, loop } = ringLoop(r.ptx);
    expect(count(r.ptx, /\.multicast::cluster \[/), 'a multicast kernel').toBeGreaterThan(0);
    expect([...loop.matchAll(SYMBOL_MOV)].map((m) => m[0].trim()), 'symbols moved in the loop').toEqual([]);
    const mads = [...loop.matchAll(/\n\tmad\.lo\.u32 %r\d+, (%r\d+), (\d+), (%r\d+);/g)];
    // the stage read, its full mbarrier, the stage refilled and its mbarrier
    expect(mads.map((m) => Number(m[2])).sort((a, b) => a - b), 'the strides: 8 for the mbarriers, the stage\'s bytes').toEqual([8, 8, 49152, 49152]);
    for (const m of mads) {
      const base = m[3]!;
      const defs = [...r.ptx.matchAll(new RegExp(`\\n\\t(?:@!?%p\\d+ )?[a-z][\\w.:]* ${base}(?=[,;\\s])[^\\n]*`, 'g'))];
      expect(defs.map((d) => d[0].trim()), `${base} set once`).toHaveLength(1);
      expect(defs[0]![0], `${base}: the symbol, moved before the loop`).toMatch(/mov\.u32 %r\d+, tessera_smem(\+\d+)?;$/);
      expect(before.includes(defs[0]![0]), `${base} set before the loop`).toBe(true);
    }
  });

  it('ptxas: 154 registers, no spills', () => {
    expect(r.metadata.registers, r.metadata.ptxasLog).toBeLessThanOrEqual(154);
    expect(r.metadata.spills).toBe(0);
  });

  it('without clusters the loop still derives its addresses from the symbols (no base crosses the back edge)', () => {
    const { loop } = ringLoop(ring(false).ptx);
    expect([...loop.matchAll(SYMBOL_MOV)].length, 'the four addresses\' symbols').toBe(4);
  });
});
