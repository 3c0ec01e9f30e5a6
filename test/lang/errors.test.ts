// Bad input: every error names the kernel, the op and the user's source line, with a stable code.
import { TesseraError } from '../../src/ir/index.js';
import { describe, expect, it } from 'vitest';
import * as L from '../../src/lang/index.js';
import { arange, defineKernel, KernelError, load, ptr, store, type Tile } from '../../src/lang/index.js';
import { traceBody } from './helpers.js';

function catchErr(fn: () => unknown): KernelError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TesseraError);
    expect(e).toBeInstanceOf(KernelError);
    return e as KernelError;
  }
  throw new Error('expected an error');
}

/** Traces `body` in kernel 'bad' and returns the error; checks kernel name and this file's line. */
function traceErr(body: Parameters<typeof traceBody>[0]): KernelError {
  const e = catchErr(() => traceBody(body, 'bad'));
  expect(e.kernel).toBe('bad');
  expect(e.message).toContain("kernel 'bad'");
  expect(e.loc?.file).toMatch(/errors\.test\.ts$/);
  expect(e.message).toMatch(/errors\.test\.ts:\d+:\d+\)$/);
  return e;
}

describe('trace errors', () => {
  it('storing the wrong dtype', () => {
    const e = traceErr(({ xh, xf }) => store(xh.add(arange(0, 16)), load(xf.add(arange(0, 16)))));
    expect(e.code).toBe('E_TYPE');
    expect(e.op).toBe('store');
    expect(e.detail).toMatch(/cannot store f32 values through ptr<f16>; cast first with \.to\('f16'\)/);
  });

  it('reports the exact source line of the failing op', () => {
    const line = Number(new Error().stack!.split('\n')[1]!.match(/:(\d+):\d+\)?$/)![1]) + 2;
    const e = catchErr(() => traceBody(({ xh }) => {
      store(xh.add(arange(0, 16)), 1.5);  // f16 literal is fine
      store(xh, arange(0, 16).add(0.5));    // f32 tile into ptr<f16>, and shape [16] into a scalar pointer
    }));
    expect(e.loc?.line).toBe(line + 1);
  });

  it('non power-of-two blocks', () => {
    expect(traceErr(() => arange(0, 100)).code).toBe('E_SHAPE');
    expect(traceErr(() => arange(0, 100)).detail).toMatch(/100 elements; the length must be a power of two/);
    expect(traceErr(() => L.full([3, 4], 0)).detail).toMatch(/power of two \(got 3\)/);
    expect(traceErr(() => arange(0, 16).reshape([2, 3])).code).toBe('E_SHAPE');
    expect(traceErr(() => arange(0, 16).reshape([4, 8])).detail).toMatch(/16 elements.*32 elements/);
  });

  it('broadcast mismatch', () => {
    const e = traceErr(() => arange(0, 16).add(arange(0, 32)));
    expect(e.code).toBe('E_SHAPE');
    expect(e.op).toBe('add');
    expect(e.detail).toMatch(/cannot broadcast shapes \[16\] and \[32\]/);
    expect(traceErr(() => arange(0, 16).broadcastTo([4, 8])).code).toBe('E_SHAPE');
    expect(traceErr(({ xf }) => store(xf.add(arange(0, 16)), arange(0, 32).to('f32'))).code).toBe('E_SHAPE');
    expect(traceErr(({ xf }) => load(xf.add(arange(0, 16)), { mask: arange(0, 8).lt(3) })).code).toBe('E_SHAPE');
  });

  it('dot shape and rank mismatch', () => {
    const e = traceErr(() => L.dot(L.zeros([16, 32]), L.zeros([16, 16])));
    expect(e.code).toBe('E_SHAPE');
    expect(e.op).toBe('dot');
    expect(e.detail).toMatch(/a is \[16, 32\] and b is \[16, 16\]/);
    expect(traceErr(() => L.dot(L.zeros([16]), L.zeros([16, 16]))).detail).toMatch(/2-D/);
    expect(traceErr(() => L.dot(L.zeros([16, 16]), L.zeros([16, 16]), { acc: L.zeros([16, 16], 'i32') })).code).toBe('E_TYPE');
  });

  it('tiles leaking from another trace', () => {
    let leaked: Tile | undefined;
    traceBody(() => { leaked = arange(0, 16); }, 'first');
    const e = traceErr(({ xf }) => store(xf.add(leaked!), 1));
    expect(e.code).toBe('E_TRACE');
    expect(e.detail).toMatch(/tile from another trace \(kernel 'first'\)/);
    // outside any trace
    const e2 = catchErr(() => leaked!.add(1));
    expect(e2.code).toBe('E_TRACE');
  });

  it('tiles leaking out of a loop body', () => {
    let inner: Tile | undefined;
    const e = traceErr(({ xf, n }) => {
      L.forLoop(0, n, 1, [], (i) => { inner = i.add(1); return []; });
      store(xf.add(inner!), 1);
    });
    expect(e.code).toBe('E_TRACE');
    expect(e.detail).toMatch(/inside a loop or if body/);
  });

  it('bad axes', () => {
    expect(traceErr(() => L.programId(3 as 0)).code).toBe('E_AXIS');
    expect(traceErr(() => L.numPrograms(-1 as 0)).detail).toMatch(/grid axis must be 0, 1 or 2/);
    const e = traceErr(() => L.zeros([4, 8]).sum(2));
    expect(e.code).toBe('E_AXIS');
    expect(e.detail).toMatch(/axis 2 is out of range for a tile of rank 2/);
    expect(traceErr(() => arange(0, 8).expandDims(3)).code).toBe('E_AXIS');
    expect(traceErr(() => L.zeros([4, 8]).trans(0, 0)).code).toBe('E_AXIS');
    expect(traceErr(() => L.cumsum(arange(0, 8), 1)).code).toBe('E_AXIS');
  });

  it('ops called outside a kernel', () => {
    for (const fn of [() => arange(0, 16), () => L.programId(0), () => L.zeros([4])]) {
      const e = catchErr(fn);
      expect(e.code).toBe('E_TRACE');
      expect(e.message).toMatch(/can only be called inside a kernel being traced/);
      expect(e.loc?.file).toMatch(/errors\.test\.ts$/);
    }
  });

  it('dtype rules', () => {
    expect(traceErr(() => arange(0, 16).exp()).detail).toMatch(/exp needs floating-point operands, got i32 \(cast with \.to\('f32'\) first\)/);
    expect(traceErr(() => L.zeros([16]).and(1)).code).toBe('E_TYPE');
    expect(traceErr(() => L.zeros([16]).floordiv(2)).code).toBe('E_TYPE');
    expect(traceErr(() => arange(0, 16).to('u32').rem(arange(0, 16))).detail).toMatch(/different signedness/);
    expect(traceErr(({ xf }) => xf.add(1.5)).detail).toMatch(/pointer offsets must be integers/);
    expect(traceErr(({ xf }) => load(xf.add(arange(0, 4)), { mask: arange(0, 4) })).detail).toMatch(/mask must be a bool tile/);
    expect(traceErr(({ xf }) => load(xf.add(arange(0, 4)), { other: 0 })).code).toBe('E_ARG');
    expect(traceErr(({ xf }) => load(xf.add(arange(0, 4)), { cache: 'xx' as never })).code).toBe('E_ARG');
    expect(traceErr(() => load(arange(0, 4) as never)).detail).toMatch(/needs a tile of pointers, got i32/);
    expect(traceErr(({ xu8 }) => store(xu8.add(arange(0, 4)), 300)).detail).toMatch(/300 does not fit in u8/);
    expect(traceErr(() => arange(0, 4).to('i8').add(1000)).code).toBe('E_TYPE');
    expect(traceErr(() => arange(0, 4).bitcast('f16')).detail).toMatch(/same bit width/);
    expect(traceErr(() => arange(0, 4).to('f33' as never)).code).toBe('E_TYPE');
    expect(traceErr(() => arange(0, 4).add('x' as never)).code).toBe('E_ARG');
    expect(traceErr(({ xb }) => L.atomicAdd(xb.add(arange(0, 4)), true)).code).toBe('E_TYPE');
  });

  it('control-flow type errors', () => {
    const e = traceErr(({ n }) => L.forLoop(0, n, 1, [L.zeros([16])], (_i, acc) => [acc!.to('f16')]));
    expect(e.code).toBe('E_TYPE');
    expect(e.detail).toMatch(/value 0 changes type from f32\[16\] to f16\[16\]/);
    expect(traceErr(({ n }) => L.forLoop(0, n, 1, [L.zeros([16])], () => [])).detail).toMatch(/must return 1 value/);
    expect(traceErr(({ n }) => L.forLoop(0.5, n, 1, [], () => [])).code).toBe('E_TYPE');
    expect(traceErr(({ n }) => L.ifThenElse(n.gt(0), () => [L.zeros([4])], () => [L.zeros([8])])).detail).toMatch(/else branch value 0 changes type/);
    expect(traceErr(({ n }) => L.ifThenElse(n, () => [])).detail).toMatch(/bool scalar condition/);
    expect(traceErr(() => L.reduce(arange(0, 8), 0, (a, b) => a.add(b).to('f32'))).detail).toMatch(/returned f32 at position 0; expected i32/);
  });

  it('JS operators on tiles', () => {
    const e = traceErr(() => (arange(0, 4) as unknown as number) + 1);
    expect(e.code).toBe('E_TRACE');
    expect(e.detail).toMatch(/JS operators .* do not work on tiles \(Tile<i32\[4\]>\)/);
    expect(traceErr(({ n }) => (n as unknown as number) < 3).code).toBe('E_TRACE');
    traceBody(() => { expect(`${arange(0, 4)}`).toBe('Tile<i32[4]>'); });
  });

  it('kernel name and op in errors raised deep inside nested helpers', () => {
    const k = defineKernel({ name: 'outer', params: { x: ptr('f32') } }, ({ x }) => {
      const helper = (v: Tile) => v.add(arange(0, 8));
      store(x.add(arange(0, 16)), helper(L.zeros([16])));
    });
    const e = catchErr(() => k.trace());
    expect(e.kernel).toBe('outer');
    expect(e.op).toBe('add');
  });
});
