import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compiler/compile.js';
import type { Func } from '../../src/ir/ops.js';
import { arange, constexpr, cumsum, defineKernel, dot, load, programId, ptr, range, store, zeros, atomicAdd } from '../../src/lang/index.js';
import { kernel, P } from './dsl.js';

type Arg = Float32Array | Int32Array | Uint8Array | Int8Array | Uint16Array | Float64Array | number;
function run(f: Func, args: Arg[], grid: number, opts: Partial<CompileOptions> = {}, gy = 1): Arg[] {
  const r = compile(f, { target: 'sm_80', ptxas: false, ...opts });
  const dir = mkdtempSync(join(tmpdir(), 'simrun-'));
  writeFileSync(join(dir, 'k.ptx'), r.ptx);
  const cli = args.map((a, i) => {
    if (typeof a === 'number') return String(a);
    const p = join(dir, `b${i}`);
    writeFileSync(p, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    return `buf:${p}`;
  });
  try {
    execFileSync('/tmp/simb/harness', [join(dir, 'k.ptx'), f.name, String(grid), String(32 * (opts.numWarps ?? 4)), ...cli, `gy:${gy}`], { encoding: 'utf8' });
  } catch (e) {
    throw new Error(`${(e as { stdout: string }).stdout}\n${r.ptx.slice(0, 20000)}`);
  }
  return args.map((a, i) => {
    if (typeof a === 'number') return a;
    const b = readFileSync(join(dir, `b${i}`));
    return new (a.constructor as new (b: ArrayBuffer) => Arg & object)(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  });
}
const rnd = (n: number, seed = 1) => { let s = seed; return Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 4 - 2); };
const ALIGNED = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { divisibleBy16: true }]));
const close = (a: ArrayLike<number>, b: ArrayLike<number>, tol = 1e-5) => {
  for (let i = 0; i < b.length; i++) if (!(Math.abs(a[i]! - b[i]!) <= tol * (1 + Math.abs(b[i]!)))) throw new Error(`at ${i}: ${a[i]} vs ${b[i]}`);
};

const add = defineKernel(
  { name: 'add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, y, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    store(out.add(offs), load(x.add(offs), { mask }).add(load(y.add(offs), { mask, other: 0 })), { mask });
  },
);
const softmax = defineKernel(
  { name: 'softmax', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', stride: 'i32', BLOCK: constexpr() } },
  ({ x, out, n, stride, BLOCK }) => {
    const cols = arange(0, BLOCK);
    const mask = cols.lt(n);
    const row = programId(0).mul(stride);
    const v = load(x.add(row).add(cols), { mask, other: -Infinity });
    const e = v.sub(v.max(0)).exp();
    store(out.add(row).add(cols), e.div(e.sum(0)), { mask });
  },
);
const rmsnorm = defineKernel(
  { name: 'rmsnorm', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', ROWS: constexpr(), BLOCK: constexpr() } },
  ({ x, out, n, ROWS, BLOCK }) => {
    const r = programId(0).mul(ROWS).add(arange(0, ROWS)).expandDims(1);
    const c = arange(0, BLOCK).expandDims(0);
    const offs = r.mul(n).add(c);
    const mask = c.lt(n).broadcastTo([ROWS as number, BLOCK as number]);
    const v = load(x.add(offs), { mask, other: 0 });
    const ms = v.mul(v).sum(1).div(n.to('f32'));
    store(out.add(offs), v.mul(ms.add(1e-6).sqrt().expandDims(1)), { mask });
  },
);
const scan = defineKernel(
  { name: 'cumsum', params: { x: ptr('i32'), out: ptr('i32'), BLOCK: constexpr() } },
  ({ x, out, BLOCK }) => {
    const i = arange(0, BLOCK);
    store(out.add(i), cumsum(load(x.add(i)), 0));
  },
);
const matmul = defineKernel(
  { name: 'matmul', params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM)).expandDims(1);
    const rn = programId(1).mul(BN).add(arange(0, BN)).expandDims(0);
    const rk = arange(0, BK);
    const [acc] = range(0, K.floordiv(BK), [zeros([BM as number, BN as number])], (kk, acc) => {
      const k0 = kk.mul(BK).add(rk);
      const av = load(a.add(rm.mul(K).add(k0.expandDims(0))));
      const bv = load(b.add(k0.expandDims(1).mul(N).add(rn)));
      return [dot(av, bv, { acc })];
    });
    store(c.add(rm.mul(N).add(rn)), acc!);
  },
);
const histogram = defineKernel(
  { name: 'histogram', params: { x: ptr('i32'), bins: ptr('i32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, bins, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    atomicAdd(bins.add(load(x.add(offs), { mask, other: 0 })), 1, { mask });
  },
);

describe('sim', () => {
  it('vector add', () => {
    for (const spec of [{}, ALIGNED('x', 'y', 'out', 'n')]) {
      const n = spec.n ? 4096 : 3000;
      const x = rnd(n, 1), y = rnd(n, 2);
      const [, , out] = run(add.trace({ BLOCK: 1024 }), [x, y, new Float32Array(n), n], Math.ceil(n / 1024), { specialization: spec });
      close(out as Float32Array, x.map((v, i) => v + y[i]!));
    }
  });
  it('softmax', () => {
    const rows = 3, n = 1000, stride = 1024;
    const x = rnd(rows * stride, 3);
    const [, out] = run(softmax.trace({ BLOCK: 1024 }), [x, new Float32Array(rows * stride), n, stride], rows);
    const ref = new Float32Array(rows * stride);
    for (let r = 0; r < rows; r++) {
      const row = Array.from(x.slice(r * stride, r * stride + n));
      const m = Math.max(...row);
      const e = row.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      e.forEach((v, i) => (ref[r * stride + i] = v / s));
    }
    close(out as Float32Array, ref, 1e-4);
  });
  it('rmsnorm 2d', () => {
    const R = 8, n = 200, ROWS = 4;
    const x = rnd(R * n, 4);
    const [, out] = run(rmsnorm.trace({ ROWS, BLOCK: 256 }), [x, new Float32Array(R * n), n], R / ROWS);
    const ref = new Float32Array(R * n);
    for (let r = 0; r < R; r++) {
      let ms = 0;
      for (let i = 0; i < n; i++) ms += x[r * n + i]! ** 2;
      ms /= n;
      for (let i = 0; i < n; i++) ref[r * n + i] = x[r * n + i]! * Math.sqrt(ms + 1e-6);
    }
    close(out as Float32Array, ref, 1e-4);
  });
  it('cumsum', () => {
    const x = Int32Array.from({ length: 512 }, (_, i) => (i * 7) % 13 - 6);
    const [, out] = run(scan.trace({ BLOCK: 512 }), [x, new Int32Array(512)], 1);
    let s = 0;
    expect(Array.from(out as Int32Array)).toEqual(Array.from(x, (v) => (s += v)));
  });
  it('matmul', () => {
    const M = 64, N = 64, K = 64;
    const a = rnd(M * K, 5), b = rnd(K * N, 6);
    const [, , c] = run(matmul.trace({ BM: 32, BN: 32, BK: 16 }), [a, b, new Float32Array(M * N), M, N, K], 2, {}, 2);
    const ref = new Float32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) { let s = 0; for (let k = 0; k < K; k++) s += a[i * K + k]! * b[k * N + j]!; ref[i * N + j] = s; }
    close(c as Float32Array, ref, 1e-4);
  });
  it('histogram', () => {
    const n = 1000;
    const x = Int32Array.from({ length: n }, (_, i) => (i * 31) % 10);
    const [, bins] = run(histogram.trace({ BLOCK: 256 }), [x, new Int32Array(10), n], 4);
    const ref = new Int32Array(10);
    x.forEach((v) => ref[v]!++);
    expect(Array.from(bins as Int32Array)).toEqual(Array.from(ref));
  });
  it('trans + join/split + loop + if', () => {
    const f = kernel('mix', [['x', P('f32')], ['out', P('f32')], ['o2', P('f32')], ['flag', 'i32']], (k, [x, out, o2, flag]) => {
      const rm = k.expand(k.arange(32), 1);
      const cn = k.expand(k.arange(64), 0);
      const offs = k.bin('add', k.broadcast(k.bin('mul', rm, k.c(64, 'i32', [32, 1])), [32, 64]), k.broadcast(cn, [32, 64]));
      const v = k.load(k.addptr(x!, offs));
      const rm2 = k.expand(k.arange(64), 1);
      const cn2 = k.expand(k.arange(32), 0);
      const offs2 = k.bin('add', k.broadcast(k.bin('mul', rm2, k.c(32, 'i32', [64, 1])), [64, 32]), k.broadcast(cn2, [64, 32]));
      const [acc] = k.for(k.c(0), k.c(3), k.c(1), [k.c(0, 'f32', [64, 32])], (_iv, [a]) => [k.bin('add', a!, k.trans(v))]);
      const [r] = k.if(k.cmp('gt', flag!, k.c(0)), () => [acc!], () => [k.un('neg', acc!)]);
      k.store(k.addptr(out!, offs2), r!);
      const i = k.arange(128);
      const a1 = k.load(k.addptr(x!, i));
      const [lo, hi] = k.split(k.join(a1, k.bin('mul', a1, k.c(2, 'f32', [128]))));
      const flat = k.reshape(k.join(lo, hi), [256]);
      k.store(k.addptr(o2!, k.arange(256)), flat);
    });
    const x = rnd(2048, 7);
    for (const flag of [1, 0]) {
      const [, out, o2] = run(f, [x, new Float32Array(2048), new Float32Array(256), flag], 1);
      const ref = new Float32Array(2048);
      for (let i = 0; i < 64; i++) for (let j = 0; j < 32; j++) ref[i * 32 + j] = (flag ? 1 : -1) * 3 * x[j * 64 + i]!;
      close(out as Float32Array, ref, 1e-5);
      const r2 = new Float32Array(256);
      for (let i = 0; i < 128; i++) { r2[2 * i] = x[i]!; r2[2 * i + 1] = 2 * x[i]!; }
      close(o2 as Float32Array, r2, 1e-6);
    }
  });
  it('argmax + reverse scan + i8/f16', () => {
    const f = kernel('misc', [['x', P('f32')], ['idx', P('i32')], ['rs', P('f32')], ['b', P('i8')], ['h', P('f16')]], (k, [x, idx, rs, b, h]) => {
      const i = k.arange(256);
      const v = k.load(k.addptr(x!, i));
      const [, am] = k.argmax(v, i, 0);
      k.store(idx!, am);
      const o = k.expand(k.arange(16), 1);
      const cn = k.expand(k.arange(16), 0);
      const offs = k.bin('add', k.broadcast(k.bin('mul', o, k.c(16, 'i32', [16, 1])), [16, 16]), k.broadcast(cn, [16, 16]));
      k.store(k.addptr(rs!, offs), k.cumsum(k.load(k.addptr(x!, offs)), 1, true));
      const bi = k.arange(64);
      const bv = k.load(k.addptr(b!, bi));
      k.store(k.addptr(b!, k.bin('add', bi, k.c(64, 'i32', [64]))), k.bin('mul', bv, k.c(3, 'i8', [64])));
      const hv = k.load(k.addptr(h!, bi));
      k.store(k.addptr(h!, k.bin('add', bi, k.c(64, 'i32', [64]))), k.bin('add', hv, hv));
    });
    const x = rnd(256, 9);
    const bb = Int8Array.from({ length: 128 }, (_, i) => (i < 64 ? i * 5 - 100 : 0));
    const hh = new Uint16Array(128).fill(0x3c00); // 1.0
    const [, idx, rs, b2, h2] = run(f, [x, new Int32Array(1), new Float32Array(256), bb, hh], 1);
    let best = 0;
    for (let i = 1; i < 256; i++) if (x[i]! > x[best]!) best = i;
    expect((idx as Int32Array)[0]).toBe(best);
    const ref = new Float32Array(256);
    for (let r = 0; r < 16; r++) { let s = 0; for (let c = 15; c >= 0; c--) { s += x[r * 16 + c]!; ref[r * 16 + c] = s; } }
    close(rs as Float32Array, ref, 1e-5);
    expect(Array.from(b2 as Int8Array).slice(64)).toEqual(Array.from(bb.slice(0, 64), (v) => ((v * 3) << 24) >> 24));
    expect(Array.from(h2 as Uint16Array).slice(64).every((v) => v === 0x4000)).toBe(true);
  });
});
