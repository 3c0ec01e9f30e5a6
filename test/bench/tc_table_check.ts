// Shared checks of a bench:tc table (tc_table*.test.ts): parses the printed text and checks its
// header, the row's figures and ratios, and the summary line.
import { expect } from 'vitest';

export interface Figure { tessera: number; triton: number; ratio: string; aim: string }

/** Checks `text` and returns the named row's figures by name. */
export function checkTable(text: string, target: string, label: string): Map<string, Figure> {
  expect(text).not.toMatch(/skipped|MISMATCH/);
  expect(text).toContain(`Tessera (target ${target}) vs Triton 3.8`);
  expect(text).toContain(`ptxas -arch ${target}`);
  expect(text).toMatch(/No GPU was used: every figure comes from ptxas and the sim/);
  const at = text.indexOf(`\n${label}:`);
  expect(at, `row ${label}`).toBeGreaterThanOrEqual(0);
  const block = text.slice(at + 1).split('\n\n')[0]!;
  expect(block).toMatch(/outputs on the sim: tessera vs triton \S+, vs JS \S+ \/ \S+ \(tol/);
  const figs = new Map<string, Figure>();
  for (const line of block.split('\n')) {
    const m = /^ {2}(\S.{0,15}?)\s+(\d+(?:\.\d)?|n\/a)\s+(\d+(?:\.\d)?|n\/a)\s+(\S+)\s*(.*)$/.exec(line);
    if (m && m[1] !== 'figure') figs.set(m[1]!.trim(), { tessera: Number(m[2]), triton: Number(m[3]), ratio: m[4]!, aim: m[5]!.trim() });
  }
  for (const name of ['registers', 'spills (bytes)', 'SASS instrs', 'shared bytes', 'wgmma (PTX)', 'TMA (PTX)', 'mma.sync (PTX)', 'warp instrs', 'gld sectors', 'bank conflicts']) {
    expect(figs.has(name), `${name} in\n${block}`).toBe(true);
  }
  // a ratio is the quotient of the two figures
  for (const [name, f] of figs) {
    const want = f.triton === 0 ? (f.tessera === 0 ? '-' : 'inf') : (f.tessera / f.triton).toFixed(2);
    expect(f.ratio, name).toBe(want);
  }
  const smem = figs.get('shared bytes')!;
  expect(smem.tessera).toBeGreaterThan(0);
  expect(smem.triton).toBeGreaterThan(0);
  expect(smem.aim).toMatch(/^<= 1\.0x/);
  expect(smem.aim.includes('(missed)')).toBe(smem.tessera > smem.triton);
  // the summary line carries the same shared-memory pair and ratio
  const sum = text.split('\n').find((l) => l.startsWith(`| ${label} |`));
  expect(sum, 'summary line').toBeDefined();
  expect(sum).toContain(`| ${smem.tessera}/${smem.triton} (${smem.ratio}) |`);
  return figs;
}
