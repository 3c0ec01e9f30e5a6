// Layout conversions through shared memory (lower_convert.ts, convert_plan.ts): the
// tensor-core epilogue (mma accumulator -> the store's blocked layout) moves with st.shared.v2 /
// ld.shared.v4 and no bank conflicts, and stores with st.global.v4; the planner's conflict model
// agrees exactly with the sim's bank counter on other conversions (transposes, slices, vector
// width changes), where padding alone cannot always reach zero.
import { describe, expect, it } from 'vitest';
import type { Func } from '../../src/ir/ops.js';
import type { DType } from '../../src/ir/types.js';
import { blockedFor, mmaLayout } from '../../src/compiler/layout.js';
import { planConversion } from '../../src/codegen/convert/convert_plan.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { f16Array } from '../../src/ir/half.js';
import { expectBitwise, runBoth, simDevice } from '../e2e/helpers.js';
import { count, gate } from './gate.js';
import { kernel, P, type K } from './dsl.js';

const grid2 = (k: K, M: number, N: number) => {
  const rm = k.expand(k.arange(M), 1);
  const cn = k.expand(k.arange(N), 0);
  return k.bin('add', k.broadcast(k.bin('mul', rm, k.c(N, 'i32', [M, 1])), [M, N]), k.broadcast(cn, [M, N]));
};
const aligned = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { divisibleBy16: true }]));

/** c[M,N] = a[M,K] @ b[K,N] with f16 inputs. */
const mm = (acc: DType, M: number, N: number, Kd: number) =>
  kernel(`epi_${acc}_${M}x${N}x${Kd}`, [['a', P('f16')], ['b', P('f16')], ['c', P(acc)]], (k, [a, b, c]) => {
    const d = k.dot(k.load(k.addptr(a!, grid2(k, M, Kd))), k.load(k.addptr(b!, grid2(k, Kd, N))), k.c(0, acc, [M, N]));
    k.store(k.addptr(c!, grid2(k, M, N)), d);
  });

/** Bank conflicts the planner predicts for every conversion in `ptx` (its PTX comments). */
const predicted = (ptx: string): number[] => [...ptx.matchAll(/(\d+) bank conflicts \(model\)/g)].map((m) => Number(m[1]));

/** Runs `f` on the interpreter and the sim (ptxas-gated); returns the outputs and the sim's counters. */
async function run(f: Func, args: LaunchArg[], numWarps: number) {
  const r = await runBoth(f, args, 1, { numWarps });
  return { ...r, counters: simDevice().native.simCounters()! };
}

describe('tensor-core epilogue: accumulator -> store layout', () => {
  // K = 64: a and b rows are 128 bytes, so the operand staging (st.shared.v4 + ldmatrix) is
  // conflict-free as well and every conflict the sim counts would be the epilogue's
  it.each([
    ['f32', 64, 4], ['f32', 128, 4], ['f32', 128, 8],
    ['f16', 64, 4], ['f16', 128, 4], ['f16', 128, 8],
  ] as const)('%s accumulator %i², %i warps: vector st/ld.shared, 0 bank conflicts, st.global.v4, exact results', async (acc, M, numWarps) => {
    const N = M, Kd = 64;
    const f = mm(acc, M, N, Kd);
    const { sm80, sm90 } = gate(f, { numWarps, specialization: aligned('a', 'b', 'c') });
    const perThread = (M * N) / (32 * numWarps);
    for (const { ptx } of [sm80, sm90]) {
      expect(ptx).toMatch(/mma\.sync/);
      expect(predicted(ptx)).toEqual([0]);
      // the mma fragment's column pairs: one 8-byte (f32) or one packed 4-byte (f16) store each
      expect(count(ptx, acc === 'f32' ? /st\.shared\.v2\.b32/ : /st\.shared\.b32/)).toBe(perThread / 2);
      // the store layout's 16-byte runs: one ld.shared.v4.b32 each, nothing scalar
      expect(count(ptx, /ld\.shared\.v4\.b32/)).toBe(perThread / (acc === 'f32' ? 4 : 8));
      expect(ptx).not.toMatch(/ld\.shared\.(b16|b32|f32)\s/);
      expect(count(ptx, /st\.global\.v4\.(f32|b32)/)).toBe(perThread / (acc === 'f32' ? 4 : 8));
    }
    // the conversion runs in as many rounds of rows as keep it within the bytes the operand
    // staging already has (a [M, 64] + b [64, N], f16, unpadded): the f32 64² tile (18400 bytes
    // padded) in 2 rounds, the f32 128² (68 KiB) in 4, the f16 128² (34 KiB) in 2, the f16 64² in 1
    const rounds = { f32: { 64: 2, 128: 4 }, f16: { 64: 1, 128: 2 } }[acc][M];
    expect(sm80.ptx.includes(`${rounds} rounds of ${M / rounds} rows`)).toBe(rounds > 1);
    expect(count(sm80.ptx, /bar\.sync/)).toBe(2 + 2 * rounds);
    expect(sm80.metadata.sharedBytes).toBe(M * 64 * 2 + 64 * N * 2);
    expect(sm80.metadata.dynamicShared).toBe(false);
    // small integers: every product and sum is exact, so sim, interpreter and JS agree bit for bit
    const ints = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 5) - 2);
    const a = ints(M * Kd, 1), b = ints(Kd * N, 3);
    const want = new Float32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < Kd; k++) s += a[i * Kd + k]! * b[k * N + j]!;
      want[i * N + j] = s;
    }
    const out = acc === 'f32' ? new Float32Array(M * N) : new Uint16Array(M * N);
    const r = await run(f, [f16Array(a), f16Array(b), out], numWarps);
    const ref = acc === 'f32' ? want : f16Array(want);
    expectBitwise(r.sim[2] as ArrayBufferView, ref, 'sim vs JS');
    expectBitwise(r.interpret[2] as ArrayBufferView, ref, 'interpreter vs JS');
    expect(r.counters.sharedBankConflicts).toBe(0);
  });

  // small tiles: the store layout replicates (16 x 16 f16 over 2 warps wraps along N) or the
  // accumulator needs the XOR swizzle (16 x 16 f32); results must stay exact
  it.each([
    ['f32', 16, 16, 2, 0], ['f16', 16, 16, 2, undefined], ['f32', 16, 64, 8, 0], ['f16', 32, 32, 4, 0],
  ] as const)('%s accumulator %i x %i over %i warps: exact on the sim and the interpreter', async (acc, M, N, numWarps, conflicts) => {
    const Kd = 32;
    const f = mm(acc, M, N, Kd);
    const { sm80 } = gate(f, { numWarps, specialization: aligned('a', 'b', 'c') });
    expect(sm80.ptx).toMatch(/mma\.sync/);
    if (conflicts !== undefined) expect(predicted(sm80.ptx)).toEqual([conflicts]);
    const ints = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => ((i * 5 + seed) % 7) - 3);
    const a = ints(M * Kd, 2), b = ints(Kd * N, 4);
    const want = new Float32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < Kd; k++) s += a[i * Kd + k]! * b[k * N + j]!;
      want[i * N + j] = s;
    }
    const out = acc === 'f32' ? new Float32Array(M * N) : new Uint16Array(M * N);
    const r = await run(f, [f16Array(a), f16Array(b), out], numWarps);
    expectBitwise(r.sim[2] as ArrayBufferView, acc === 'f32' ? want : f16Array(want), 'sim vs JS');
    expectBitwise(r.interpret[2] as ArrayBufferView, acc === 'f32' ? want : f16Array(want), 'interpreter vs JS');
  });

  it('the plan pads rows by 8 words: the 4 rows of a half-warp st.shared.v2 land 8 banks apart', () => {
    for (const [M, w] of [[64, 4], [128, 8]] as const) {
      const p = planConversion(mmaLayout(M, M, w)!, blockedFor([M, M], w, [1, 0], 4), [M, M], 4, w, `t|f32|${M}|${w}`);
      expect(p).toMatchObject({ strides: [M + 8, 1], inner: 1, writeVec: 2, readVec: 4, conflicts: 0 });
      const h = planConversion(mmaLayout(M, M, w)!, blockedFor([M, M], w, [1, 0], 8), [M, M], 2, w, `t|f16|${M}|${w}`);
      // f16: packed pairs are 4-byte stores by the whole warp (8 rows): rows 36 words apart
      expect(h).toMatchObject({ strides: [M + 8, 1], inner: 1, writeVec: 2, readVec: 8, conflicts: 0 });
    }
  });
});

describe('other conversions: the model counts what the sim counts', () => {
  type Case = [string, number | 'some', () => Func, () => LaunchArg[], RegExp?];
  const cases: Case[] = [
    ['f32 -> f16 store (4- to 8-element runs)', 0, () => kernel('cvt_widen', [['x', P('f32')], ['y', P('f16')]], (k, [x, y]) => {
      const o = grid2(k, 32, 64);
      k.store(k.addptr(y!, o), k.cast(k.load(k.addptr(x!, o)), 'f16'));
    }), () => [Float32Array.from({ length: 2048 }, (_, i) => i % 97), new Uint16Array(2048)], /st\.shared\.v2\.b32[^]*ld\.shared\.v4\.b32/],
    ['f32 -> f64 store (4- to 2-element runs, v2.b64)', 0, () => kernel('cvt_f64', [['x', P('f32')], ['y', P('f64')]], (k, [x, y]) => {
      const o = grid2(k, 32, 64);
      k.store(k.addptr(y!, o), k.cast(k.load(k.addptr(x!, o)), 'f64'));
    }), () => [Float32Array.from({ length: 2048 }, (_, i) => i / 7), new Float64Array(2048)], /st\.shared\.v2\.b64[^]*ld\.shared\.v2\.b64/],
    ['i8 -> i32 store (16- to 4-element runs; bytes live in 32-bit registers)', 0, () => kernel('cvt_i8', [['x', P('i8')], ['y', P('i32')]], (k, [x, y]) => {
      const o = grid2(k, 32, 64);
      k.store(k.addptr(y!, o), k.cast(k.load(k.addptr(x!, o)), 'i32'));
    }), () => [Int8Array.from({ length: 2048 }, (_, i) => (i * 37) % 256 - 128), new Int32Array(2048)], /ld\.shared\.v4\.b32/],
    // columns of 4 written, rows read: padding leaves 2-way conflicts, the XOR swizzle none
    ['transpose f32 64 x 32 (fastest dims differ): XOR swizzle', 0, () => kernel('cvt_trans', [['x', P('f32')], ['y', P('f32')]], (k, [x, y]) => {
      k.store(k.addptr(y!, grid2(k, 64, 32)), k.trans(k.load(k.addptr(x!, grid2(k, 32, 64)))));
    }), () => [Float32Array.from({ length: 2048 }, (_, i) => i), new Float32Array(2048)], /swizzle[^]*xor\.b32[^]*ld\.shared\.v2\.b32/],
    ['transpose f16 64 x 64: XOR swizzle, 16-byte reads', 0, () => kernel('cvt_trans16', [['x', P('f16')], ['y', P('f16')]], (k, [x, y]) => {
      k.store(k.addptr(y!, grid2(k, 64, 64)), k.trans(k.load(k.addptr(x!, grid2(k, 64, 64)))));
    }), () => [Uint16Array.from({ length: 4096 }, (_, i) => 0x3c00 + (i % 1000)), new Uint16Array(4096)], /swizzle[^]*ld\.shared\.v4\.b32/],
    ['row sums: slice -> 1-D blocked', 0, () => kernel('cvt_slice', [['x', P('f32')], ['y', P('f32')]], (k, [x, y]) => {
      const s = k.reduce(k.load(k.addptr(x!, grid2(k, 64, 32))), 1, 'add');
      k.store(k.addptr(y!, k.arange(64)), s);
    }), () => [Float32Array.from({ length: 2048 }, (_, i) => i % 13), new Float32Array(64)]],
    // 3-D: padding only (no swizzle), conflicts remain and must be counted exactly
    ['3-D transpose of the last two dims (padding only)', 'some', () => kernel('cvt_trans3', [['x', P('f32')], ['y', P('f32')]], (k, [x, y]) => {
      const idx = (a: number, b: number, c: number) => {
        const i = k.broadcast(k.expand(k.expand(k.bin('mul', k.arange(a), k.c(b * c, 'i32', [a])), 1), 2), [a, b, c]);
        const j = k.broadcast(k.expand(k.expand(k.bin('mul', k.arange(b), k.c(c, 'i32', [b])), 0), 2), [a, b, c]);
        const l = k.broadcast(k.expand(k.expand(k.arange(c), 0), 0), [a, b, c]);
        return k.bin('add', k.bin('add', i, j), l);
      };
      k.store(k.addptr(y!, idx(2, 64, 32)), k.trans(k.load(k.addptr(x!, idx(2, 32, 64))), [0, 2, 1]));
    }), () => [Float32Array.from({ length: 4096 }, (_, i) => i), new Float32Array(4096)]],
  ];
  it.each(cases)('%s', async (_, want, make, args, form) => {
    const f = make();
    const { sm80 } = gate(f, { specialization: aligned('x', 'y'), numWarps: 4 });
    const model = predicted(sm80.ptx);
    expect(model.length).toBeGreaterThan(0);
    if (form) expect(sm80.ptx).toMatch(form);
    const total = model.reduce((a, b) => a + b, 0);
    if (want === 'some') expect(total).toBeGreaterThan(0);
    else expect(total).toBe(want);
    const r = await run(f, args(), 4);
    expectBitwise(r.sim[1] as ArrayBufferView, r.interpret[1] as ArrayBufferView, 'sim vs interpreter');
    // the sim device specializes aligned pointers the same way, so it ran this PTX
    expect(r.counters.sharedBankConflicts).toBe(total);
  });

  it('a 16 x 16 f32 accumulator over 2 warps needs the swizzle (no padding is conflict-free for both sides)', () => {
    const p = planConversion(mmaLayout(16, 16, 2)!, blockedFor([16, 16], 2, [1, 0], 4), [16, 16], 4, 2, 't|16x16');
    expect(p.swizzle).toBeDefined();
    expect(p).toMatchObject({ writeVec: 2, readVec: 4, conflicts: 0 });
  });
});
