// Real kernels written with the TypeScript front end (src/lang), traced and compiled through the
// whole pipeline (IR passes included) and assembled for sm_80 and sm_90.
import { describe, expect, it } from 'vitest';
import {
  arange, atomicAdd, constexpr, cumsum, defineKernel, dot, load, programId, ptr, range, store, zeros,
} from '../../src/lang/index.js';
import { count, gate } from './gate.js';
import { compile } from '../../src/compile/compile.js';

const ALIGNED = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { divisibleBy16: true }]));

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

const layernorm = defineKernel(
  { name: 'layernorm', params: { x: ptr('f16'), w: ptr('f16'), out: ptr('f16'), n: 'i32', BLOCK: constexpr() } },
  ({ x, w, out, n, BLOCK }) => {
    const cols = arange(0, BLOCK);
    const mask = cols.lt(n);
    const row = programId(0).mul(n);
    const v = load(x.add(row).add(cols), { mask, other: 0 }).to('f32');
    const mean = v.sum(0).div(n.to('f32'));
    const d = v.sub(mean);
    const dm = mask.to('f32').mul(d);
    const rstd = dm.mul(dm).sum(0).div(n.to('f32')).add(1e-5).rsqrt();
    const y = d.mul(rstd).mul(load(w.add(cols), { mask }).to('f32'));
    store(out.add(row).add(cols), y.to('f16'), { mask });
  },
);

const rmsnorm = defineKernel(
  { name: 'rmsnorm', params: { x: ptr('bf16'), out: ptr('bf16'), n: 'i32', ROWS: constexpr(), BLOCK: constexpr() } },
  ({ x, out, n, ROWS, BLOCK }) => {
    const r = programId(0).mul(ROWS).add(arange(0, ROWS)).expandDims(1);
    const c = arange(0, BLOCK).expandDims(0);
    const offs = r.mul(n).add(c);
    const mask = c.lt(n).broadcastTo([ROWS as number, BLOCK as number]);
    const v = load(x.add(offs), { mask, other: 0 }).to('f32');
    const ms = v.mul(v).sum(1).div(n.to('f32'));
    store(out.add(offs), v.mul(ms.add(1e-6).rsqrt().expandDims(1)).to('bf16'), { mask });
  },
);

const scan = defineKernel(
  { name: 'cumsum', params: { x: ptr('i32'), out: ptr('i32'), BLOCK: constexpr() } },
  ({ x, out, BLOCK }) => {
    const i = arange(0, BLOCK);
    store(out.add(i), cumsum(load(x.add(i)), 0));
  },
);

// TF32 picks the dot's inputPrecision: 0 'ieee' (exact f32, FMA), 1 'tf32' (the default: tensor cores)
const matmul = defineKernel(
  { name: 'matmul', params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(), TF32: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK, TF32 }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM)).expandDims(1);
    const rn = programId(1).mul(BN).add(arange(0, BN)).expandDims(0);
    const rk = arange(0, BK);
    const [acc] = range(0, K.floordiv(BK), [zeros([BM as number, BN as number])], (kk, acc) => {
      const k0 = kk.mul(BK).add(rk);
      const av = load(a.add(rm.mul(K).add(k0.expandDims(0))));
      const bv = load(b.add(k0.expandDims(1).mul(N).add(rn)));
      return [dot(av, bv, { acc, inputPrecision: TF32 ? 'tf32' : 'ieee' })];
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

describe('front-end kernels through the whole pipeline and ptxas', () => {
  it('vector add: 128-bit accesses with the aligned specialization', () => {
    const { sm80, sm90 } = gate(add.trace({ BLOCK: 1024 }), { specialization: ALIGNED('x', 'y', 'out', 'n') });
    for (const r of [sm80, sm90]) {
      expect(count(r.ptx, /ld\.global\.v4\.f32/)).toBe(4);
      expect(count(r.ptx, /st\.global\.v4\.f32/)).toBe(2);
    }
  });
  it('softmax', () => {
    const { sm90 } = gate(softmax.trace({ BLOCK: 1024 }), { specialization: ALIGNED('x', 'out', 'n', 'stride') });
    expect(count(sm90.ptx, /ld\.global\.v4\.f32/)).toBe(2);
    expect(sm90.ptx).not.toMatch(/convert_layout/);
  });
  it('layernorm (f16 in, f32 math)', () => {
    const { sm80 } = gate(layernorm.trace({ BLOCK: 2048 }), { specialization: ALIGNED('x', 'w', 'out', 'n'), numWarps: 8 });
    expect(sm80.ptx).toMatch(/ld\.global\.v4\.b32/);
    // neighbouring elements rounded two at a time (lower_cast.ts castPairs)
    expect(sm80.ptx).toMatch(/cvt\.rn\.f16x2\.f32/);
  });
  it('rmsnorm (bf16, 2-D rows)', () => {
    const { sm80 } = gate(rmsnorm.trace({ ROWS: 4, BLOCK: 256 }), { specialization: ALIGNED('x', 'out', 'n') });
    expect(sm80.ptx).toMatch(/cvt\.rn\.bf16x2\.f32/);
    expect(sm80.ptx).not.toMatch(/convert_layout/);
  });
  it('cumsum', () => {
    gate(scan.trace({ BLOCK: 512 }));
  });
  it('compile() also takes a kernel definition and its constexprs', () => {
    const r = compile(scan, { target: 'sm_90', constexprs: { BLOCK: 256 }, ptxas: false });
    expect(r.metadata.name).toBe('cumsum');
    expect(r.ptx).toMatch(/\.entry cumsum\(/);
  });
  it("FMA matmul (inputPrecision 'ieee')", () => {
    const { sm80 } = gate(matmul.trace({ BM: 32, BN: 32, BK: 16, TF32: 0 }));
    // 32x32 accumulator over 128 threads: a 2x4 block per thread -> 8 FMAs from 2 + 4 shared loads
    expect(count(sm80.ptx, /fma\.rn\.f32/)).toBe(8);
    expect(count(sm80.ptx, /ld\.shared/)).toBe(6 + 8);
    expect(count(sm80.ptx, /convert_layout/)).toBe(1); // the accumulator to the store's layout, once after the loop
  });
  it("the same f32 matmul with inputPrecision 'tf32' (the default) runs on tensor cores", () => {
    const { sm80 } = gate(matmul.trace({ BM: 32, BN: 32, BK: 16, TF32: 1 }));
    // 2x2 warps, each one m16 tile x two n8 tiles, 2 k8 steps
    expect(count(sm80.ptx, /mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32/)).toBe(4);
    expect(sm80.ptx).not.toMatch(/fma\.rn\.f32/);
  });
  it('histogram with masked atomics', () => {
    const { sm90 } = gate(histogram.trace({ BLOCK: 256 }));
    expect(sm90.ptx).toMatch(/@%p\d+ atom\.acq_rel\.gpu\.global\.add\.u32/);
  });
});
