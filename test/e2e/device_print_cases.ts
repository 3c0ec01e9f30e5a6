// devicePrint and deviceAssert on the sim against the interpreter (the reference): the lines a run
// hands to onPrint (same text, same order) and the error of a failed assert (same class, code,
// message, program, lane, source line). Run by device_print.test.ts (sm_80) and
// device_print_sm90.test.ts (sm_90): the sim's target is fixed per process.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, deviceAssert, devicePrint, expandDims, forLoop, load, programId, ptr, store } from '../../src/lang/index.js';
import { kernel, type Kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { DeviceAssertError } from '../../src/interpret/errors.js';
import { simDevice } from './helpers.js';
import { gate } from '../codegen/gate.js';

// Every dtype the print format knows, decimal and hex, scalars, a 2-D tile and a loop.
const show = kernel(
  { name: 'show', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const v = load(x.add(offs), { mask: offs.lt(n), other: 0 });
    devicePrint('f32 ', v);
    devicePrint('halves ', v.to('f16'), v.to('bf16'), v.to('f64'));
    devicePrint('ints ', v.to('i32'), v.to('i64'), v.to('i8'), v.to('u32'), offs.lt(n));
    devicePrint('hex ', v, v.to('f16'), v.to('bf16'), v.to('i32'), v.to('i8'), v.to('f64'), { hex: true });
    devicePrint('scalars ', n, programId(1));
    devicePrint('nothing but the program');
    forLoop(0, 3, 1, [], (i) => {
      devicePrint('loop ', i, v.to('i32').add(i));
    });
    const grid2 = expandDims(arange(0, 4), 1).mul(8).add(expandDims(arange(0, 8), 0));
    devicePrint('2-D ', grid2);
  },
);

// Prints, then asserts v < limit (the failing lanes are chosen by the input).
const checked = kernel(
  { name: 'checked', params: { x: ptr('f32'), out: ptr('f32'), limit: 'f32', BLOCK: constexpr() } },
  ({ x, out, limit, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const v = load(x.add(offs));
    devicePrint('before ', v);
    deviceAssert(v.lt(limit), 'v is below the limit');
    devicePrint('after ', v);
    store(out.add(offs), v);
  },
);
const SELF = fileURLToPath(import.meta.url);
const ASSERT_LINE = readFileSync(SELF, 'utf8').split('\n').findIndex((l) => l.includes("deviceAssert(v.lt(limit)")) + 1;

async function lines(k: Kernel, args: () => RunArgs, opts: { grid: number | number[]; numWarps?: number }, device: 'interpret' | 'sim'): Promise<{ lines: string[]; error: unknown }> {
  const out: string[] = [];
  const error = await k.run(args(), { ...opts, device, onPrint: (l: string) => out.push(l) } as never).then(() => undefined, (e: unknown) => e);
  return { lines: out, error };
}

// f32 values that exercise the formats: shortest round-trip, halves' rounding, negatives, ints.
const VALUES = [0.1, -2.5, 1 / 3, 65504, -0, 100.7, 3, -7.25, 1e-3, 12345.678, 0.5, -1];

export function devicePrintCases(arch: string): void {
  describe(`devicePrint on the sim (${arch}) delivers the interpreter's lines to onPrint`, () => {
    it(`runs as ${arch}; the PTX of both kernels (vprintf, __assertfail) assembles with ptxas`, () => {
      expect(simDevice().target.startsWith(arch)).toBe(true);
      gate(show.trace({ BLOCK: 8 }));
      gate(checked.trace({ BLOCK: 32 }));
    });

    it('every dtype, hex, scalars, a 2-D tile, a loop; two programs per axis, four warps', async () => {
      simDevice();
      const x = Float32Array.from({ length: 16 }, (_, i) => VALUES[i % VALUES.length]!);
      const args = (): RunArgs => ({ x: x.slice(), n: 12, BLOCK: 8 });
      const ref = await lines(show, args, { grid: [2, 2] }, 'interpret');
      const sim = await lines(show, args, { grid: [2, 2] }, 'sim');
      expect(ref.error).toBeUndefined();
      expect(sim.error).toBeUndefined();
      // per program: 8 lines for each of the 4 tile prints (hex included), 2 scalar-only, 3x8 in the loop, 32 for the 2-D tile
      expect(ref.lines).toHaveLength(4 * (8 * 4 + 2 + 3 * 8 + 32));
      expect(sim.lines).toEqual(ref.lines);
      // the interpreter's own format, spelled out for a few lines
      expect(ref.lines).toContain('pid (0, 0, 0) idx (0) f32 0.1');
      expect(ref.lines).toContain('pid (0, 0, 0) idx (0) halves 0.1, 0.1, 0.10000000149011612');
      expect(ref.lines).toContain('pid (0, 0, 0) idx (1) ints -2, -2, -2, 0, true');
      expect(ref.lines).toContain('pid (0, 0, 0) idx (1) hex 0xc0200000, 0xc100, 0xc020, 0xfffffffe, 0xfe, 0xc004000000000000');
      expect(ref.lines).toContain('pid (1, 1, 0) scalars 12, 1');
      expect(ref.lines).toContain('pid (1, 0, 0) nothing but the program');
      expect(ref.lines).toContain('pid (1, 0, 0) idx (7) ints 0, 0, 0, 0, false');
      expect(ref.lines.filter((l) => l.startsWith('pid (0, 0, 0) idx (2) loop '))).toEqual(['pid (0, 0, 0) idx (2) loop 0, 0', 'pid (0, 0, 0) idx (2) loop 1, 1', 'pid (0, 0, 0) idx (2) loop 2, 2']);
      expect(ref.lines).toContain('pid (0, 1, 0) idx (3, 7) 2-D 31');
    });

    it('one warp, one element per lane and replicated copies: each element once, in order', async () => {
      simDevice();
      const x = Float32Array.from({ length: 64 }, (_, i) => i * 0.25);
      const args = (): RunArgs => ({ x: x.slice(), n: 64, BLOCK: 64 });
      for (const numWarps of [1, 8]) {
        const ref = await lines(show, args, { grid: 1, numWarps }, 'interpret');
        const sim = await lines(show, args, { grid: 1, numWarps }, 'sim');
        expect(sim.error).toBeUndefined();
        expect(sim.lines).toEqual(ref.lines);
      }
    });
  });

  describe(`a failed deviceAssert on the sim (${arch}) is the interpreter's E_ASSERT`, () => {
    it('same class, code, message, program, lane and source line; the lines printed before it', async () => {
      simDevice();
      const x = Float32Array.from({ length: 64 }, (_, i) => i);
      const args = (): RunArgs => ({ x: x.slice(), out: new Float32Array(64), limit: 5.5, BLOCK: 32 });
      // one warp: every lane prints before any reaches the assert; program 0 fails at lanes 6..31
      const ref = await lines(checked, args, { grid: 2, numWarps: 1 }, 'interpret');
      const sim = await lines(checked, args, { grid: 2, numWarps: 1 }, 'sim');
      for (const r of [ref, sim]) {
        const e = r.error as DeviceAssertError;
        expect(e).toBeInstanceOf(DeviceAssertError);
        expect(e.code).toBe('E_ASSERT');
        expect(e.message).toBe(`kernel 'checked': assertion failed in program (0, 0, 0), lane 6 [6]: v is below the limit (at ${SELF}:${ASSERT_LINE}:5)`);
        expect(e.pid).toEqual([0, 0, 0]);
        expect(e.lane).toBe(6);
        expect(e.loc).toEqual({ file: SELF, line: ASSERT_LINE, col: 5 });
        expect(r.lines).toEqual(Array.from({ length: 32 }, (_, i) => `pid (0, 0, 0) idx (${i}) before ${i}`));
      }
      expect((sim.error as Error).cause).toMatchObject({ code: 'CUDA_ERROR_ASSERT' });
    });

    it('a 2-D condition names its lane row-major; the device works again after it', async () => {
      simDevice();
      const grid2 = kernel(
        { name: 'grid2', params: { lim: 'i32' } },
        ({ lim }) => {
          const v = expandDims(arange(0, 4), 1).mul(16).add(expandDims(arange(0, 16), 0));
          deviceAssert(v.lt(lim).or(v.eq(63)), 'small');
        },
      );
      const ref = await lines(grid2, () => ({ lim: 21 }), { grid: 1 }, 'interpret');
      const sim = await lines(grid2, () => ({ lim: 21 }), { grid: 1 }, 'sim');
      expect((ref.error as Error).message).toMatch(/lane 21 \[1, 5\]: small/);
      expect((sim.error as Error).message).toBe((ref.error as Error).message);
      // the context was replaced (a failed assert is sticky, as on hardware); a passing launch runs
      const ok = await lines(grid2, () => ({ lim: 64 }), { grid: 1 }, 'sim');
      expect(ok.error).toBeUndefined();
      // queued behind a failing launch, a passing one fails with the context, not with an E_ASSERT of its own
      const dev = simDevice();
      const f = grid2.trace({});
      const settle = (p: PromiseLike<void>): Promise<unknown> => Promise.resolve(p).then(() => undefined, (e: unknown) => e);
      const bad = settle(dev.launch(f, [21], { grid: [1, 1, 1], numWarps: 4 }));
      const after = settle(dev.launch(f, [64], { grid: [1, 1, 1], numWarps: 4 }));
      expect(((await bad) as Error).message).toBe((ref.error as Error).message);
      expect(((await after) as { code?: string }).code).toBe('CUDA_ERROR_ASSERT');
    });
  });
}
