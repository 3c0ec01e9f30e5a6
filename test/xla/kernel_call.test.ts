// Any Tessera kernel as an XLA custom call: softmax compiled here with compile() (PTX for sm_80,
// cubins for sm_80/sm_90 from ptxas), its kernel-call descriptor packed by src/descriptor, run in
// a jitted jax program through tessera_kernel_call_cpu on the sim; compared with the eager run on
// the sim and with the plain-JS reference. The second program aliases the result to the operand.
import { describe, expect, it } from 'vitest';
import { softmaxKernel, softmaxRef } from '../../examples/softmax.js';
import { compile } from '../../src/compiler/index.js';
import { packKernelCall, type KernelParamSpec } from '../../src/descriptor/index.js';
import { hex, runPython, simLibrary } from './helpers.js';

const rows = 6, cols = 50, BLOCK = 64, numWarps = 2;

function descriptor(): Uint8Array {
  const c80 = compile(softmaxKernel, { target: 'sm_80', numWarps, constexprs: { BLOCK }, ptxas: true });
  const c90 = compile(softmaxKernel, { target: 'sm_90', numWarps, constexprs: { BLOCK }, ptxas: true });
  const params: KernelParamSpec[] = c80.metadata.params.map((p) => {
    if (p.name === 'x') return { kind: 'operand', index: 0 };
    if (p.name === 'out') return { kind: 'result', index: 0 };
    if (p.name === 'cols') return { kind: 'scalar', dtype: 'i32', value: cols };
    throw new Error(`unexpected kernel parameter ${p.name}`);
  });
  expect(params.length).toBe(3);
  return packKernelCall({
    entry: c80.metadata.name,
    grid: [rows, 1, 1],
    block: [numWarps * 32, 1, 1],
    sharedBytes: c80.metadata.dynamicShared ? c80.metadata.sharedBytes : 0,
    operandBytes: [rows * cols * 4],
    resultBytes: [rows * cols * 4],
    params,
    images: [
      { kind: 'cubin', arch: 90, data: c90.cubin! },
      { kind: 'cubin', arch: 80, data: c80.cubin! },
      { kind: 'ptx', arch: 80, data: c80.ptx },
    ],
  });
}

describe('a Tessera kernel inside an XLA program', () => {
  it('softmax through tessera_kernel_call_cpu matches the eager sim run and the reference', async () => {
    const x = new Float32Array(rows * cols).map((_, i) => Math.sin(i * 0.37) * 4 + (i % 7));
    const eager = new Float32Array(rows * cols);
    await softmaxKernel.run({ x, out: eager, cols, BLOCK }, { grid: rows, numWarps, device: 'sim' });
    const desc = hex(descriptor());
    const operand = { shape: [rows, cols], dtype: 'f32', data: [...x] };
    const result = { shape: [rows, cols], dtype: 'f32' };
    const out = runPython<{ programs: { results: number[][]; custom_call_in_hlo: boolean }[] }>('kernel_call.py', {
      programs: [
        { descriptor: desc, operands: [operand], results: [result] },
        { descriptor: desc, operands: [operand], results: [result], aliases: { 0: 0 } },
      ],
    }, { TESSERA_SIM_LIB: simLibrary, TESSERA_SIM_THREADS: '2' });
    const ref = softmaxRef(x, rows, cols);
    for (const p of out.programs) {
      expect(p.custom_call_in_hlo).toBe(true);
      const got = p.results[0]!;
      expect(got.length).toBe(rows * cols);
      let vsEager = 0, vsRef = 0;
      for (let i = 0; i < got.length; i++) {
        vsEager = Math.max(vsEager, Math.abs(got[i]! - eager[i]!));
        vsRef = Math.max(vsRef, Math.abs(got[i]! - ref[i]!) / (1 + Math.abs(ref[i]!)));
      }
      expect(vsEager).toBeLessThanOrEqual(1e-6);
      expect(vsRef).toBeLessThanOrEqual(1e-5);
    }
  });
});
