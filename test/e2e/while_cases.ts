// whileLoop kernels (a dynamic trip count, scf.while) and their plain-JS references, run on the
// interpreter and the sim by while_sm80.test.ts and while_sm90.test.ts (one arch per process;
// whileSuite holds their suite).
import { describe, expect, it } from 'vitest';
import {
  arange, constexpr, dot, forLoop, ifThenElse, load, max, programId, ptr, store, sum, whileLoop, where, zeros,
} from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { f16Array } from '../../src/ir/half.js';
import { expectBitwise, fill, runBoth, simDevice } from './helpers.js';

/** Collatz: steps until n reaches 1, one program per input; a different trip count per program. */
export const collatz = kernel(
  { name: 'while_collatz', params: { x: ptr('i32'), steps: ptr('i32'), top: ptr('i32') } },
  ({ x, steps, top }) => {
    const pid = programId(0);
    const [, count, peak] = whileLoop([load(x.add(pid)), 0, 0], (n) => n.ne(1), (n, c, p) => {
      const next = where(n.rem(2).eq(0), n.shr(1), n.mul(3).add(1));
      return [next, c!.add(1), p!.maximum(next)];
    });
    store(steps.add(pid), count!);
    store(top.add(pid), peak!);
  },
);
export function collatzRef(x: Int32Array): [Int32Array, Int32Array] {
  const steps = new Int32Array(x.length), top = new Int32Array(x.length);
  x.forEach((v, i) => {
    let n = v, c = 0, p = 0;
    while (n !== 1) { n = n % 2 === 0 ? n / 2 : 3 * n + 1; c++; p = Math.max(p, n); }
    steps[i] = c; top[i] = p;
  });
  return [steps, top];
}

/**
 * A 2-D i32 tile carried: rows grow by their max (a reduction, so layouts convert inside the
 * body) until the whole tile's sum passes `limit` (a condition computed by a reduction).
 */
export const tileGrow = kernel(
  { name: 'while_tile', params: { x: ptr('i32'), o: ptr('i32'), iters: ptr('i32'), limit: 'i32', R: constexpr(), C: constexpr() } },
  ({ x, o, iters, limit, R, C }) => {
    const r = R as number, c = C as number;
    const offs = arange(0, r).expandDims(1).mul(c).add(arange(0, c).expandDims(0));
    const [t, n] = whileLoop([load(x.add(offs)), 0], (t) => sum(sum(t!, 1), 0).lt(limit), (t, n) => {
      const rowMax = max(t!, 1).expandDims(1);
      return [t!.add(rowMax.shr(2)).add(1), n!.add(1)];
    });
    store(o.add(offs), t!);
    store(iters, n!);
  },
);
export function tileGrowRef(x: Int32Array, R: number, C: number, limit: number): [Int32Array, number] {
  const t = Int32Array.from(x);
  let n = 0;
  while (t.reduce((a, b) => (a + b) | 0, 0) < limit) {
    for (let i = 0; i < R; i++) {
      let m = -(2 ** 31);
      for (let j = 0; j < C; j++) m = Math.max(m, t[i * C + j]!);
      for (let j = 0; j < C; j++) t[i * C + j] = (t[i * C + j]! + (m >> 2) + 1) | 0;
    }
    n++;
  }
  return [t, n];
}

/**
 * Blocks of a row summed until a zero block (a sentinel read from memory) or the end: the
 * condition reads memory, the body has an if and an inner for loop (loop nests both ways).
 */
export const sentinel = kernel(
  { name: 'while_sentinel', params: { x: ptr('f32'), o: ptr('f32'), used: ptr('i32'), n: 'i32', B: constexpr() } },
  ({ x, o, used, n, B }) => {
    const b = B as number;
    const row = programId(0).mul(n);
    const lanes = arange(0, b);
    const [, acc, blocks] = whileLoop([0, zeros([b], 'f32'), 0],
      (off) => ifThenElse(off.lt(n), () => [max(load(x.add(row).add(off).add(lanes), { mask: lanes.add(off).lt(n), other: 1 }).abs(), 0).gt(0)], () => [false])[0]!,
      (off, acc, k) => {
        const v = load(x.add(row).add(off).add(lanes), { mask: lanes.add(off).lt(n), other: 0 });
        // an inner for (two half-steps) inside the while
        const [a2] = forLoop(0, 2, 1, [acc!], (_, a) => [a!.add(v.mul(0.5))]);
        return [off.add(b), a2!, k!.add(1)];
      });
    store(o.add(programId(0).mul(b)).add(lanes), acc!);
    store(used.add(programId(0)), blocks!);
  },
);
export function sentinelRef(x: Float32Array, rows: number, n: number, B: number): [Float32Array, Int32Array] {
  const o = new Float32Array(rows * B), used = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    for (let off = 0; off < n; off += B) {
      let any = false;
      for (let j = 0; j < B; j++) any ||= off + j < n ? x[r * n + off + j] !== 0 : true;
      if (!any) break;
      for (let h = 0; h < 2; h++) {
        for (let j = 0; j < B; j++) o[r * B + j] = Math.fround(o[r * B + j]! + Math.fround((off + j < n ? x[r * n + off + j]! : 0) * 0.5));
      }
      used[r]!++;
    }
  }
  return [o, used];
}

/** A while inside a for: per outer step, halve the value until it is below the step number. */
export const nested = kernel(
  { name: 'while_in_for', params: { x: ptr('i32'), o: ptr('i32'), steps: 'i32' } },
  ({ x, o, steps }) => {
    const lanes = arange(0, 32);
    const [v] = forLoop(0, steps, 1, [load(x.add(lanes))], (i, v) => {
      const [w] = whileLoop([v!], (w) => max(w!, 0).gt(i.add(1)), (w) => [w!.shr(1)]);
      return [w!.add(i.mul(3))];
    });
    store(o.add(lanes), v!);
  },
);
export function nestedRef(x: Int32Array, steps: number): Int32Array {
  let v = Int32Array.from(x);
  for (let i = 0; i < steps; i++) {
    while (Math.max(...v) > i + 1) v = v.map((e) => e >> 1);
    v = v.map((e) => (e + 3 * i) | 0);
  }
  return v;
}

/** Every case on both devices (the interpreter and the sim, whose arch the caller set), vs JS. */
export async function runCollatz(): Promise<void> {
  const x = Int32Array.from({ length: 16 }, (_, i) => [1, 2, 3, 7, 27, 97, 871, 6171][i % 8]! + (i >= 8 ? 1 : 0) * (i === 8 ? 0 : 2));
  const r = await runBoth(collatz, { x, steps: new Int32Array(16), top: new Int32Array(16) }, 16);
  const [steps, top] = collatzRef(x);
  for (const dev of ['interpret', 'sim'] as const) {
    expectBitwise(r[dev].steps as Int32Array, steps, `${dev}: collatz steps`);
    expectBitwise(r[dev].top as Int32Array, top, `${dev}: collatz peak`);
  }
}

export async function runTileGrow(R: number, C: number, limit: number, numWarps: number): Promise<void> {
  const x = (fill('i32', R * C, 3) as Int32Array).map((v) => Math.abs(v) % 100);
  const args = { x, o: new Int32Array(R * C), iters: new Int32Array(1), limit, R, C };
  const r = await runBoth(tileGrow, args, 1, { numWarps });
  const [t, n] = tileGrowRef(x, R, C, limit);
  for (const dev of ['interpret', 'sim'] as const) {
    expectBitwise(r[dev].o as Int32Array, t, `${dev}: carried tile`);
    expect((r[dev].iters as Int32Array)[0], `${dev}: iterations`).toBe(n);
  }
}

export async function runSentinel(): Promise<void> {
  const rows = 4, n = 200, B = 32;
  const x = new Float32Array(rows * n).map((_, i) => ((i * 7919) % 13) - 6 || 1);
  // row 0: no zero block (7 blocks, the last one partial: its masked lanes read 1, not 0);
  // row 1: a zero block at 64; row 2: at 0 (no iteration); row 3: at 160
  x.fill(0, n + 64, n + 96);
  x.fill(0, 2 * n, 2 * n + 32);
  x.fill(0, 3 * n + 160, 3 * n + 192);
  const r = await runBoth(sentinel, { x, o: new Float32Array(rows * B), used: new Int32Array(rows), n, B }, rows);
  const [o, used] = sentinelRef(x, rows, n, B);
  for (const dev of ['interpret', 'sim'] as const) {
    expectBitwise(r[dev].o as Float32Array, o, `${dev}: sums`);
    expectBitwise(r[dev].used as Int32Array, used, `${dev}: blocks used`);
  }
  expect([...used]).toEqual([7, 2, 0, 5]);
}

export async function runNested(): Promise<void> {
  const x = Int32Array.from({ length: 32 }, (_, i) => (i * 977) % 5000);
  const r = await runBoth(nested, { x, o: new Int32Array(32), steps: 5 }, 1);
  const want = nestedRef(x, 5);
  for (const dev of ['interpret', 'sim'] as const) expectBitwise(r[dev].o as Int32Array, want, `${dev}: while in for`);
}

/** A matmul whose k loop is a while (k carried): the dot runs on tensor cores inside the while. */
export const whileMatmul = kernel(
  { name: 'while_matmul', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, K, BM, BN, BK }) => {
    const rm = arange(0, BM), rn = arange(0, BN), rk = arange(0, BK);
    const [, acc] = whileLoop([0, zeros([BM as number, BN as number], 'f32')], (k) => k.lt(K), (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(BN).add(rn.expandDims(0))));
      return [k.add(BK), dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(BN).add(rn.expandDims(0))), acc!);
  },
);

export async function runWhileMatmul(): Promise<void> {
  const M = 64, N = 64, K = 96;
  const af = new Float32Array(M * K).map((_, i) => ((i * 37) % 17) / 8 - 1);
  const bf = new Float32Array(K * N).map((_, i) => ((i * 53) % 13) / 8 - 0.75);
  const args = { a: f16Array(af), b: f16Array(bf), c: new Float32Array(M * N), K, BM: M, BN: N, BK: 32 };
  const r = await runBoth(whileMatmul, args, 1);
  // the inputs are exact in f16 and every partial sum is exact in f32: the result is exact
  const want = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += af[i * K + k]! * bf[k * N + j]!;
    want[i * N + j] = s;
  }
  for (const dev of ['interpret', 'sim'] as const) expectBitwise(r[dev].c as Float32Array, want, `${dev}: while matmul`);
}

/** The carried-tile loop (reductions, so shared memory and barriers inside the loop) under the sim's three sanitizers. */
export async function runTileGrowSanitized(): Promise<void> {
  const R = 32, C = 64;
  const x = (fill('i32', R * C, 3) as Int32Array).map((v) => Math.abs(v) % 100);
  const o = new Int32Array(R * C), iters = new Int32Array(1);
  await tileGrow.run({ x, o, iters, limit: 400000, R, C }, { grid: 1, device: 'sim', numWarps: 4, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
  const [t, n] = tileGrowRef(x, R, C, 400000);
  expectBitwise(o, t, 'sanitized sim: carried tile');
  expect(iters[0]).toBe(n);
}

/** The target the sim device compiles for as each GPU. */
const SIM_TARGET = { sm_80: 'sm_80', sm_90: 'sm_90a' } as const;
/** The suite of while_sm80 / while_sm90: every case on the interpreter and on the sim as `arch` (TESSERA_SIM_ARCH, set by the file). */
export function whileSuite(arch: 'sm_80' | 'sm_90'): void {
  describe(`whileLoop on the sim as ${arch}`, () => {
    it(`the sim device compiles for ${arch}`, () => expect(simDevice().target).toBe(SIM_TARGET[arch]));
    it('scalar carried values, a different trip count per program (Collatz)', runCollatz);
    it.each([[16, 32, 1], [32, 64, 4], [8, 128, 8]])('a carried %ix%i i32 tile, reductions in the condition and the body (%i warps)', (R, C, w) => runTileGrow(R, C, 400000, w));
    it('zero iterations: the inits come out', () => runTileGrow(8, 32, -1, 4));
    it('a condition that loads, an if in the condition, a for in the body', runSentinel);
    it('a while in a for', runNested);
    it('racecheck, synccheck and initcheck find nothing in a loop with barriers', runTileGrowSanitized);
    it('a matmul whose k loop is a while (tensor cores inside it)', runWhileMatmul);
  });
}
