// A GPU target whose kernel faults on the sim (a descriptor claiming more rows than the buffers
// hold: the sim's memory checker raises an illegal address, as hardware does) through the
// runtime device: the call's own future fails with the driver's error, the host process lives,
// the context's arrays say they are lost, and the next call runs on the fresh context (the
// library loads its module there again).
import { expect, it } from 'vitest';
import '../../src/runtime/index.js';
import { packRMSNorm } from '../../src/descriptor/rms_norm.js';
import { getDevice } from '../../src/runtime/device.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import { xlaLibraryPath } from '../../src/runtime/native/addon.js';
import { rmsNormFwdP } from '../../src/primitive/index.js';

it('a faulting target fails its own call; the device recovers for the next one', async () => {
  const sim = getDevice('sim');
  const x = DeviceArray.zeros([4, 8], 'f32', { device: sim }), w = DeviceArray.zeros([8], 'f32', { device: sim });
  const out = DeviceArray.zeros([4, 8], 'f32', { device: sim }), invvar = DeviceArray.zeros([4], 'f32', { device: sim });
  const lying = packRMSNorm({ n1: 1 << 20, n2: 8, eps: 1e-5, xType: 'f32', wType: 'f32', partGradSize: 0 });
  await expect(sim.callCustomCall!(xlaLibraryPath(), 'rms_forward_affine_mixed_dtype', [x, w, out, invvar], lying))
    .rejects.toMatchObject({ code: 'CUDA_ERROR_ILLEGAL_ADDRESS', message: expect.stringMatching(/out-of-bounds global access in kernel 'tessera_rms_fwd_f32_f32'/) });
  await expect(x.toArray()).rejects.toMatchObject({ code: 'E_CONTEXT_LOST' });
  const x2 = DeviceArray.from(Float32Array.from({ length: 32 }, (_, i) => (i % 8) - 3.5), 'f32', { device: sim, shape: [4, 8] });
  const w2 = DeviceArray.from(new Float32Array(8).fill(2), 'f32', { device: sim });
  const [o] = await rmsNormFwdP.apply([x2, w2], { eps: 0 });
  const rms = Math.sqrt([0, 1, 2, 3, 4, 5, 6, 7].reduce((s, j) => s + (j - 3.5) ** 2, 0) / 8);
  const got = await o!.toArray();
  got.forEach((v, i) => expect(v).toBeCloseTo((2 * ((i % 8) - 3.5)) / rms, 5));
});
