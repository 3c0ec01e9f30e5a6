import { describe, expect, it } from 'vitest'; import { TesseraError } from '../../src/ir/index.js';
import { arange, constexpr, defineKernel, load, programId, ptr, store, KernelError } from '../../src/lang/index.js';
import { allOps, kinds, opsOf } from './helpers.js';

const add = defineKernel(
  { name: 'add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, y, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    store(out.add(offs), load(x.add(offs), { mask }).add(load(y.add(offs), { mask, other: 0 })), { mask });
  },
);

describe('defineKernel', () => {
  it('describes its params', () => {
    expect(add.name).toBe('add');
    expect(add.paramNames).toEqual(['x', 'y', 'out', 'n', 'BLOCK']);
    expect(add.runtimeParams).toEqual([
      { name: 'x', type: 'ptr<f32>', doNotSpecialize: false }, { name: 'y', type: 'ptr<f32>', doNotSpecialize: false },
      { name: 'out', type: 'ptr<f32>', doNotSpecialize: false }, { name: 'n', type: 'i32', doNotSpecialize: false },
    ]);
    expect(add.constexprNames).toEqual(['BLOCK']);
  });

  it('traces vector add to the expected IR', () => {
    const f = add.trace({ BLOCK: 256 });
    expect(f.name).toBe('add');
    expect(f.params.map((p) => p.type)).toEqual(['ptr<f32>', 'ptr<f32>', 'ptr<f32>', 'i32']);
    expect(f.constexprs).toEqual({ BLOCK: 256 });
    expect(f.body.args.map((a) => a.type.elem)).toEqual(['ptr<f32>', 'ptr<f32>', 'ptr<f32>', 'i32']);
    const ks = kinds(f);
    expect(ks[ks.length - 1]).toBe('return');
    expect(ks.filter((k) => k === 'load')).toHaveLength(2);
    expect(ks.filter((k) => k === 'store')).toHaveLength(1);
    expect(ks.filter((k) => k === 'addptr')).toHaveLength(3);
    const [pid] = opsOf(f, 'program_id');
    expect(pid!.attrs.axis).toBe(0);
    const [ar] = opsOf(f, 'arange');
    expect(ar!.attrs).toEqual({ start: 0, end: 256 });
    expect(ar!.results[0]!.type).toEqual({ elem: 'i32', shape: [256] });
    // the scalar (pid * BLOCK) is splatted before adding to the range
    expect(opsOf(f, 'splat').length).toBeGreaterThanOrEqual(1);
    const loads = opsOf(f, 'load');
    expect(loads[0]!.attrs).toMatchObject({ hasMask: true, hasOther: false });
    expect(loads[1]!.attrs).toMatchObject({ hasMask: true, hasOther: true });
    expect(loads[1]!.operands[2]!.type).toEqual({ elem: 'f32', shape: [256] });
    const [st] = opsOf(f, 'store');
    expect(st!.operands.map((o) => o.type)).toEqual([
      { elem: 'ptr<f32>', shape: [256] }, { elem: 'f32', shape: [256] }, { elem: 'bool', shape: [256] },
    ]);
    const [cmp] = opsOf(f, 'cmp');
    expect(cmp!.attrs.pred).toBe('lt');
  });

  it('produces SSA: every operand is defined before use', () => {
    const f = add.trace({ BLOCK: 128 });
    const defined = new Set(f.body.args.map((a) => a.id));
    for (const op of allOps(f.body)) {
      for (const o of op.operands) expect(defined.has(o.id)).toBe(true);
      for (const r of op.results) defined.add(r.id);
    }
  });

  it('attaches the user source location to ops', () => {
    const f = add.trace({ BLOCK: 64 });
    const st = opsOf(f, 'store')[0]!;
    expect(st.loc?.file).toMatch(/kernel\.test\.ts$/);
    expect(st.loc?.line).toBe(10);
    const ar = opsOf(f, 'arange')[0]!;
    expect(ar.loc?.line).toBe(8);
    expect(allOps(f.body).find((o) => o.kind === 'return')!.loc).toBeUndefined();
    for (const op of allOps(f.body).filter((o) => o.kind !== 'return')) {
      expect(op.loc?.file, op.kind).toMatch(/kernel\.test\.ts$/);
      expect([8, 9, 10]).toContain(op.loc?.line);
    }
  });

  it('retraces per constexpr value', () => {
    expect(opsOf(add.trace({ BLOCK: 32 }), 'arange')[0]!.attrs.end).toBe(32);
    expect(opsOf(add.trace({ BLOCK: 1024 }), 'arange')[0]!.attrs.end).toBe(1024);
  });

  it('supports templating through closures', () => {
    const factory = (name: string, fn: (a: import('../../src/lang/index.js').Tile) => import('../../src/lang/index.js').Tile) =>
      defineKernel({ name, params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', B: constexpr() } }, ({ x, out, n, B }) => {
        const offs = programId(0).mul(B).add(arange(0, B));
        const mask = offs.lt(n);
        store(out.add(offs), fn(load(x.add(offs), { mask })), { mask });
      });
    const fexp = factory('kexp', (v) => v.exp()).trace({ B: 16 });
    const frelu = factory('krelu', (v) => v.maximum(0)).trace({ B: 16 });
    expect(opsOf(fexp, 'unary').map((o) => o.attrs.fn)).toEqual(['exp']);
    expect(opsOf(frelu, 'binary').map((o) => o.attrs.fn)).toContain('max');
    expect(fexp.name).toBe('kexp');
  });

  it('applies specialization', () => {
    const k = defineKernel({ name: 's', params: { x: ptr('f32'), stride: 'i32' } }, ({ x, stride }) => {
      store(x.add(arange(0, 16).mul(stride)), 1);
    });
    const f = k.trace({}, { specialization: { stride: { equalsOne: true }, x: { divisibleBy16: true } } });
    expect(f.params.map((p) => p.name)).toEqual(['x', 'stride']);
    const strideId = f.body.args[1]!.id;
    expect(allOps(f.body).some((o) => o.operands.some((v) => v.id === strideId))).toBe(false);
    const one = opsOf(f, 'const').filter((c) => c.attrs.value === 1 && c.results[0]!.type.elem === 'i32' && c.results[0]!.type.shape.length === 0);
    expect(one.length).toBe(1);
    const plain = k.trace({});
    expect(allOps(plain.body).some((o) => o.operands.some((v) => v.id === plain.body.args[1]!.id))).toBe(true);
    expect(() => k.trace({}, { specialization: { x: { equalsOne: true } } })).toThrow(/integer parameter/);
    expect(() => k.trace({}, { specialization: { y: { equalsOne: true } } })).toThrow(/not a runtime parameter/);
    expect(() => k.trace({}, { specialization: { x: { aligned: true } as never } })).toThrow(/unknown specialization fact/);
  });
});

describe('defineKernel errors', () => {
  it('rejects bad specs', () => {
    const e = (fn: () => unknown) => { try { fn(); } catch (err) { return err as KernelError; } throw new Error('no error'); };
    const e1 = e(() => defineKernel({ name: 'k', params: { x: 'float32' as never } }, () => {}));
    expect(e1).toBeInstanceOf(TesseraError);
    expect(e1.code).toBe('E_ARG');
    expect(e1.message).toMatch(/kernel 'k'.*parameter 'x'.*float32/);
    expect(e1.message).toMatch(/kernel\.test\.ts:\d+:\d+/);
    expect(e(() => defineKernel({ name: 'bad name', params: {} }, () => {})).code).toBe('E_ARG');
    expect(e(() => ptr('f33' as never)).message).toMatch(/f33/);
    expect(e(() => defineKernel({ name: 'k', params: { x: { kind: 'nope' } as never } }, () => {})).message).toMatch(/invalid spec/);
  });

  it('rejects bad constexprs', () => {
    expect(() => add.trace({})).toThrow(/missing value for constexpr parameter 'BLOCK'/);
    expect(() => add.trace({ BLOCK: 16, n: 3 } as never)).toThrow(/'n' is not a constexpr/);
    expect(() => add.trace({ BLOCK: 16, FOO: 1 } as never)).toThrow(/unknown constexpr 'FOO'/);
    expect(() => add.trace({ BLOCK: [1] as never })).toThrow(/must be a number, boolean or string/);
  });

  it('rejects a kernel that returns a value', () => {
    const k = defineKernel({ name: 'r', params: {} }, () => 3 as unknown as void);
    expect(() => k.trace()).toThrow(/returns nothing/);
  });
});
