// The persistent warp-specialized matmul (bench/ws_kernels.ts persistentWsMatmul) for
// persistent_ws_overlap*.test.ts: compile it, launch compiled (or edited) PTX on the sim with any
// buffers (one buffer may be passed twice), and the PTX surgery of the sabotage.
import { expect } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { simDevice } from './helpers.js';
import { persistentWsMatmul } from '../../bench/ws_kernels.js';
import { swizzle2d } from '../../src/lang/index.js';

export { persistentWsMatmul };

export interface Tile { BM: number; BN: number; BK: number; numWarps: number }

export const build = (t: Tile, ws: boolean, ptxas = false): CompileResult =>
  compile(persistentWsMatmul, { target: 'sm_90a', numWarps: t.numWarps, numStages: 3, ptxas, constexprs: { BM: t.BM, BN: t.BN, BK: t.BK, GROUP_M: 2, WS: ws } });

/**
 * Launches `ptx` (the compiled kernel's, or an edited copy) on the sim: a and b uploaded, c a new
 * buffer or, with `cIsA`, a's own buffer. Returns c's bits, or the launch's fault.
 */
export function launch(r: CompileResult, ptx: string, a: Uint16Array, b: Uint16Array, M: number, N: number, K: number, grid: number, cIsA = false): Uint16Array | Error {
  const dev = simDevice().native;
  const whole = cIsA ? aliased(a, M, N) : a;
  const [ba, bb] = [dev.alloc(whole.byteLength), dev.alloc(b.byteLength)];
  const bc = cIsA ? ba : dev.alloc(M * N * 2);
  try {
    dev.upload(ba, whole);
    dev.upload(bb, b);
    if (!cIsA) dev.upload(bc, new Uint16Array(M * N).fill(0x7e00)); // NaN: a tile never stored shows
    try {
      dev.launch({ ...r, ptx }, [ba, bb, bc, M, N, K], [grid, 1, 1]);
      dev.synchronize();
    } catch (e) {
      return e as Error;
    }
    return dev.download(bc, new Uint16Array(cIsA ? whole.length : M * N));
  } finally {
    for (const p of cIsA ? [ba, bb] : [ba, bb, bc]) dev.free(p);
  }
}

/** One buffer for a [M, K] and c [M, N]: a's elements, then zeros up to the larger of the two. */
const aliased = (a: Uint16Array, M: number, N: number): Uint16Array => {
  const m = new Uint16Array(Math.max(a.length, M * N));
  m.set(a);
  return m;
};

/** Sabotage: the producer never waits for the previous tile, even where a store overlaps an input. */
export function neverOrdered(ptx: string): string {
  const re = /@!%p\d+ (bra\.uni \$L_wstile_go_\d+;)/;
  expect(ptx).toMatch(re);
  return ptx.replace(re, '$1');
}

/** The consumers' part and the producer's part of a warp-specialized kernel's PTX. */
export function parts(ptx: string): { consumer: string; producer: string } {
  const at = ptx.indexOf('ws_producer:');
  expect(at).toBeGreaterThan(0);
  return { consumer: ptx.slice(0, at), producer: ptx.slice(at) };
}

/**
 * Sabotage: the consumers start each tile's K loop at ring stage 0 with phase 0 (a reset of the
 * ring position, which the producer does not do), by copying the prologue's position set-up to
 * where each tile's K loop begins.
 */
export function resetPhasePerTile(ptx: string): string {
  const m = /\/\/ warp specialization: the consumers' ring position[^\n]*\n((?:\s*mov\.u32 [^\n]*\n){5})/.exec(ptx);
  expect(m, "the ring position's set-up in the prologue").not.toBeNull();
  const at = /\/\/ ring position \(stage, phase\) carried over from the previous tile\n/;
  expect(ptx).toMatch(at);
  return ptx.replace(at, (s) => s + m![1]);
}

/** Small integers in [-3, 3] as f16 bits (exact), a fraction `density` of them non-zero. */
export function ints(n: number, seed: number, density = 1): Uint16Array {
  let s = seed >>> 0;
  const r = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return f16Array(new Float32Array(n).map(() => (r() < density ? Math.floor(r() * 7) - 3 : 0)));
}

/** The grouped tile order of groupedTile (swizzle2d of the row-major index), as the kernel walks it. */
export const tileOrder = (tilesM: number, tilesN: number, groupM = 2): [number, number][] =>
  Array.from({ length: tilesM * tilesN }, (_, t) => swizzle2d(Math.trunc(t / tilesN), t % tilesN, tilesM, tilesN, groupM));

/**
 * c = a @ b as f16 bits, in program order: tile by tile in `order`, each tile's sums (exact in f32:
 * small integers) from the memory as it is then, rounded to f16 and stored. With `cIsA`, c is
 * a's own buffer (as long as the larger of the two), so a later tile may read what an earlier one stored.
 */
export function reference(a: Uint16Array, b: Uint16Array, M: number, N: number, K: number, BM: number, BN: number, order: [number, number][], cIsA = false): Uint16Array {
  const mem = cIsA ? aliased(a, M, N) : new Uint16Array(M * N);
  const fb = f16ToFloat32(b);
  for (const [pm, pn] of order) {
    const fa = f16ToFloat32(cIsA ? mem : a);
    const tile = new Float32Array(BM * BN);
    for (let i = 0; i < BM && pm * BM + i < M; i++)
      for (let j = 0; j < BN && pn * BN + j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += fa[(pm * BM + i) * K + k]! * fb[k * N + pn * BN + j]!;
        tile[i * BN + j] = s;
      }
    const bits = f16Array(tile);
    for (let i = 0; i < BM && pm * BM + i < M; i++)
      for (let j = 0; j < BN && pn * BN + j < N; j++) mem[(pm * BM + i) * N + pn * BN + j] = bits[i * BN + j]!;
  }
  return mem;
}
