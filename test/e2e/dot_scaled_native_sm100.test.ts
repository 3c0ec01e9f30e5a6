// dotScaled on sm_100a's block-scaled tcgen05 kinds (compiler/tcgen05_scaled.ts,
// codegen/tensor_cores/lower_tcgen05_scaled.ts): e4m3/e5m2 pairs with ue8m0 scales run as
// kind::mxf8f6f4.block_scale, packed e2m1 pairs as kind::mxf4.block_scale (ue8m0) or
// kind::mxf4nvf4.block_scale (nvfp4: ue4m3 per 16), with the scales copied to TMEM by tcgen05.cp. Each case is checked
// bit for bit against the JS reference of the MX formats (dot_scaled_cases.ts: data whose partial
// sums are exact in f32, so every order of summation gives the same f32), the interpreter, and the
// emulated sm_100a kernel (option blockScaled: false). The sabotage (scale copies after the MMAs)
// is test/e2e/dot_scaled_native_sabotage.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { arange, dot, dotScaled, load, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { count } from '../codegen/gate.js';
import { runOn, simDevice } from './helpers.js';
import { deviceArgs, makeData, reference, scaledKernel, type Case, type DataOptions } from './dot_scaled_cases.js';
import { compileCase, runPtx } from './dot_scaled_native_run.js';

interface NativeCase extends Case { readonly numWarps?: number; readonly data?: DataOptions; readonly spills?: boolean }

const CASES: NativeCase[] = [
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64 },
  // ragged M, N and K (the second K step masked), an accumulator
  { fa: 'e4m3', fb: 'e5m2', M: 100, N: 50, K: 96, BM: 128, BN: 64, BK: 64, acc: true },
  // a full chunk of 4 scale groups (no zero fill), two K steps
  { fa: 'e5m2', fb: 'e4m3', M: 128, N: 32, K: 256, BM: 128, BN: 32, BK: 128, acc: true },
  // 8 warps, ragged N
  { fa: 'e5m2', fb: 'e5m2', M: 128, N: 100, K: 64, BM: 128, BN: 128, BK: 32, numWarps: 8 },
  // N 256: B's scales in two 128-column blocks (two copies a chunk). 128 accumulator registers a
  // thread spill on 8 warps (the emulated kernel spills too): checked for its result only. The
  // spill is the epilogue's: c's alignment unknown, each f32 is stored with its own 64-bit address
  // (dot_scaled_ring_sm100.test.ts shows none with c 16-aligned)
  { fa: 'e5m2', fb: 'e5m2', M: 128, N: 200, K: 64, BM: 128, BN: 256, BK: 32, numWarps: 8, spills: true },
  // N 16, K 32: one MMA, one scale group
  { fa: 'e4m3', fb: 'e4m3', M: 77, N: 16, K: 32, BM: 128, BN: 16, BK: 32, acc: true },
  // scale extremes: 2^-127 (code 0) .. 2^-124 on a, 2^123 .. 2^126 on b
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 32, K: 128, BM: 128, BN: 32, BK: 128, data: { aScales: [0, 1, 2, 3], bScales: [250, 251, 252, 253], lo: 0.5, hi: 2 } },
  // mxf4: e2m1 x e2m1 packed two a byte along K, K 64 a step (scale_vec::2X)
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 128, BM: 128, BN: 64, BK: 128, acc: true },
  // mxf4 ragged M/N/K (K 192: the last step masked), 4 groups + 2 (a zero-filled chunk)
  { fa: 'e2m1', fb: 'e2m1', M: 90, N: 40, K: 192, BM: 128, BN: 64, BK: 64, acc: true },
  // mxf4 on 8 warps, scale extremes
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 128, K: 256, BM: 128, BN: 128, BK: 256, numWarps: 8, data: { aScales: [0, 1, 2], bScales: [252, 253, 254], lo: 0.5, hi: 2 } },
  // nvfp4: packed e2m1 with ue4m3 scales per 16 on kind::mxf4nvf4 (scale_vec::4X), ragged, acc
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 128, BM: 128, BN: 64, BK: 128, nvfp4: true, acc: true },
  { fa: 'e2m1', fb: 'e2m1', M: 111, N: 30, K: 192, BM: 128, BN: 32, BK: 64, nvfp4: true },
  // nvfp4 scale codes with the sign bit set (ignored by dotScaled) and the NaN code 0x7f
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 32, K: 64, BM: 128, BN: 32, BK: 64, nvfp4: true, data: { aScales: [0x38, 0xb8, 0x30, 0x7f], bScales: [0x40, 0xc0, 0x38] } },
  // NaN scales (0xff) make their rows / columns NaN
  { fa: 'e5m2', fb: 'e4m3', M: 128, N: 32, K: 64, BM: 128, BN: 32, BK: 64, data: { aScales: [127, 128, 255], bScales: [126, 127, 255] } },
];

describe('dotScaled on kind::mxf8f6f4.block_scale (sm_100a)', () => {
  for (const [i, c] of CASES.entries()) {
    const nw = c.numWarps ?? 4;
    it(`${c.fa} x ${c.fb}${c.nvfp4 ? ' (nvfp4)' : ''} ${c.M}x${c.N}x${c.K} (tile ${c.BM}x${c.BN}x${c.BK}${c.acc ? ', acc' : ''}, ${nw} warps): bit for bit`, async () => {
      expect(simDevice().target).toBe('sm_100a');
      const d = makeData(c, 70 + i, c.data);
      const ref = reference(c, d);
      if (!c.data?.aScales?.some((x) => x === 255 || x === 0x7f)) expect(ref.exact).toBe(true);
      const r = compileCase(c, `dsn_${i}`, nw);
      expect(r.cubin?.length ?? 0).toBeGreaterThan(0);
      if (!c.spills) expect(r.metadata.spills).toBe(0);
      // one MMA per 32 (mxf4: 64) of the K step (the loop body is not unrolled)
      const form = c.nvfp4 ? /tcgen05\.mma\.cta_group::1\.kind::mxf4nvf4\.block_scale\.scale_vec::4X /
        : c.fa === 'e2m1' ? /tcgen05\.mma\.cta_group::1\.kind::mxf4\.block_scale\.scale_vec::2X / : /tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale\.scale_vec::1X /;
      expect(count(r.ptx, form)).toBe(c.BK / (c.fa === 'e2m1' ? 64 : 32));
      expect(r.ptx).toMatch(/tcgen05\.cp\.cta_group::1\.32x128b\.warpx4/);
      // the K loop's accumulator stays in TMEM (tcgen05_resident.ts): stored once before the loop, read once after
      expect(count(r.ptx, /tcgen05\.st\./)).toBeLessThanOrEqual(1);
      expect(count(r.ptx, /tcgen05\.ld\./)).toBe(1);
      expect(r.ptx).not.toMatch(/kind::tf32|kind::f16|kind::f8f6f4 |mma\.sync/);
      expect(r.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(/native/);
      const got = await runPtx(r, deviceArgs(c, d), nw);
      expect(Array.from(got), 'sim, native').toEqual(Array.from(ref.c));
      const emu = compileCase(c, `dsn_${i}`, nw, false);
      expect(emu.ptx).not.toMatch(/block_scale/);
      expect(Array.from(await runPtx(emu, deviceArgs(c, d), nw)), 'sim, emulated').toEqual(Array.from(ref.c));
      const args = deviceArgs(c, d);
      await runOn('interpret', scaledKernel(c, `dsn_${i}`), args, 1, { numWarps: nw });
      expect(Array.from(args['c'] as Float32Array), 'interpreter').toEqual(Array.from(ref.c));
    });
  }
});

describe('dotScaled on sm_100a: what stays emulated, and why', () => {
  const cases: [Case, RegExp][] = [
    [{ fa: 'e4m3', fb: 'e4m3', M: 64, N: 64, K: 64, BM: 64, BN: 64, BK: 64 }, /emulated \(M = 64: the block-scaled kinds take M = 128 per CTA\)/],
    // f4e2m1 tiles are native on mxf8f6f4 (dot_scaled_native_padded_sm100.test.ts), which takes no ue4m3 scales
    [{ fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64, mxDtypes: true, nvfp4: true }, /emulated \(nvfp4 \(ue4m3 scales\) from f4e2m1 tiles/],
    [{ fa: 'e4m3', fb: 'bf16', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64 }, /emulated \(formats e4m3 x bf16/],
  ];
  for (const [i, [c, why]] of cases.entries()) {
    it(`${c.fa} x ${c.fb}${c.nvfp4 ? ' (nvfp4)' : ''}${c.mxDtypes ? ' (f4e2m1 tiles)' : ''} ${c.BM}x${c.BN}x${c.BK}: the emulation, with the reason in the dot_scaled stage`, () => {
      const r = compileCase(c, `dse_${i}`, 4);
      expect(r.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(why);
      expect(r.ptx).not.toMatch(/block_scale|tcgen05\.cp/);
    });
  }
  it('a kernel that also has a dot: emulated (the two would share tensor memory columns)', () => {
    const k = kernel(
      { name: 'dse_dot', params: { a: ptr('f8e4m3'), s: ptr('u8'), h: ptr('f16'), c: ptr('f32') } },
      ({ a, s, h, c }) => {
        const r = arange(0, 128).expandDims(1), k64 = arange(0, 64).expandDims(0), c64 = arange(0, 64);
        const ta = load(a.add(r.mul(64).add(k64)));
        const tb = load(a.add(c64.expandDims(1).mul(64).add(k64)));
        const g = arange(0, 2).expandDims(0);
        const sa = load(s.add(r.mul(2).add(g)));
        const sb = load(s.add(c64.expandDims(1).mul(2).add(g)));
        const th = load(h.add(r.mul(64).add(k64)));
        const hb = load(h.add(c64.expandDims(1).mul(64).add(k64)));
        const acc = dot(th, hb);
        store(c.add(r.mul(64).add(k64)), dotScaled(ta, sa, 'e4m3', tb, sb, 'e4m3', { acc }));
      },
    );
    const r = compile(k.trace({}), { target: 'sm_100a', numWarps: 4, ptxas: true });
    expect(r.stages.find((x) => x.name === 'dot_scaled')?.text).toMatch(/emulated \(the kernel also has a dot/);
    expect(r.ptx).not.toMatch(/block_scale/);
  });
  it('blockScaled: false keeps the emulation and says so', () => {
    const c: Case = { fa: 'e4m3', fb: 'e4m3', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64 };
    const r = compileCase(c, 'dse_off', 4, false);
    expect(r.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(/emulated/);
    expect(r.ptx).not.toMatch(/block_scale/);
  });
});

describe('dotScaled on sm_100a without a loop', () => {
  // the accumulator a constant zero: never stored to TMEM, the first MMA's enable_input_d false
  it('e4m3 x e5m2 128x64x64 and e2m1 x e2m1 128x32x128, no acc: bit for bit', async () => {
    for (const [i, c] of ([
      { fa: 'e4m3', fb: 'e5m2', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64 },
      { fa: 'e2m1', fb: 'e2m1', M: 128, N: 32, K: 128, BM: 128, BN: 32, BK: 128 },
    ] as const).entries()) {
      const pa = c.fa === 'e2m1' ? 2 : 1;
      const k = kernel(
        { name: `dsn_flat_${i}`, params: { a: ptr(c.fa === 'e4m3' ? 'f8e4m3' : 'u8'), b: ptr(c.fb === 'e5m2' ? 'f8e5m2' : 'u8'), as: ptr('u8'), bs: ptr('u8'), c: ptr('f32') } },
        ({ a, b, as, bs, c: cp }) => {
          const rm = arange(0, c.M).expandDims(1), rn = arange(0, c.N).expandDims(0);
          const ta = load(a.add(rm.mul(c.K / pa).add(arange(0, c.K / pa).expandDims(0))));
          const tb = load(b.add(arange(0, c.K / pa).expandDims(1).mul(c.N).add(rn)));
          const g = arange(0, c.K / 32).expandDims(0);
          const sa = load(as.add(rm.mul(c.K / 32).add(g)));
          const sb = load(bs.add(arange(0, c.N).expandDims(1).mul(c.K / 32).add(g)));
          store(cp.add(rm.mul(c.N).add(rn)), dotScaled(ta, sa, c.fa, tb, sb, c.fb));
        },
      );
      const d = makeData(c, 95 + i);
      const ref = reference(c, d);
      expect(ref.exact).toBe(true);
      const r = compile(k.trace({}), { target: 'sm_100a', numWarps: 4, ptxas: true });
      expect(r.ptx).toMatch(/block_scale/);
      expect(r.ptx).not.toMatch(/tcgen05\.st\./);
      expect(Array.from(await runPtx(r, deviceArgs(c, d), 4)), 'sim').toEqual(Array.from(ref.c));
      const args = deviceArgs(c, d);
      await runOn('interpret', k, args, 1);
      expect(Array.from(args['c'] as Float32Array), 'interpreter').toEqual(Array.from(ref.c));
    }
  });
});
