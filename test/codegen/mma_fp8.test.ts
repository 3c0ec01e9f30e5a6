// fp8 dots in the PTX (every module assembled by ptxas, gateTargets): on sm_89 and sm_90
// the m16n8k32 fp8 mma.sync (.e4m3/.e5m2, mixed as the ISA allows) under the PTX ISA version it
// needs (8.4; 8.7 with an f16 accumulator), operands staged as bytes like s8/u8; on sm_80 the
// fragments are widened to f16 and each k32 step is two m16n8k16 f16 mmas; shapes that do not tile
// stay on FMA. Numerics: test/e2e/matmul_fp8.test.ts (sm_80) and matmul_fp8_sm90.test.ts.
import { describe, expect, it } from 'vitest';
import { count, gateTargets } from './gate.js';
import { traceMatmul } from '../e2e/fp8_matmul_cases.js';
import { mmaLayoutForDot } from '../../src/compiler/layout.js';
import { mmaKindOf } from '../../src/compiler/mma_kinds.js';

// one m16n8 tile's fp8 mma: D (4 f32 / 2 f16x2), A (4 words), B (2 words), C = D (accumulated in place)
const line = (acc: 'f32' | 'f16', a: string, b: string): RegExp => {
  const d = acc === 'f32' ? '%f\\d+, %f\\d+, %f\\d+, %f\\d+' : '%r\\d+, %r\\d+';
  return new RegExp(`^\\s*mma\\.sync\\.aligned\\.m16n8k32\\.row\\.col\\.${acc}\\.${a}\\.${b}\\.${acc} \\{(${d})\\}, \\{%r\\d+, %r\\d+, %r\\d+, %r\\d+\\}, \\{%r\\d+, %r\\d+\\}, \\{\\1\\};$`);
};

describe('fp8 dots in PTX', () => {
  it.each([
    ['f8e4m3', 'f8e4m3', 'e4m3', 'e4m3'],
    ['f8e5m2', 'f8e5m2', 'e5m2', 'e5m2'],
    ['f8e4m3', 'f8e5m2', 'e4m3', 'e5m2'],
    ['f8e5m2', 'f8e4m3', 'e5m2', 'e4m3'],
  ] as const)('%s x %s -> f32, 64x32x64 on 4 warps: the fp8 mma.sync on sm_89/sm_90 (PTX ISA 8.4; sm_90a takes wgmma, test/e2e/matmul_wgmma.test.ts)', (ta, tb, pa, pb) => {
    const rs = gateTargets(traceMatmul(ta, tb, 'f32', 64, 32, 64), ['sm_89', 'sm_90'], { numWarps: 4 });
    for (const [target, r] of Object.entries(rs)) {
      expect(r.ptx, target).toMatch(/^\.version 8\.4$/m);
      // warps 2 x 2: two m16 and two n8 tiles per warp, K / 32 = 2 steps -> 8 mmas
      expect(count(r.ptx, line('f32', pa, pb)), target).toBe(8);
      expect(count(r.ptx, /mma\.sync/), target).toBe(8);
      expect(count(r.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/), target).toBe(4); // a: one per m16 tile and step
      expect(r.ptx, target).not.toMatch(/f16x2|fma\.rn|cvt\.rn\.f16x2\.e[45]m[23]x2/); // fragments go in as bytes
      // the accumulator crosses the k-loop in the mma layout (its only barriers: the operand
      // staging's two), and c's 16 pointers are computed again after the loop, not kept live
      // through it: 149 registers on sm_89 and a spill on sm_90 before
      const [, body, after] = r.ptx.split(/^\$L_(?:for|endfor)_\d+:$/m);
      expect(count(body!, /bar\.sync/), target).toBe(2);
      expect(count(after!, /mad\.wide\.s32 %rd\d+, %r\d+, 4, %rd\d+;/), target).toBe(16);
      expect(r.metadata.registers, target).toBeLessThan(120);
    }
  });

  it('an f16 accumulator uses the .f16 form (PTX ISA 8.7)', () => {
    const rs = gateTargets(traceMatmul('f8e4m3', 'f8e4m3', 'f16', 64, 64, 32), ['sm_89', 'sm_90'], { numWarps: 4 });
    for (const r of Object.values(rs)) {
      expect(r.ptx).toMatch(/^\.version 8\.7$/m);
      expect(count(r.ptx, line('f16', 'e4m3', 'e4m3'))).toBe(8); // 2 x 4 tiles per warp, 1 step
    }
  });

  it.each([
    ['f8e4m3', 'f8e4m3', 24],
    ['f8e5m2', 'f8e5m2', 0],
    ['f8e4m3', 'f8e5m2', 16],
  ] as const)('%s x %s on sm_80: widened to f16 (exactly), two m16n8k16 f16 mmas per k32 step', (ta, tb, muls) => {
    const r = gateTargets(traceMatmul(ta, tb, 'f32', 64, 32, 32), ['sm_80'], { numWarps: 4 })['sm_80']!;
    expect(r.ptx).toMatch(/^\.version 8\.0$/m);
    expect(r.ptx).not.toMatch(/\.e4m3|\.e5m2/);
    // warps 2 x 2: 2 m16 x 2 n8 tiles per warp, 1 k32 step, 2 f16 mmas each
    expect(count(r.ptx, /mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32/)).toBe(2 * 2 * 2);
    // a = 2 tiles x 4 words, b = 2 tiles x 2 words, each word -> 2 f16x2 words; an e4m3 f16x2
    // word is rebiased with one mul.rn.f16x2, an e5m2 one is a byte permute only
    expect(count(r.ptx, /mul\.rn\.f16x2/)).toBe(muls);
  });

  it('fp8 dots that do not tile (K not a multiple of 32) stay on FMA, decoding each input to f32', () => {
    const rs = gateTargets(traceMatmul('f8e4m3', 'f8e5m2', 'f32', 64, 32, 16), ['sm_80', 'sm_89'], { numWarps: 4 });
    for (const r of Object.values(rs)) {
      expect(r.ptx).not.toMatch(/mma\.sync|ldmatrix/);
      expect(r.ptx).toMatch(/fma\.rn\.f32/);
    }
  });

  it('mma_kinds: fp8 x fp8 (same or mixed) into f32/f16 only; fp8 with any other input has no form', () => {
    expect(mmaKindOf('f8e4m3', 'f8e5m2', 'f32', 'ieee')).toEqual({ input: 'e4m3', inputB: 'e5m2', k: 32, bytes: 1, acc: 'f32' });
    expect(mmaKindOf('f8e5m2', 'f8e5m2', 'f16', 'ieee')).toEqual({ input: 'e5m2', k: 32, bytes: 1, acc: 'f16' });
    expect(mmaKindOf('f8e4m3', 'f8e4m3', 'bf16', 'ieee')).toBeUndefined();
    expect(mmaKindOf('f8e4m3', 'f16', 'f32', 'ieee')).toBeUndefined();
    expect(mmaLayoutForDot(64, 64, 32, 'f8e4m3', 'f8e5m2', 'f32', 4)).toBeDefined();
    expect(mmaLayoutForDot(64, 64, 16, 'f8e4m3', 'f8e5m2', 'f32', 4)).toBeUndefined();
  });
});
