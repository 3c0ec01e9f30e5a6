// The figure tables of bench:tc's own tables (tc_ring.ts, tc_2cta.ts, tc_ws.ts, tc_mx.ts,
// tc_fa3.ts): one kernel a row, ptxas's static figures first (registers, spills, SASS, shared
// bytes), then the table's own columns (what its PTX holds, or the row's sim run), then a free
// text (the sim run, the kernel's structure). And the
// matmul those tables run on the sim: random inputs in [-2, 2), the result against an f64 JS
// reference, the sim's counters.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompileResult } from '../src/compile/compile.js';
import { f8e4m3Array, f8e4m3ToFloat32 } from '../src/ir/fp8.js';
import { f16Array, f16ToFloat32 } from '../src/ir/half.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';

/** ptxas's figures of one PTX (tc_vs_triton.ts staticFigures). */
export interface Figures { registers: number; spills: number; shared: number; sass?: number; wgmma: number; tma: number }

/** What tc_vs_triton.ts hands each table: ptxas, the figures of one PTX, Triton's PTX for given kernels. */
export interface WsTools {
  readonly dir: string;
  readonly ptxas: string;
  /** Static figures of one PTX (tc_vs_triton.ts staticFigures). */
  figures(ptx: string, shared: number, file: string): Figures;
  /** Triton's PTX and shared bytes for these kernels (tc_triton.py). */
  triton(kernels: { key: string; name: string; src: string; signature: Record<string, string>; constexprs: Record<string, number | string>; num_warps: number; num_stages: number; divisible?: string[]; gluon?: boolean; num_ctas?: number }[]): { version: string; ptx: Record<string, string>; shared: Record<string, number> } | Error;
}

/** A file of the repository, from this module in bench/ (the sources, as the tests import it) or in dist/bench/ (npm run bench:tc). */
export function repoFile(...parts: string[]): string {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json'))) d = dirname(d);
  return join(d, ...parts);
}

/** Lines of `ptx` that match `re`. */
export const count = (ptx: string, re: RegExp): number => ptx.split('\n').filter((l) => re.test(l)).length;
/** The tensor-memory columns the kernel allocates ('-': none). */
export const tmemColumns = (ptx: string): string => /tcgen05\.alloc\.cta_group::\d\.sync\.aligned\.shared::cta\.b32 \[[^\]]+\], (\d+);/.exec(ptx)?.[1] ?? '-';
/** Triton 3.8 writes `.version 9.3` for cc 100; ptxas 13.0 takes up to 9.0, which has every instruction its kernels use. */
export const forPtxas13 = (ptx: string | undefined): string | undefined => ptx?.replace(/^\.version 9\.\d+$/m, '.version 9.0');
/** The line a table prints when Triton did not compile: the end of its error. */
export const tritonFailed = (e: Error): string => `  Triton failed: ${e.message.split('\n').slice(-3).join(' | ')}\n`;

/** A column after ptxas's: its head, width and cell (from the PTX, ptxas's figures or the row's own fields, such as a sim run's). */
export interface Column<R extends Row = Row> { readonly head: string; readonly width: number; cell(ptx: string, f: Figures, row: R): string | number }
/** One row: the kernel's name, its PTX (a row without is left out), shared bytes, the file ptxas writes, the text after the columns. */
export interface Row { readonly name: string; readonly ptx: string | undefined; readonly shared: number; readonly file: string; note?(ptx: string): string }

const STATIC: readonly Column[] = [
  { head: 'regs', width: 6, cell: (_, f) => f.registers },
  { head: 'spills', width: 8, cell: (_, f) => f.spills },
  { head: 'SASS', width: 7, cell: (_, f) => (f.sass === undefined ? 'n/a' : f.sass) },
  { head: 'smem B', width: 9, cell: (_, f) => f.shared },
];

/** Prints the table's head (the kernel column `nameWidth` wide, then ptxas's columns, `columns` and `noteHead`); returns the row printer. */
export function figureTable<R extends Row = Row>(out: (s: string) => void, tools: WsTools, nameWidth: number, columns: readonly Column<R>[], noteHead: string): (rows: readonly R[]) => void {
  const all: readonly Column<R>[] = [...STATIC, ...columns];
  out(`  ${'kernel'.padEnd(nameWidth)}${all.map((c) => c.head.padStart(c.width)).join('')}  ${noteHead}\n`);
  return (rows) => {
    for (const r of rows) {
      if (!r.ptx) continue;
      const f = tools.figures(r.ptx, r.shared, join(tools.dir, r.file));
      const cells = all.map((c) => String(c.cell(r.ptx!, f, r)).padStart(c.width)).join('');
      out(`  ${r.name.padEnd(nameWidth)}${cells}  ${r.note?.(r.ptx) ?? ''}\n`);
    }
  };
}

/** A matmul on the sim: M x N x K, a [M, K] and b [K, N] (or, bT, b^T [N, K] as e4m3), c f32. */
export interface SimMatmul {
  readonly M: number; readonly N: number; readonly K: number;
  /** The inputs' generator seed. */
  readonly seed: number;
  readonly grid: readonly [number, number, number];
  readonly cluster?: readonly [number, number, number];
  /** e4m3 operands, b given as B^T [N, K]. */
  readonly e4m3BT?: boolean;
  /** The counters are divided by this (the tiles of a cluster: per tile). */
  readonly per?: number;
}
export interface SimFigures { err: number; warpInstrs?: number; loads?: number }

/** The largest difference of `got` from `want`, relative to `want`'s largest magnitude (a NaN: Infinity). */
export function relErr(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let worst = 0, scale = 0;
  for (let i = 0; i < want.length; i++) {
    scale = Math.max(scale, Math.abs(want[i]!));
    const d = Math.abs(got[i]! - want[i]!);
    worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
  }
  return worst / Math.max(scale, 1e-30);
}

/** Runs `r` once on the sim: max error relative to the reference's largest magnitude, warp instructions and global load requests. */
export function simMatmul(sim: NativeRuntimeDevice, r: CompileResult, m: SimMatmul): SimFigures {
  const { M, N, K } = m;
  let x = m.seed;
  const rnd = (n: number): Float32Array => Float32Array.from({ length: n }, () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32) * 4 - 2);
  const fp8 = m.e4m3BT === true;
  const a = fp8 ? f8e4m3Array(rnd(M * K)) : f16Array(rnd(M * K)), b = fp8 ? f8e4m3Array(rnd(N * K)) : f16Array(rnd(K * N));
  const dev = sim.native;
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
  try {
    dev.upload(ba, a);
    dev.upload(bb, b);
    dev.launch(r, [ba, bb, bc, M, N, K], [...m.grid], m.cluster ? { cluster: m.cluster } : {});
    dev.synchronize();
    const ctr = dev.simCounters();
    const per = m.per ?? 1;
    const c = new Float32Array(M * N);
    dev.download(bc, c);
    const [fa, fb] = fp8 ? [f8e4m3ToFloat32(a as Uint8Array), f8e4m3ToFloat32(b as Uint8Array)] : [f16ToFloat32(a as Uint16Array), f16ToFloat32(b as Uint16Array)];
    let worst = 0, scale = 0;
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += fa[i * K + k]! * (fp8 ? fb[j * K + k]! : fb[k * N + j]!);
      scale = Math.max(scale, Math.abs(s));
      const d = Math.abs(c[i * N + j]! - s);
      worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
    }
    return { err: worst / Math.max(scale, 1e-30), ...(ctr ? { warpInstrs: ctr.warpInstructions / per, loads: ctr.globalLoadRequests / per } : {}) };
  } finally {
    for (const p of [ba, bb, bc]) dev.free(p);
  }
}

/** The largest relative error a Tessera row may have (f32 accumulation of K products). */
export const SIM_TOL = 1e-5;
/** A row's sim text ("vs JS 1.2e-7, warp instructions N", MISMATCH past SIM_TOL); a mismatch sets process.exitCode = 1. */
export function simNote(s: SimFigures): string {
  const ok = s.err <= SIM_TOL;
  if (!ok) process.exitCode = 1;
  return `vs JS ${s.err.toExponential(1)}${ok ? '' : ' MISMATCH'}, warp instructions ${s.warpInstrs ?? 'n/a'}`;
}
