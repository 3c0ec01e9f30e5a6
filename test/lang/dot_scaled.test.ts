// dotScaled's checks (named errors before anything runs) and the dot each format pair becomes:
// bf16 tensor-core products for e2m1/e2m3/e3m2/bf16, tf32 when e4m3 or fp16 is involved, exact
// f32 FMA with e5m2 (src/lang/dot_scaled.ts says why each is exact).
import { describe, expect, it } from 'vitest';
import { arange, dotScaled, load, ptr, store, zeros, type Tile } from '../../src/lang/index.js';
import type { DType } from '../../src/ir/types.js';
import { kernel } from '../../src/runtime/kernel.js';
import { compile } from '../../src/compile/compile.js';
import { printFunc } from '../../src/ir/print.js';
import { verify } from '../../src/ir/verify.js';

type Spec = { dt: DType; shape: [number, number] } | null;
/** A kernel loading a, b and the scales with the given dtypes/shapes and calling dotScaled. */
function k(a: Spec, sa: Spec, fa: string, b: Spec, sb: Spec, fb: string, opts: Record<string, unknown> = {}) {
  const tile = (p: Tile, s: NonNullable<Spec>): Tile => load(p.add(arange(0, s.shape[0]).expandDims(1).mul(s.shape[1]).add(arange(0, s.shape[1]).expandDims(0))));
  return kernel(
    { name: 'ds', params: { a: ptr(a!.dt), b: ptr(b!.dt), sa: ptr(sa?.dt ?? 'u8'), sb: ptr(sb?.dt ?? 'u8'), c: ptr('f32') } },
    ({ a: pa, b: pb, sa: psa, sb: psb, c }) => {
      const o = opts['accF16'] ? { acc: zeros([a!.shape[0], b!.shape[1]], 'f16') } : opts;
      const r = dotScaled(tile(pa, a!), sa ? tile(psa, sa) : null, fa as 'e4m3', tile(pb, b!), sb ? tile(psb, sb) : null, fb as 'e4m3', o);
      store(c.add(arange(0, r.shape[0]!).expandDims(1).mul(r.shape[1]!).add(arange(0, r.shape[1]!).expandDims(0))), r);
    },
  );
}
const u8 = (r: number, c: number): Spec => ({ dt: 'u8', shape: [r, c] });
const e4 = (r: number, c: number): Spec => ({ dt: 'f8e4m3', shape: [r, c] });
const f4 = (r: number, c: number): Spec => ({ dt: 'f4e2m1', shape: [r, c] });
const e8 = (r: number, c: number): Spec => ({ dt: 'f8e8m0', shape: [r, c] });

describe('dotScaled errors', () => {
  const cases: [string, () => void, RegExp][] = [
    ['unknown format', () => k(e4(32, 64), u8(32, 2), 'e4m4', e4(64, 32), u8(32, 2), 'e4m3').trace(), /aFormat must be one of 'e4m3', 'e5m2', 'e2m3', 'e3m2', 'e2m1', 'bf16', 'fp16', got 'e4m4'/],
    ['e2m1 not in bytes', () => k(e4(32, 32), u8(32, 2), 'e2m1', e4(64, 32), u8(32, 2), 'e4m3').trace(), /'e2m1' operand a must be u8 or f4e2m1 \(u8: two codes per byte, packed along K, low nibble first; f4e2m1: one per element\), got f8e4m3/],
    ['e4m3 operand of the wrong fp8 type', () => k(e4(32, 64), u8(32, 2), 'e4m3', { dt: 'f8e5m2', shape: [64, 32] }, u8(32, 2), 'e4m3').trace(), /'e4m3' operand b must be f8e4m3 or u8, got f8e5m2/],
    ['K mismatch (packing forgotten)', () => k(u8(32, 64), u8(32, 2), 'e2m1', e4(64, 32), u8(32, 2), 'e4m3').trace(), /a u8\[32, 64\] \('e2m1'\) holds K = 128 elements along K and b f8e4m3\[64, 32\] \('e4m3'\) K = 64/],
    ['scale shape', () => k(e4(32, 64), u8(32, 4), 'e4m3', e4(64, 32), u8(32, 2), 'e4m3').trace(), /aScale has shape \[32, 4\]; with K = 64 and one e8m0 scale per 32 elements it must be \[32, 2\]/],
    ['b scale not transposed', () => k(e4(32, 64), u8(32, 2), 'e4m3', e4(64, 16), u8(2, 16), 'e4m3').trace(), /bScale has shape \[2, 16\]; .* must be \[16, 2\]/],
    ['scale dtype', () => k(e4(32, 64), { dt: 'i32', shape: [32, 2] }, 'e4m3', e4(64, 32), u8(32, 2), 'e4m3').trace(), /aScale must be u8 or f8e8m0 \(e8m0 codes, one per 32 elements along K\), got i32/],
    ['ue4m3 scales only for e2m1', () => k(e4(32, 64), e4(32, 4), 'e4m3', e4(64, 32), u8(32, 2), 'e4m3').trace(), /aScale must be u8 .*got f8e4m3/],
    ['scale on bf16', () => k({ dt: 'bf16', shape: [32, 64] }, u8(32, 2), 'bf16', e4(64, 32), u8(32, 2), 'e4m3').trace(), /a 'bf16' operand takes no scale \(pass null for aScale\)/],
    ['acc dtype', () => k(e4(32, 64), u8(32, 2), 'e4m3', e4(64, 32), u8(32, 2), 'e4m3', { accF16: true }).trace(), /dotScaled accumulates in f32; acc is f16/],
    ['unknown option', () => k(e4(32, 64), u8(32, 2), 'e4m3', e4(64, 32), u8(32, 2), 'e4m3', { outDtype: 'f32' }).trace(), /unknown option 'outDtype' \(allowed: acc, fastMath\)/],
    ['f4e2m1 tiles are not packed (K counted per element)', () => k(f4(32, 32), u8(32, 2), 'e2m1', e4(64, 32), u8(32, 2), 'e4m3').trace(), /a f4e2m1\[32, 32\] \('e2m1'\) holds K = 32 elements along K and b f8e4m3\[64, 32\] \('e4m3'\) K = 64/],
    ['f4e2m1 operand named e4m3', () => k(f4(32, 64), u8(32, 2), 'e4m3', e4(64, 32), u8(32, 2), 'e4m3').trace(), /'e4m3' operand a must be f8e4m3 or u8, got f4e2m1/],
    ['f8e8m0 as an operand', () => k({ dt: 'f8e8m0', shape: [32, 64] }, u8(32, 2), 'e4m3', e4(64, 32), u8(32, 2), 'e4m3').trace(), /'e4m3' operand a must be f8e4m3 or u8, got f8e8m0/],
    ['f4e2m1 as a scale', () => k(f4(32, 64), f4(32, 2), 'e2m1', e4(64, 32), u8(32, 2), 'e4m3').trace(), /aScale must be u8 or f8e8m0 \(e8m0 codes, one per 32 elements along K\) or f8e4m3 \(ue4m3, nvfp4: one per 16\), got f4e2m1/],
    ['f8e8m0 scale shape (one per 32)', () => k(f4(32, 64), e8(32, 4), 'e2m1', e4(64, 32), u8(32, 2), 'e4m3').trace(), /aScale has shape \[32, 4\]; with K = 64 and one e8m0 scale per 32 elements it must be \[32, 2\]/],
    ['f8e8m0 scale on fp16', () => k({ dt: 'f16', shape: [32, 64] }, null, 'fp16', e4(64, 32), e8(32, 2), 'e4m3').trace() && k({ dt: 'f16', shape: [32, 64] }, e8(32, 2), 'fp16', e4(64, 32), e8(32, 2), 'e4m3').trace(), /a 'fp16' operand takes no scale \(pass null for aScale\)/],
    ['1-D operand', () => kernel({ name: 'ds1', params: { a: ptr('u8') } }, ({ a }) => { const t = load(a.add(arange(0, 32))); dotScaled(t, null, 'e2m1', t, null, 'e2m1'); }).trace(), /dotScaled needs 2-D operands; a has shape \[32\]/],
  ];
  for (const [what, run, re] of cases) it(what, () => expect(run).toThrow(re));
  it('errors are E_ARG / E_TYPE / E_SHAPE KernelErrors naming dotScaled', () => {
    try { cases[4]![1](); } catch (e) { expect((e as { code: string }).code).toBe('E_SHAPE'); expect(String(e)).toMatch(/op 'dotScaled'/); return; }
    throw new Error('no error');
  });
});

describe('the dot each format pair runs', () => {
  const ptx = (fa: string, fb: string, target: 'sm_80' | 'sm_90a') => {
    const op = (f: string, rows: number, cols: number, packAlongRows: boolean): Spec =>
      f === 'e2m1' ? u8(packAlongRows ? rows / 2 : rows, packAlongRows ? cols : cols / 2) : f === 'e4m3' ? e4(rows, cols) : f === 'e5m2' ? { dt: 'f8e5m2', shape: [rows, cols] } : u8(rows, cols);
    return compile(k(op(fa, 64, 64, false), u8(64, 2), fa, op(fb, 64, 64, true), u8(64, 2), fb).trace(), { target, ptxas: false }).ptx;
  };
  it('mxfp4 and fp6 on bf16 tensor cores, mxfp8 e4m3 on tf32 ones, e5m2 on exact f32 FMA', () => {
    expect(ptx('e2m1', 'e2m1', 'sm_80')).toMatch(/mma\.sync\.aligned\.\S+\.bf16\.bf16/);
    expect(ptx('e2m3', 'e3m2', 'sm_90a')).toMatch(/wgmma\.mma_async\.\S+\.bf16\.bf16/);
    expect(ptx('e4m3', 'e2m1', 'sm_80')).toMatch(/mma\.sync\.aligned\.\S+\.tf32\.tf32/);
    expect(ptx('e4m3', 'e4m3', 'sm_90a')).toMatch(/wgmma\.mma_async\.\S+\.tf32\.tf32/);
    const e5 = ptx('e5m2', 'e4m3', 'sm_80');
    expect(e5).not.toMatch(/mma\.sync/);
    expect(e5).toMatch(/fma\.rn\.f32/);
  });
});

describe('the dot_scaled IR op', () => {
  const traced = () => k(e4(32, 64), e8(32, 2), 'e4m3', f4(64, 32), u8(32, 2), 'e2m1').trace();
  it('dotScaled traces one dot_scaled op whose region over its operands is the emulation', () => {
    const f = traced();
    const ds = f.body.ops.filter((o) => o.kind === 'dot_scaled');
    expect(ds).toHaveLength(1);
    const op = ds[0]!;
    expect(op.attrs).toEqual({ aFormat: 'e4m3', bFormat: 'e2m1', hasAScale: true, hasBScale: true });
    expect(op.operands.map((v) => v.type.elem)).toEqual(['f8e4m3', 'f8e8m0', 'f4e2m1', 'u8', 'f32']);
    expect(op.regions[0]!.args.map((v) => v.type)).toEqual(op.operands.map((v) => v.type));
    expect(op.regions[0]!.ops.filter((o) => o.kind === 'dot')).toHaveLength(1);
    expect(f.body.ops.some((o) => o.kind === 'dot')).toBe(false); // the dot lives only in the definition
    expect(printFunc(f)).toMatch(/= dot_scaled /);
  });
  it('every target without block-scaled lowering inlines it (compiler/inline_dot_scaled.ts): no dot_scaled reaches codegen', () => {
    const r = compile(traced(), { target: 'sm_90a', ptxas: false });
    const ir = r.stages.find((s) => s.name === 'canonicalize')!.text;
    expect(ir).not.toMatch(/= dot_scaled /);
    expect(ir).toMatch(/= dot /);
  });
  it('the verifier checks its accumulator and its region', () => {
    const f = traced();
    const op = f.body.ops.find((o) => o.kind === 'dot_scaled')!;
    const badAcc = { ...op, results: [{ id: op.results[0]!.id, type: { elem: 'f16' as const, shape: [32, 32] } }] };
    expect(() => verify({ ...f, body: { ...f.body, ops: f.body.ops.map((o) => (o === op ? badAcc : o)) } })).toThrow(/result/);
    const noRegion = { ...op, regions: [] };
    expect(() => verify({ ...f, body: { ...f.body, ops: f.body.ops.map((o) => (o === op ? noRegion : o)) } })).toThrow(/expected 1 region/);
  });
});
