import { describe, expect, it } from 'vitest';
import type { Value } from '../../src/ir/ops.js';
import { ptrOf, tile } from '../../src/ir/types.js';
import { HostMemory, InterpretError, interpret } from '../../src/interpret/index.js';
import { K, LOC } from './build.js';

describe('for / if', () => {
  it('for carries values; the trip count is ceil((ub - lb) / step)', () => {
    const k = new K();
    const f = k.b.func('loop', [{ name: 'o', type: ptrOf('i32') }, { name: 'ub', type: 'i32' }], {}, ([o, ub]) => {
      const body = k.b.region([tile('i32'), tile('i32'), tile('i32', [4])], ([iv, acc, vec]) => {
        const acc2 = k.bin('add', acc!, iv!);
        const vec2 = k.bin('add', vec!, k.splat(iv!, [4]));
        k.b.op('yield', [acc2, vec2], [], {});
      });
      const res = k.b.op('for', [k.c(1, 'i32'), ub!, k.c(3, 'i32'), k.c(100, 'i32'), k.arange(4)], [tile('i32'), tile('i32', [4])], {}, [body]).results;
      k.store(o!, res[0]!);
      k.store(k.addptr(k.splat(o!, [4]), k.bin('add', k.arange(4), k.c(1, 'i32', [4]))), res[1]!);
    });
    for (const ub of [11, 1, -5]) {
      const mem = new HostMemory();
      const o = mem.upload(new Int32Array(5));
      interpret(f, [o, ub], mem, { grid: [1] });
      const got = new Int32Array(5);
      mem.download(o, got);
      let acc = 100;
      let sum = 0;
      for (let i = 1; i < ub; i += 3) { acc += i; sum += i; }
      expect(Array.from(got)).toEqual([acc, sum, sum + 1, sum + 2, sum + 3]);
    }
  });
  it('i64 loop bounds and a negative step', () => {
    const k = new K();
    const f = k.b.func('down', [{ name: 'o', type: ptrOf('i64') }], {}, ([o]) => {
      const body = k.b.region([tile('i64'), tile('i64')], ([iv, acc]) => {
        k.b.op('yield', [k.bin('add', k.bin('mul', acc!, k.c(10n, 'i64')), iv!)], [], {});
      });
      const r = k.b.op('for', [k.c(5n, 'i64'), k.c(0n, 'i64'), k.c(-2n, 'i64'), k.c(0n, 'i64')], [tile('i64')], {}, [body]).results[0]!;
      k.store(o!, r);
    });
    const mem = new HostMemory();
    const o = mem.upload(new BigInt64Array(1));
    interpret(f, [o], mem, { grid: [1] });
    const got = new BigInt64Array(1);
    mem.download(o, got);
    expect(got[0]).toBe(531n);
  });
  it('if yields from the taken branch, per program', () => {
    const k = new K();
    const f = k.b.func('branch', [{ name: 'o', type: ptrOf('f32') }], {}, ([o]) => {
      const pid = k.pid();
      const even = k.cmp('eq', k.bin('rem', pid, k.c(2, 'i32')), k.c(0, 'i32'));
      const t = k.b.region([], () => { k.b.op('yield', [k.cast(pid, 'f32')], [], {}); });
      const e = k.b.region([], () => { k.b.op('yield', [k.c(-1, 'f32')], [], {}); });
      const r = k.b.op('if', [even], [tile('f32')], {}, [t, e]).results[0]!;
      k.store(k.addptr(o!, pid), r);
    });
    const mem = new HostMemory();
    const o = mem.upload(new Float32Array(5));
    interpret(f, [o], mem, { grid: [5] });
    const got = new Float32Array(5);
    mem.download(o, got);
    expect(Array.from(got)).toEqual([0, -1, 2, -1, 4]);
  });
  it('program_id and num_programs over a 3-D grid, x fastest', () => {
    const k = new K();
    const f = k.b.func('grid3', [{ name: 'o', type: ptrOf('i32') }], {}, ([o]) => {
      const [x, y, z] = [k.pid(0), k.pid(1), k.pid(2)];
      const [nx, ny] = [k.nprog(0), k.nprog(1)];
      const lin = k.bin('add', k.bin('mul', k.bin('add', k.bin('mul', z, ny), y), nx), x);
      // Each program appends its linear id at the position of a shared counter.
      const slot = k.b.op('atomic_rmw', [o!, k.c(1, 'i32')], [tile('i32')], { op: 'add', sem: 'relaxed', scope: 'gpu', hasMask: false }).results[0]!;
      k.store(k.addptr(o!, k.bin('add', slot, k.c(1, 'i32'))), lin);
    });
    const mem = new HostMemory();
    const o = mem.upload(new Int32Array(1 + 24));
    interpret(f, [o], mem, { grid: [2, 3, 4] });
    const got = new Int32Array(25);
    mem.download(o, got);
    expect(Array.from(got)).toEqual([24, ...Array.from({ length: 24 }, (_, i) => i)]);
  });
});

describe('print and assert', () => {
  it('print prefixes the program id and an element index', () => {
    const k = new K();
    const f = k.b.func('pr', [{ name: 'x', type: 'f32' }], {}, ([x]) => {
      k.b.op('print', [k.pid()], [], { prefix: 'pid is ', hex: false });
      k.b.op('print', [k.cast(k.arange(2), 'f32'), k.splat(x!, [2])], [], { prefix: 'v: ', hex: false });
      k.b.op('print', [k.arange(2)], [], { prefix: 'h ', hex: true });
    });
    const lines: string[] = [];
    interpret(f, [0.1], new HostMemory(), { grid: [2], onPrint: (l) => lines.push(l) });
    expect(lines).toEqual([
      'pid (0, 0, 0) pid is 0',
      'pid (0, 0, 0) idx (0) v: 0, 0.1',
      'pid (0, 0, 0) idx (1) v: 1, 0.1',
      'pid (0, 0, 0) idx (0) h 0x00000000',
      'pid (0, 0, 0) idx (1) h 0x00000001',
      'pid (1, 0, 0) pid is 1',
      'pid (1, 0, 0) idx (0) v: 0, 0.1',
      'pid (1, 0, 0) idx (1) v: 1, 0.1',
      'pid (1, 0, 0) idx (0) h 0x00000000',
      'pid (1, 0, 0) idx (1) h 0x00000001',
    ]);
  });
  it('a failed assert throws E_ASSERT with message, program id, lane and location', () => {
    const k = new K();
    const f = k.b.func('chk', [], {}, () => {
      const ok = k.cmp('lt', k.arange(8), k.splat(k.bin('add', k.pid(), k.c(6, 'i32')), [8]));
      k.b.op('assert', [ok], [], { message: 'index too large' });
    });
    let err: unknown;
    try {
      interpret(f, [], new HostMemory(), { grid: [3] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InterpretError);
    const e = err as InterpretError;
    expect(e.code).toBe('E_ASSERT');
    expect(e.pid).toEqual([0, 0, 0]);
    expect(e.lane).toBe(6);
    expect(e.message).toContain('index too large');
    expect(e.message).toContain(`${LOC.file}:${LOC.line}:${LOC.col}`);
    expect(e.message).toContain("kernel 'chk'");
  });
});

describe('shape ops', () => {
  const R = 4, C = 8;
  function roundTrip(build: (k: K, t: Value) => Value, outLen: number): Int32Array {
    const k = new K();
    const f = k.b.func('shape', [{ name: 'x', type: ptrOf('i32') }, { name: 'o', type: ptrOf('i32') }], {}, ([x, o]) => {
      const rows = k.one('expand_dims', [k.arange(R)], tile('i32', [R, 1]), { axis: 1 });
      const cols = k.one('expand_dims', [k.arange(C)], tile('i32', [1, C]), { axis: 0 });
      const offs = k.bin('add', k.one('broadcast', [k.bin('mul', rows, k.c(C, 'i32', [R, 1]))], tile('i32', [R, C]), { shape: [R, C] }), k.one('broadcast', [cols], tile('i32', [R, C]), { shape: [R, C] }));
      const t = k.load(k.addptr(k.splat(x!, [R, C]), offs));
      const r = build(k, t);
      const flat = k.one('reshape', [r], tile('i32', [outLen]), { shape: [outLen], allowReorder: false });
      k.store(k.addptr(k.splat(o!, [outLen]), k.arange(outLen)), flat);
    });
    const mem = new HostMemory();
    const x = mem.upload(Int32Array.from({ length: R * C }, (_, i) => i * 3 + 1));
    const o = mem.upload(new Int32Array(outLen));
    interpret(f, [x, o], mem, { grid: [1] });
    const got = new Int32Array(outLen);
    mem.download(o, got);
    return got;
  }
  const val = (r: number, c: number) => (r * C + c) * 3 + 1;
  it('trans', () => {
    const got = roundTrip((k, t) => k.one('trans', [t], tile('i32', [C, R]), { perm: [1, 0] }), R * C);
    expect(Array.from(got)).toEqual(Array.from({ length: R * C }, (_, i) => val(i % R, Math.floor(i / R))));
  });
  it('join interleaves on a new last dim; split undoes it', () => {
    const got = roundTrip((k, t) => k.one('join', [t, k.bin('mul', t, k.c(-1, 'i32', [R, C]))], tile('i32', [R, C, 2]), {}), R * C * 2);
    expect(Array.from(got)).toEqual(Array.from({ length: R * C * 2 }, (_, i) => (i % 2 ? -1 : 1) * (Math.floor(i / 2) * 3 + 1)));
    const back = roundTrip((k, t) => {
      const j = k.one('join', [t, k.bin('mul', t, k.c(2, 'i32', [R, C]))], tile('i32', [R, C, 2]), {});
      const [lo, hi] = k.b.op('split', [j], [tile('i32', [R, C]), tile('i32', [R, C])], {}).results;
      return k.bin('sub', hi!, lo!);
    }, R * C);
    expect(Array.from(back)).toEqual(Array.from({ length: R * C }, (_, i) => i * 3 + 1));
  });
  it('broadcast of a column to a 3-D tile', () => {
    const got = roundTrip((k, t) => {
      const col = k.b.op('reduce', [t], [tile('i32', [R])], { axis: 1, kind: 'max' }, [k.b.region([tile('i32'), tile('i32')], ([a, b]) => { k.b.op('yield', [k.bin('max', a!, b!)], [], {}); })]).results[0]!;
      const e = k.one('expand_dims', [k.one('expand_dims', [col], tile('i32', [1, R]), { axis: 0 })], tile('i32', [1, R, 1]), { axis: 2 });
      return k.one('broadcast', [e], tile('i32', [2, R, 3]), { shape: [2, R, 3] });
    }, 2 * R * 3);
    expect(Array.from(got)).toEqual(Array.from({ length: 2 * R * 3 }, (_, i) => val(Math.floor(i / 3) % R, C - 1)));
  });
});
