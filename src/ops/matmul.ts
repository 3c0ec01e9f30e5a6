// matmul(a[M,K], b[K,N] | b[N,K] with transB, { bias?, activation?, out? }) -> c[M,N]: one
// BM x BN tile of c per program, K in steps of BK through `dot` (tensor cores for f16/bf16/fp8:
// mma.sync on sm_80, wgmma on sm_90a where the tile fits; exact f32 FMA for f32), accumulated in
// f32; the epilogue (bias, activation, the cast to the output dtype) is fused into the store.
import { isFp8, type DType } from '../ir/types.js';
import { arange, constexpr, dot, erf, zeros, forLoop, load, maximum, programId, ptr, sigmoid, store, type KernelParamSpec, type Tile } from '../lang/index.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel, type RunArgs } from '../runtime/kernel.js';
import type { DeviceArray } from '../runtime/device_array.js';
import { checkArray, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { pick, type TuningTable } from './tuning.js';
import { launch, launchNothing } from './launch.js';

export type Activation = 'gelu' | 'silu' | 'relu';
export const ACTIVATIONS: readonly Activation[] = ['gelu', 'silu', 'relu'];
const MATMUL_IN: readonly DType[] = [...FLOATS, 'f8e4m3', 'f8e5m2'];

export interface MatmulOptions extends OpOptions {
  /** [N], added to every row before the activation (a's dtype, or f32; fp8 inputs: f16, bf16 or f32). */
  readonly bias?: DeviceArray;
  readonly activation?: Activation;
  /** b is [N, K] (a Linear layer's weight as stored by PyTorch): c = a @ b^T. */
  readonly transB?: boolean;
  /** The result array [M, N] (else a new one). Its dtype is the result dtype. */
  readonly out?: DeviceArray;
  /** The result dtype for fp8 inputs (default f16); other inputs give a's dtype. */
  readonly outDtype?: 'f16' | 'bf16' | 'f32';
}

export interface MatmulProblem { readonly M: number; readonly N: number; readonly K: number; readonly dtype: DType }
type MatmulConstexprs = { BM: number; BN: number; BK: number };

/**
 * Tiles per target, most specialised first. Small M (decode: M = batch) takes 16-row tiles so a
 * one-token step does not pay for 64 rows of zeros; f32 (exact FMA, no tensor cores) keeps the
 * register tile small.
 */
export const MATMUL_TUNING: TuningTable<MatmulConstexprs, MatmulProblem> = {
  sm_80: [
    { constexprs: { BM: 128, BN: 128, BK: 32 }, numWarps: 8, numStages: 3, fits: (p) => p.dtype !== 'f32' && p.M >= 128 && p.N >= 128 },
    { constexprs: { BM: 64, BN: 64, BK: 32 }, numWarps: 4, numStages: 3, fits: (p) => p.M >= 64 },
    { constexprs: { BM: 16, BN: 64, BK: 64 }, numWarps: 4, numStages: 3, fits: (p) => p.M <= 16 },
    { constexprs: { BM: 32, BN: 64, BK: 32 }, numWarps: 4, numStages: 3 },
  ],
  sm_90a: [
    { constexprs: { BM: 128, BN: 128, BK: 64 }, numWarps: 8, numStages: 3, fits: (p) => p.dtype !== 'f32' && p.M >= 128 && p.N >= 128 },
    { constexprs: { BM: 64, BN: 128, BK: 64 }, numWarps: 4, numStages: 3, fits: (p) => p.dtype !== 'f32' && p.M >= 64 && p.N >= 128 },
    { constexprs: { BM: 64, BN: 64, BK: 32 }, numWarps: 4, numStages: 3, fits: (p) => p.M >= 64 },
    { constexprs: { BM: 16, BN: 64, BK: 64 }, numWarps: 4, numStages: 3, fits: (p) => p.M <= 16 },
    { constexprs: { BM: 32, BN: 64, BK: 32 }, numWarps: 4, numStages: 3 },
  ],
};

/** The epilogue's activation on the f32 accumulator. gelu is the exact (erf) form, as PyTorch's default. */
function activate(x: Tile, act: Activation | 'none'): Tile {
  switch (act) {
    case 'gelu': return x.mul(0.5).mul(erf(x.mul(Math.SQRT1_2)).add(1));
    case 'silu': return x.mul(sigmoid(x));
    case 'relu': return maximum(x, 0);
    case 'none': return x;
  }
}

const kernels = new Map<string, Kernel>();

/** The kernel for one combination of dtypes, layout and epilogue (traced once, cached). */
function matmulKernel(ab: DType, out: DType, bias: DType | null, act: Activation | 'none', transB: boolean): Kernel {
  const name = `ops_matmul_${ab}_${out}_${transB ? 'nt' : 'nn'}_${bias ?? 'nobias'}_${act}`;
  let k = kernels.get(name);
  if (k) return k;
  const params: Record<string, KernelParamSpec> = {
    a: ptr(ab), b: ptr(ab), c: ptr(out), ...(bias ? { bias: ptr(bias) } : {}),
    M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr(),
  };
  k = kernel({ name, params }, (p) => {
    const { a, b, c, M, N, K, BM, BN, BK } = p as unknown as Record<string, Tile> & { BM: number; BN: number; BK: number };
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const mIn = rm.expandDims(1).lt(M!), nIn = rn.expandDims(0).lt(N!);
    const [acc] = forLoop(0, K!, BK, [zeros([BM, BN], 'f32')], (k0, acc) => {
      const ka = k0.add(rk);
      const ta = load(a!.add(rm.expandDims(1).mul(K!).add(ka.expandDims(0))), { mask: mIn.logicalAnd(ka.expandDims(0).lt(K!)), other: 0 });
      // b's [BK, BN] tile: b[k, n] at k*N + n, or with transB b[n, k] at n*K + k
      const bOff = transB ? rn.expandDims(0).mul(K!).add(ka.expandDims(1)) : ka.expandDims(1).mul(N!).add(rn.expandDims(0));
      const tb = load(b!.add(bOff), { mask: ka.expandDims(1).lt(K!).logicalAnd(nIn), other: 0 });
      return [dot(ta, tb, ab === 'f32' ? { acc: acc!, inputPrecision: 'ieee' } : { acc: acc! })];
    });
    let y = acc!;
    if (bias) y = y.add(load((p['bias'] as unknown as Tile).add(rn), { mask: rn.lt(N!), other: 0 }).to('f32').expandDims(0));
    y = activate(y, act);
    store(c!.add(rm.expandDims(1).mul(N!).add(rn.expandDims(0))), y.to(out), { mask: mIn.logicalAnd(nIn) });
  });
  kernels.set(name, k);
  return k;
}

/**
 * c = activation(a @ b + bias), or a @ b^T with transB. a [M,K] and b of one dtype (f32, f16,
 * bf16, f8e4m3, f8e5m2); the result has a's dtype (fp8: `outDtype`, default f16).
 */
export function matmul<D extends DType>(a: DeviceArray<D>, b: DeviceArray, opts?: MatmulOptions): Future<DeviceArray<D extends 'f8e4m3' | 'f8e5m2' ? DType : D>> {
  const op = 'matmul';
  const o = checkOptions(op, opts, ['bias', 'activation', 'transB', 'out', 'outDtype', 'stream']) as MatmulOptions;
  checkArray(op, 'a', a, 2, MATMUL_IN);
  const [M, K] = a.shape as [number, number];
  const transB = o.transB ?? false;
  if (typeof transB !== 'boolean') throw new OpsError('E_OPS_ARG', op, 'transB', `expected a boolean, got ${typeof transB}`);
  checkArray(op, 'b', b, 2, MATMUL_IN);
  if (b.dtype !== a.dtype) throw new OpsError('E_OPS_DTYPE', op, 'b', `has dtype ${b.dtype}, a has ${a.dtype} (both inputs take one dtype)`);
  const bK = transB ? b.shape[1]! : b.shape[0]!;
  const N = transB ? b.shape[0]! : b.shape[1]!;
  if (bK !== K) throw new OpsError('E_OPS_SHAPE', op, 'b', `${transB ? '[N, K] (transB)' : '[K, N]'} has K = ${bK}, a [M, K] has K = ${K}`);
  const fp8 = isFp8(a.dtype);
  if (o.outDtype !== undefined && (!fp8 || !['f16', 'bf16', 'f32'].includes(o.outDtype))) {
    throw new OpsError('E_OPS_ARG', op, 'outDtype', fp8 ? `expected f16, bf16 or f32, got ${String(o.outDtype)}` : `only for fp8 inputs (the result of ${a.dtype} inputs is ${a.dtype})`);
  }
  const outDt: DType = fp8 ? (o.outDtype ?? 'f16') : a.dtype;
  if (o.bias !== undefined) checkArray(op, 'bias', o.bias, 1, fp8 ? ['f16', 'bf16', 'f32'] : [a.dtype, 'f32'], [N]);
  const act = o.activation ?? 'none';
  if (act !== 'none' && !ACTIVATIONS.includes(act)) throw new OpsError('E_OPS_ARG', op, 'activation', `expected ${ACTIVATIONS.join(', ')}, got ${String(act)}`);
  const device = sameDevice(op, { a, b, bias: o.bias, out: o.out });
  const c = outArray(op, o.out, [M, N], outDt, device) as DeviceArray<D extends 'f8e4m3' | 'f8e5m2' ? DType : D>;
  if (M === 0 || N === 0) return launchNothing(c);
  const cfg = pick(MATMUL_TUNING, device, { M, N, K, dtype: a.dtype });
  const k = matmulKernel(a.dtype, outDt, o.bias ? o.bias.dtype : null, act, transB);
  const args: RunArgs = { a, b, c, M, N, K, ...cfg.constexprs, ...(o.bias ? { bias: o.bias } : {}) };
  return launch(k, args, cfg, [Math.ceil(M / cfg.constexprs.BM), Math.ceil(N / cfg.constexprs.BN)], device, o.stream, c);
}
