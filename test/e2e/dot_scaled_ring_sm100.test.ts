// dotScaled on the block-scaled tcgen05 kinds (sm_100a) with its operands on the cp.async ring
// (compiler/pipeline_scaled.ts, codegen/pipeline/ring_scales.ts): a [M, K] and b stored [N, K]
// (dot_scaled_ring_cases.ts) are copied global -> shared by cp.async into the stage the MMA reads,
// and so are ue8m0 scale tiles of whole tcgen05.cp chunks (4 groups, 128 rows); ue4m3 (nvfp4)
// scales and scale tiles of 2 groups still go through registers. K loops of several steps, 2 and 3
// stages, ragged M/N/K, 4 and 8 warps; each bit for bit against the JS reference, the interpreter and
// the emulated kernel (blockScaled: false) on the sim; the PTX checked for the copies and for no
// register round trip of what the ring stages.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';
import { runOn, simDevice } from './helpers.js';
import { makeData, reference, scaledKernel, type Case, type DataOptions } from './dot_scaled_cases.js';
import { runPtx } from './dot_scaled_native_run.js';
import { ringArgs, ringKernel } from './dot_scaled_ring_cases.js';

interface RingCase extends Case {
  readonly numWarps?: number;
  readonly stages: number;
  /** the scale tiles the ring stages (ue8m0, 4 groups a step, 128-row tiles): both, a's only, none */
  readonly scalesStaged: boolean | 'a';
  readonly data?: DataOptions;
}

const CASES: RingCase[] = [
  // mxfp8, two K steps, everything on the ring
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 128, K: 256, BM: 128, BN: 128, BK: 128, stages: 2, scalesStaged: true },
  // mxfp8 ragged M/N/K (the last step masked), acc, 3 stages, 5 K steps; 2 groups a step: scales in registers
  { fa: 'e5m2', fb: 'e4m3', M: 100, N: 70, K: 288, BM: 128, BN: 128, BK: 64, stages: 3, scalesStaged: false, acc: true },
  // mxfp8 ragged, 4 groups a step: the scales staged too (masked rows zero-filled), 3 stages
  { fa: 'e4m3', fb: 'e5m2', M: 77, N: 100, K: 384, BM: 128, BN: 128, BK: 128, stages: 3, scalesStaged: true, acc: true },
  // mxfp4 (packed e2m1, K 64 a step), four K steps, acc, 3 stages
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 128, K: 512, BM: 128, BN: 128, BK: 128, stages: 3, scalesStaged: true, acc: true },
  // mxfp4 ragged M/N/K, 2 stages, scale extremes
  { fa: 'e2m1', fb: 'e2m1', M: 90, N: 120, K: 384, BM: 128, BN: 128, BK: 128, stages: 2, scalesStaged: true, data: { aScales: [0, 1, 2], bScales: [252, 253, 254], lo: 0.5, hi: 2 } },
  // nvfp4: operands on the ring, ue4m3 scales (sign bits set) through registers
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 256, BM: 128, BN: 64, BK: 128, nvfp4: true, stages: 3, scalesStaged: false, acc: true, data: { aScales: [0x38, 0xb8, 0x30], bScales: [0x40, 0xc0, 0x38] } },
  // N 64: a's scales on the ring, b's (64 rows, half a chunk) through registers into zeroed chunks
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 64, K: 256, BM: 128, BN: 64, BK: 128, stages: 2, scalesStaged: 'a', acc: true },
  // 8 warps, N 256: b's scales in two 128-row blocks of each chunk
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 256, K: 256, BM: 128, BN: 256, BK: 128, numWarps: 8, stages: 2, scalesStaged: true },
];

const SPEC = Object.fromEntries(['a', 'b', 'as', 'bs', 'c'].map((n) => [n, { divisibleBy16: true }]));
const compileRing = (c: RingCase, name: string, blockScaled = true): CompileResult =>
  compile(ringKernel(c, name).trace({}), { target: 'sm_100a', numWarps: c.numWarps ?? 4, numStages: c.stages, ptxas: true, blockScaled, specialization: SPEC });

/** The PTX of the pipelined loop (the prologue's copies are before it). */
const loopOf = (ptx: string): string => {
  const from = ptx.indexOf('// pipelined loop:');
  const to = ptx.search(/\$L_endpfor_\d+:/);
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  return ptx.slice(from, to);
};

/** Bytes a thread loads from global memory by the ld.global lines of `ptx` (each line once). */
const globalBytes = (ptx: string): number =>
  [...ptx.matchAll(/\bld\.global(?:\.nc)?(?:\.v(\d))?\.[ubsf](\d+)/g)].reduce((s, m) => s + Number(m[1] ?? 1) * (Number(m[2]) / 8), 0);

describe('dotScaled on the block-scaled kinds with its operands on the cp.async ring (sm_100a)', () => {
  for (const [i, c] of CASES.entries()) {
    const nw = c.numWarps ?? 4;
    it(`${c.fa} x ${c.fb}${c.nvfp4 ? ' (nvfp4)' : ''} ${c.M}x${c.N}x${c.K} (tile ${c.BM}x${c.BN}x${c.BK}${c.acc ? ', acc' : ''}, ${nw} warps, ${c.stages} stages): global -> shared by cp.async, bit for bit`, async () => {
      expect(simDevice().target).toBe('sm_100a');
      const d = makeData(c, 140 + i, c.data);
      const ref = reference(c, d);
      expect(ref.exact).toBe(true);
      const r = compileRing(c, `dsr_${i}`);
      expect(r.cubin?.length ?? 0).toBeGreaterThan(0);
      expect(r.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(/native/);
      // the plan: a as loaded, b transposed (K-major), the scales in tcgen05.cp chunks when staged
      const plan = r.stages.find((s) => s.name === 'pipeline')!.text;
      expect(plan).toMatch(/load %\d+: (f8e4m3|f8e5m2|u8)\[128x\d+\] cp\.async 16 bytes zero-fill #/);
      expect(plan).toMatch(/load %\d+: (f8e4m3|f8e5m2|u8)\[\d+x\d+\] cp\.async 16 bytes zero-fill staged transposed #/);
      expect(count(plan, /scale chunks/)).toBe(c.scalesStaged === 'a' ? 1 : c.scalesStaged ? 2 : 0);
      const loop = loopOf(r.ptx);
      // operands (and staged scales) never pass through registers: no global load, no shared store in the loop
      expect(loop).toMatch(/cp\.async\.cg\.shared\.global \[[^\]]+\], \[%rd\d+\], 16/);
      if (c.scalesStaged === 'a') {
        expect(loop).toMatch(/cp\.async\.ca\.shared\.global \[[^\]]+\], \[%rd\d+\], 4/);
        expect(globalBytes(loop)).toBe((c.BN * c.BK) / 32 / (32 * nw));
        expect(loop).not.toMatch(/\bst\.shared\.(v\d|b16|b64)/);
      } else if (c.scalesStaged) {
        expect(loop).toMatch(/cp\.async\.ca\.shared\.global \[[^\]]+\], \[%rd\d+\], 4/);
        expect(loop).not.toMatch(/\bld\.global/);
        expect(loop).not.toMatch(/\bst\.shared/);
      } else {
        // only the scale bytes are loaded (a thread's share of both tiles) and stored, one st.shared.b8 each (b32: zeros where a chunk is not full)
        expect(globalBytes(loop)).toBe(((c.BM + c.BN) * c.BK) / (c.nvfp4 ? 16 : 32) / (32 * nw));
        expect(loop).toMatch(/\bst\.shared\.b8/);
        expect(loop).not.toMatch(/\bst\.shared\.(v\d|b16|b64)/);
      }
      const form = c.nvfp4 ? 'mxf4nvf4.block_scale.scale_vec::4X' : c.fa === 'e2m1' ? 'mxf4.block_scale.scale_vec::2X' : 'mxf8f6f4.block_scale.scale_vec::1X';
      expect(count(loop, new RegExp(`tcgen05\\.mma\\.cta_group::1\\.kind::${form.replace(/\./g, '\\.')} `))).toBe(c.BK / (c.fa === 'e2m1' ? 64 : 32));
      expect(r.metadata.spills).toBe(0);
      const got = await runPtx(r, ringArgs(c, d), nw);
      expect(Array.from(got), 'sim, native on the ring').toEqual(Array.from(ref.c));
      const emu = compileRing(c, `dsr_${i}`, false);
      expect(emu.ptx).not.toMatch(/block_scale/);
      expect(Array.from(await runPtx(emu, ringArgs(c, d), nw)), 'sim, emulated').toEqual(Array.from(ref.c));
      const args = ringArgs(c, d);
      await runOn('interpret', ringKernel(c, `dsr_${i}`), args, 1, { numWarps: nw });
      expect(Array.from(args['c'] as Float32Array), 'interpreter').toEqual(Array.from(ref.c));
    });
  }
});

describe('dotScaled loads the ring leaves in registers, and why', () => {
  it('b loaded [K, N] contiguous along N (dot_scaled_cases.ts): a on the ring, b through registers', () => {
    const c: RingCase = { fa: 'e4m3', fb: 'e4m3', M: 128, N: 128, K: 256, BM: 128, BN: 128, BK: 128, stages: 2, scalesStaged: false };
    const r = compile(scaledKernel(c, 'dsr_nmajor').trace({}), { target: 'sm_100a', numWarps: 4, numStages: 2, ptxas: false, specialization: SPEC });
    const plan = r.stages.find((s) => s.name === 'pipeline')!.text;
    expect(plan).toMatch(/cp\.async 16 bytes zero-fill #/);
    expect(plan).toMatch(/not pipelined: an 8-bit dot_scaled b is staged K-major only/);
    // its scales are masked with 127 (scale 1): cp.async zero-fills
    expect(plan).toMatch(/not pipelined: masked with an `other` that is not the constant 0/);
  });
  for (const [j, c] of ([
    { fa: 'e4m3', fb: 'e2m1', M: 100, N: 128, K: 256, BM: 128, BN: 128, BK: 128, stages: 2, scalesStaged: true, acc: true },
    { fa: 'e2m3', fb: 'e5m2', M: 128, N: 90, K: 384, BM: 128, BN: 128, BK: 128, stages: 3, scalesStaged: true },
  ] as RingCase[]).entries()) {
    it(`${c.fa} x ${c.fb} on kind::mxf8f6f4: the 6-/4-bit operand is repacked from registers (padded containers), the 8-bit one rides the ring; bit for bit`, async () => {
      const r = compileRing(c, `dsr_pad_${j}`);
      expect(r.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(/: native, tcgen05 block-scaled kind/);
      const plan = r.stages.find((s) => s.name === 'pipeline')!.text;
      const narrow = c.fa === 'e4m3' ? c.fb : c.fa;
      expect(plan).toMatch(new RegExp(`not pipelined: an ${narrow} operand of kind::mxf8f6f4 is repacked into padded 8-bit containers`));
      expect(plan).toMatch(/(f8e4m3|f8e5m2)\[\d+x\d+\] cp\.async 16 bytes zero-fill/);
      expect(count(loopOf(r.ptx), /tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale\.scale_vec::1X /)).toBe(c.BK / 32);
      const d = makeData(c, 170 + j, c.data);
      const ref = reference(c, d);
      expect(ref.exact).toBe(true);
      expect(Array.from(await runPtx(r, ringArgs(c, d), 4)), 'sim, native').toEqual(Array.from(ref.c));
      const args = ringArgs(c, d);
      await runOn('interpret', ringKernel(c, `dsr_pad_${j}`), args, 1, { numWarps: 4 });
      expect(Array.from(args['c'] as Float32Array), 'interpreter').toEqual(Array.from(ref.c));
    });
  }
  it('the 8-warp N 256 kernel of dot_scaled_native_sm100 spills only when c\'s alignment is unknown (its epilogue, not the dot)', () => {
    // 128 accumulator columns a thread stored one f32 at a time, each with its own 64-bit
    // address, computed op by op (all live at once); a 16-aligned c gives vector stores
    const c: Case = { fa: 'e5m2', fb: 'e5m2', M: 128, N: 200, K: 64, BM: 128, BN: 256, BK: 32 };
    const spills = (spec: Record<string, { divisibleBy16: boolean }>): number =>
      compile(scaledKernel(c, 'dsr_spill').trace({}), { target: 'sm_100a', numWarps: 8, ptxas: true, specialization: spec }).metadata.spills ?? -1;
    expect(spills({})).toBeGreaterThan(0);
    expect(spills({ c: { divisibleBy16: true } })).toBe(0);
  });
});
