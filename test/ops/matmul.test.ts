// ops.matmul against an f64 reference at ragged sizes (no dimension a multiple of a tile), on the
// interpreter and the sim (sm_80 code; matmul_sm90.test.ts runs the sm_90a code), for each input
// dtype, layout and epilogue. Bound per element: the output's rounding (unit u of the result
// dtype times |ref|) plus f32 accumulation, (K + 16) * 2^-23 * sum_k |a_ik b_kj| (the +16 covers
// the activation's own f32 error); inputs are exact values of their dtype.
import { describe, expect, it } from 'vitest';
import { erf } from '../../src/interpret/float.js';
import type { DType } from '../../src/ir/types.js';
import { ops } from '../../src/index.js';
import type { Activation } from '../../src/ops/matmul.js';
import { DEVICES, devArray, expectWithin, randValues, UNIT, values } from './helpers.js';

export function matmulRef(a: ArrayLike<number>, b: ArrayLike<number>, M: number, N: number, K: number, transB: boolean, bias?: ArrayLike<number>, act?: Activation) {
  const value = new Float64Array(M * N), mag = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = bias ? bias[j]! : 0, m = Math.abs(s);
    for (let k = 0; k < K; k++) {
      const p = a[i * K + k]! * (transB ? b[j * K + k]! : b[k * N + j]!);
      s += p;
      m += Math.abs(p);
    }
    if (act === 'relu') s = Math.max(s, 0);
    else if (act === 'silu') s = s / (1 + Math.exp(-s));
    else if (act === 'gelu') s = 0.5 * s * (1 + erf(s / Math.SQRT2));
    value[i * N + j] = s;
    mag[i * N + j] = m;
  }
  return { value, mag };
}

/** Runs one matmul on `device` and checks it against the reference. */
export async function checkMatmul(device: string, dtype: DType, M: number, N: number, K: number, o: { transB?: boolean; bias?: boolean; act?: Activation; outDtype?: 'f16' | 'bf16' | 'f32' } = {}): Promise<void> {
  const transB = o.transB ?? false;
  const av = randValues(M * K, 1 + M, dtype), bv = randValues(K * N, 2 + N, dtype);
  const outDt = o.outDtype ?? (dtype.startsWith('f8') ? 'f16' : dtype);
  const biasDt = dtype.startsWith('f8') ? 'f32' : dtype;
  const biasv = o.bias ? randValues(N, 3, biasDt) : undefined;
  const a = devArray(av, dtype, [M, K], device), b = devArray(bv, dtype, transB ? [N, K] : [K, N], device);
  const bias = biasv ? devArray(biasv, biasDt, [N], device) : undefined;
  const c = await ops.matmul(a, b, { transB, ...(bias ? { bias } : {}), ...(o.act ? { activation: o.act } : {}), ...(o.outDtype ? { outDtype: o.outDtype } : {}) });
  expect(c.shape).toEqual([M, N]);
  expect(c.dtype).toBe(outDt);
  const ref = matmulRef(av, bv, M, N, K, transB, biasv, o.act);
  const u = UNIT[outDt]!, acc = (K + 16) * 2 ** -23;
  expectWithin(await values(c), ref.value, (i) => u * Math.abs(ref.value[i]!) + acc * ref.mag[i]!, `${device} ${dtype} ${M}x${N}x${K} ${JSON.stringify(o)}`);
  for (const x of [a, b, c, bias]) x?.free();
}

describe.each(DEVICES)('ops.matmul on %s', (device) => {
  it.each(['f32', 'f16', 'bf16'] as const)('%s, ragged 37x45x70, a @ b and a @ b^T', async (dtype) => {
    await checkMatmul(device, dtype, 37, 45, 70);
    await checkMatmul(device, dtype, 37, 45, 70, { transB: true });
  });

  it.each(['gelu', 'silu', 'relu'] as const)('fused bias + %s epilogue (f16, transB)', async (act) => {
    await checkMatmul(device, 'f16', 19, 33, 40, { transB: true, bias: true, act });
  });

  it('f32 bias, 70 rows (the 64-row tile and a ragged second one)', async () => {
    await checkMatmul(device, 'f32', 70, 21, 17, { bias: true });
  });

  it('a one-row (decode) product: 1 x 50 x 96, transB, bf16', async () => {
    await checkMatmul(device, 'bf16', 1, 50, 96, { transB: true });
  });
});
