// exitIf and assume kernels with plain-JS references, run on the interpreter and the sim by
// exit_assume_sm80.test.ts and exit_assume_sm90.test.ts (one arch per process).
import { expect } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { arange, assume, constexpr, exitIf, load, max, programId, ptr, store, sum } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { expectBitwise, runBoth, simDevice } from './helpers.js';

/**
 * Programs past the last row leave first; the others reduce a [R, C] tile along both axes (shared
 * memory and bar.sync in the compiled code) and store without masks: a program that did not
 * leave would write out of bounds (the sim's memcheck and the interpreter fail the launch).
 */
export const exitRows = kernel(
  { name: 'exit_rows', params: { x: ptr('i32'), rowSums: ptr('i32'), colMax: ptr('i32'), blocks: 'i32', R: constexpr(), C: constexpr() } },
  ({ x, rowSums, colMax, blocks, R, C }) => {
    const pid = programId(0);
    exitIf(pid.ge(blocks));
    const r = R as number, c = C as number;
    const rows = arange(0, r), cols = arange(0, c);
    const t = load(x.add(pid.mul(r * c)).add(rows.expandDims(1).mul(c).add(cols.expandDims(0))));
    store(rowSums.add(pid.mul(r)).add(rows), sum(t, 1));
    store(colMax.add(pid.mul(c)).add(cols), max(t, 0));
  },
);

export async function runExitRows(numWarps: number): Promise<void> {
  const R = 16, C = 64, blocks = 3, grid = 8;
  const x = Int32Array.from({ length: blocks * R * C }, (_, i) => ((i * 7919) % 2001) - 1000);
  const args = { x, rowSums: new Int32Array(blocks * R), colMax: new Int32Array(blocks * C), blocks, R, C };
  const r = await runBoth(exitRows, args, grid, { numWarps });
  const rs = new Int32Array(blocks * R), cm = new Int32Array(blocks * C).fill(-(2 ** 31));
  for (let b = 0; b < blocks; b++) for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
    const v = x[(b * R + i) * C + j]!;
    rs[b * R + i]! += v;
    cm[b * C + j] = Math.max(cm[b * C + j]!, v);
  }
  for (const dev of ['interpret', 'sim'] as const) {
    expectBitwise(r[dev].rowSums as Int32Array, rs, `${dev}: row sums`);
    expectBitwise(r[dev].colMax as Int32Array, cm, `${dev}: column maxima`);
  }
}

/** A data-dependent exit (a loaded flag), then a store: flagged programs write nothing. */
export const exitFlag = kernel(
  { name: 'exit_flag', params: { flags: ptr('i32'), o: ptr('f32'), B: constexpr() } },
  ({ flags, o, B }) => {
    const pid = programId(0);
    exitIf(load(flags.add(pid)).ne(0));
    store(o.add(pid.mul(B)).add(arange(0, B as number)), pid.to('f32').add(0.5));
  },
);

export async function runExitFlag(): Promise<void> {
  const flags = Int32Array.from([0, 1, 1, 0, 0, 1, 0, 1]), B = 32;
  const r = await runBoth(exitFlag, { flags, o: new Float32Array(8 * B).fill(-1), B }, 8);
  const want = new Float32Array(8 * B).fill(-1);
  flags.forEach((f, p) => { if (!f) want.fill(p + 0.5, p * B, p * B + B); });
  for (const dev of ['interpret', 'sim'] as const) expectBitwise(r[dev].o as Float32Array, want, `${dev}: flagged programs left`);
}

/**
 * A row stride read from memory (so no launch specialization knows it) promised to be a multiple
 * of 8: AxisInfo then proves 16-byte aligned rows and the loads become ld.global.v4.
 */
export const assumeStride = (withAssume: boolean) => kernel(
  { name: withAssume ? 'assume_stride' : 'no_assume_stride', params: { x: ptr('f32'), o: ptr('f32'), strideAt: ptr('i32'), R: constexpr(), C: constexpr() } },
  ({ x, o, strideAt, R, C }) => {
    const stride = load(strideAt);
    if (withAssume) assume(stride.rem(8).eq(0));
    const r = R as number, c = C as number;
    const rows = arange(0, r).expandDims(1), cols = arange(0, c).expandDims(0);
    const v = load(x.add(rows.mul(stride).add(cols)));
    store(o.add(rows.mul(c).add(cols)), v.mul(2));
  },
);

/** The pointers 16-byte aligned (as the launcher specializes them). */
const ALIGNED = { x: { divisibleBy16: true }, o: { divisibleBy16: true }, strideAt: { divisibleBy16: true } };

export async function runAssumeStride(): Promise<void> {
  const R = 16, C = 64, stride = 72;
  const x = Float32Array.from({ length: R * stride }, (_, i) => i * 0.25);
  const strideAt = Int32Array.of(stride);
  const r = await runBoth(assumeStride(true), { x, o: new Float32Array(R * C), strideAt, R, C }, 1);
  const want = new Float32Array(R * C);
  for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) want[i * C + j] = x[i * stride + j]! * 2;
  for (const dev of ['interpret', 'sim'] as const) expectBitwise(r[dev].o as Float32Array, want, `${dev}: strided copy`);
  const ptx = (k: ReturnType<typeof assumeStride>) => compile(k.def, { target: simDevice().target, ptxas: false, constexprs: { R, C }, specialization: ALIGNED }).ptx;
  expect(ptx(assumeStride(true))).toMatch(/ld\.global(\.\w+)*\.v4\.(f32|b32)/);
  expect(ptx(assumeStride(false))).not.toMatch(/ld\.global(\.\w+)*\.v4\./);
}

/** Programs that leave early and programs that reduce (barriers) under the sim's three sanitizers. */
export async function runExitSanitized(): Promise<void> {
  const R = 16, C = 64, blocks = 3;
  const x = Int32Array.from({ length: blocks * R * C }, (_, i) => ((i * 7919) % 2001) - 1000);
  const rowSums = new Int32Array(blocks * R), colMax = new Int32Array(blocks * C);
  await exitRows.run({ x, rowSums, colMax, blocks, R, C }, { grid: 8, device: 'sim', numWarps: 4, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
  const rs = new Int32Array(blocks * R);
  for (let b = 0; b < blocks; b++) for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) rs[b * R + i]! += x[(b * R + i) * C + j]!;
  expectBitwise(rowSums, rs, 'sanitized sim: row sums');
}
