// Tensor-core dot: golden checks that f16/bf16 dots lower to ldmatrix (x4, .trans for b) and
// mma.sync m16n8k16, tf32 dots to m16n8k8 (cvt.rna.tf32.f32 per fragment, scalar b loads), i8/u8 dots to
// m16n8k32 with s32, f16 accumulators to the .f16.f16.f16.f16 form; that the fallback rule keeps
// the other dots on FMA; and (on the sim) that staging the operands in padded shared memory and
// reading their fragments causes no bank conflicts. Numerical results of these kernels are checked
// in test/e2e/matmul_tc.test.ts and test/e2e/matmul_tc_types.test.ts.
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { compile } from '../../src/compile/compile.js';
import { mmaLayout, mmaLayoutForDot } from '../../src/compiler/layout.js';
import { simDevice } from '../e2e/helpers.js';
import { count, gate } from './gate.js';
import { kernel, P, type K } from './dsl.js';

const grid2 = (k: K, M: number, N: number) => {
  const rm = k.expand(k.arange(M), 1);
  const cn = k.expand(k.arange(N), 0);
  return k.bin('add', k.broadcast(k.bin('mul', rm, k.c(N, 'i32', [M, 1])), [M, N]), k.broadcast(cn, [M, N]));
};

/** The k-loop of the tensor-core dot: from the first ldmatrix to the last mma.sync. */
function kLoop(ptx: string): string {
  const lines = ptx.split('\n');
  const first = lines.findIndex((l) => /ldmatrix/.test(l));
  const last = lines.length - 1 - [...lines].reverse().findIndex((l) => /mma\.sync/.test(l));
  return lines.slice(first, last + 1).join('\n');
}

/** c[M,N] = a[M,K] @ b[K,N] (+ a second dot with a shifted a when `twice`). */
function mm(t: DType, acc: DType, M: number, N: number, K: number, twice = false, prec: 'ieee' | 'tf32' = 'ieee') {
  return kernel(`mm_${t}_${acc}_${prec}_${M}x${N}x${K}${twice ? '_x2' : ''}`, [['a', P(t)], ['b', P(t)], ['c', P(acc)]], (k, [a, b, c]) => {
    const B = k.load(k.addptr(b!, grid2(k, K, N)));
    let d = k.dot(k.load(k.addptr(a!, grid2(k, M, K))), B, k.c(0, acc, [M, N]), prec);
    if (twice) d = k.dot(k.load(k.addptr(a!, k.bin('add', grid2(k, M, K), k.c(M * K, 'i32', [M, K])))), B, d, prec);
    k.store(k.addptr(c!, grid2(k, M, N)), d);
  });
}

describe('dot on tensor cores', () => {
  it.each(['f16', 'bf16'] as const)('%s 64x64x32 with 4 warps: ldmatrix.x4 (+ .trans) and mma.sync, no FMA', (t) => {
    const { sm80, sm90 } = gate(mm(t, 'f32', 64, 64, 32), { numWarps: 4 });
    for (const r of [sm80, sm90]) {
      // warp grid 2x2: per k16 step 2 a-fragments (x4) and 2 b-pairs (x4.trans), 2x4 mmas
      expect(count(r.ptx, new RegExp(`mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.${t}\\.${t}\\.f32`))).toBe(2 * 8);
      expect(count(r.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(2 * 2);
      expect(count(r.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16/)).toBe(2 * 2);
      expect(r.ptx).not.toMatch(/fma\.rn/);
    }
  });

  it('f16 accumulator: the .f16.f16.f16.f16 form, no widening to f32; a 1-n-tile warp (x2.trans)', () => {
    const { sm80, sm90 } = gate(mm('f16', 'f16', 16, 16, 16), { numWarps: 2 });
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, /mma\.sync\.aligned\.m16n8k16\.row\.col\.f16\.f16\.f16\.f16/)).toBe(1);
      expect(count(r.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x2\.trans/)).toBe(1);
      expect(r.ptx).not.toMatch(/cvt\.f32\.f16|cvt\.rn\.f16(x2)?\.f32|fma\.rn/);
    }
  });

  it('bf16 accumulator stays widened (no bf16-accumulate mma): f32 form, rounded once per dot', () => {
    const { sm80 } = gate(mm('bf16', 'bf16', 32, 32, 16), { numWarps: 4 });
    expect(count(sm80.ptx, /mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32/)).toBeGreaterThan(0);
    expect(sm80.ptx).toMatch(/cvt\.rn\.bf16\.f32/);
  });

  it("tf32 64x64x32 with 4 warps: ldmatrix.x4 for a, ld.shared.f32 for b, cvt.rna.tf32.f32 on every fragment, m16n8k8", () => {
    const { sm80, sm90 } = gate(mm('f32', 'f32', 64, 64, 32, false, 'tf32'), { numWarps: 4 });
    for (const r of [sm80, sm90]) {
      // warp grid 2x2: per k8 step 2 a-fragments (x4) and 4 n-tiles x 2 b words, 2x4 mmas; 4 k-steps
      expect(count(r.ptx, /mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32/)).toBe(4 * 8);
      expect(count(r.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(4 * 2);
      expect(count(kLoop(r.ptx), /ld\.shared\.f32/)).toBe(4 * 8);
      // shared memory holds raw f32; every fragment register is rounded as it is loaded
      expect(count(kLoop(r.ptx), /cvt\.rna\.tf32\.f32/)).toBe(4 * (2 * 4 + 4 * 2));
      expect(r.ptx).not.toMatch(/fma\.rn|\.trans/);
    }
  });

  it.each([['i8', 's8'], ['u8', 'u8']] as const)('%s 64x64x64 -> i32 with 4 warps: ldmatrix.x4 for a, packed byte loads for b, m16n8k32.s32', (t, ptxT) => {
    const { sm80, sm90 } = gate(mm(t, 'i32', 64, 64, 64), { numWarps: 4 });
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, new RegExp(`mma\\.sync\\.aligned\\.m16n8k32\\.row\\.col\\.s32\\.${ptxT}\\.${ptxT}\\.s32`))).toBe(2 * 8);
      expect(count(r.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(2 * 2);
      expect(count(kLoop(r.ptx), /ld\.shared\.u8/)).toBe(2 * 4 * 8); // k-steps x n-tiles x bytes
      expect(r.ptx).not.toMatch(/mad\.lo\.s32|\.trans/);
    }
  });

  it.each([
    ['f32 inputs (ieee)', 'f32', 'f32', 64, 64, 32],
    ['f64', 'f64', 'f64', 32, 32, 16],
    ['K not a multiple of 16', 'f16', 'f32', 32, 32, 8],
    ['M smaller than an m16 tile', 'f16', 'f32', 8, 64, 32],
    ['tf32 with K not a multiple of 8', 'f32', 'f32', 32, 32, 4],
    ['tf32 with M x N not tiling over 4 warps', 'f32', 'f32', 32, 8, 32],
  ] as const)('falls back to FMA: %s', (_, t, acc, M, N, Kd) => {
    const { sm80 } = gate(mm(t, acc, M, N, Kd, false, t === 'f32' && _.startsWith('tf32') ? 'tf32' : 'ieee'), { numWarps: 4 });
    expect(sm80.ptx).not.toMatch(/mma\.sync|ldmatrix/);
    expect(sm80.ptx).toMatch(/fma\.rn/);
    // tf32 rounds its inputs on FMA too (same semantics as on tensor cores); ieee never rounds
    expect(/cvt\.rna\.tf32/.test(sm80.ptx)).toBe(_.startsWith('tf32'));
  });

  it.each([
    ['i8 with K not a multiple of 32', 'i8', 'i32', 64, 64, 16],
    ['i8 into an i16 accumulator', 'i8', 'i16', 64, 64, 32],
    ['i32 inputs', 'i32', 'i32', 64, 64, 32],
  ] as const)('integer dot falls back to mad: %s', (_, t, acc, M, N, Kd) => {
    const { sm80 } = gate(mm(t, acc, M, N, Kd), { numWarps: 4 });
    expect(sm80.ptx).not.toMatch(/mma\.sync|ldmatrix/);
    expect(sm80.ptx).toMatch(/mad\.lo\.s32/);
  });

  it("option dot: 'fma' keeps f16 dots off tensor cores", () => {
    const { sm80 } = gate(mm('f16', 'f32', 64, 64, 32), { numWarps: 4, dot: 'fma' });
    expect(sm80.ptx).not.toMatch(/mma\.sync|ldmatrix/);
  });

  it('mmaLayout balances m16 and n8 tiles per warp (more rules: mma_warps.test.ts), undefined when nothing tiles', () => {
    expect(mmaLayout(64, 64, 4)?.warpsPerCTA).toEqual([2, 2]);
    expect(mmaLayout(128, 32, 4)?.warpsPerCTA).toEqual([4, 1]);
    expect(mmaLayout(16, 64, 8)?.warpsPerCTA).toEqual([1, 8]);
    expect(mmaLayout(16, 8, 4)).toBeUndefined();
  });

  it('mmaLayoutForDot: the dtype table and the instruction k decide, f32 only with tf32', () => {
    const ok = (K: number, ta: string, tc: string, prec?: string) => mmaLayoutForDot(64, 64, K, ta, ta, tc, 4, prec) !== undefined;
    expect([ok(32, 'f32', 'f32'), ok(32, 'f32', 'f32', 'ieee'), ok(32, 'f32', 'f32', 'tf32'), ok(4, 'f32', 'f32', 'tf32')]).toEqual([false, false, true, false]);
    expect([ok(16, 'f16', 'f16'), ok(8, 'f16', 'f32'), ok(16, 'bf16', 'bf16')]).toEqual([true, false, true]);
    expect([ok(32, 'i8', 'i32'), ok(32, 'u8', 'u32'), ok(16, 'i8', 'i32'), ok(32, 'i8', 'i16'), ok(32, 'i16', 'i32'), ok(32, 'f64', 'f64')]).toEqual([true, true, false, false, false, false]);
    expect(mmaLayoutForDot(64, 64, 32, 'f16', 'bf16', 'f32', 4)).toBeUndefined(); // mixed inputs
  });

  it.each([
    ['f16', 'f32', 32, 'ieee'],
    ['f32', 'f32', 32, 'tf32'],
    ['i8', 'i32', 64, 'ieee'],
  ] as const)('%s: staging + fragment loads of a second dot add no shared bank conflicts (sim counters)', (t, acc, K, prec) => {
    const dev = simDevice().native;
    const eb = t === 'f16' ? 2 : t === 'f32' ? 4 : 1;
    const conflicts = (twice: boolean): { acc: number; conf: number } => {
      const r = compile(mm(t, acc, 64, 64, K, twice, prec), { target: 'sm_80', numWarps: 4, ptxas: false });
      const bufs = [dev.alloc(2 * 64 * K * eb), dev.alloc(K * 64 * eb), dev.alloc(64 * 64 * 4)];
      try {
        for (const b of bufs) dev.fill(b, 0); // defined inputs (initcheck: no reads of memory never written)
        dev.launch(r, bufs, 1);
        dev.synchronize();
        const c = dev.simCounters()!;
        return { acc: c.sharedAccesses, conf: c.sharedBankConflicts };
      } finally {
        for (const b of bufs) dev.free(b);
      }
    };
    const one = conflicts(false), two = conflicts(true);
    // what the second dot adds: a staged with st.shared and its fragments read (ldmatrix for a;
    // b's fragments are re-read too); the epilogue (accumulator -> store layout;
    // test/codegen/convert.test.ts) is the same in both
    expect(two.acc).toBeGreaterThan(one.acc);
    expect(two.conf - one.conf).toBe(0);
  });
});
