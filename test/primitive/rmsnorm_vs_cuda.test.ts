// The Tessera-language RMSNorm against the CUDA C++ one (libtessera_xla.so's GPU targets, nvcc's
// PTX) both on the sim: the same inputs, descriptors packed by src/descriptor, every output.
import { describe, expect, it } from 'vitest';
import '../../src/runtime/index.js';
import { packRMSNorm } from '../../src/descriptor/rms_norm.js';
import { rmsNormBwdKernel, rmsNormFwdKernel, rmsNormGradWeightKernel } from '../../src/primitive/rmsnorm/kernels.js';
import { hex, runPython, simLibrary } from '../xla/helpers.js';

process.env['TESSERA_CACHE'] = '0';

describe('Tessera RMSNorm vs the CUDA targets, both on the sim', () => {
  it('forward and backward agree', async () => {
    const n1 = 12, n2 = 100, part = 4, eps = 1e-6, BLOCK = 128;
    const x = Float32Array.from({ length: n1 * n2 }, (_, i) => Math.sin(i * 0.7) * 3);
    const w = Float32Array.from({ length: n2 }, (_, i) => 0.5 + Math.cos(i));
    const g = Float32Array.from({ length: n1 * n2 }, (_, i) => Math.cos(i * 0.3));
    const cuda = runPython<Record<'out' | 'invvar' | 'gradInput' | 'gradWeight' | 'partGrad', number[]>>('rms_gpu_sim.py', {
      n1, n2, part, x: [...x], w: [...w], g: [...g],
      fwd: hex(packRMSNorm({ n1, n2, eps, xType: 'f32', wType: 'f32', partGradSize: 0 })),
      bwd: hex(packRMSNorm({ n1, n2, eps, xType: 'f32', wType: 'f32', partGradSize: part })),
    }, { TESSERA_SIM_LIB: simLibrary, TESSERA_SIM_THREADS: '2' });

    const out = new Float32Array(n1 * n2), invvar = new Float32Array(n1);
    await rmsNormFwdKernel.run({ x, w, out, invvar, n2, eps, BLOCK }, { grid: n1, device: 'sim' });
    const gradInput = new Float32Array(n1 * n2), partGrad = new Float32Array(part * n2), gradWeight = new Float32Array(n2);
    await rmsNormBwdKernel.run({ g, invvar, x, w, gradInput, partGrad, n2, P: part, BLOCK }, { grid: n1, device: 'sim' });
    await rmsNormGradWeightKernel.run({ partGrad, gradWeight, n2, P: part, BLOCK: 32, PB: 4 }, { grid: Math.ceil(n2 / 32), device: 'sim' });

    const agree = (ours: Float32Array, theirs: number[], tol: number, what: string): void => {
      expect(theirs.length, what).toBe(ours.length);
      let e = 0;
      ours.forEach((v, i) => (e = Math.max(e, Math.abs(v - theirs[i]!) / (1 + Math.abs(theirs[i]!)))));
      expect(e, what).toBeLessThanOrEqual(tol);
    };
    agree(out, cuda.out, 1e-5, 'out');
    agree(invvar, cuda.invvar, 1e-5, 'invvar');
    agree(gradInput, cuda.gradInput, 1e-4, 'grad_input');
    agree(partGrad, cuda.partGrad, 1e-4, 'part_grad');
    agree(gradWeight, cuda.gradWeight, 1e-4, 'grad_weight');
  });
});
