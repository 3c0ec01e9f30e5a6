import { describe, expect, it } from 'vitest';
import { ptrOf, tile } from '../../src/ir/types.js';
import { HostMemory, InterpretError, interpret } from '../../src/interpret/index.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { K, LOC, ewKernel, runEw } from './build.js';

function runOut<T extends ArrayBufferView>(build: (k: K, o: ReturnType<K['pid']>) => void, out: T, elem: Parameters<typeof ptrOf>[0], grid = 1): T {
  const k = new K();
  const f = k.b.func('misc', [{ name: 'o', type: ptrOf(elem) }], {}, ([o]) => build(k, o!));
  const mem = new HostMemory();
  const addr = mem.upload(out);
  interpret(f, [addr], mem, { grid: [grid] });
  mem.download(addr, out);
  return out;
}

describe('misc ops', () => {
  it('arange with a start, hint passes values through', () => {
    const out = runOut((k, o) => {
      const r = k.arange(12, 4); // 4..11
      const h = k.one('hint', [r], r.type, { multipleOf: [4], maxContiguous: [8] });
      k.store(k.addptr(k.splat(o, [8]), k.bin('sub', h, k.c(4, 'i32', [8]))), h);
    }, new Int32Array(8), 'i32');
    expect(Array.from(out)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
  });
  it('a reduce over a non-power-of-two axis is a left fold', () => {
    // (x0 - x1) - x2: sub as the combiner shows the order.
    const out = runOut((k, o) => {
      const three = k.load(k.addptr(k.splat(o, [3]), k.arange(3)));
      const reg = k.b.region([tile('i32'), tile('i32')], ([a, b]) => { k.b.op('yield', [k.bin('sub', a!, b!)], [], {}); });
      const r = k.b.op('reduce', [three], [tile('i32')], { axis: 0, kind: 'custom' }, [reg]).results[0]!;
      k.store(k.addptr(o, k.c(3, 'i32')), r);
    }, Int32Array.from([100, 7, 5, 0]), 'i32');
    expect(out[3]).toBe(100 - 7 - 5);
  });
  it('atomic add on f16 rounds to f16 at each step', () => {
    const out = runOut((k, o) => {
      k.b.op('atomic_rmw', [o, k.c(1, 'f16')], [tile('f16')], { op: 'add', sem: 'relaxed', scope: 'gpu', hasMask: false });
    }, f16Array([2048]), 'f16', 3);
    expect(Array.from(f16ToFloat32(out))).toEqual([2048]); // 2048 + 1 ties to even 2048 every time
  });
  it('i64 unary ops, bool logic', () => {
    const a = BigInt64Array.from([-5n, 7n, -(1n << 63n)]);
    const neg = runEw(ewKernel(['i64'], 'i64', 4, (k, [x]) => k.un('neg', x!)), [a], new BigInt64Array(3), 4);
    expect(Array.from(neg)).toEqual([5n, -7n, -(1n << 63n)]);
    const abs = runEw(ewKernel(['i64'], 'i64', 4, (k, [x]) => k.un('abs', x!)), [a], new BigInt64Array(3), 4);
    expect(Array.from(abs)).toEqual([5n, 7n, -(1n << 63n)]);
    const p = Uint8Array.from([0, 1, 0, 1]), q = Uint8Array.from([0, 0, 1, 1]);
    expect(Array.from(runEw(ewKernel(['bool', 'bool'], 'bool', 4, (k, [x, y]) => k.bin('xor', x!, y!)), [p, q], new Uint8Array(4), 4))).toEqual([0, 1, 1, 0]);
    expect(Array.from(runEw(ewKernel(['bool'], 'bool', 4, (k, [x]) => k.un('not', x!)), [p], new Uint8Array(4), 4))).toEqual([1, 0, 1, 0]);
  });
  it('an op that cannot run on its types is refused before running, naming kernel, op and location', () => {
    const f = ewKernel(['i32'], 'i32', 4, (k, [x]) => k.un('exp', x!));
    let err: unknown;
    try {
      runEw(f, [new Int32Array(4)], new Int32Array(4), 4);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InterpretError);
    expect((err as InterpretError).code).toBe('E_INTERPRET');
    expect((err as Error).message).toMatch(/kernel 'ew': op 'unary': 'exp' is not defined on i32/);
    expect((err as Error).message).toContain(`${LOC.file}:${LOC.line}`);
  });
  it('f64 fma rounds once (exact BigInt path)', () => {
    const e = 2 ** -52;
    const a = Float64Array.from([1 + e, 3, 0.1]);
    const b = Float64Array.from([1 - e, 5, 10]);
    const c = Float64Array.from([-1, -15, -1]);
    const out = runEw(ewKernel(['f64', 'f64', 'f64'], 'f64', 4, (k, [x, y, z]) => k.one('fma', [x!, y!, z!], x!.type, {})), [a, b, c], new Float64Array(3), 4);
    // (1+e)(1-e) - 1 = -e^2 exactly (a separate multiply would round it to 0);
    // 0.1*10 - 1: the double 0.1 is 0.1000000000000000055511151231257827, so 5.551115123125783e-17.
    expect(Array.from(out)).toEqual([-(2 ** -104), 0, 5.551115123125783e-17]);
  });
});
