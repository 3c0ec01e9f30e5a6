import { describe, expect, it } from 'vitest';
import { analyzeAxisInfo } from '../../src/compiler/axis_info.js';
import { assignLayouts } from '../../src/compiler/layout_assign.js';
import { printLayouts } from '../../src/compiler/annotate.js';
import { layoutToString } from '../../src/compiler/layout.js';
import { kernel, P } from '../codegen/dsl.js';
import { vectorAdd } from '../codegen/kernels.js';

describe('layout assignment', () => {
  it('vector add: one 4-wide blocked layout for everything, vec=4 on every access', () => {
    const f = vectorAdd('f32', 1024);
    const spec = { x: { divisibleBy16: true }, y: { divisibleBy16: true }, out: { divisibleBy16: true }, n: { divisibleBy16: true } };
    const plan = assignLayouts(f, analyzeAxisInfo(f, spec), 4);
    const text = printLayouts(f, plan);
    expect(text).toContain('#blocked{spt=[4] tpw=[32] wpc=[4] order=[0]}');
    expect(text.match(/vec=4/g)).toHaveLength(3);
    expect(text).not.toContain('convert(');
    expect(new Set([...plan.layouts.values()].filter((l) => l.kind !== 'scalar').map(layoutToString)).size).toBe(1);
  });
  it('without alignment facts the same kernel gets scalar accesses', () => {
    const f = vectorAdd('f32', 1024);
    const text = printLayouts(f, assignLayouts(f, analyzeAxisInfo(f), 4));
    expect(text.match(/vec=1/g)).toHaveLength(3);
    expect(text).toContain('#blocked{spt=[1] tpw=[32] wpc=[4] order=[0]}');
  });
  it('a column access ([M, N] pointer contiguous along dim 0) orders dim 0 first', () => {
    const f = kernel('col', [['x', P('f32')]], (k, [x]) => {
      const rm = k.expand(k.arange(64), 1);
      const cn = k.expand(k.arange(16), 0);
      const offs = k.bin('add', k.broadcast(rm, [64, 16]), k.broadcast(k.bin('mul', cn, k.c(64, 'i32', [1, 16])), [64, 16]));
      k.store(k.addptr(x!, offs), k.c(0, 'f32', [64, 16]));
    });
    const text = printLayouts(f, assignLayouts(f, analyzeAxisInfo(f, { x: { divisibleBy16: true } }), 4));
    expect(text).toContain('order=[0,1]');
    expect(text).toMatch(/store\(%\d+, %\d+\)  vec=4/);
    expect(text).toContain('spt=[4,1] tpw=[16,2] wpc=[1,4] order=[0,1]');
  });
  it('a reduction result is a slice of its input layout; expand_dims gives the parent back', () => {
    const f = kernel('red', [['x', P('f32')]], (k, [x]) => {
      const rm = k.expand(k.arange(16), 1);
      const cn = k.expand(k.arange(64), 0);
      const offs = k.bin('add', k.broadcast(k.bin('mul', rm, k.c(64, 'i32', [16, 1])), [16, 64]), k.broadcast(cn, [16, 64]));
      const v = k.load(k.addptr(x!, offs));
      const s = k.reduce(v, 1, 'max');
      k.store(k.addptr(x!, offs), k.bin('sub', v, k.broadcast(k.expand(s, 1), [16, 64])));
    });
    const text = printLayouts(f, assignLayouts(f, analyzeAxisInfo(f), 4));
    expect(text).toMatch(/reduce\(%\d+\)\s+#slice\{dim=1, parent=#blocked/);
    expect(text).not.toContain('convert(');
  });
});
