// Loop options (Triton's tl.range keywords): forLoop(lb, ub, step, inits, body, opts) and
// range(lb, ub, inits, body, opts) record them on the `for` op; unknown names and wrong types are
// errors naming them; a loop's numStages overrides the kernel's in the pipeliner and the TMA ring;
// the interpreter computes the same result with or without them.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, defineKernel, dot, forLoop, KernelError, load, makeTensorDescriptor, programId, ptr, range, store, zeros } from '../../src/lang/index.js';
import { printFunc } from '../../src/ir/print.js';
import { compile } from '../../src/compile/compile.js';
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

const sumLoop = (opts?: object) => traceBody(({ xf, n }) => {
  const [acc] = forLoop(0, n, 1, [zeros([16], 'f32')], (i, acc) => [acc!.add(load(xf.add(arange(0, 16).add(i.mul(16)))))], opts as never);
  store(xf.add(arange(0, 16)), acc!);
});

describe('forLoop and range options', () => {
  it('are recorded on the loop op and printed', () => {
    const f = sumLoop({ numStages: 2, warpSpecialize: true, unroll: 4, flatten: true, disallowAccMultiBuffer: true });
    expect(opsOf(f, 'for')[0]!.attrs).toEqual({ numStages: 2, warpSpecialize: true, unroll: 4, flatten: true, disallowAccMultiBuffer: true });
    expect(printFunc(f)).toMatch(/for .*\{disallowAccMultiBuffer, flatten, numStages = 2, unroll = 4, warpSpecialize\}/);
  });
  it('no options: no attributes (existing kernels print and hash as before)', () => {
    expect(opsOf(sumLoop(), 'for')[0]!.attrs).toEqual({});
    expect(printFunc(sumLoop())).toBe(printFunc(sumLoop({})));
  });
  it('range passes them on', () => {
    const f = traceBody(({ xf, n }) => {
      const [acc] = range(0, n, [zeros([16], 'f32')], (i, acc) => [acc!.add(i.to('f32'))], { numStages: 4 });
      store(xf.add(arange(0, 16)), acc!);
    });
    expect(opsOf(f, 'for')[0]!.attrs).toEqual({ numStages: 4 });
  });
  const bad: [string, object, RegExp][] = [
    ['an unknown name', { num_stages: 2 }, /forLoop: unknown option 'num_stages' \(forLoop takes: numStages, warpSpecialize, unroll, flatten, disallowAccMultiBuffer\)/],
    ['numStages 0', { numStages: 0 }, /forLoop: option 'numStages' must be an integer in 1\.\.8, got 0/],
    ['numStages 2.5', { numStages: 2.5 }, /option 'numStages' must be an integer/],
    ['numStages 9', { numStages: 9 }, /option 'numStages' must be an integer in 1\.\.8/],
    ['warpSpecialize 1', { warpSpecialize: 1 }, /forLoop: option 'warpSpecialize' must be a boolean/],
    ['unroll 0', { unroll: 0 }, /option 'unroll' must be an integer/],
    ['flatten "yes"', { flatten: 'yes' }, /option 'flatten' must be a boolean/],
  ];
  it.each(bad)('%s is an E_ARG naming it', (_, opts, re) => {
    const e = err(() => sumLoop(opts));
    expect(e.code).toBe('E_ARG');
    expect(e.detail).toMatch(re);
  });
  it('a non-object is refused', () => {
    expect(err(() => sumLoop(3 as never)).detail).toMatch(/forLoop: options must be an object/);
  });
  it('the interpreter ignores them: the same sums', () => {
    const def = defineKernel({ name: 'opt_sum', params: { x: ptr('f32'), y: ptr('f32'), n: 'i32', WS: constexpr() } }, ({ x, y, n, WS }) => {
      const opts = WS ? { numStages: 4, warpSpecialize: true, unroll: 2 } : undefined;
      const [acc] = forLoop(0, n, 1, [zeros([16], 'f32')], (i, acc) => [acc!.add(load(x.add(arange(0, 16).add(i.mul(16)))))], opts);
      store(y.add(arange(0, 16)), acc!);
    });
    const x = Float32Array.from({ length: 64 }, (_, i) => i * 0.5);
    const plain = runKernel(def, { WS: false }, [x, new Float32Array(16), 4], [1])[1] as Float32Array;
    const withOpts = runKernel(def, { WS: true }, [x, new Float32Array(16), 4], [1])[1] as Float32Array;
    expect(Array.from(withOpts)).toEqual(Array.from(plain));
    expect(plain[3]).toBe((3 + 19 + 35 + 51) * 0.5);
  });
});

// a pointer matmul (cp.async pipeline on sm_80) and a descriptor one (TMA ring on sm_90a)
const ptrMm = defineKernel({ name: 'opt_ptr_mm', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), S: constexpr() } }, ({ a, b, c, S }) => {
  const r = arange(0, 32);
  const K = 128;
  const [acc] = forLoop(0, K, 32, [zeros([32, 32], 'f32')], (k, acc) => {
    const ta = load(a.add(r.expandDims(1).mul(K)).add(r.expandDims(0).add(k)));
    const tb = load(b.add(r.expandDims(1).add(k).mul(32)).add(r.expandDims(0)));
    return [dot(ta, tb, { acc: acc! })];
  }, (S as number) ? { numStages: S as number } : undefined);
  store(c.add(r.expandDims(1).mul(32)).add(r.expandDims(0)), acc!);
});
const descMm = defineKernel({ name: 'opt_desc_mm', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', S: constexpr() } }, ({ a, b, c, M, N, K, S }) => {
  const da = makeTensorDescriptor(a, [M, K], [K, 1], [64, 32]);
  const db = makeTensorDescriptor(b, [K, N], [N, 1], [32, 64]);
  const om = programId(0).mul(64);
  const [acc] = forLoop(0, K, 32, [zeros([64, 64], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })], (S as number) ? { numStages: S as number } : undefined);
  makeTensorDescriptor(c, [M, N], [N, 1], [64, 64]).store([om, 0], acc!);
});
const ALIGNED = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true } };
const stageText = (r: ReturnType<typeof compile>, name: string): string => r.stages.find((s) => s.name === name)!.text;

describe("a loop's numStages overrides the kernel's", () => {
  it('cp.async pipeline (sm_80): kernel 1, loop 3 -> pipelined with 3 stages', () => {
    expect(stageText(compile(ptrMm, { target: 'sm_80', ptxas: false, specialization: ALIGNED, numStages: 1, constexprs: { S: 0 } }), 'pipeline')).not.toMatch(/stages, step/);
    expect(stageText(compile(ptrMm, { target: 'sm_80', ptxas: false, specialization: ALIGNED, numStages: 1, constexprs: { S: 3 } }), 'pipeline')).toMatch(/loop %\d+: 3 stages, step 32/);
  });
  it('cp.async pipeline (sm_80): kernel 3, loop 1 -> not pipelined', () => {
    expect(stageText(compile(ptrMm, { target: 'sm_80', ptxas: false, specialization: ALIGNED, numStages: 3, constexprs: { S: 0 } }), 'pipeline')).toMatch(/3 stages, step 32/);
    expect(stageText(compile(ptrMm, { target: 'sm_80', ptxas: false, specialization: ALIGNED, numStages: 3, constexprs: { S: 1 } }), 'pipeline')).not.toMatch(/stages, step/);
  });
  it('TMA ring (sm_90a): the loop asks for 4 stages, or 1 (none)', () => {
    expect(compile(descMm, { target: 'sm_90a', ptxas: false, numStages: 3, constexprs: { S: 0 } }).ptx).toContain('// TMA ring: 3 stages');
    expect(compile(descMm, { target: 'sm_90a', ptxas: false, numStages: 3, constexprs: { S: 4 } }).ptx).toContain('// TMA ring: 4 stages');
    expect(compile(descMm, { target: 'sm_90a', ptxas: false, numStages: 1, constexprs: { S: 2 } }).ptx).toContain('// TMA ring: 2 stages');
    expect(compile(descMm, { target: 'sm_90a', ptxas: false, numStages: 3, constexprs: { S: 1 } }).ptx).not.toContain('// TMA ring');
  });
});
