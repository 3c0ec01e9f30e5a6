// RMSNorm through libtessera_xla.so's CPU targets inside jitted jax programs (jaxlib's XLA CPU
// runtime): legacy targets with descriptors packed here by src/descriptor, typed-FFI targets with
// eps as an attribute; python compares with a float64 numpy reference and reports the errors.
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { packRMSNorm } from '../../src/descriptor/index.js';
import { hex, runPython } from './helpers.js';

const FLOATS: DType[] = ['bf16', 'f16', 'f32', 'f64'];

interface Out {
  targets: [string, string, number][];
  ffi_error: string | null;
  cases: { case: { x: string; w: string; api: string }; errors: Record<string, [number, number]>; dtypes: string[] }[];
}

describe('CPU targets in jax', () => {
  it('legacy and typed-FFI RMSNorm match numpy for every dtype pair', () => {
    const cases = [];
    let seed = 1;
    for (const x of FLOATS) {
      for (const w of FLOATS) {
        const shape = [3, 5, 24];
        const wshape = [24];
        const n1 = 15, n2 = 24, part = 4, eps = 1e-5;
        for (const api of ['legacy', 'ffi']) {
          cases.push({
            x, w, api, seed: seed++, shape, wshape, part, eps,
            fwd: hex(packRMSNorm({ n1, n2, eps, xType: x, wType: w, partGradSize: 0 })),
            bwd: hex(packRMSNorm({ n1, n2, eps, xType: x, wType: w, partGradSize: part })),
          });
        }
      }
    }
    // The seed's layout too: weight of rank 2 normalising the last two dims.
    cases.push({
      x: 'f16', w: 'f32', api: 'legacy', seed: 99, shape: [4, 6, 8], wshape: [6, 8], part: 16, eps: 1e-6,
      fwd: hex(packRMSNorm({ n1: 4, n2: 48, eps: 1e-6, xType: 'f16', wType: 'f32', partGradSize: 0 })),
      bwd: hex(packRMSNorm({ n1: 4, n2: 48, eps: 1e-6, xType: 'f16', wType: 'f32', partGradSize: 16 })),
    });
    const out = runPython<Out>('rms_norm_cpu.py', { cases });
    expect(out.targets.filter((t) => t[1] === 'Host').map((t) => t[0]).sort()).toEqual([
      'rms_backward_affine_cpu', 'rms_forward_affine_mixed_dtype_cpu', 'tessera_kernel_call_cpu', 'tessera_rms_norm_bwd_cpu', 'tessera_rms_norm_fwd_cpu',
    ]);
    expect(out.cases.length).toBe(cases.length);
    const bad = out.cases.flatMap((c) =>
      Object.entries(c.errors).filter(([, [e, tol]]) => !(e <= tol)).map(([n, [e, tol]]) => `${c.case.api} x=${c.case.x} w=${c.case.w} ${n}: ${e} > ${tol}`));
    expect(bad).toEqual([]);
    expect(out.ffi_error).toMatch(/tessera_rms_norm_fwd_cpu: invvar \[3\] must have n1 = 2 elements/);
    const jaxName: Record<string, string> = { bf16: 'bfloat16', f16: 'float16', f32: 'float32', f64: 'float64' };
    for (const c of out.cases) {
      const iv = c.case.x === 'f64' ? 'float64' : 'float32';
      expect(c.dtypes).toEqual([jaxName[c.case.w], iv, jaxName[c.case.x], jaxName[c.case.w], iv]);
    }
  });
});
