// Any Tessera kernel as an XLA custom call: softmax compiled here with compile() (PTX for sm_80,
// cubins for sm_80/sm_90 from ptxas), its kernel-call descriptor packed by src/descriptor, run in
// a jitted jax program through tessera_kernel_call_cpu on the sim; compared with the eager run on
// the sim and with the plain-JS reference. The second program aliases the result to the operand.
import { describe, expect, it } from 'vitest';
import { softmaxKernel, softmaxRef } from '../../examples/softmax.js';
import { compile } from '../../src/compile/index.js';
import { roundTF32 } from '../../src/ir/numeric.js';
import { ds, dot, zeros, type Ref } from '../../src/lang/index.js';
import { BlockSpec, tracePallas } from '../../src/lang/pallas.js';
import { array } from '../../src/runtime/array.js';
import { pallasCall } from '../../src/runtime/pallas_call.js';
import { packKernelCall, type KernelParamSpec } from '../../src/descriptor/index.js';
import { hex, runPython, simLibrary } from './helpers.js';

const rows = 6, cols = 50, BLOCK = 64, numWarps = 2;

function descriptor(operandBytes = rows * cols * 4): Uint8Array {
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
    operandBytes: [operandBytes],
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
    const out = runPython<{ programs: { results: number[][]; custom_call_in_hlo: boolean }[]; stderr: string }>('kernel_call.py', {
      programs: [
        { descriptor: desc, operands: [operand], results: [result] },
        { descriptor: desc, operands: [operand], results: [result], aliases: { 0: 0 } },
        // The descriptor under-declares x (4 bytes): the kernel reads past the copy and the sim's
        // memory checker faults the context. The call fails (one stderr line under jax), and ...
        { descriptor: hex(descriptor(4)), operands: [operand], results: [result] },
        // ... the next call runs on a fresh context.
        { descriptor: desc, operands: [operand], results: [result] },
      ],
    }, { TESSERA_SIM_LIB: simLibrary, TESSERA_SIM_THREADS: '2' });
    expect(out.stderr).toMatch(/tessera_kernel_call_cpu: kernel softmax failed: CUDA_ERROR_ILLEGAL_ADDRESS/);
    const ref = softmaxRef(x, rows, cols);
    for (const p of [out.programs[0]!, out.programs[1]!, out.programs[3]!]) {
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

  it('a Pallas-style blocked matmul through tessera_kernel_call_cpu matches the eager sim run', async () => {
    const M = 32, K = 16, N = 48, bm = 16, bn = 16, bk = 8;
    const body = (a: Ref, b: Ref, o: Ref) => {
      let acc = zeros([bm, bn], 'f32');
      for (let k = 0; k < K / bk; k++) acc = acc.add(dot(a.load([null, ds(k * bk, bk)]), b.load([ds(k * bk, bk), null])));
      o.store(acc);
    };
    const inSpecs = [new BlockSpec([bm, K], (i) => [i, 0]), new BlockSpec([K, bn], (_i, j) => [0, j])];
    const outSpec = new BlockSpec([bm, bn], (i, j) => [i, j]);
    const grid = [M / bm, N / bn];
    const a = new Float32Array(M * K).map((_, i) => ((i * 7) % 13) / 4 - 1.5);
    const b = new Float32Array(K * N).map((_, i) => ((i * 5) % 11) / 3 - 1.75);
    const eager = await pallasCall(body, { outShape: { shape: [M, N], dtype: 'f32' }, inSpecs, outSpecs: outSpec, grid, device: 'sim', name: 'xla_mm' })(
      array(a, 'f32', [M, K]), array(b, 'f32', [K, N]));
    const func = tracePallas(body, {
      name: 'xla_mm', grid, inputs: [{ shape: [M, K], dtype: 'f32' }, { shape: [K, N], dtype: 'f32' }], outputs: [{ shape: [M, N], dtype: 'f32' }],
      inSpecs, outSpecs: [outSpec],
    });
    const c80 = compile(func, { target: 'sm_80', numWarps: 4, ptxas: true });
    expect(c80.metadata.params.map((p) => p.name)).toEqual(['in0', 'in1', 'out0']);
    const desc = packKernelCall({
      entry: c80.metadata.name, grid: [grid[0]!, grid[1]!, 1], block: [128, 1, 1], sharedBytes: c80.metadata.dynamicShared ? c80.metadata.sharedBytes : 0,
      operandBytes: [M * K * 4, K * N * 4], resultBytes: [M * N * 4],
      params: [{ kind: 'operand', index: 0 }, { kind: 'operand', index: 1 }, { kind: 'result', index: 0 }],
      images: [{ kind: 'cubin', arch: 80, data: c80.cubin! }, { kind: 'ptx', arch: 80, data: c80.ptx }],
    });
    const out = runPython<{ programs: { results: number[][]; custom_call_in_hlo: boolean }[] }>('kernel_call.py', {
      programs: [{
        descriptor: hex(desc),
        operands: [{ shape: [M, K], dtype: 'f32', data: [...a] }, { shape: [K, N], dtype: 'f32', data: [...b] }],
        results: [{ shape: [M, N], dtype: 'f32' }],
      }],
    }, { TESSERA_SIM_LIB: simLibrary, TESSERA_SIM_THREADS: '2' });
    const got = out.programs[0]!.results[0]!;
    const want = (eager as { data: Float32Array }).data;
    let worst = 0;
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let r = 0;
        // f32 dot: inputs rounded to tf32 (the default inputPrecision), then exact products summed
        for (let k = 0; k < K; k++) r += roundTF32(a[i * K + k]!) * roundTF32(b[k * N + j]!);
        worst = Math.max(worst, Math.abs(got[i * N + j]! - r) / (1 + Math.abs(r)));
        expect(Math.abs(got[i * N + j]! - want[i * N + j]!)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(r)));
      }
    }
    expect(worst).toBeLessThanOrEqual(1e-5);
  });
});
