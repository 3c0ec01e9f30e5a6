// The FA3 consumer ping-pong (pipeline/ws_pingpong.ts) broken on purpose, for the sabotage tests
// (fa3_pingpong_sabotage_*.test.ts, one fault per file: a fault ends the sim's context): string
// surgery on the warp-specialized attention's PTX, launched on the sim for one program of 128 rows,
// 2 KV steps through 2 stages (the producer never waits for an empty stage, so it is done while
// the consumers wait: a lost turn leaves every live thread at a barrier, which the sim names as a
// deadlock).
import { expect } from 'vitest';
import type { CompileResult } from '../../src/compile/compile.js';
import { compileFa3, fa3Inputs, fa3Want, type Fa3Shape } from './fa3_cases.js';
import { launchInPlace } from './ptx_in_place.js';

const S: Fa3Shape = { L: 128, D: 64, BN: 64, stages: 2, causal: false, warps: 8 };
const x = fa3Inputs(S.L, S.D, 83);
let built: CompileResult | undefined;
export const ppPtx = (): string => (built ??= compileFa3(S, true)).ptx;
export const ppWant = (): Float64Array => fa3Want(x, S.L, S.D, false);

/** Launches `text` in place of the compiled kernel's PTX: O, or the launch's fault. */
export const ppLaunch = (text: string): Float32Array | Error =>
  launchInPlace((built ??= compileFa3(S, true)), text, [x.q, x.k, x.v, new Float32Array(S.L * S.D), S.L, x.scale], [1, 1, 1], 3);

/** The ping-pong's arrive after the body's first wgmma issue (unpredicated: every iteration, both warpgroups). */
export const TURN_ARRIVE = /\tbar\.arrive (%r\d+), 256;[^\n]*\n/;

/** Replaces the only unpredicated turn arrive of the PTX by `by(its barrier register)`. */
export function ppSurgery(by: (reg: string) => string): string {
  const text = ppPtx();
  const all = [...text.matchAll(new RegExp(TURN_ARRIVE.source, 'g'))];
  expect(all.length).toBe(1);
  const m = all[0]!;
  return text.slice(0, m.index) + by(m[1]!) + text.slice(m.index + m[0].length);
}
