// cosineTopK(query[Q, D], matrix[N, D], k) -> { indices i32[Q, k], scores f32[Q, k] }: vector
// search. Three queued kernels: the inverse L2 norm of every row of both inputs (f32; a zero row's
// is 0, so its scores are 0), the scores q·m / (|q| |m|) as a matmul of query and matrix^T (tensor
// cores for f16/bf16, exact FMA for f32) with the two norms fused into its epilogue, then topk of
// each query's scores (descending, ties to the lower index).
import type { DType } from '../ir/types.js';
import { arange, constexpr, dot, forLoop, load, programId, ptr, sqrtRn, divRn, store, sum, where, zeros, type Tile } from '../lang/index.js';
import { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkIndexable, checkInt, checkOptions, FLOATS, OpsError, sameDevice, type OpOptions } from './check.js';
import { launchNothing, run, settleAll } from './launch.js';
import { MATMUL_TUNING } from './matmul.js';
import { rowConfig } from './rows.js';
import { MAX_TOPK, queueTopk } from './topk.js';
import { pick } from './tuning.js';

export interface CosineTopKResult { readonly indices: DeviceArray<'i32'>; readonly scores: DeviceArray<'f32'> }

const kernels = new Map<string, Kernel>();

function invNormKernel(dt: DType): Kernel {
  const name = `ops_inv_norm_${dt}`;
  let k = kernels.get(name);
  if (!k) {
    k = kernel({ name, params: { x: ptr(dt), y: ptr('f32'), D: 'i32', BLOCK: constexpr() } }, ({ x, y, D, BLOCK }) => {
      const row = programId(0);
      const base = row.to('i64').mul(D);
      const cols = arange(0, BLOCK);
      const [ss] = forLoop(0, D, BLOCK, [zeros([BLOCK], 'f32')], (c0, acc) => {
        const offs = c0.add(cols);
        const v = load(x.add(base).add(offs), { mask: offs.lt(D), other: 0 }).to('f32');
        return [acc!.add(v.mul(v))];
      });
      const s = sum(ss!, 0);
      store(y.add(row), where(s.gt(0), divRn(1, sqrtRn(s)), 0));
    });
    kernels.set(name, k);
  }
  return k;
}

function scoresKernel(dt: DType): Kernel {
  const name = `ops_cosine_scores_${dt}`;
  let k = kernels.get(name);
  if (!k) {
    k = kernel({
      name, params: { a: ptr(dt), b: ptr(dt), na: ptr('f32'), nb: ptr('f32'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() },
    }, ({ a, b, na, nb, c, M, N, K, BM, BN, BK }) => {
      const rm = programId(0).mul(BM).add(arange(0, BM));
      const rn = programId(1).mul(BN).add(arange(0, BN));
      const rk = arange(0, BK);
      const mIn = rm.expandDims(1).lt(M), nIn = rn.expandDims(0).lt(N);
      const [acc] = forLoop(0, K, BK, [zeros([BM, BN], 'f32')], (k0, acc) => {
        const ka = k0.add(rk);
        const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: mIn.logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
        const tb = load(b.add(rn.expandDims(0).mul(K).add(ka.expandDims(1))), { mask: ka.expandDims(1).lt(K).logicalAnd(nIn), other: 0 });
        return [dot(ta, tb, dt === 'f32' ? { acc: acc!, inputPrecision: 'ieee' } : { acc: acc! })];
      });
      const sa: Tile = load(na.add(rm), { mask: rm.lt(M), other: 0 }).expandDims(1);
      const sb: Tile = load(nb.add(rn), { mask: rn.lt(N), other: 0 }).expandDims(0);
      store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!.mul(sa).mul(sb), { mask: mIn.logicalAnd(nIn) });
    });
    kernels.set(name, k);
  }
  return k;
}

/** The k rows of `matrix` most similar (cosine) to each query row, best first; k in 1..min(N, 1024). */
export function cosineTopK(query: DeviceArray, matrix: DeviceArray, k: number, opts?: OpOptions): Future<CosineTopKResult> {
  const op = 'cosineTopK';
  const o = checkOptions(op, opts, ['stream']) as OpOptions;
  checkArray(op, 'query', query, 2, FLOATS);
  const [Q, D] = query.shape as [number, number];
  checkArray(op, 'matrix', matrix, 2, [query.dtype], [null, D]);
  const N = matrix.shape[0]!;
  if (N === 0) throw new OpsError('E_OPS_SHAPE', op, 'matrix', 'has no rows (nothing to search)');
  checkInt(op, 'k', k, 1, Math.min(N, MAX_TOPK));
  const device = sameDevice(op, { query, matrix });
  checkIndexable(op, { query, matrix });
  if (Q * N >= 2 ** 31) throw new OpsError('E_OPS_SHAPE', op, 'matrix', `${Q} queries x ${N} rows of scores: more than an i32 index reaches`);
  const indices = DeviceArray.empty([Q, k], 'i32', { device });
  const scoresOut = DeviceArray.empty([Q, k], 'f32', { device });
  const result = { indices, scores: scoresOut };
  if (Q === 0) return launchNothing(result);
  const s = o.stream;
  const nq = DeviceArray.empty([Q], 'f32', { device }), nm = DeviceArray.empty([N], 'f32', { device });
  const scores = DeviceArray.empty([Q, N], 'f32', { device });
  const rc = rowConfig(device, D);
  const runs = [
    run(invNormKernel(query.dtype), { x: query, y: nq, D, BLOCK: rc.BLOCK }, rc, Q, device, s),
    run(invNormKernel(query.dtype), { x: matrix, y: nm, D, BLOCK: rc.BLOCK }, rc, N, device, s),
  ];
  const mc = pick(MATMUL_TUNING, device, { M: Q, N, K: D, dtype: query.dtype });
  runs.push(run(scoresKernel(query.dtype), { a: query, b: matrix, na: nq, nb: nm, c: scores, M: Q, N, K: D, ...mc.constexprs }, mc,
    [Math.ceil(Q / mc.constexprs.BM), Math.ceil(N / mc.constexprs.BN)], device, s));
  runs.push(queueTopk(scores, k, scoresOut, indices, device, s));
  for (const a of [nq, nm, scores]) a.free(); // deferred until the queued work is done
  return settleAll(runs, result);
}
