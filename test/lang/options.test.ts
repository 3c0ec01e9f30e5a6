// Option objects: every name an op does not know is an error naming the option and the op; and
// `x.to(dtype, { rounding })`, the one option a float downcast takes (Triton's fp_downcast_rounding).
import { describe, expect, it } from 'vitest';
import { arange, defineKernel, devicePrint, KernelError, load, ptr, reshape, store } from '../../src/lang/index.js';
import { f16Value } from '../../src/ir/half.js';
import { opsOf, traceBody } from './helpers.js';
import { runKernel } from './run.js';

function err(fn: () => unknown): KernelError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(KernelError);
    return e as KernelError;
  }
  throw new Error('expected an error');
}

describe('unknown option names are errors naming the option and the op', () => {
  const cases: [string, Parameters<typeof traceBody>[0], string, RegExp][] = [
    ['to', ({ xf }) => load(xf.add(arange(0, 16))).to('f16', { roundng: 'rtz' } as never), 'to', /to: unknown option 'roundng' \(to takes: bitcast, rounding\)/],
    ['to (bitcast)', ({ xf }) => load(xf.add(arange(0, 16))).to('i32', { bitcast: true, sat: true } as never), 'bitcast', /unknown option 'sat'/],
    ['reshape', ({ xf }) => reshape(load(xf.add(arange(0, 16))), [4, 4], { canReorder: false, order: 1 } as never), 'reshape', /reshape: unknown option 'order' \(reshape takes: canReorder\)/],
    ['devicePrint', ({ xf }) => devicePrint('x', load(xf.add(arange(0, 16))), { hexa: true } as never), 'devicePrint', /devicePrint: unknown option 'hexa' \(devicePrint takes: hex\)/],
  ];
  it.each(cases)('%s', (_, body, op, re) => {
    const e = err(() => traceBody(body, 'bad'));
    expect(e.code).toBe('E_ARG');
    expect(e.op).toBe(op);
    expect(e.detail).toMatch(re);
  });
  it('a non-object option argument is an error', () => {
    expect(err(() => traceBody(({ xf }) => load(xf.add(arange(0, 16))).to('f16', 'rtz' as never))).detail).toMatch(/to: options must be an object, got/);
  });
  it('defineKernel refuses spec fields it does not know', () => {
    const e = err(() => defineKernel({ name: 'k', params: { x: ptr('f32') }, numWarps: 4 } as never, () => {}));
    expect(e.detail).toMatch(/defineKernel: unknown spec field 'numWarps' \(defineKernel takes: name, params, doNotSpecialize\)/);
  });
  it('devicePrint with { hex: true } still prints in hex', () => {
    const f = traceBody(({ xi }) => devicePrint('x', load(xi.add(arange(0, 4))), { hex: true }));
    expect(opsOf(f, 'print')[0]!.attrs.hex).toBe(true);
  });
});

describe("x.to(dtype, { rounding: 'rtne' | 'rtz' })", () => {
  it("'rtz' becomes the cast's rounding; 'rtne' (the default) is a plain cast", () => {
    const f = traceBody(({ xf, xh }) => {
      const x = load(xf.add(arange(0, 16)));
      store(xh.add(arange(0, 16)), x.to('f16', { rounding: 'rtz' }).add(x.to('f16', { rounding: 'rtne' })));
    });
    const casts = opsOf(f, 'cast');
    expect(casts.map((c) => c.attrs.rounding)).toEqual(['rtz', undefined]);
  });
  it.each([
    ['an int cast', ({ xf }) => load(xf.add(arange(0, 16))).to('i32', { rounding: 'rtz' }), /only for float downcasts.*not f32 -> i32/],
    ['a widening', ({ xh }) => load(xh.add(arange(0, 16))).to('f32', { rounding: 'rtz' }), /not f16 -> f32/],
    ['an fp8 target', ({ xf }) => load(xf.add(arange(0, 16))).to('f8e4m3', { rounding: 'rtz' }), /fp8 excepted.*f32 -> f8e4m3/],
  ] as [string, Parameters<typeof traceBody>[0], RegExp][])('is refused on %s', (_, body, re) => {
    const e = err(() => traceBody(body));
    expect(e.code).toBe('E_TYPE');
    expect(e.detail).toMatch(re);
  });
  it('an unknown rounding or one with bitcast is refused', () => {
    expect(err(() => traceBody(({ xf }) => load(xf.add(arange(0, 16))).to('f16', { rounding: 'rtn' as never }))).detail).toMatch(/rounding must be 'rtne' or 'rtz', got/);
    expect(err(() => traceBody(({ xf }) => load(xf.add(arange(0, 16))).to('i32', { bitcast: true, rounding: 'rtz' }))).detail).toMatch(/not to a bitcast/);
  });
  it('f32 -> f16 toward zero on the interpreter: truncates, saturates to ±65504, keeps inf, NaN and the sign of zero', () => {
    const k = defineKernel({ name: 'rtz', params: { x: ptr('f32'), z: ptr('f16'), n: ptr('f16') } }, ({ x, z, n }) => {
      const o = arange(0, 8);
      const v = load(x.add(o));
      store(z.add(o), v.to('f16', { rounding: 'rtz' }));
      store(n.add(o), v.to('f16'));
    });
    const xs = Float32Array.from([1 + 2 ** -11 + 2 ** -20, -1.9999, 70000, -70000, -1e-9, Infinity, NaN, 3 * 2 ** -26]);
    const [, z, n] = runKernel(k, {}, [xs, new Uint16Array(8), new Uint16Array(8)], [1]) as [unknown, Uint16Array, Uint16Array];
    const val = (a: Uint16Array) => Array.from(a, f16Value);
    expect(val(z)).toEqual([1, -1.9990234375, 65504, -65504, -0, Infinity, NaN, 0]);
    expect(val(n)).toEqual([1 + 2 ** -10, -2, Infinity, -Infinity, -0, Infinity, NaN, 2 ** -24]);
  });
});
