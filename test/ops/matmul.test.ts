// ops.matmul against an f64 reference at ragged sizes (no dimension a multiple of a tile), on the
// interpreter and the sim (sm_80 code; sm90.test.ts runs the sm_90a code), for each input dtype,
// layout and epilogue (bounds: cases.ts).
import { describe, it } from 'vitest';
import { checkMatmul } from './cases.js';
import { DEVICES } from './helpers.js';

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

describe('ops.matmul production tile on the sim (sm_80 code)', () => {
  it('128 x 128 x 32, 8 warps, 3 stages: bf16 140 x 135 x 100 with bias and gelu', async () => {
    await checkMatmul('sim:0', 'bf16', 140, 135, 100, { bias: true, act: 'gelu' });
  });
});
