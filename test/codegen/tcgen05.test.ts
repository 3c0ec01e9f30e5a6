// The sm_100 targets (codegen/tensor_cores/lower_tcgen05.ts, tcgen05_desc.ts, tmem_alloc.ts): the tcgen05
// accumulator layout against the tcgen05.ld.32x32b lane quarters, the two descriptors field by
// field (as the PTX ISA and the sim read them), the portable sm_100 (= sm_90's code), the
// fallbacks of sm_100a (dots tcgen05 does not take stay on mma.sync), and TMEM freed on an early
// exit (the sim faults a CTA that exits holding columns). Numerical cases: test/e2e/matmul_tcgen05.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, TARGETS } from '../../src/compile/compile.js';
import { regSlots, threadShifts } from '../../src/compiler/layout.js';
import { tcgen05KindOf, tcgen05Layout, tcgen05LayoutForDot } from '../../src/compiler/tcgen05_kinds.js';
import { instrDesc } from '../../src/codegen/tensor_cores/tcgen05_desc.js';
import { coordsOf } from '../../src/codegen/convert/convert_plan.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { matmulMasked } from '../../bench/kernels.js';
import { arange, constexpr, dot, exitIf, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { Kernel, kernel } from '../../src/runtime/kernel.js';
import { expectClose, randF32, runOn } from '../e2e/helpers.js';
import { count, gateTargets } from './gate.js';

describe('the tcgen05 accumulator layout', () => {
  it.each([[128, 64, 4], [128, 128, 4], [128, 128, 8], [128, 256, 8]] as const)('[%i, %i] on %i warps: thread t of warp w holds row 32 * (w mod 4) + t, its warp\'s columns', (M, N, W) => {
    const l = tcgen05Layout(M, N, W)!;
    const slots = regSlots(l, [M, N]);
    const sh = threadShifts(l);
    const cols = N / (W / 4);
    for (let warp = 0; warp < W; warp++) for (let lane = 0; lane < 32; lane++) {
      // register j is column j of the warp's columns: the order tcgen05.ld.32x32b.xN fills them
      const got = slots.map((s) => coordsOf(l, [M, N], sh, warp, lane, s.off).join(','));
      const want = Array.from({ length: cols }, (_, j) => `${32 * (warp % 4) + lane},${Math.floor(warp / 4) * cols + j}`);
      expect(got).toEqual(want);
    }
  });

  it.each([64, 256] as const)('[64, %i] on 4 warps: warp w holds rows 16w..16w+15 (lanes t and t+16 a row), the second half of the columns to t >= 16, as tcgen05.ld.16x32bx2 reads them', (N) => {
    const l = tcgen05Layout(64, N, 4)!;
    const slots = regSlots(l, [64, N]);
    const sh = threadShifts(l);
    for (let warp = 0; warp < 4; warp++) for (let lane = 0; lane < 32; lane++) {
      const got = slots.map((s) => coordsOf(l, [64, N], sh, warp, lane, s.off).join(','));
      const want = Array.from({ length: N / 2 }, (_, j) => `${16 * warp + (lane % 16)},${Math.floor(lane / 16) * (N / 2) + j}`);
      expect(got).toEqual(want);
    }
  });

  it('M 128 on 4 or 8 warps (M 64 on 4), N a power of two in 16..256 with at most 128 columns per thread', () => {
    expect(tcgen05Layout(128, 16, 4)).toBeDefined();
    expect(tcgen05Layout(128, 256, 4)).toBeUndefined();
    expect(tcgen05Layout(128, 8, 4)).toBeUndefined();
    expect(tcgen05Layout(64, 64, 4)).toBeDefined();
    expect(tcgen05Layout(64, 64, 8)).toBeUndefined();
    expect(tcgen05Layout(32, 64, 4)).toBeUndefined();
    expect(tcgen05Layout(128, 64, 2)).toBeUndefined();
    // f16 accumulators take D type f16 (f16 inputs; bf16 ones accumulate in f32 on every path, so a
    // bf16 x bf16 -> f16 dot stays off); f32 'ieee' inputs stay off tcgen05; rows under the 32-byte swizzle too
    expect(tcgen05KindOf('f16', 'f16', 'f16', 'ieee')?.acc).toBe('f16');
    expect(tcgen05KindOf('bf16', 'bf16', 'f16', 'ieee')).toBeUndefined();
    expect(tcgen05KindOf('f32', 'f32', 'f32', 'ieee')).toBeUndefined();
    expect(tcgen05LayoutForDot(128, 64, 8, 'f16', 'f16', 'f32', 4)).toBeUndefined();
    expect(tcgen05LayoutForDot(128, 64, 32, 'f8e4m3', 'f8e5m2', 'f32', 4)).toBeDefined();
  });
});

describe('the instruction descriptor', () => {
  it('packs D type (4-5), A/B types (7-9, 10-12), MN-major (15, 16), N >> 3 (17-22), M >> 4 (24-28)', () => {
    const f = (ta: string, tb: string, tc: string, p = 'ieee') => tcgen05KindOf(ta, tb, tc, p)!;
    const field = (v: number, lo: number, n: number): number => (v >>> lo) & ((1 << n) - 1);
    const d = instrDesc(f('bf16', 'bf16', 'f32'), 128, 256, false, true);
    expect([field(d, 4, 2), field(d, 7, 3), field(d, 10, 3), field(d, 15, 1), field(d, 16, 1), field(d, 17, 6), field(d, 24, 5)]).toEqual([1, 1, 1, 0, 1, 32, 8]);
    expect(field(d, 0, 4) | field(d, 6, 1) | field(d, 13, 2) | field(d, 23, 1) | field(d, 29, 3)).toBe(0);
    const t = instrDesc(f('f32', 'f32', 'f32', 'tf32'), 128, 32, false, false);
    expect([field(t, 4, 2), field(t, 7, 3), field(t, 10, 3), field(t, 17, 6)]).toEqual([1, 2, 2, 4]);
    const e = instrDesc(f('f8e4m3', 'f8e5m2', 'f32'), 128, 64, false, false);
    expect([field(e, 7, 3), field(e, 10, 3)]).toEqual([0, 1]);
    const i = instrDesc(f('i8', 'i8', 'i32'), 128, 64, false, false);
    expect([field(i, 3, 1), field(i, 4, 2), field(i, 7, 3), field(i, 10, 3)]).toEqual([0, 2, 1, 1]);
  });
});

describe('the generated PTX', () => {
  const f = matmulMasked.f16.trace({ BM: 128, BN: 64, BK: 32 });

  it('sm_100a: PTX ISA 8.6, TMEM of 64 columns, sm_100 shared-memory descriptors (version bit 46, swizzle in 61-63)', () => {
    const ptx = gateTargets(f, ['sm_100a'], { numWarps: 4, numStages: 1 })['sm_100a']!.ptx;
    expect(ptx).toMatch(/^\.version 8\.6$/m);
    expect(ptx).toMatch(/tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[%r\d+\], 64;/);
    // A [128, 32] f16: 64-byte rows, 64B swizzle (code 4 in 61-63), K-major SBO = 8 rows * 64 B;
    // B [32, 64] f16 MN-major: 128B swizzle (code 2), SBO = 8 * 128 B
    const hi = (sbo: number, code: number): string => `0x${(((sbo >> 4) | (1 << 14)) + code * 2 ** 29).toString(16)}`;
    expect(ptx).toContain(`, ${hi(8 * 64, 4)}};`);
    expect(ptx).toContain(`, ${hi(8 * 128, 2)}};`);
    // one thread issues; every thread waits on the mbarrier, then reads its row back
    expect(ptx).toMatch(/@%p\d+ tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], %rd\d+, %rd\d+, %r\d+, %p\d+;/);
    const order = ['tcgen05.commit', 'mbarrier.try_wait.parity', 'tcgen05.ld.sync.aligned.32x32b.x64.b32', 'tcgen05.wait::ld', 'tcgen05.dealloc'].map((s) => ptx.indexOf(s));
    expect(order.every((x, i) => x > 0 && (i === 0 || x > order[i - 1]!))).toBe(true);
  });

  it('sm_100 is sm_90\'s code under its own header; both assemble', () => {
    const r = gateTargets(f, ['sm_90', 'sm_100'], { numWarps: 4, numStages: 3 });
    const body = (p: string): string => p.slice(p.indexOf('.address_size'));
    expect(r['sm_100']!.ptx).toMatch(/^\.target sm_100$/m);
    expect(body(r['sm_100']!.ptx)).toBe(body(r['sm_90']!.ptx));
    expect(r['sm_100']!.ptx).not.toMatch(/tcgen05|wgmma/);
    expect(TARGETS).toContain('sm_100a');
  });

  it('sm_100a keeps dots tcgen05 does not take on mma.sync (M 32), without TMEM', () => {
    const small = matmulMasked.f16.trace({ BM: 32, BN: 64, BK: 32 });
    const ptx = compile(small, { target: 'sm_100a', numWarps: 4, numStages: 1, ptxas: true }).ptx;
    expect(ptx).toMatch(/mma\.sync/);
    expect(ptx).not.toMatch(/tcgen05/);
  });
});

// exitIf before the dot: the prologue has allocated TMEM, so the early exit frees it first
const earlyExit = kernel(
  { name: 'mm_tc5_exit', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    exitIf(programId(0).mul(BM).ge(M));
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = arange(0, BN), rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM, BN], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const x = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M), other: 0 });
      const y = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(x, y, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M) });
  },
);

describe('an early exit frees tensor memory', () => {
  it('programs past M leave through exitIf after tcgen05.dealloc; the others compute the product (sim = interpreter)', async () => {
    const M = 128, N = 64, K = 64;
    const af = f16Array(randF32(M * K, 91)), bf = f16Array(randF32(K * N, 92));
    const args = { a: af, b: bf, c: new Float32Array(M * N), M, N, K, BM: 128, BN: 64, BK: 32 };
    const sim = { ...args, c: new Float32Array(M * N) }, ref = { ...args, c: new Float32Array(M * N) };
    await runOn('sim', new Kernel(earlyExit.def), sim, [3, 1], { numStages: 1 });
    await runOn('interpret', new Kernel(earlyExit.def), ref, [3, 1], { numStages: 1 });
    expectClose(sim.c, ref.c, 1e-5, 'sim vs interpreter');
    const want = new Float64Array(M * N);
    const fa = f16ToFloat32(af), fb = f16ToFloat32(bf);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) for (let k = 0; k < K; k++) want[i * N + j] += fa[i * K + k]! * fb[k * N + j]!;
    expectClose(sim.c, want, 1e-4, 'sim vs JS');
    const ptx = gateTargets(earlyExit.def.trace({ BM: 128, BN: 64, BK: 32 }), ['sm_100a'], { numStages: 1 })['sm_100a']!.ptx;
    expect(count(ptx, /tcgen05\.dealloc/)).toBe(2);
    expect(ptx.indexOf('tcgen05.dealloc')).toBeLessThan(ptx.indexOf('\texit;'));
  });
});
