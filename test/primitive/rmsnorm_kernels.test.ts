// The Tessera-language RMSNorm (forward, backward) on the interpreter and on the sim, against
// the plain-JS reference; every kernel also passes the ptxas gate (sm_80 and sm_90).
import { describe, expect, it } from 'vitest';
import '../../src/runtime/index.js';
import { rmsNormBwdKernel, rmsNormFwdKernel, rmsNormGradWeightKernel } from '../../src/primitive/rmsnorm/kernels.js';
import { rmsNormBwdRef, rmsNormFwdRef } from '../../src/primitive/rmsnorm/reference.js';
import { gate } from '../codegen/gate.js';

process.env['TESSERA_CACHE'] = '0';

const rand = (n: number, seed: number): Float32Array => {
  let s = seed;
  return Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 4 - 2);
};
const close = (got: ArrayLike<number>, want: ArrayLike<number>, tol: number): void => {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!), `at ${i}: ${got[i]} vs ${want[i]}`).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i]!)));
};

const n1 = 6;
const n2 = 40; // not a power of two: the masks matter
const BLOCK = 64;
const P = 4;
const eps = 1e-5;

describe('RMSNorm kernels pass ptxas', () => {
  it('fwd, bwd and grad_weight assemble for sm_80 and sm_90', () => {
    gate(rmsNormFwdKernel.trace({ BLOCK }));
    gate(rmsNormBwdKernel.trace({ BLOCK }));
    gate(rmsNormGradWeightKernel.trace({ BLOCK: 32, PB: 4 }));
  });
});

describe.each(['interpret', 'sim'] as const)('RMSNorm kernels on %s', (device) => {
  it('forward matches the JS reference', async () => {
    const x = rand(n1 * n2, 1);
    const w = rand(n2, 2);
    const out = new Float32Array(n1 * n2);
    const invvar = new Float32Array(n1);
    await rmsNormFwdKernel.run({ x, w, out, invvar, n2, eps, BLOCK }, { grid: n1, device });
    const ref = rmsNormFwdRef(x, w, n1, n2, eps);
    close(out, ref.out, 1e-5);
    close(invvar, ref.invvar, 1e-5);
  });

  it('backward matches the JS reference (grad_input, part_grad, grad_weight)', async () => {
    const x = rand(n1 * n2, 3);
    const w = rand(n2, 4);
    const g = rand(n1 * n2, 5);
    const invvar = Float32Array.from(rmsNormFwdRef(x, w, n1, n2, eps).invvar);
    const gradInput = new Float32Array(n1 * n2);
    const partGrad = new Float32Array(P * n2);
    const gradWeight = new Float32Array(n2);
    await rmsNormBwdKernel.run({ g, invvar, x, w, gradInput, partGrad, n2, P, BLOCK }, { grid: n1, device });
    await rmsNormGradWeightKernel.run({ partGrad, gradWeight, n2, P, BLOCK: 32, PB: 4 }, { grid: Math.ceil(n2 / 32), device });
    const ref = rmsNormBwdRef(g, invvar, x, w, n1, n2, P);
    close(gradInput, ref.gradInput, 1e-4);
    close(partGrad, ref.partGrad, 1e-4);
    close(gradWeight, ref.gradWeight, 1e-4);
  });
});
