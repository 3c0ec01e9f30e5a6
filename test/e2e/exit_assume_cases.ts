// exitIf and assume kernels with plain-JS references, run on the interpreter and the sim by
// exit_assume_sm80.test.ts and exit_assume_sm90.test.ts (one arch per process; exitAssumeSuite
// holds their suite).
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { arange, assume, constexpr, exitIf, ifThenElse, load, max, programId, ptr, store, sum } from '../../src/lang/index.js';
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
 * exitIf inside ifs: programs from 2 on whose flag is set leave inside two nested ifs (the later
 * ops of the branch do not run: `mark` stays -1); every program first writes `pre`, and the ones
 * that stay reduce a [R, C] tile (bar.sync in the compiled code) after the ifs, which a program
 * that left must not hold up.
 */
export const exitNested = kernel(
  { name: 'exit_nested', params: { x: ptr('i32'), flags: ptr('i32'), pre: ptr('i32'), mark: ptr('i32'), rowSums: ptr('i32'), colMax: ptr('i32'), R: constexpr(), C: constexpr() } },
  ({ x, flags, pre, mark, rowSums, colMax, R, C }) => {
    const pid = programId(0);
    store(pre.add(pid), pid.add(100));
    ifThenElse(pid.ge(2), () => {
      ifThenElse(load(flags.add(pid)).ne(0), () => {
        exitIf(pid.ge(0));
        store(mark.add(pid), 7);
      });
    }, () => store(mark.add(pid), 5));
    const r = R as number, c = C as number;
    const rows = arange(0, r), cols = arange(0, c);
    const t = load(x.add(pid.mul(r * c)).add(rows.expandDims(1).mul(c).add(cols.expandDims(0))));
    store(rowSums.add(pid.mul(r)).add(rows), sum(t, 1));
    store(colMax.add(pid.mul(c)).add(cols), max(t, 0));
  },
);

export async function runExitNested(numWarps: number, sanitize = false): Promise<void> {
  const R = 16, C = 64, grid = 8;
  const flags = Int32Array.from([1, 0, 1, 0, 1, 1, 0, 1]); // programs 0 and 1 ignore theirs
  const x = Int32Array.from({ length: grid * R * C }, (_, i) => ((i * 7919) % 2001) - 1000);
  const fresh = () => ({ x, flags, pre: new Int32Array(grid).fill(-1), mark: new Int32Array(grid).fill(-1), rowSums: new Int32Array(grid * R).fill(-1), colMax: new Int32Array(grid * C).fill(-1), R, C });
  const left = (p: number) => p >= 2 && flags[p] !== 0;
  const rs = new Int32Array(grid * R).fill(-1), cm = new Int32Array(grid * C).fill(-1);
  for (let b = 0; b < grid; b++) {
    if (left(b)) continue;
    rs.fill(0, b * R, b * R + R);
    cm.fill(-(2 ** 31), b * C, b * C + C);
    for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
      const v = x[(b * R + i) * C + j]!;
      rs[b * R + i]! += v;
      cm[b * C + j] = Math.max(cm[b * C + j]!, v);
    }
  }
  const pre = Int32Array.from({ length: grid }, (_, p) => p + 100);
  const mark = Int32Array.from({ length: grid }, (_, p) => (p < 2 ? 5 : left(p) ? -1 : -1));
  const check = (got: Record<string, unknown>, dev: string) => {
    expectBitwise(got['pre'] as Int32Array, pre, `${dev}: pre (before the ifs)`);
    expectBitwise(got['mark'] as Int32Array, mark, `${dev}: mark (after the exit in its branch)`);
    expectBitwise(got['rowSums'] as Int32Array, rs, `${dev}: row sums`);
    expectBitwise(got['colMax'] as Int32Array, cm, `${dev}: column maxima`);
  };
  if (sanitize) {
    const a = fresh();
    await exitNested.run(a, { grid, device: 'sim', numWarps, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    return check(a, 'sanitized sim');
  }
  const r = await runBoth(exitNested, fresh(), grid, { numWarps });
  for (const dev of ['interpret', 'sim'] as const) check(r[dev], dev);
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

/** The target the sim device compiles for as each GPU. */
const SIM_TARGET = { sm_80: 'sm_80', sm_90: 'sm_90a' } as const;
/** The suite of exit_assume_sm80 / exit_assume_sm90: every case on the interpreter and on the sim as `arch` (TESSERA_SIM_ARCH, set by the file). */
export function exitAssumeSuite(arch: 'sm_80' | 'sm_90'): void {
  describe(`exitIf and assume on the sim as ${arch}`, () => {
    it(`the sim device compiles for ${arch}`, () => expect(simDevice().target).toBe(SIM_TARGET[arch]));
    it.each([1, 4, 8])('programs past the end leave before reductions with barriers (%i warps)', runExitRows);
    it('a data-dependent exit', runExitFlag);
    it.each([1, 4])('exitIf inside nested ifs: the rest of the branch does not run, later barriers do not wait for the programs that left (%i warps)', (w) => runExitNested(w));
    it('exitIf inside ifs under racecheck, synccheck and initcheck', () => runExitNested(4, true));
    it('racecheck, synccheck and initcheck find nothing where programs leave early', runExitSanitized);
    it('assume(stride % 8 == 0) vectorizes the loads and keeps the results', runAssumeStride);
  });
}
