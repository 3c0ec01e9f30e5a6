import { describe, expect, it } from 'vitest';
import type { BinaryFn, Block, Func, Value } from '../../src/ir/ops.js';
import { ptrOf, tile, type DType } from '../../src/ir/types.js';
import { HostMemory, interpret } from '../../src/interpret/index.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { exactFmaF32 } from './exact.js';
import { K, rng } from './build.js';

/** Loads an [R, C] row-major tile of `dt` from x (offsets r*C + c). */
function load2d(k: K, x: Value, R: number, C: number): Value {
  return k.load(k.addptr(k.splat(x, [R, C]), offsets2d(k, R, C)));
}
function offsets2d(k: K, R: number, C: number): Value {
  const rows = k.one('expand_dims', [k.arange(R)], tile('i32', [R, 1]), { axis: 1 });
  const cols = k.one('expand_dims', [k.arange(C)], tile('i32', [1, C]), { axis: 0 });
  const r = k.one('broadcast', [k.bin('mul', rows, k.c(C, 'i32', [R, 1]))], tile('i32', [R, C]), { shape: [R, C] });
  const c = k.one('broadcast', [cols], tile('i32', [R, C]), { shape: [R, C] });
  return k.bin('add', r, c);
}
/** A combine region (a, b) -> fn(a, b) on scalars of dt. */
function binRegion(k: K, dt: DType, fn: BinaryFn): Block {
  return k.b.region([tile(dt), tile(dt)], ([a, b]) => {
    k.b.op('yield', [k.bin(fn, a!, b!)], [], {});
  });
}

function run(f: Func, inputs: ArrayBufferView[], out: ArrayBufferView): void {
  const mem = new HostMemory();
  const addrs = inputs.map((a) => mem.upload(a));
  const o = mem.upload(out);
  interpret(f, [...addrs, o], mem, { grid: [1] });
  mem.download(o, out);
}

/** Reference of the documented order: halving tree v[i] = f(v[i], v[i + h]). */
function tree(xs: number[], f: (a: number, b: number) => number): number {
  const v = xs.slice();
  for (let h = v.length / 2; h >= 1; h /= 2) for (let i = 0; i < h; i++) v[i] = f(v[i]!, v[i + h]!);
  return v[0]!;
}

describe('reduce', () => {
  const R = 8, C = 32;
  const r = rng(21);
  const data = Float32Array.from({ length: R * C }, () => (r() - 0.5) * 1000);
  for (const axis of [0, 1]) {
    it(`f32 sum along axis ${axis} uses the halving tree order`, () => {
      const k = new K();
      const outLen = axis === 1 ? R : C;
      const f = k.b.func('rsum', [{ name: 'x', type: ptrOf('f32') }, { name: 'o', type: ptrOf('f32') }], {}, ([x, o]) => {
        const t = load2d(k, x!, R, C);
        const s = k.b.op('reduce', [t], [tile('f32', [outLen])], { axis, kind: 'sum' }, [binRegion(k, 'f32', 'add')]).results[0]!;
        k.store(k.addptr(k.splat(o!, [outLen]), k.arange(outLen)), s);
      });
      const out = new Float32Array(outLen);
      run(f, [data], out);
      const want = Array.from({ length: outLen }, (_, j) => {
        const line = axis === 1 ? Array.from({ length: C }, (_, c) => data[j * C + c]!) : Array.from({ length: R }, (_, rr) => data[rr * C + j]!);
        return tree(line, (a, b) => Math.fround(a + b));
      });
      expect(Array.from(out)).toEqual(want);
    });
  }
  it('a region with non-lane-wise ops (an if) runs per element and gives the same max', () => {
    const k = new K();
    const f = k.b.func('rmax', [{ name: 'x', type: ptrOf('f32') }, { name: 'o', type: ptrOf('f32') }], {}, ([x, o]) => {
      const t = load2d(k, x!, R, C);
      const fast = k.b.op('reduce', [t], [tile('f32', [R])], { axis: 1, kind: 'max' }, [binRegion(k, 'f32', 'max')]).results[0]!;
      const slowRegion = k.b.region([tile('f32'), tile('f32')], ([a, b]) => {
        const gt = k.cmp('gt', b!, a!);
        const thenB = k.b.region([], () => { k.b.op('yield', [b!], [], {}); });
        const elseB = k.b.region([], () => { k.b.op('yield', [a!], [], {}); });
        const m = k.b.op('if', [gt], [tile('f32')], {}, [thenB, elseB]).results[0]!;
        k.b.op('yield', [m], [], {});
      });
      const slow = k.b.op('reduce', [t], [tile('f32', [R])], { axis: 1, kind: 'custom' }, [slowRegion]).results[0]!;
      k.store(k.addptr(k.splat(o!, [R]), k.arange(R)), fast);
      k.store(k.addptr(k.splat(o!, [R]), k.bin('add', k.arange(R), k.c(R, 'i32', [R]))), slow);
    });
    const out = new Float32Array(2 * R);
    run(f, [data], out);
    const want = Array.from({ length: R }, (_, j) => Math.max(...data.subarray(j * C, j * C + C)));
    expect(Array.from(out)).toEqual([...want, ...want]);
  });
  it('argmax with a two-operand combine region picks the first maximum', () => {
    const n = 16;
    const xs = Int32Array.from([3, 9, 1, 9, 4, 0, 9, 2, 5, 5, 8, 7, 6, 9, 1, 0]);
    const k = new K();
    const f = k.b.func('argmax', [{ name: 'x', type: ptrOf('i32') }, { name: 'o', type: ptrOf('i32') }], {}, ([x, o]) => {
      const v = k.load(k.addptr(k.splat(x!, [n]), k.arange(n)));
      const reg = k.b.region([tile('i32'), tile('i32'), tile('i32'), tile('i32')], ([av, ai, bv, bi]) => {
        const take = k.bin('or', k.cmp('gt', bv!, av!), k.bin('and', k.cmp('eq', bv!, av!), k.cmp('lt', bi!, ai!)));
        k.b.op('yield', [k.select(take, bv!, av!), k.select(take, bi!, ai!)], [], {});
      });
      const res = k.b.op('reduce', [v, k.arange(n)], [tile('i32'), tile('i32')], { axis: 0, kind: 'argmax' }, [reg]).results;
      k.store(o!, res[0]!);
      k.store(k.addptr(o!, k.c(1, 'i32')), res[1]!);
    });
    const out = new Int32Array(2);
    run(f, [xs], out);
    expect(Array.from(out)).toEqual([9, xs.indexOf(9)]);
  });
});

describe('scan', () => {
  for (const reverse of [false, true]) {
    it(`inclusive cumsum along axis 1, reverse=${reverse}, i32 wrapping`, () => {
      const R = 4, C = 16;
      const r = rng(5);
      const data = Int32Array.from({ length: R * C }, () => (r() * 2 ** 32) | 0);
      const k = new K();
      const f = k.b.func('cumsum', [{ name: 'x', type: ptrOf('i32') }, { name: 'o', type: ptrOf('i32') }], {}, ([x, o]) => {
        const t = load2d(k, x!, R, C);
        const s = k.b.op('scan', [t], [tile('i32', [R, C])], { axis: 1, reverse, kind: 'sum' }, [binRegion(k, 'i32', 'add')]).results[0]!;
        k.store(k.addptr(k.splat(o!, [R, C]), offsets2d(k, R, C)), s);
      });
      const out = new Int32Array(R * C);
      run(f, [data], out);
      const want = new Int32Array(R * C);
      for (let row = 0; row < R; row++) {
        let acc = 0;
        for (let s = 0; s < C; s++) {
          const c = reverse ? C - 1 - s : s;
          acc = (acc + data[row * C + c]!) | 0;
          want[row * C + c] = acc;
        }
      }
      expect(Array.from(out)).toEqual(Array.from(want));
    });
  }
});

describe('dot', () => {
  function dotKernel(inT: DType, accT: DType, M: number, Kd: number, N: number): Func {
    const k = new K();
    return k.b.func('dot', [{ name: 'a', type: ptrOf(inT) }, { name: 'b', type: ptrOf(inT) }, { name: 'c', type: ptrOf(accT) }, { name: 'o', type: ptrOf(accT) }], {}, ([a, b, c, o]) => {
      const A = load2d(k, a!, M, Kd);
      const B = load2d(k, b!, Kd, N);
      const Cc = load2d(k, c!, M, N);
      const D = k.b.op('dot', [A, B, Cc], [tile(accT, [M, N])], { inputPrecision: 'ieee' }).results[0]!;
      k.store(k.addptr(k.splat(o!, [M, N]), offsets2d(k, M, N)), D);
    });
  }
  const M = 8, Kd = 16, N = 4;
  it('f32: one fused multiply-add per k, in order, rounded to f32', () => {
    const r = rng(8);
    const rand = (n: number) => Float32Array.from({ length: n }, () => (r() - 0.5) * 10);
    const a = rand(M * Kd), b = rand(Kd * N), c = rand(M * N);
    const out = new Float32Array(M * N);
    const mem = new HostMemory();
    const args = [a, b, c, out].map((x) => mem.upload(x));
    interpret(dotKernel('f32', 'f32', M, Kd, N), args, mem, { grid: [1] });
    mem.download(args[3]!, out);
    const want = Array.from({ length: M * N }, (_, i) => {
      const m = Math.floor(i / N), n = i % N;
      let s = c[i]!;
      for (let kk = 0; kk < Kd; kk++) s = exactFmaF32(a[m * Kd + kk]!, b[kk * N + n]!, s);
      return s;
    });
    expect(Array.from(out)).toEqual(want);
  });
  it('f16 inputs, f32 accumulator: exact products', () => {
    const r = rng(4);
    const a = f16Array(Array.from({ length: M * Kd }, () => (r() - 0.5) * 4));
    const b = f16Array(Array.from({ length: Kd * N }, () => (r() - 0.5) * 4));
    const c = new Float32Array(M * N);
    const out = new Float32Array(M * N);
    const mem = new HostMemory();
    const args = [a, b, c, out].map((x) => mem.upload(x));
    interpret(dotKernel('f16', 'f32', M, Kd, N), args, mem, { grid: [1] });
    mem.download(args[3]!, out);
    const av = f16ToFloat32(a), bv = f16ToFloat32(b);
    const want = Array.from({ length: M * N }, (_, i) => {
      const m = Math.floor(i / N), n = i % N;
      let s = 0;
      for (let kk = 0; kk < Kd; kk++) s = exactFmaF32(av[m * Kd + kk]!, bv[kk * N + n]!, s);
      return s;
    });
    expect(Array.from(out)).toEqual(want);
  });
  it('i8 inputs, i32 accumulator', () => {
    const r = rng(6);
    const a = Int8Array.from({ length: M * Kd }, () => Math.floor(r() * 256) - 128);
    const b = Int8Array.from({ length: Kd * N }, () => Math.floor(r() * 256) - 128);
    const c = Int32Array.from({ length: M * N }, (_, i) => i);
    const out = new Int32Array(M * N);
    const mem = new HostMemory();
    const args = [a, b, c, out].map((x) => mem.upload(x));
    interpret(dotKernel('i8', 'i32', M, Kd, N), args, mem, { grid: [1] });
    mem.download(args[3]!, out);
    const want = Array.from({ length: M * N }, (_, i) => {
      const m = Math.floor(i / N), n = i % N;
      let s = c[i]!;
      for (let kk = 0; kk < Kd; kk++) s += a[m * Kd + kk]! * b[kk * N + n]!;
      return s;
    });
    expect(Array.from(out)).toEqual(want);
  });
});

describe('fma', () => {
  it('f32 fma rounds once (matches an exact BigInt reference)', () => {
    const r = rng(12);
    const n = 2000;
    const a = Float32Array.from({ length: n }, () => (r() - 0.5) * 8);
    const b = Float32Array.from({ length: n }, () => (r() - 0.5) * 8);
    const c = Float32Array.from({ length: n }, (_, i) => -Math.fround(a[i]! * b[i]!) * (1 + (r() - 0.5) * 1e-6));
    const k = new K();
    const f = k.b.func('fma', [{ name: 'a', type: ptrOf('f32') }, { name: 'b', type: ptrOf('f32') }, { name: 'c', type: ptrOf('f32') }, { name: 'o', type: ptrOf('f32') }], {}, ([pa, pb, pc, po]) => {
      const offs = k.bin('add', k.splat(k.bin('mul', k.pid(), k.c(256, 'i32')), [256]), k.arange(256));
      const ld = (p: Value) => k.load(k.addptr(k.splat(p, [256]), offs), k.cmp('lt', offs, k.c(n, 'i32', [256])));
      const v = k.one('fma', [ld(pa!), ld(pb!), ld(pc!)], tile('f32', [256]), {});
      k.store(k.addptr(k.splat(po!, [256]), offs), v, k.cmp('lt', offs, k.c(n, 'i32', [256])));
    });
    const out = new Float32Array(n);
    const mem = new HostMemory();
    const args = [a, b, c, out].map((x) => mem.upload(x));
    interpret(f, args, mem, { grid: [Math.ceil(n / 256)] });
    mem.download(args[3]!, out);
    const want = Array.from(a, (x, i) => exactFmaF32(x, b[i]!, c[i]!));
    expect(Array.from(out)).toEqual(want);
    // The cancellation-heavy inputs make a separately rounded a*b + c differ somewhere.
    expect(want.some((w, i) => w !== Math.fround(Math.fround(a[i]! * b[i]!) + c[i]!))).toBe(true);
  });
});
