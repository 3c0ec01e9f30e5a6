import { describe, expect, it } from 'vitest';
import { ptrOf, tile } from '../../src/ir/types.js';
import { HostMemory, InterpretError, interpret } from '../../src/interpret/index.js';
import { K, LOC } from './build.js';

/** out[i] = x[i + shift] for i < 8 with mask (i + shift < n), other = -1. */
function shiftedCopy(shift: number, withOther: boolean, masked = true) {
  const k = new K();
  return k.b.func('shifted', [{ name: 'x', type: ptrOf('f32') }, { name: 'out', type: ptrOf('f32') }, { name: 'n', type: 'i32' }], {}, ([x, out, n]) => {
    const i = k.arange(8);
    const src = k.bin('add', i, k.c(shift, 'i32', [8]));
    const mask = k.cmp('lt', src, k.splat(n!, [8]));
    const v = k.load(k.addptr(k.splat(x!, [8]), src), masked ? mask : undefined, withOther ? k.c(-1, 'f32', [8]) : undefined);
    k.store(k.addptr(k.splat(out!, [8]), i), v);
  });
}

describe('load/store masks', () => {
  it('masked lanes are not address-checked and read `other` (0 when absent)', () => {
    for (const [withOther, fill] of [[true, -1], [false, 0]] as const) {
      const mem = new HostMemory();
      const x = mem.upload(Float32Array.from([10, 11, 12, 13, 14]));
      const out = mem.upload(new Float32Array(8).fill(99));
      // shift 1000: lanes 0..7 point far outside the 5-element buffer, but all are masked off.
      interpret(shiftedCopy(3, withOther), [x, out, 5], mem, { grid: [1] });
      const got = new Float32Array(8);
      mem.download(out, got);
      expect(Array.from(got)).toEqual([13, 14, fill, fill, fill, fill, fill, fill]);
      interpret(shiftedCopy(1000, withOther), [x, out, 5], mem, { grid: [1] });
      mem.download(out, got);
      expect(Array.from(got)).toEqual(new Array(8).fill(fill));
    }
  });
  it('masked-off store lanes leave memory untouched', () => {
    const k = new K();
    const f = k.b.func('mstore', [{ name: 'out', type: ptrOf('i32') }], {}, ([out]) => {
      const i = k.arange(8);
      const even = k.cmp('eq', k.bin('rem', i, k.c(2, 'i32', [8])), k.c(0, 'i32', [8]));
      k.store(k.addptr(k.splat(out!, [8]), i), k.bin('mul', i, k.c(10, 'i32', [8])), even);
    });
    const mem = new HostMemory();
    const out = mem.upload(new Int32Array(8).fill(-5));
    interpret(f, [out], mem, { grid: [1] });
    const got = new Int32Array(8);
    mem.download(out, got);
    expect(Array.from(got)).toEqual([0, -5, 20, -5, 40, -5, 60, -5]);
  });
});

describe('memory errors', () => {
  it('an unmasked out-of-bounds load throws E_OOB naming kernel, loc, program, lane, address and buffer', () => {
    const mem = new HostMemory();
    const x = mem.upload(new Float32Array(5));
    const out = mem.upload(new Float32Array(8));
    let err: unknown;
    try {
      interpret(shiftedCopy(0, false, false), [x, out, 5], mem, { grid: [1] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InterpretError);
    const e = err as InterpretError;
    expect(e.code).toBe('E_OOB');
    expect(e.lane).toBe(5);
    expect(e.pid).toEqual([0, 0, 0]);
    expect(e.address).toBe(x + 20);
    expect(e.message).toContain("kernel 'shifted'");
    expect(e.message).toContain(`${LOC.file}:${LOC.line}:${LOC.col}`);
    expect(e.message).toContain('lane 5');
    expect(e.message).toContain(`0x${(x + 20).toString(16)}`);
    expect(e.message).toContain(`nearest buffer: 0x${x.toString(16)}`);
  });
  it('use of a freed buffer and misaligned pointers are E_OOB too', () => {
    const mem = new HostMemory();
    const x = mem.upload(new Float32Array(8));
    const out = mem.upload(new Float32Array(8));
    mem.free(x);
    expect(() => interpret(shiftedCopy(0, false), [x, out, 8], mem, { grid: [1] })).toThrow(/freed/);
    const y = mem.upload(new Float32Array(16));
    expect(() => interpret(shiftedCopy(0, false), [y + 2, out, 8], mem, { grid: [1] })).toThrow(/misaligned/);
  });
  it('a failing store writes none of its lanes', () => {
    const k = new K();
    const f = k.b.func('partial', [{ name: 'out', type: ptrOf('i32') }], {}, ([out]) => {
      const i = k.arange(8);
      k.store(k.addptr(k.splat(out!, [8]), i), k.c(7, 'i32', [8]));
    });
    const mem = new HostMemory();
    const out = mem.upload(new Int32Array(4)); // lanes 4..7 are out of bounds
    expect(() => interpret(f, [out], mem, { grid: [1] })).toThrow(InterpretError);
    const got = new Int32Array(4);
    mem.download(out, got);
    expect(Array.from(got)).toEqual([0, 0, 0, 0]);
  });
  it('bad launch arguments are rejected before running', () => {
    const mem = new HostMemory();
    const f = shiftedCopy(0, false);
    expect(() => interpret(f, [1, 2], mem, { grid: [1] })).toThrow(/expects 3 arguments/);
    expect(() => interpret(f, [1, 2, 1.5], mem, { grid: [1] })).toThrow(/parameter 'n'/);
    expect(() => interpret(f, [1, 2, 3], mem, { grid: [0] })).toThrow(/grid/);
  });
});

describe('atomics run lane by lane, programs in grid order', () => {
  it('atomic add on one counter returns the running total as old values', () => {
    const k = new K();
    const f = k.b.func('counter', [{ name: 'ctr', type: ptrOf('i32') }, { name: 'olds', type: ptrOf('i32') }], {}, ([ctr, olds]) => {
      const i = k.arange(4);
      const pid = k.pid();
      const val = k.bin('add', k.bin('mul', k.splat(pid, [4]), k.c(4, 'i32', [4])), i); // pid*4 + lane
      const old = k.b.op('atomic_rmw', [k.splat(ctr!, [4]), k.c(1, 'i32', [4])], [tile('i32', [4])], { op: 'add', sem: 'acq_rel', scope: 'gpu', hasMask: false }).results[0]!;
      k.store(k.addptr(k.splat(olds!, [4]), val), old);
    });
    const mem = new HostMemory();
    const ctr = mem.upload(new Int32Array(1));
    const olds = mem.upload(new Int32Array(12));
    interpret(f, [ctr, olds], mem, { grid: [3] });
    const got = new Int32Array(12);
    mem.download(olds, got);
    expect(Array.from(got)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    const c = new Int32Array(1);
    mem.download(ctr, c);
    expect(c[0]).toBe(12);
  });
  it('max/min/xchg/cas and masked atomics; f32 add rounds', () => {
    const k = new K();
    const f = k.b.func('atoms', [{ name: 'p', type: ptrOf('i32') }, { name: 'q', type: ptrOf('f32') }, { name: 'o', type: ptrOf('i32') }], {}, ([p, q, o]) => {
      const pid = k.pid();
      const ptr = k.addptr(p!, k.c(0, 'i32'));
      const rmw = (op: string, v: number, at: number) => k.b.op('atomic_rmw', [k.addptr(p!, k.c(at, 'i32')), k.bin('mul', pid, k.c(v, 'i32'))], [tile('i32')], { op: op as 'max', sem: 'relaxed', scope: 'gpu', hasMask: false }).results[0]!;
      void ptr;
      rmw('max', 3, 0);
      rmw('min', -2, 1);
      const old = rmw('xchg', 1, 2);
      k.store(k.addptr(o!, pid), old);
      // cas: slot 3 becomes pid+1 only when it holds pid (so each program succeeds in order).
      k.b.op('atomic_cas', [k.addptr(p!, k.c(3, 'i32')), pid, k.bin('add', pid, k.c(1, 'i32'))], [tile('i32')], { sem: 'acq_rel', scope: 'gpu' });
      // masked: only program 1 adds.
      const m = k.cmp('eq', pid, k.c(1, 'i32'));
      k.b.op('atomic_rmw', [k.addptr(p!, k.c(4, 'i32')), k.c(100, 'i32'), m], [tile('i32')], { op: 'add', sem: 'relaxed', scope: 'gpu', hasMask: true });
      k.b.op('atomic_rmw', [q!, k.c(2 ** -24, 'f32')], [tile('f32')], { op: 'add', sem: 'relaxed', scope: 'gpu', hasMask: false });
    });
    const mem = new HostMemory();
    const p = mem.upload(Int32Array.from([0, 0, -1, 0, 0]));
    const q = mem.upload(Float32Array.from([1]));
    const o = mem.upload(new Int32Array(4));
    interpret(f, [p, q, o], mem, { grid: [4] });
    const got = new Int32Array(5);
    mem.download(p, got);
    expect(Array.from(got)).toEqual([9, -6, 3, 4, 100]);
    const olds = new Int32Array(4);
    mem.download(o, olds);
    expect(Array.from(olds)).toEqual([-1, 0, 1, 2]);
    const qq = new Float32Array(1);
    mem.download(q, qq);
    expect(qq[0]).toBe(1); // 1 + 2^-24 rounds back to 1 at every step (ties to even)
  });
});
