// Tensor-core dot: golden checks that f16/bf16 dots lower to ldmatrix (x4, .trans for b) and
// mma.sync, that the fallback rule keeps the other dots on FMA, and (on the sim) that staging the
// operands in padded shared memory and reading them with ldmatrix causes no bank conflicts.
// Numerical results of these kernels are checked in test/e2e/matmul_tc.test.ts.
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { compile } from '../../src/compiler/compile.js';
import { mmaLayout } from '../../src/compiler/layout.js';
import { simDevice } from '../e2e/helpers.js';
import { count, gate } from './gate.js';
import { kernel, P, type K } from './dsl.js';

const grid2 = (k: K, M: number, N: number) => {
  const rm = k.expand(k.arange(M), 1);
  const cn = k.expand(k.arange(N), 0);
  return k.bin('add', k.broadcast(k.bin('mul', rm, k.c(N, 'i32', [M, 1])), [M, N]), k.broadcast(cn, [M, N]));
};

/** c[M,N] = a[M,K] @ b[K,N] (+ a second dot with a shifted a when `twice`). */
function mm(t: DType, acc: DType, M: number, N: number, K: number, twice = false) {
  return kernel(`mm_${t}_${acc}_${M}x${N}x${K}${twice ? '_x2' : ''}`, [['a', P(t)], ['b', P(t)], ['c', P(acc)]], (k, [a, b, c]) => {
    const B = k.load(k.addptr(b!, grid2(k, K, N)));
    let d = k.dot(k.load(k.addptr(a!, grid2(k, M, K))), B, k.c(0, acc, [M, N]));
    if (twice) d = k.dot(k.load(k.addptr(a!, k.bin('add', grid2(k, M, K), k.c(M * K, 'i32', [M, K])))), B, d);
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

  it('f16 accumulator (f32 inside the mma, rounded once per dot) and a 1-n-tile warp (x2.trans)', () => {
    const { sm80 } = gate(mm('f16', 'f16', 16, 16, 16), { numWarps: 2 });
    expect(count(sm80.ptx, /mma\.sync/)).toBe(1);
    expect(count(sm80.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x2\.trans/)).toBe(1);
  });

  it.each([
    ['f32 inputs (ieee)', 'f32', 'f32', 64, 64, 32],
    ['f64', 'f64', 'f64', 32, 32, 16],
    ['K not a multiple of 16', 'f16', 'f32', 32, 32, 8],
    ['M smaller than an m16 tile', 'f16', 'f32', 8, 64, 32],
  ] as const)('falls back to FMA: %s', (_, t, acc, M, N, Kd) => {
    const { sm80 } = gate(mm(t, acc, M, N, Kd), { numWarps: 4 });
    expect(sm80.ptx).not.toMatch(/mma\.sync|ldmatrix/);
    expect(sm80.ptx).toMatch(/fma\.rn/);
  });

  it("option dot: 'fma' keeps f16 dots off tensor cores", () => {
    const { sm80 } = gate(mm('f16', 'f32', 64, 64, 32), { numWarps: 4, dot: 'fma' });
    expect(sm80.ptx).not.toMatch(/mma\.sync|ldmatrix/);
  });

  it('mmaLayout picks the warp grid with the fewest ldmatrix per k-step, undefined when nothing tiles', () => {
    expect(mmaLayout(64, 64, 4)?.warpsPerCTA).toEqual([2, 2]);
    expect(mmaLayout(128, 32, 4)?.warpsPerCTA).toEqual([4, 1]);
    expect(mmaLayout(16, 64, 8)?.warpsPerCTA).toEqual([1, 8]);
    expect(mmaLayout(16, 8, 4)).toBeUndefined();
  });

  it('staging + ldmatrix of a second dot add no shared bank conflicts (sim counters)', () => {
    const dev = simDevice().native;
    const conflicts = (twice: boolean): { acc: number; conf: number } => {
      const r = compile(mm('f16', 'f32', 64, 64, 32, twice), { target: 'sm_80', numWarps: 4, ptxas: false });
      const bufs = [dev.alloc(2 * 64 * 32 * 2), dev.alloc(32 * 64 * 2), dev.alloc(64 * 64 * 4)];
      try {
        dev.launch(r, bufs, 1);
        dev.synchronize();
        const c = dev.simCounters()!;
        return { acc: c.sharedAccesses, conf: c.sharedBankConflicts };
      } finally {
        for (const b of bufs) dev.free(b);
      }
    };
    const one = conflicts(false), two = conflicts(true);
    // what the second dot adds: a staged with st.shared.v4 and 8 ldmatrix per warp; the epilogue
    // (accumulator -> store layout; test/codegen/convert.test.ts) is the same in both
    expect(two.acc).toBeGreaterThan(one.acc);
    expect(two.conf - one.conf).toBe(0);
  });
});
