// Where codegen/global_order.ts places the CTA barriers that keep global memory in program order
// between the threads of one program (the e2e cases that fail without them are
// test/e2e/global_order*.test.ts): none in kernels that only load inputs and store outputs (every
// benchmark kernel: vector add, softmax, norms, matmuls, attention), one where a thread may read or
// overwrite what another thread wrote, none where each thread reads back its own writes.
import { describe, expect, it } from 'vitest';
import { BENCH_KERNELS } from '../../bench/kernels.js';
import { compile } from '../../src/compile/compile.js';
import { arange, forLoop, load, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { vectorAdd } from './kernels.js';
import { count } from './gate.js';

const ORDER = /global memory order/;
const barriers = (k: { trace: (c: Record<string, number>) => never } | ReturnType<typeof vectorAdd>, target: 'sm_80' | 'sm_90' = 'sm_80'): number => {
  const f = 'trace' in k ? k.trace({}) : k;
  return count(compile(f, { target }).ptx, ORDER);
};

describe('no barrier in kernels that never read what they wrote', () => {
  for (const k of BENCH_KERNELS) {
    for (const target of ['sm_80', 'sm_90'] as const) {
      it(`${k.def.name} for ${target}`, () => {
        const ptx = compile(k.def.trace(k.constexprs), { target, ...(k.options?.numWarps ? { numWarps: k.options.numWarps } : {}) }).ptx;
        expect(ptx).not.toMatch(ORDER);
      });
    }
  }
  it('vector add (test/codegen/kernels.ts), masked and not', () => {
    expect(barriers(vectorAdd('f32'))).toBe(0);
    expect(barriers(vectorAdd('f16', 256, false), 'sm_90')).toBe(0);
  });
});

describe('the rule on small kernels', () => {
  const j = (): ReturnType<typeof arange> => arange(0, 128);
  it('the same pointer tile read back in its own layout: no barrier', () => {
    const k = kernel({ name: 'same_tile', params: { p: ptr('f32'), out: ptr('f32') } }, ({ p, out }) => {
      store(p.add(j()), load(p.add(j())).mul(2)); // CSE makes the two pointer tiles one
      store(out.add(j()), load(p.add(j())));
    });
    expect(barriers(k as never)).toBe(0);
  });
  it('a masked write read back without the mask: a barrier (another lane may hold the address)', () => {
    const k = kernel({ name: 'masked_write', params: { p: ptr('f32'), out: ptr('f32'), n: 'i32' } }, ({ p, out, n }) => {
      store(p.add(j()), 1, { mask: j().lt(n) });
      store(out.add(j()), load(p.add(j())));
    });
    expect(barriers(k as never)).toBe(1);
  });
  it('a scalar store (thread 0) read by every thread: a barrier', () => {
    const k = kernel({ name: 'scalar_store', params: { p: ptr('f32'), out: ptr('f32') } }, ({ p, out }) => {
      store(p, 7);
      store(out.add(j()), load(p.add(j().mul(0))));
    });
    expect(barriers(k as never)).toBe(1);
  });
  it('a write, then a load through another parameter: a barrier (any two pointers may alias)', () => {
    const k = kernel({ name: 'other_param', params: { p: ptr('f32'), q: ptr('f32'), out: ptr('f32') } }, ({ p, q, out }) => {
      store(p.add(j()), 1);
      store(out.add(j()), load(q.add(j())));
    });
    expect(barriers(k as never)).toBe(1);
  });
  it('a write before a loop whose loads must see it: one barrier, before the loop', () => {
    const k = kernel({ name: 'before_loop', params: { p: ptr('f32'), q: ptr('f32'), out: ptr('f32'), n: 'i32' } }, ({ p, q, out, n }) => {
      store(p.add(j()), 1);
      const [acc] = forLoop(0, n, 1, [zeros([128], 'f32')], (i, acc) => [acc!.add(load(q.add(j()).add(i)))]);
      store(out.add(j()), acc!);
    });
    const ptx = compile(k.trace({}), { target: 'sm_80' }).ptx;
    expect(count(ptx, ORDER)).toBe(1);
    const loop = ptx.split('\n').findIndex((l) => /^\S*for\w*:/.test(l.trim()));
    expect(loop).toBeGreaterThan(0);
    expect(ptx.split('\n').findIndex((l) => ORDER.test(l))).toBeLessThan(loop);
  });
  it('writes to two output parameters after loading a third: no barrier', () => {
    const k = kernel({ name: 'two_outputs', params: { x: ptr('f32'), a: ptr('f32'), b: ptr('f32') } }, ({ x, a, b }) => {
      const v = load(x.add(j().mul(-1).add(127)));
      store(a.add(j()), v);
      store(b.add(j()), v.mul(2));
    });
    expect(barriers(k as never)).toBe(0);
  });
});
