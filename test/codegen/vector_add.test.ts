import { describe, expect, it } from 'vitest';
import { vectorAdd } from './kernels.js';
import { count, gate } from './gate.js';

describe('vector add through ptxas', () => {
  it('uses ld.global.v4.f32 / st.global.v4.f32 when pointers and n are divisible by 16', () => {
    const spec = { x: { divisibleBy16: true }, y: { divisibleBy16: true }, out: { divisibleBy16: true }, n: { divisibleBy16: true } };
    const { sm80, sm90 } = gate(vectorAdd('f32'), { specialization: spec });
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, /ld\.global\.v4\.f32/)).toBe(2 * 2); // 2 inputs x 2 vectors per thread (1024 / 128 / 4)
      expect(count(r.ptx, /st\.global\.v4\.f32/)).toBe(2);
      expect(r.ptx).not.toMatch(/\.local/);
      expect(r.ptx).not.toMatch(/ld\.shared|st\.shared/);
      expect(r.metadata.sharedBytes).toBe(0);
    }
    expect(sm80.ptx).toMatch(/\.target sm_80/);
    expect(sm90.ptx).toMatch(/\.target sm_90/);
    expect(sm80.ptx).toMatch(/\.reqntid 128, 1, 1/);
  });

  it('moves bytes 16 at a time (v4.b32) when each thread owns 16 aligned bytes', () => {
    const spec = { x: { divisibleBy16: true }, y: { divisibleBy16: true }, out: { divisibleBy16: true }, n: { divisibleBy16: true } };
    const { sm90 } = gate(vectorAdd('u8', 2048), { specialization: spec });
    expect(count(sm90.ptx, /ld\.global\.v4\.b32/)).toBe(2);
    expect(count(sm90.ptx, /st\.global\.v4\.b32/)).toBe(1);
    expect(count(sm90.ptx, /bfi\.b32/)).toBe(12); // 3 inserts per word, 4 words
  });

  it('falls back to scalar accesses when alignment is not provable', () => {
    const { sm80 } = gate(vectorAdd('f32'));
    expect(count(sm80.ptx, /ld\.global\.v\d/)).toBe(0);
    expect(count(sm80.ptx, /@%p\d+ ld\.global\.f32/)).toBe(2 * 8);
  });

  it('carries .loc line info for the user lines', () => {
    const { sm80 } = gate(vectorAdd('f32'));
    expect(sm80.ptx).toMatch(/\.file 1 "\/src\/kernels\.ts"/);
    expect(sm80.ptx).toMatch(/\.loc 1 12 3/);
  });

  it('reports the parameter ABI', () => {
    const { sm90 } = gate(vectorAdd('f32'));
    expect(sm90.metadata.params.map((p) => [p.name, p.offset, p.size])).toEqual([['x', 0, 8], ['y', 8, 8], ['out', 16, 8], ['n', 24, 4]]);
    expect(sm90.metadata.registers).toBeGreaterThan(0);
  });

  it.each(['f16', 'bf16', 'f64', 'i32', 'i8', 'u8', 'i64'] as const)('assembles for %s', (dt) => {
    const spec = { x: { divisibleBy16: true }, y: { divisibleBy16: true }, out: { divisibleBy16: true }, n: { divisibleBy16: true } };
    const { sm80 } = gate(vectorAdd(dt), { specialization: spec });
    if (dt === 'f16' || dt === 'bf16') expect(sm80.ptx).toMatch(/ld\.global\.v4\.b32/); // 8 halves per 128-bit access
    if (dt === 'f64' || dt === 'i64') expect(sm80.ptx).toMatch(/ld\.global\.v2\.(f64|b64)/);
    if (dt === 'i8' || dt === 'u8') expect(sm80.ptx).toMatch(/ld\.global\.v2\.b32/); // 8 bytes per thread: 2 words
    if (dt === 'i8') expect(sm80.ptx).toMatch(/bfe\.s32/);
  });
});
