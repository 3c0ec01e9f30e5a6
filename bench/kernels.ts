// The benchmark kernels, written in the kernel language (src/lang); tests and examples reuse them.
// Each entry has the kernel, the constexprs it is compiled with, and a Triton twin (Python source
// and signature) so bench/compile.ts can time the same kernel through Triton.
import {
  arange, constexpr, cumsum, defineKernel, dot, forLoop, load, max, programId, ptr, store, sum, where, zeros,
  type KernelDef,
} from '../src/lang/index.js';

export const vectorAdd = defineKernel(
  { name: 'vector_add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, y, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    store(out.add(offs), load(x.add(offs), { mask }).add(load(y.add(offs), { mask })), { mask });
  },
);

/** Row softmax, one row per program (BLOCK >= ncols). */
export const softmax = defineKernel(
  { name: 'softmax', params: { x: ptr('f32'), out: ptr('f32'), stride: 'i32', ncols: 'i32', BLOCK: constexpr() } },
  ({ x, out, stride, ncols, BLOCK }) => {
    const row = programId(0);
    const cols = arange(0, BLOCK);
    const mask = cols.lt(ncols);
    const v = load(x.add(row.mul(stride).add(cols)), { mask, other: -Infinity });
    const num = v.sub(max(v, 0)).exp();
    store(out.add(row.mul(stride).add(cols)), num.div(sum(num, 0)), { mask });
  },
);

/** LayerNorm over rows: (x - mean) * rstd * w + b. */
export const layerNorm = defineKernel(
  {
    name: 'layer_norm',
    params: { x: ptr('f32'), w: ptr('f32'), b: ptr('f32'), out: ptr('f32'), stride: 'i32', ncols: 'i32', eps: 'f32', BLOCK: constexpr() },
  },
  ({ x, w, b, out, stride, ncols, eps, BLOCK }) => {
    const row = programId(0);
    const cols = arange(0, BLOCK);
    const mask = cols.lt(ncols);
    const n = ncols.to('f32');
    const v = load(x.add(row.mul(stride).add(cols)), { mask, other: 0 });
    const mean = sum(v, 0).div(n);
    const xm = where(mask, v.sub(mean), 0);
    const rstd = sum(xm.mul(xm), 0).div(n).add(eps).rsqrt();
    const y = xm.mul(rstd).mul(load(w.add(cols), { mask })).add(load(b.add(cols), { mask }));
    store(out.add(row.mul(stride).add(cols)), y, { mask });
  },
);

/** RMSNorm over rows: x * rsqrt(mean(x^2) + eps) * w. */
export const rmsNorm = defineKernel(
  { name: 'rms_norm', params: { x: ptr('f32'), w: ptr('f32'), out: ptr('f32'), stride: 'i32', ncols: 'i32', eps: 'f32', BLOCK: constexpr() } },
  ({ x, w, out, stride, ncols, eps, BLOCK }) => {
    const row = programId(0);
    const cols = arange(0, BLOCK);
    const mask = cols.lt(ncols);
    const v = load(x.add(row.mul(stride).add(cols)), { mask, other: 0 });
    const rstd = sum(v.mul(v), 0).div(ncols.to('f32')).add(eps).rsqrt();
    store(out.add(row.mul(stride).add(cols)), v.mul(rstd).mul(load(w.add(cols), { mask })), { mask });
  },
);

/** Inclusive prefix sum of one block per program. */
export const cumsumBlock = defineKernel(
  { name: 'cumsum', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    store(out.add(offs), cumsum(load(x.add(offs), { mask, other: 0 }), 0), { mask });
  },
);

/** C = A @ B (row-major, f32), one BM x BN tile per program, K in steps of BK; dot lowered to FMA. */
export const matmul = defineKernel(
  {
    name: 'matmul',
    params: {
      a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32',
      BM: constexpr(), BN: constexpr(), BK: constexpr(),
    },
  },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM, BN], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      // exact f32 (FMA), like the Triton twin below (input_precision="ieee")
      return dot(ta, tb, { acc: acc!, inputPrecision: 'ieee' });
    });
    const cm = rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N));
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: cm });
  },
);

export interface BenchKernel {
  readonly def: KernelDef;
  readonly constexprs: Readonly<Record<string, number>>;
  /** The same kernel in Triton: Python source of a @triton.jit function and its signature. */
  readonly triton: { readonly src: string; readonly signature: Readonly<Record<string, string>> };
}

const TRITON_HEADER = 'import triton\nimport triton.language as tl\n\n@triton.jit\n';

export const BENCH_KERNELS: readonly BenchKernel[] = [
  {
    def: vectorAdd as unknown as KernelDef, constexprs: { BLOCK: 1024 },
    triton: {
      src: `${TRITON_HEADER}def vector_add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)
`,
      signature: { x: '*fp32', y: '*fp32', out: '*fp32', n: 'i32', BLOCK: 'constexpr' },
    },
  },
  {
    def: softmax as unknown as KernelDef, constexprs: { BLOCK: 1024 },
    triton: {
      src: `${TRITON_HEADER}def softmax(x, out, stride, ncols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    v = tl.load(x + row * stride + cols, mask=mask, other=-float('inf'))
    num = tl.exp(v - tl.max(v, 0))
    tl.store(out + row * stride + cols, num / tl.sum(num, 0), mask=mask)
`,
      signature: { x: '*fp32', out: '*fp32', stride: 'i32', ncols: 'i32', BLOCK: 'constexpr' },
    },
  },
  {
    def: layerNorm as unknown as KernelDef, constexprs: { BLOCK: 1024 },
    triton: {
      src: `${TRITON_HEADER}def layer_norm(x, w, b, out, stride, ncols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    n = ncols.to(tl.float32)
    v = tl.load(x + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(v, 0) / n
    xm = tl.where(mask, v - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(xm * xm, 0) / n + eps)
    y = xm * rstd * tl.load(w + cols, mask=mask) + tl.load(b + cols, mask=mask)
    tl.store(out + row * stride + cols, y, mask=mask)
`,
      signature: { x: '*fp32', w: '*fp32', b: '*fp32', out: '*fp32', stride: 'i32', ncols: 'i32', eps: 'fp32', BLOCK: 'constexpr' },
    },
  },
  {
    def: rmsNorm as unknown as KernelDef, constexprs: { BLOCK: 1024 },
    triton: {
      src: `${TRITON_HEADER}def rms_norm(x, w, out, stride, ncols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    v = tl.load(x + row * stride + cols, mask=mask, other=0.0)
    rstd = tl.rsqrt(tl.sum(v * v, 0) / ncols.to(tl.float32) + eps)
    tl.store(out + row * stride + cols, v * rstd * tl.load(w + cols, mask=mask), mask=mask)
`,
      signature: { x: '*fp32', w: '*fp32', out: '*fp32', stride: 'i32', ncols: 'i32', eps: 'fp32', BLOCK: 'constexpr' },
    },
  },
  {
    def: cumsumBlock as unknown as KernelDef, constexprs: { BLOCK: 1024 },
    triton: {
      src: `${TRITON_HEADER}def cumsum(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.cumsum(tl.load(x + offs, mask=mask, other=0.0), 0), mask=mask)
`,
      signature: { x: '*fp32', out: '*fp32', n: 'i32', BLOCK: 'constexpr' },
    },
  },
  {
    def: matmul as unknown as KernelDef, constexprs: { BM: 32, BN: 32, BK: 8 },
    triton: {
      src: `${TRITON_HEADER}def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = k + rk
        ta = tl.load(a + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        tb = tl.load(b + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(ta, tb, acc, input_precision="ieee")
    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
`,
      signature: { a: '*fp32', b: '*fp32', c: '*fp32', M: 'i32', N: 'i32', K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr' },
    },
  },
];
