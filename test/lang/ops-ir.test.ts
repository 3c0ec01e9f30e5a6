// Every op traced to IR: op kinds, result types, and the IR verifier's approval.
import { describe, expect, it } from 'vitest';
import { verify } from '../../src/ir/verify.js';
import { printFunc } from '../../src/ir/print.js';
import * as L from '../../src/lang/index.js';
import { arange, load, store, programId, full, zeros } from '../../src/lang/index.js';
import { kinds, opsOf, traceBody } from './helpers.js';

const ok = (f: import('../../src/ir/ops.js').Func) => {
  verify(f);
  expect(printFunc(f).length).toBeGreaterThan(0);
  return f;
};

describe('elementwise', () => {
  it('arithmetic, comparisons, bitwise, math', () => {
    let types: Record<string, unknown> = {};
    const f = ok(traceBody(({ xf, xi, xh, n }) => {
      const o = arange(0, 64);
      const a = load(xf.add(o)), i = load(xi.add(o)), h = load(xh.add(o));
      const r = {
        add: a.add(i), sub: a.sub(1), mul: i.mul(3), div: i.div(2), fdiv: i.floordiv(n), rem: i.rem(5),
        hdiv: h.div(h), hmul: h.mul(2.5), lt: a.lt(0.5), and: i.and(255), shl: i.shl(2), shr: i.shr(n),
        not: i.not(), lnot: i.lt(0).logicalNot(), land: L.logicalAnd(i, a), neg: a.neg(), abs: i.abs(),
        exp: a.exp(), sig: h.sigmoid(), pow: a.pow(2), mn: L.minimum(a, i), mx: a.maximum(h), cl: a.clamp(0, 1),
        where: L.where(i.gt(0), a, 0), fma: L.fma(a, a, 1), sqrtRn: L.sqrtRn(a), divRn: L.divRn(a, 3),
        cd: i.cdiv(16),
      };
      types = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, `${v.dtype}[${v.shape.join('x')}]`]));
      store(xf.add(o), r.add.add(r.exp));
    }));
    expect(types).toEqual({
      add: 'f32[64]', sub: 'f32[64]', mul: 'i32[64]', div: 'f32[64]', fdiv: 'i32[64]', rem: 'i32[64]',
      hdiv: 'f32[64]', hmul: 'f16[64]', lt: 'bool[64]', and: 'i32[64]', shl: 'i32[64]', shr: 'i32[64]',
      not: 'i32[64]', lnot: 'bool[64]', land: 'bool[64]', neg: 'f32[64]', abs: 'i32[64]', exp: 'f32[64]',
      sig: 'f16[64]', pow: 'f32[64]', mn: 'f32[64]', mx: 'f32[64]', cl: 'f32[64]', where: 'f32[64]',
      fma: 'f32[64]', sqrtRn: 'f32[64]', divRn: 'f32[64]', cd: 'i32[64]',
    });
    expect(opsOf(f, 'unary').find((o) => o.attrs.fn === 'sqrt')!.attrs.precise).toBe(true);
    expect(opsOf(f, 'fma')).toHaveLength(1);
  });

  it('literal constants take the tile dtype and are splat constants', () => {
    const f = ok(traceBody(({ xh }) => {
      const o = arange(0, 16);
      store(xh.add(o), load(xh.add(o)).mul(3));
    }));
    const c = opsOf(f, 'const').find((c) => c.attrs.value === 3)!;
    expect(c.results[0]!.type).toEqual({ elem: 'f16', shape: [16] });
    expect(opsOf(f, 'cast')).toHaveLength(0);
  });

  it('numpy broadcasting uses expand_dims and broadcast', () => {
    let shape: readonly number[] = [];
    const f = ok(traceBody(({ xf }) => {
      const r = arange(0, 8).expandDims(1);      // [8,1]
      const c = arange(0, 16);                    // [16] -> [1,16]
      const p = xf.add(r.mul(16).add(c));         // [8,16]
      shape = p.shape;
      store(p, load(p).add(1));
    }));
    expect(shape).toEqual([8, 16]);
    expect(opsOf(f, 'broadcast').map((o) => o.attrs.shape)).toContainEqual([8, 16]);
    expect(kinds(f)).toContain('expand_dims');
  });

  it('casts and bitcasts', () => {
    const f = ok(traceBody(({ xf, xi, xh, xb, xu8 }) => {
      const o = arange(0, 16);
      const a = load(xf.add(o));
      store(xh.add(o), a.to('f16'));
      store(xi.add(o), a.bitcast('i32'));
      store(xb.add(o), a.to('bool'));
      store(xu8.add(o), a.to('u8'));
      store(xf.add(o), a.to('f32'));
    }));
    expect(opsOf(f, 'cast').map((o) => o.attrs.to)).toEqual(['f16', 'u8']);
    expect(opsOf(f, 'bitcast').map((o) => o.attrs.to)).toEqual(['i32']);
    expect(opsOf(f, 'cmp').map((o) => o.attrs.pred)).toEqual(['ne']);
  });
});

describe('creation and shapes', () => {
  it('programId, numPrograms, full, zeros', () => {
    const f = ok(traceBody(({ xf, xi }) => {
      const pid = programId(1).add(L.numPrograms(2));
      store(xi.add(pid), pid);
      store(xf.add(arange(0, 4)), full([4], 2.5).add(zeros([4])));
      store(xi.add(arange(0, 4)), full([4], 7, 'i32'));
    }));
    expect(opsOf(f, 'program_id')[0]!.attrs.axis).toBe(1);
    expect(opsOf(f, 'num_programs')[0]!.attrs.axis).toBe(2);
    expect(opsOf(f, 'const').some((c) => c.attrs.value === 2.5 && c.results[0]!.type.elem === 'f32')).toBe(true);
  });

  it('reshape, view, trans, broadcastTo, join, split', () => {
    const shapes: Record<string, readonly number[]> = {};
    const f = ok(traceBody(({ xf }) => {
      const a = arange(0, 32);
      const r = a.reshape([4, 8]);
      const v = a.view([8, -1]);
      const t = r.trans();
      const b = L.expandDims(a, [0, 2]);
      const bc = arange(0, 8).expandDims(0).broadcastTo([4, 8]);
      const j = L.join(r, r.mul(2));
      const [lo, hi] = j.split();
      Object.assign(shapes, { r: r.shape, v: v.shape, t: t.shape, b: b.shape, bc: bc.shape, j: j.shape, lo: lo.shape, p: L.permute(j, 2, 0, 1).shape });
      store(xf.add(lo.add(hi).reshape([32])), 1);
    }));
    expect(shapes).toEqual({ r: [4, 8], v: [8, 4], t: [8, 4], b: [1, 32, 1], bc: [4, 8], j: [4, 8, 2], lo: [4, 8], p: [2, 4, 8] });
    expect(opsOf(f, 'reshape').find((o) => o.attrs.allowReorder)!.attrs.shape).toEqual([8, 4]);
    expect(opsOf(f, 'trans')[0]!.attrs.perm).toEqual([1, 0]);
  });
});

describe('reductions and scans', () => {
  it('builtin reductions build a combiner region', () => {
    const out: Record<string, string> = {};
    const f = ok(traceBody(({ xf, xi, xb }) => {
      const x = load(xf.add(arange(0, 32).reshape([4, 8])));
      const s = x.sum(1), m = x.max(0, { keepDims: true }), mn = L.min(x), am = x.argmax(1), ami = L.argmin(x, 0);
      const bsum = load(xb.add(arange(0, 8))).sum(0);
      const all = x.sum(undefined, { keepDims: true });
      Object.assign(out, Object.fromEntries(Object.entries({ s, m, mn, am, ami, bsum, all }).map(([k, v]) => [k, `${v.dtype}[${v.shape.join('x')}]`])));
      store(xi.add(arange(0, 4)), am);
      store(xf.add(arange(0, 4)), s);
    }));
    expect(out).toEqual({ s: 'f32[4]', m: 'f32[1x8]', mn: 'f32[]', am: 'i32[4]', ami: 'i32[8]', bsum: 'i32[]', all: 'f32[1x1]' });
    const reds = opsOf(f, 'reduce');
    expect(reds.map((r) => r.attrs.kind)).toEqual(['sum', 'max', 'min', 'argmax', 'argmin', 'sum', 'sum']);
    const sumRegion = reds[0]!.regions[0]!;
    expect(sumRegion.args.map((a) => a.type)).toEqual([{ elem: 'f32', shape: [] }, { elem: 'f32', shape: [] }]);
    expect(sumRegion.ops.map((o) => o.kind)).toEqual(['binary', 'yield']);
    expect(reds[3]!.operands).toHaveLength(2);
    expect(reds[3]!.results.map((r) => r.type.elem)).toEqual(['f32', 'i32']);
  });

  it('custom reduce and scans trace the user combine function', () => {
    const f = ok(traceBody(({ xf, xi }) => {
      const x = load(xf.add(arange(0, 16)));
      const i = load(xi.add(arange(0, 16)));
      const r = L.reduce(x, 0, (a, b) => a.mul(b));
      const [v, k] = L.reduce([x, i], 0, (a, ai, b, bi) => [a.add(b), ai.maximum(bi)]);
      const cs = L.cumsum(x, 0), cp = x.cumprod(0, { reverse: true });
      const as = L.associativeScan(i, 0, (a, b) => a.xor(b), { reverse: true });
      store(xf.add(arange(0, 16)), cs.add(cp).add(r).add(v!));
      store(xi.add(arange(0, 16)), as.add(k!));
    }));
    const reds = opsOf(f, 'reduce');
    expect(reds.map((r) => r.attrs.kind)).toEqual(['custom', 'custom']);
    expect(reds[1]!.regions[0]!.args).toHaveLength(4);
    const scans = opsOf(f, 'scan');
    expect(scans.map((s) => [s.attrs.kind, s.attrs.reverse])).toEqual([['sum', false], ['prod', true], ['custom', true]]);
  });
});

describe('dot, atomics, control flow, hints, debug', () => {
  it('dot promotes f16 inputs to an f32 accumulator', () => {
    let dt = '';
    const f = ok(traceBody(({ xh, xf }) => {
      const a = load(xh.add(arange(0, 256).reshape([16, 16])));
      const b = load(xh.add(arange(0, 512).reshape([16, 32])));
      const c = L.dot(a, b);
      const d = L.dot(a, b, { acc: c, inputPrecision: 'tf32' });
      dt = `${d.dtype}[${d.shape.join('x')}]`;
      store(xf.add(arange(0, 512).reshape([16, 32])), d);
    }));
    expect(dt).toBe('f32[16x32]');
    const dots = opsOf(f, 'dot');
    expect(dots[0]!.operands.map((o) => o.type.elem)).toEqual(['f16', 'f16', 'f32']);
    expect(dots[1]!.attrs.inputPrecision).toBe('tf32');
    expect(dots[0]!.attrs.inputPrecision).toBe('ieee'); // the default for non-f32 inputs
  });

  it("dot of f32 inputs defaults to inputPrecision 'tf32'; 'ieee' is kept when asked", () => {
    const f = ok(traceBody(({ xf }) => {
      const a = load(xf.add(arange(0, 256).reshape([16, 16])));
      const c = L.dot(a, a);
      store(xf.add(arange(0, 256).reshape([16, 16])), L.dot(a, a, { acc: c, inputPrecision: 'ieee' }));
    }));
    expect(opsOf(f, 'dot').map((d) => d.attrs.inputPrecision)).toEqual(['tf32', 'ieee']);
  });

  it('atomics', () => {
    const f = ok(traceBody(({ xf, xi }) => {
      const o = arange(0, 16);
      const m = o.lt(10);
      L.atomicAdd(xf.add(o), 1.5, { mask: m });
      L.atomicMax(xi.add(o), o, { sem: 'relaxed', scope: 'cta' });
      L.atomicMin(xi.add(o), 3); L.atomicAnd(xi.add(o), 3); L.atomicOr(xi.add(o), 3); L.atomicXor(xi.add(o), 3); L.atomicXchg(xi.add(o), 3);
      L.atomicAdd(xi, o);   // scalar pointer, tile of values
      L.atomicCas(xi.add(o), 0, 1, { sem: 'acquire' });
    }));
    const rmw = opsOf(f, 'atomic_rmw');
    expect(rmw.map((a) => a.attrs.op)).toEqual(['add', 'max', 'min', 'and', 'or', 'xor', 'xchg', 'add']);
    expect(rmw[0]!.attrs).toMatchObject({ hasMask: true, sem: 'acq_rel', scope: 'gpu' });
    expect(rmw[1]!.attrs).toMatchObject({ sem: 'relaxed', scope: 'cta' });
    expect(rmw[7]!.operands[0]!.type).toEqual({ elem: 'ptr<i32>', shape: [16] });
    expect(opsOf(f, 'atomic_cas')[0]!.attrs.sem).toBe('acquire');
  });

  it('forLoop carries tiles; ifThenElse yields values; static loops unroll', () => {
    let outType = '';
    const f = ok(traceBody(({ xf, n }) => {
      const o = arange(0, 16);
      const [acc, cnt] = L.forLoop(0, n, 1, [zeros([16]), 0], (k, acc, cnt) => [acc!.add(load(xf.add(o.add(k.mul(16))))), cnt!.add(1)]);
      const [r] = L.ifThenElse(cnt!.gt(3), () => [acc!.mul(2)], () => [acc!]);
      let s = r!;
      for (let j = 0; j < 3; j++) s = s.add(j);
      outType = `${s.dtype}[${s.shape.join('x')}]`;
      store(xf.add(o), s);
      L.ifThenElse(n.eq(0), () => { store(xf, 0); });
    }));
    expect(outType).toBe('f32[16]');
    const [loop] = opsOf(f, 'for');
    expect(loop!.operands.map((v) => v.type.elem)).toEqual(['i32', 'i32', 'i32', 'f32', 'i32']);
    expect(loop!.regions[0]!.args.map((a) => a.type)).toEqual([{ elem: 'i32', shape: [] }, { elem: 'f32', shape: [16] }, { elem: 'i32', shape: [] }]);
    const ifs = opsOf(f, 'if');
    expect(ifs).toHaveLength(2);
    expect(ifs[0]!.results[0]!.type).toEqual({ elem: 'f32', shape: [16] });
    expect(ifs[1]!.results).toHaveLength(0);
  });

  it('hints, devicePrint, deviceAssert', () => {
    const f = ok(traceBody(({ xf, n }) => {
      const o = arange(0, 16).multipleOf(16).maxContiguous(16);
      L.devicePrint('o=', o, n);
      L.devicePrint('hex', o, { hex: true });
      L.deviceAssert(o.lt(n), 'in range');
      L.deviceAssert(true);
      store(xf.add(o), 1);
    }));
    const h = opsOf(f, 'hint');
    expect(h.map((x) => x.attrs)).toEqual([{ multipleOf: [16] }, { maxContiguous: [16] }]);
    expect(opsOf(f, 'print').map((p) => [p.attrs.prefix, p.attrs.hex, p.operands.length])).toEqual([['o=', false, 2], ['hex', true, 1]]);
    expect(opsOf(f, 'assert')[0]!.attrs.message).toBe('in range');
    expect(() => traceBody(() => L.deviceAssert(false, 'never'))).toThrow(/static assertion failed: never/);
  });

  it('a hint on a scalar carries one value', () => {
    const f = ok(traceBody(({ xf, n }) => {
      store(xf.add(L.multipleOf(n, 8)), 1);
    }));
    expect(opsOf(f, 'hint').map((o) => o.attrs)).toEqual([{ multipleOf: [8] }]);
    expect(() => traceBody(({ n }) => L.multipleOf(n, [8, 8]))).toThrow(/needs 1 positive integer/);
    expect(() => traceBody(() => L.maxContiguous(arange(0, 8), 0))).toThrow(/positive integer/);
  });

  it('cdiv on JS numbers at trace time', () => {
    expect(L.cdiv(10, 4)).toBe(3);
    expect(L.cdiv(16, 4)).toBe(4);
    expect(() => L.cdiv(1.5, 2)).toThrow(L.KernelError);
  });
});
