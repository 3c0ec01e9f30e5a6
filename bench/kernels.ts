// The benchmark kernels, written in the kernel language (src/lang); tests and examples reuse them.
// Each entry has the kernel, the constexprs it is compiled with, and a Triton twin (Python source
// and signature) so bench/compile.ts can time the same kernel through Triton.
import {
  arange, constexpr, cumsum, defineKernel, dot, exp, forLoop, full, load, max, maximum, programId, ptr, store, sum, where, zeros,
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
  /**
   * Launch-shape options given to both compilers (default 4 warps; numStages: Triton's default,
   * 3, when absent). Tessera receives numStages through its compile options where it has one.
   */
  readonly options?: { readonly numWarps?: number; readonly numStages?: number };
  /**
   * Parameters specialized as divisible by 16, as a launch with 16-byte aligned arrays and sizes
   * that are multiples of 16 gets them (Tessera's launcher and Triton's "D" specialization alike).
   */
  readonly divisible?: readonly string[];
  /** The same kernel in Triton: Python source of a @triton.jit function and its signature. */
  readonly triton: { readonly src: string; readonly signature: Readonly<Record<string, string>> };
}

const TRITON_HEADER = 'import triton\nimport triton.language as tl\n\n@triton.jit\n';

const FMA_KERNELS: readonly BenchKernel[] = [
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

// ---- tensor-core kernels (f16 and bf16; dots on mma.sync + ldmatrix) ----------------------------
// Written once per half type; bench/tc_vs_triton.ts compares each with its Triton twin below and
// test/e2e/matmul_tc.test.ts runs them on the sim against JS references.

export type Half = 'f16' | 'bf16';
export const HALVES: readonly Half[] = ['f16', 'bf16'];
const perHalf = <T>(make: (t: Half) => T): Readonly<Record<Half, T>> => ({ f16: make('f16'), bf16: make('bf16') });

const mmParams = (t: Half) => ({
  a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(),
} as const);

/** C = A @ B with every access masked: M, N and K need not be multiples of the tile. */
export const matmulMasked = perHalf((t) => defineKernel(
  { name: `mm_masked_${t}`, params: mmParams(t) },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM, BN], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
));

/** C = A @ B without masks (M, N, K multiples of the tile): the loop the pipeliner targets. */
export const matmulAligned = perHalf((t) => defineKernel(
  { name: `mm_aligned_${t}`, params: mmParams(t) },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM, BN], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
));

/** Batched C[z] = A[z] @ B[z], batch z = programId(2), aligned tiles. */
export const matmulBatched = perHalf((t) => defineKernel(
  { name: `mm_batched_${t}`, params: mmParams(t) },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const z = programId(2);
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const pa = a.add(z.mul(M).mul(K)), pb = b.add(z.mul(K).mul(N)), pc = c.add(z.mul(M).mul(N));
    const [acc] = forLoop(0, K, BK, [zeros([BM, BN], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(pa.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(pb.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(pc.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
));

/**
 * Flash-attention forward, one head: a program per BM query rows, online softmax over BN-key
 * blocks; the loop carries m_i (row max), l_i (row sum) and acc, and holds two dots
 * (S = Q K^T, then acc += P V with P rounded to the half type). L is a multiple of BN.
 */
export const flashAttention = perHalf((t) => defineKernel(
  { name: `flash_fwd_${t}`, params: { q: ptr(t), k: ptr(t), v: ptr(t), o: ptr('f32'), L: 'i32', scale: 'f32', BM: constexpr(), BN: constexpr(), D: constexpr() } },
  ({ q, k, v, o, L, scale, BM, BN, D }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = arange(0, BN);
    const rd = arange(0, D);
    const qv = load(q.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))));
    const init = [full([BM], -Infinity, 'f32'), zeros([BM], 'f32'), zeros([BM, D], 'f32')];
    const [, l, acc] = forLoop(0, L, BN, init, (j, m, l, acc) => {
      const kn = j.add(rn);
      const kt = load(k.add(kn.expandDims(0).mul(D).add(rd.expandDims(1)))); // [D, BN] = K^T block
      const vv = load(v.add(kn.expandDims(1).mul(D).add(rd.expandDims(0)))); // [BN, D]
      const s = dot(qv, kt).mul(scale);
      const mNew = maximum(m!, max(s, 1));
      const alpha = exp(m!.sub(mNew));
      const p = exp(s.sub(mNew.expandDims(1)));
      return [mNew, l!.mul(alpha).add(sum(p, 1)), acc!.mul(alpha.expandDims(1)).add(dot(p.to(t), vv))];
    });
    store(o.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))), acc!.div(l!.expandDims(1)));
  },
));

const TL_HALF: Record<Half, string> = { f16: 'tl.float16', bf16: 'tl.bfloat16' };
const SIG_HALF: Record<Half, string> = { f16: '*fp16', bf16: '*bf16' };
const mmSignature = (t: Half) => ({ a: SIG_HALF[t], b: SIG_HALF[t], c: '*fp32', M: 'i32', N: 'i32', K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr' });
/** Tile sizes shared by both compilers: 64x64 output tiles, k-steps of 32, 4 warps (Triton's tutorial sizes for a small tile). */
const MM_TILE = { BM: 64, BN: 64, BK: 32 } as const;

/** The tensor-core kernels with their Triton twins: same tiles, numWarps and numStages. */
export const TC_KERNELS: readonly BenchKernel[] = HALVES.flatMap((t): BenchKernel[] => [
  {
    def: matmulMasked[t] as unknown as KernelDef, constexprs: MM_TILE, options: { numWarps: 4, numStages: 3 }, divisible: ['a', 'b', 'c'],
    triton: {
      src: `${TRITON_HEADER}def mm_masked_${t}(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = k + rk
        ta = tl.load(a + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        tb = tl.load(b + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(ta, tb, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
`,
      signature: mmSignature(t),
    },
  },
  {
    def: matmulAligned[t] as unknown as KernelDef, constexprs: MM_TILE, options: { numWarps: 4, numStages: 3 }, divisible: ['a', 'b', 'c', 'M', 'N', 'K'],
    triton: {
      src: `${TRITON_HEADER}def mm_aligned_${t}(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = k + rk
        ta = tl.load(a + rm[:, None] * K + ka[None, :])
        tb = tl.load(b + ka[:, None] * N + rn[None, :])
        acc = tl.dot(ta, tb, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)
`,
      signature: mmSignature(t),
    },
  },
  {
    def: matmulBatched[t] as unknown as KernelDef, constexprs: MM_TILE, options: { numWarps: 4, numStages: 3 }, divisible: ['a', 'b', 'c', 'M', 'N', 'K'],
    triton: {
      src: `${TRITON_HEADER}def mm_batched_${t}(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    z = tl.program_id(2)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pa = a + z * M * K
    pb = b + z * K * N
    pc = c + z * M * N
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = k + rk
        ta = tl.load(pa + rm[:, None] * K + ka[None, :])
        tb = tl.load(pb + ka[:, None] * N + rn[None, :])
        acc = tl.dot(ta, tb, acc)
    tl.store(pc + rm[:, None] * N + rn[None, :], acc)
`,
      signature: mmSignature(t),
    },
  },
  {
    def: flashAttention[t] as unknown as KernelDef, constexprs: { BM: 64, BN: 64, D: 64 }, options: { numWarps: 4, numStages: 3 }, divisible: ['q', 'k', 'v', 'o', 'L'],
    triton: {
      src: `${TRITON_HEADER}def flash_fwd_${t}(q, k, v, o, L, scale, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    qv = tl.load(q + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for j in range(0, L, BN):
        kn = j + rn
        kt = tl.load(k + kn[None, :] * D + rd[:, None])
        vv = tl.load(v + kn[:, None] * D + rd[None, :])
        s = tl.dot(qv, kt) * scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(${TL_HALF[t]}), vv)
        m_i = m_new
    tl.store(o + rm[:, None] * D + rd[None, :], acc / l_i[:, None])
`,
      signature: { q: SIG_HALF[t], k: SIG_HALF[t], v: SIG_HALF[t], o: '*fp32', L: 'i32', scale: 'fp32', BM: 'constexpr', BN: 'constexpr', D: 'constexpr' },
    },
  },
]);

/** C = A @ B on f8e4m3 inputs (f32 accumulator), aligned tiles: the fp8 row of `bench:tc --target sm_90a`. */
export const matmulFp8 = defineKernel(
  { name: 'mm_aligned_f8e4m3', params: { a: ptr('f8e4m3'), b: ptr('f8e4m3'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM, BN], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

/**
 * fp8 tensor-core kernels with their Triton twins (Triton's e4m3 is `fp8e4nv`, which it compiles
 * for cc >= 89 only, so these rows are in the sm_90a comparison). k-steps of 64 bytes, as for f16.
 */
export const TC_FP8_KERNELS: readonly BenchKernel[] = [
  {
    def: matmulFp8 as unknown as KernelDef, constexprs: { BM: 64, BN: 64, BK: 64 }, options: { numWarps: 4, numStages: 3 }, divisible: ['a', 'b', 'c', 'M', 'N', 'K'],
    triton: {
      src: `${TRITON_HEADER}def mm_aligned_f8e4m3(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = k + rk
        ta = tl.load(a + rm[:, None] * K + ka[None, :])
        tb = tl.load(b + ka[:, None] * N + rn[None, :])
        acc = tl.dot(ta, tb, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)
`,
      signature: { a: '*fp8e4nv', b: '*fp8e4nv', c: '*fp32', M: 'i32', N: 'i32', K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr' },
    },
  },
];

/** Every benchmark kernel: the FMA-path kernels above, then the tensor-core ones. */
export const BENCH_KERNELS: readonly BenchKernel[] = [...FMA_KERNELS, ...TC_KERNELS];
