// Layout and control-flow conformance on hand-built IR (test/codegen/dsl.ts): 2-D reductions and
// scans at several warp counts, layout conversions (trans, join/split, broadcast), loops, ifs,
// atomics, dots, vectorized byte/half accesses. Sim and interpreter must agree; each case also
// checks a plain-JS reference.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { Func } from '../../src/ir/ops.js';
import { kernel, P, type K } from '../codegen/dsl.js';
import { expectBitwise, expectClose, fill, randF32, runBoth, runSimCompiled, type Buf } from './helpers.js';

/** Row-major [M, N] offsets r * N + c. */
const grid2 = (k: K, M: number, N: number) => {
  const rm = k.expand(k.arange(M), 1);
  const cn = k.expand(k.arange(N), 0);
  return k.bin('add', k.broadcast(k.bin('mul', rm, k.c(N, 'i32', [M, 1])), [M, N]), k.broadcast(cn, [M, N]));
};

/** Runs on both devices; float outputs within tol of each other, others bit-exact. Returns the sim results. */
async function both(f: Func, args: (Buf | number)[], outs: number[], opts: { numWarps?: number; tol?: number; grid?: number } = {}) {
  const r = await runBoth(f, args, opts.grid ?? 1, { numWarps: opts.numWarps ?? 4 });
  for (const o of outs) {
    const s = r.sim[o] as Buf, i = r.interpret[o] as Buf;
    if (s instanceof Float32Array) expectClose(s, i as Float32Array, opts.tol ?? 1e-5, `${f.name} out ${o}: sim vs interpreter`);
    else expectBitwise(s, i, `${f.name} out ${o}: sim vs interpreter`);
  }
  return r.sim as (Buf | number)[];
}

describe.each([1, 2, 8])('%i warps', (nw) => {
  it('2-D reduce along both axes (sum, max, min)', async () => {
    const f = kernel(`red2d_${nw}`, [['x', P('f32')], ['r0', P('f32')], ['r1', P('f32')], ['mi', P('i32')]], (k, [x, r0, r1, mi]) => {
      const o = grid2(k, 32, 64);
      const v = k.load(k.addptr(x!, o));
      k.store(k.addptr(r0!, k.arange(64)), k.reduce(v, 0, 'add'));
      k.store(k.addptr(r1!, k.arange(32)), k.reduce(v, 1, 'max'));
      k.store(mi!, k.reduce(k.reduce(k.load(k.addptr(mi!, o)), 1, 'min'), 0, 'min'));
    });
    const x = randF32(2048, 5, -10, 10);
    const mi = fill('i32', 2048, 6) as Int32Array;
    const [, r0, r1, m] = await both(f, [x, new Float32Array(64), new Float32Array(32), mi], [1, 2, 3], { numWarps: nw });
    const colSum = Array.from({ length: 64 }, (_, c) => { let s = 0; for (let r = 0; r < 32; r++) s += x[r * 64 + c]!; return s; });
    const rowMax = Array.from({ length: 32 }, (_, r) => Math.max(...x.subarray(r * 64, r * 64 + 64)));
    expectClose(r0 as Float32Array, colSum, 1e-5, 'column sums vs JS');
    expectClose(r1 as Float32Array, rowMax, 0, 'row max vs JS');
    expect((m as Int32Array)[0]).toBe(Math.min(...mi));
  });

  it('2-D inclusive scan along axis 0 (i32)', async () => {
    const f = kernel(`scan2d_${nw}`, [['x', P('i32')], ['o', P('i32')]], (k, [x, o]) => {
      const off = grid2(k, 64, 16);
      k.store(k.addptr(o!, off), k.cumsum(k.load(k.addptr(x!, off)), 0));
    });
    const x = fill('i32', 1024, 7) as Int32Array;
    const [, o] = await both(f, [x, new Int32Array(1024)], [1], { numWarps: nw });
    const want = new Int32Array(1024);
    for (let c = 0; c < 16; c++) { let s = 0; for (let r = 0; r < 64; r++) want[r * 16 + c] = s = (s + x[r * 16 + c]!) | 0; }
    expectBitwise(o as Int32Array, want, 'scan vs JS');
  });
});

describe('layouts and movement', () => {
  it('trans inside a loop, if/else on a runtime flag, join/split/reshape', async () => {
    const f = kernel('mix', [['x', P('f32')], ['out', P('f32')], ['o2', P('f32')], ['flag', 'i32']], (k, [x, out, o2, flag]) => {
      const v = k.load(k.addptr(x!, grid2(k, 32, 64)));
      const [acc] = k.for(k.c(0), k.c(3), k.c(1), [k.c(0, 'f32', [64, 32])], (_iv, [a]) => [k.bin('add', a!, k.trans(v))]);
      const [r] = k.if(k.cmp('gt', flag!, k.c(0)), () => [acc!], () => [k.un('neg', acc!)]);
      k.store(k.addptr(out!, grid2(k, 64, 32)), r!);
      const a1 = k.load(k.addptr(x!, k.arange(128)));
      const [lo, hi] = k.split(k.join(a1, k.bin('mul', a1, k.c(2, 'f32', [128]))));
      k.store(k.addptr(o2!, k.arange(256)), k.reshape(k.join(lo, hi), [256]));
    });
    const x = randF32(2048, 7);
    for (const flag of [1, 0]) {
      const [, out, o2] = await both(f, [x, new Float32Array(2048), new Float32Array(256), flag], [1, 2]);
      const ref = new Float32Array(2048);
      for (let i = 0; i < 64; i++) for (let j = 0; j < 32; j++) ref[i * 32 + j] = (flag ? 1 : -1) * 3 * x[j * 64 + i]!;
      expectClose(out as Float32Array, ref, 1e-6, `transposed sum, flag ${flag}`);
      expectBitwise(o2 as Float32Array, Float32Array.from({ length: 256 }, (_, i) => x[i >> 1]! * (i & 1 ? 2 : 1)), 'join/split interleave');
    }
  });

  it('copy, row sums and row broadcast of a [4, 256] tile', async () => {
    const f = kernel('rows', [['x', P('f32')], ['cp', P('f32')], ['rs', P('f32')], ['bc', P('f32')]], (k, [x, cp, rs, bc]) => {
      const o = grid2(k, 4, 256);
      const v = k.load(k.addptr(x!, o));
      k.store(k.addptr(cp!, o), v);
      k.store(k.addptr(rs!, k.arange(4)), k.reduce(v, 1, 'add'));
      k.store(k.addptr(bc!, o), k.broadcast(k.expand(k.load(k.addptr(x!, k.arange(4))), 1), [4, 256]));
    });
    const x = Float32Array.from({ length: 1024 }, (_, i) => (i * 5) % 7);
    const [, cp, rs, bc] = await both(f, [x, new Float32Array(1024), new Float32Array(4), new Float32Array(1024)], [1, 2, 3], { tol: 0 });
    expectBitwise(cp as Float32Array, x, 'copy');
    expectBitwise(rs as Float32Array, Float32Array.from([0, 1, 2, 3], (r) => x.subarray(r * 256, r * 256 + 256).reduce((a, b) => a + b, 0)), 'row sums');
    expectBitwise(bc as Float32Array, Float32Array.from({ length: 1024 }, (_, i) => x[i >> 8]!), 'row broadcast');
  });

  it('argmax (ties to the lower index), reverse scan, i8 wraparound, f16 add', async () => {
    const f = kernel('misc', [['x', P('f32')], ['idx', P('i32')], ['rs', P('f32')], ['b', P('i8')], ['h', P('f16')]], (k, [x, idx, rs, b, h]) => {
      const i = k.arange(256);
      const [, am] = k.argmax(k.load(k.addptr(x!, i)), i, 0);
      k.store(idx!, am);
      const offs = grid2(k, 16, 16);
      k.store(k.addptr(rs!, offs), k.cumsum(k.load(k.addptr(x!, offs)), 1, true));
      const bi = k.arange(64);
      const hi = k.bin('add', bi, k.c(64, 'i32', [64]));
      k.store(k.addptr(b!, hi), k.bin('mul', k.load(k.addptr(b!, bi)), k.c(3, 'i8', [64])));
      const hv = k.load(k.addptr(h!, bi));
      k.store(k.addptr(h!, hi), k.bin('add', hv, hv));
    });
    const x = Float32Array.from({ length: 256 }, (_, i) => (i * 97) % 61);
    const bb = Int8Array.from({ length: 128 }, (_, i) => (i < 64 ? i * 5 - 100 : 0));
    const hh = new Uint16Array(128).fill(0x3c00); // 1.0
    const [, idx, rs, b2, h2] = await both(f, [x, new Int32Array(1), new Float32Array(256), bb, hh], [1, 2, 3, 4]);
    let best = 0;
    for (let i = 1; i < 256; i++) if (x[i]! > x[best]!) best = i;
    expect((idx as Int32Array)[0]).toBe(best);
    const ref = new Float32Array(256);
    for (let r = 0; r < 16; r++) { let s = 0; for (let c = 15; c >= 0; c--) ref[r * 16 + c] = s += x[r * 16 + c]!; }
    expectBitwise(rs as Float32Array, ref, 'reverse scan (small integers: exact)');
    expect(Array.from((b2 as Int8Array).subarray(64))).toEqual(Array.from(bb.subarray(0, 64), (v) => ((v * 3) << 24) >> 24));
    expect(Array.from((h2 as Uint16Array).subarray(64))).toEqual(new Array(64).fill(0x4000)); // 2.0
  });

  it('argmax over all-equal values with three maxima picks the first', async () => {
    const f = kernel('amax', [['x', P('f32')], ['o', P('i32')]], (k, [x, o]) => {
      const i = k.arange(512);
      const [, am] = k.argmax(k.load(k.addptr(x!, i)), i, 0);
      k.store(o!, am);
    });
    const x = new Float32Array(512).fill(1);
    x[300] = 5; x[77] = 5; x[400] = 5;
    const [, o] = await both(f, [x, new Int32Array(1)], [1]);
    expect((o as Int32Array)[0]).toBe(77);
  });

  it('dot: i8 (as i32) -> i32 and f16 -> f32 with 2 warps', async () => {
    const f = kernel('dots', [['a', P('i8')], ['b', P('i8')], ['c', P('i32')], ['ha', P('f16')], ['hb', P('f16')], ['hc', P('f32')]], (k, [a, b, c, ha, hb, hc]) => {
      const A = k.load(k.addptr(a!, grid2(k, 16, 32)));
      const B = k.load(k.addptr(b!, grid2(k, 32, 16)));
      k.store(k.addptr(c!, grid2(k, 16, 16)), k.dot(k.cast(A, 'i32'), k.cast(B, 'i32'), k.c(0, 'i32', [16, 16])));
      const HA = k.load(k.addptr(ha!, grid2(k, 16, 32)));
      const HB = k.load(k.addptr(hb!, grid2(k, 32, 16)));
      k.store(k.addptr(hc!, grid2(k, 16, 16)), k.dot(HA, HB, k.c(1, 'f32', [16, 16])));
    });
    const a = fill('i8', 512, 1) as Int8Array, b = fill('i8', 512, 2) as Int8Array;
    // halves 0.5 .. 1.0 with few mantissa bits: products and sums are exact in f32
    const half = (s: number) => Uint16Array.from({ length: 512 }, (_, i) => 0x3800 + (((i * s) % 16) << 6));
    const ha = half(3), hb = half(5);
    const [, , c, , , hc] = await both(f, [a, b, new Int32Array(256), ha, hb, new Float32Array(256)], [2, 5], { numWarps: 2 });
    const dec = (h: number) => 2 ** (((h >> 10) & 31) - 15) * (1 + (h & 1023) / 1024);
    const wantC = new Int32Array(256), wantH = new Float32Array(256);
    for (let i = 0; i < 16; i++) for (let j = 0; j < 16; j++) {
      let s = 0, t = 1;
      for (let q = 0; q < 32; q++) { s += a[i * 32 + q]! * b[q * 16 + j]!; t += dec(ha[i * 32 + q]!) * dec(hb[q * 16 + j]!); }
      wantC[i * 16 + j] = s; wantH[i * 16 + j] = t;
    }
    expectBitwise(c as Int32Array, wantC, 'i8 dot vs JS');
    expectClose(hc as Float32Array, wantH, 1e-6, 'f16 dot vs JS');
  });

  it('f16 copy+scale with 16-byte aligned pointers uses v4 loads and matches', async () => {
    const f = kernel('h16', [['x', P('f16')], ['o', P('f16')]], (k, [x, o]) => {
      const i = k.arange(2048);
      k.store(k.addptr(o!, i), k.bin('mul', k.load(k.addptr(x!, i)), k.c(1.5, 'f16', [2048])));
    });
    const spec = { x: { divisibleBy16: true }, o: { divisibleBy16: true } };
    expect(compile(f, { target: 'sm_80', ptxas: false, specialization: spec }).ptx).toMatch(/ld\.global\.v4\.b32/);
    // 1 + m/1024 with m even and < 64: x * 1.5 = 1 + (512 + 1.5m)/1024 is exact in f16
    const x = Uint16Array.from({ length: 2048 }, (_, i) => 0x3c00 + 2 * (i % 32));
    const sim = runSimCompiled(f, [x, new Uint16Array(2048)], 1, { specialization: spec })[1] as Uint16Array;
    const r = await runBoth(f, [x, new Uint16Array(2048)], 1);
    expectBitwise(sim, r.interpret[1] as Uint16Array, 'aligned sim vs interpreter');
    expectBitwise(r.sim[1] as Uint16Array, r.interpret[1] as Uint16Array, 'unaligned sim vs interpreter');
    expectBitwise(sim, Uint16Array.from(x, (h) => 0x3c00 + 512 + 1.5 * (h & 1023)), 'vs JS (1.5 * (1 + m) in f16)');
  });
});

describe.each(['i8', 'u8', 'bool'] as const)('vectorized %s with mask and other', (t) => {
  const f = kernel(`byt_${t}`, [['x', P(t)], ['o', P(t)], ['n', 'i32']], (k, [x, o, n]) => {
    const i = k.arange(2048);
    const m = k.cmp('lt', i, k.splat(n!, [2048]));
    const v = k.load(k.addptr(x!, i), m, k.c(t === 'bool' ? true : 5, t, [2048]));
    const r = t === 'bool' ? k.un('not', v) : k.bin('add', v, k.c(100, t, [2048]));
    k.store(k.addptr(o!, i), r, k.cmp('lt', i, k.c(2000, 'i32', [2048])));
  });
  const x = Uint8Array.from({ length: 2048 }, (_, i) => (t === 'bool' ? (i % 3 === 0 ? 1 : 0) : (i * 37) & 255));
  const n = 1024;
  const want = Uint8Array.from({ length: 2048 }, (_, i) => {
    if (i >= 2000) return 0;
    const v = i < n ? x[i]! : t === 'bool' ? 1 : 5;
    return t === 'bool' ? (v ? 0 : 1) : (v + 100) & 255;
  });
  const asT = (a: Uint8Array) => (t === 'i8' ? new Int8Array(a.buffer) : a);
  it('aligned (v4 accesses) and unaligned', async () => {
    const spec = { x: { divisibleBy16: true }, o: { divisibleBy16: true }, n: { divisibleBy16: true } };
    expect(compile(f, { target: 'sm_80', ptxas: false, specialization: spec }).ptx).toMatch(/ld\.global\.v4\.b32/);
    const aligned = runSimCompiled(f, [asT(x), asT(new Uint8Array(2048)), n], 1, { specialization: spec })[1] as Uint8Array;
    const r = await runBoth(f, [asT(x), asT(new Uint8Array(2048)), n], 1);
    expectBitwise(r.sim[1] as Buf, r.interpret[1] as Buf, 'sim vs interpreter');
    expectBitwise(aligned, r.interpret[1] as Buf, 'aligned sim vs interpreter');
    expectBitwise(r.interpret[1] as Buf, asT(want), 'interpreter vs JS');
  });
});

describe('control flow and atomics', () => {
  it('scalar cas, atomic max, tile xchg', async () => {
    const f = kernel('atom', [['lock', P('i32')], ['m', P('i32')], ['t', P('f32')], ['old', P('f32')]], (k, [lock, m, t, old]) => {
      const o = k.cas(lock!, k.c(0), k.c(7));
      k.atomic('max', m!, k.bin('add', o, k.c(100)));
      const i = k.arange(64);
      k.store(k.addptr(old!, i), k.atomic('xchg', k.addptr(t!, i), k.cast(i, 'f32')));
    });
    const t0 = Float32Array.from({ length: 64 }, (_, i) => -i);
    const [lock, m, t, old] = await both(f, [new Int32Array(1), new Int32Array([5]), t0, new Float32Array(64)], [0, 1, 2, 3], { tol: 0 });
    expect((lock as Int32Array)[0]).toBe(7);
    expect((m as Int32Array)[0]).toBe(100);
    expectBitwise(t as Float32Array, Float32Array.from({ length: 64 }, (_, i) => i), 'xchg new values');
    expectBitwise(old as Float32Array, t0, 'xchg old values');
  });

  it.each([[10, 0, -3], [0, 10, 3], [5, 5, 1], [0, 10, -1], [-7, 9, 4]])('for loop lb=%i ub=%i step=%i (runtime bounds)', async (lb, ub, st) => {
    const f = kernel('loopbounds', [['o', P('i32')], ['lb', 'i32'], ['ub', 'i32'], ['st', 'i32']], (k, [o, lb_, ub_, st_]) => {
      const [c, s] = k.for(lb_!, ub_!, st_!, [k.c(0), k.c(0)], (iv, [c, s]) => [k.bin('add', c!, k.c(1)), k.bin('add', s!, iv)]);
      k.store(o!, k.bin('add', k.bin('mul', c!, k.c(1000)), s!));
    });
    const [o] = await both(f, [new Int32Array(1), lb, ub, st], [0]);
    // docs/semantics.md: trip count ceil((ub - lb) / step); a negative step counts down while iv > ub
    let c = 0, s = 0;
    for (let i = lb; st > 0 ? i < ub : i > ub; i += st) { c++; s += i; }
    expect((o as Int32Array)[0]).toBe(c * 1000 + s);
  });

  it('nested loops with a reduce inside, scalar load/store, if without results', async () => {
    const f = kernel('odd', [['x', P('f32')], ['o', P('f32')], ['s', P('i32')], ['n', 'i32']], (k, [x, o, s, n]) => {
      const i = k.arange(128);
      const sc = k.load(s!);
      const [tot] = k.for(k.c(0), n!, k.c(1), [k.c(0, 'f32')], (iv, [acc]) => k.for(k.c(0), k.c(2), k.c(1), [acc!], (jv, [a2]) => {
        const off = k.bin('add', k.splat(k.bin('mul', k.bin('add', k.bin('mul', iv, k.c(2)), jv), k.c(128)), [128]), i);
        return [k.bin('add', a2!, k.reduce(k.load(k.addptr(x!, off)), 0, 'add'))];
      }));
      k.if(k.cmp('gt', sc, k.c(0)), () => { k.store(o!, tot!); return []; }, () => { k.store(o!, k.c(-1, 'f32')); return []; });
      k.store(s!, k.bin('add', sc, k.c(1)));
    });
    const x = randF32(1024, 11);
    for (const sv of [3, 0]) {
      const [, o, s] = await both(f, [x, new Float32Array(1), new Int32Array([sv]), 4], [1, 2], { tol: 1e-5 });
      const total = x.reduce((a, b) => a + b, 0);
      expectClose(o as Float32Array, [sv > 0 ? total : -1], 1e-5, 'total vs JS');
      expect((s as Int32Array)[0]).toBe(sv + 1);
    }
  });

  it('a value computed before a loop and stored inside it (hoisted layout conversion)', async () => {
    const f = kernel('hoist', [['x', P('f32')], ['out', P('f32')], ['n', 'i32']], (k, [x, out, n]) => {
      const rows = k.reduce(k.load(k.addptr(x!, grid2(k, 32, 32))), 1, 'add');
      k.for(k.c(0), n!, k.c(1), [], (iv) => {
        const o = k.bin('add', k.arange(32), k.splat(k.bin('mul', iv, k.c(32)), [32]));
        k.store(k.addptr(out!, o), k.bin('add', rows, k.cast(k.splat(iv, [32]), 'f32')));
        return [];
      });
    });
    const x = randF32(1024, 3);
    const [, out] = await both(f, [x, new Float32Array(128), 4], [1]);
    const rowSum = Array.from({ length: 32 }, (_, r) => x.subarray(r * 32, r * 32 + 32).reduce((a, b) => a + b, 0));
    expectClose(out as Float32Array, Array.from({ length: 128 }, (_, i) => rowSum[i % 32]! + (i >> 5)), 1e-5, 'vs JS');
  });
  it.each([4, 5])('carried tiles rotate through a cycle (the back edge is a parallel copy), n = %i', async (n) => {
    const f = kernel('rotate', [['o', P('f32')], ['n', 'i32']], (k, [o, n_]) => {
      const t = (v: number) => k.c(v, 'f32', [128]);
      const [a, b, c] = k.for(k.c(0), n_!, k.c(1), [t(1), t(2), t(3)], (_iv, [x, y, z]) => [y!, z!, x!]);
      const abc = k.bin('add', k.bin('add', k.bin('mul', a!, t(100)), k.bin('mul', b!, t(10))), c!);
      k.store(k.addptr(o!, k.arange(128)), abc);
    });
    const [o] = await both(f, [new Float32Array(128), n], [0]);
    const r = [1, 2, 3].map((_, i) => [1, 2, 3][(i + n) % 3]!);
    expectBitwise(o as Float32Array, new Float32Array(128).fill(r[0]! * 100 + r[1]! * 10 + r[2]!), 'rotation vs JS');
  });

  it('a dot accumulates in place only into a carried tile it is the only use of, in its own loop', async () => {
    // acc1: only use is the dot (in place); acc2: also read after the dot; acc3: the outer loop's
    // tile, used by a dot inside an inner loop (runs twice per outer iteration, must not clobber)
    const f = kernel('inplace', [['ha', P('f16')], ['hb', P('f16')], ['o', P('f32')], ['n', 'i32']], (k, [ha, hb, o, n]) => {
      const HA = k.load(k.addptr(ha!, grid2(k, 16, 32)));
      const HB = k.load(k.addptr(hb!, grid2(k, 32, 16)));
      const one = k.c(1, 'f32', [16, 16]);
      const [r1, r2, r3] = k.for(k.c(0), n!, k.c(1), [one, one, one], (_iv, [acc1, acc2, acc3]) => {
        const d1 = k.dot(HA, HB, acc1!);
        const d2 = k.bin('add', k.dot(HA, HB, acc2!), acc2!);
        const [d3] = k.for(k.c(0), k.c(2), k.c(1), [acc3!], () => [k.dot(HA, HB, acc3!)]);
        return [d1, d2, d3!];
      });
      for (const [j, r] of [r1!, r2!, r3!].entries()) k.store(k.addptr(o!, k.bin('add', grid2(k, 16, 16), k.c(256 * j, 'i32', [16, 16]))), r);
    });
    const half = (s: number) => Uint16Array.from({ length: 512 }, (_, i) => 0x3800 + (((i * s) % 16) << 6));
    const ha = half(3), hb = half(5);
    const [, , o] = await both(f, [ha, hb, new Float32Array(768), 3], [2], { numWarps: 2 });
    const dec = (h: number) => 2 ** (((h >> 10) & 31) - 15) * (1 + (h & 1023) / 1024);
    const want = new Float32Array(768);
    for (let i = 0; i < 16; i++) for (let j = 0; j < 16; j++) {
      let p = 0;
      for (let q = 0; q < 32; q++) p += dec(ha[i * 32 + q]!) * dec(hb[q * 16 + j]!);
      let a1 = 1, a2 = 1, a3 = 1;
      for (let it = 0; it < 3; it++) { a1 += p; a2 = 2 * a2 + p; a3 += p; }
      want[i * 16 + j] = a1; want[256 + i * 16 + j] = a2; want[512 + i * 16 + j] = a3;
    }
    expectClose(o as Float32Array, want, 1e-6, 'carried dots vs JS');
    const ptx = compile(f, { target: 'sm_80', numWarps: 2, ptxas: false }).ptx;
    expect(ptx).toMatch(/mma\.sync/);
  });
});
