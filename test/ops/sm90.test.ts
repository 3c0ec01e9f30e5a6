// The ops on the sim as an sm_90 (the runtime compiles sm_90a: wgmma for the matmul tiles that fit,
// the sm_90a tuning tables), against the same f64 references as on sm_80 (cases.ts), at ragged
// sizes, plus a production-size matmul tile (128 x 128, 8 warps, 3 stages) on both targets' code.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { getDevice } from '../../src/runtime/device.js';
import { ops } from '../../src/index.js';
import { checkArgmax, checkEmbedding, checkLayerNorm, checkMatmul, checkRmsNorm, checkRope, checkSoftmax, checkSwiglu } from './cases.js';

const device = 'sim:0';

describe('ops on the sim as sm_90 (sm_90a code)', () => {
  it('the sim compiles for sm_90a and the ops use the sm_90a tables', () => {
    expect((getDevice(device) as unknown as { target: string }).target).toBe('sm_90a');
    expect(ops.opsTarget(getDevice(device))).toBe('sm_90a');
  });
  it.each(['f32', 'f16', 'bf16'] as const)('matmul %s, ragged 37x45x70 (a @ b^T, bias, silu) and 70 x 130 x 72 (the 64 x 128 tile)', async (dt) => {
    await checkMatmul(device, dt, 37, 45, 70, { transB: true, bias: true, act: 'silu' });
    await checkMatmul(device, dt, 70, 130, 72);
  });
  it('matmul, production tile 128 x 128 x 64 (8 warps, 3 stages): f16 135 x 140 x 200, a @ b^T', async () => {
    await checkMatmul(device, 'f16', 135, 140, 200, { transB: true });
  });
  it('row ops', async () => {
    await checkRmsNorm(device, 'bf16', 3, 300);
    await checkLayerNorm(device, 'f16', 4, 77, true);
    await checkSoftmax(device, 'f32', 3, 5000);
    await checkArgmax(device, 'f16', 3, 9000, 8192);
  });
  it('elementwise ops', async () => {
    await checkSwiglu(device, 'bf16', 5, 900);
    await checkEmbedding(device, 'f16', 20, 70, [0, 19, 4, 4]);
    await checkRope(device, 'f16', 5, 3, 128, { offset: 1000 });
    await checkRope(device, 'f32', 3, 2, 64, { interleaved: true });
  });
});
