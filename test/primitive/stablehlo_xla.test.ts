// The StableHLO text src/primitive emits, compiled and run by a real XLA (jaxlib 0.10.2, CPU
// client) with libtessera_xla.so's CPU targets registered: RMSNorm legacy and typed-FFI forms,
// its vjp and vmap, Tessera kernels through the generic kernel-call target (PTX on the sim), and
// the sharded module on 4 host devices (no all-gather). Results are compared with plain-JS
// references and with eager runs from Node (the Tessera RMSNorm kernels and the kernel
// primitives' impl on the sim).
import { roundTF32 } from '../../src/ir/numeric.js';
import { describe, expect, it } from 'vitest';
import '../../src/runtime/index.js';
import { pallasSoftmax, softmaxKernel, softmaxRef } from '../../examples/softmax.js';
import { BlockSpec, dot, type Ref } from '../../src/lang/index.js';
import { pallasCall } from '../../src/runtime/pallas_call.js';
import { bf16Array, bf16ToFloat32 } from '../../src/ir/half.js';
import {
  eagerArray, evalProgram, kernelPrimitive, tesseraRmsNormContext, lowerProgram, pallasPrimitive, rmsNorm, rmsNormFwdP, shaped, trace, vjp, vmap, type ShapedArray,
} from '../../src/primitive/index.js';
import { rmsNormFwdKernel } from '../../src/primitive/rmsnorm/kernels.js';
import { rmsNormBwdRef, rmsNormFwdRef } from '../../src/primitive/rmsnorm/reference.js';
import { runPython, simLibrary } from '../xla/helpers.js';

process.env['TESSERA_CACHE'] = '0';

interface Input { readonly dtype: string; readonly shape: readonly number[]; readonly data: readonly number[]; readonly split?: number | null }
interface ModuleRun { outputs: { shape: number[]; data: number[]; shardShapes: number[][] }[]; hlo: string }

const runModules = (modules: { text: string; inputs: Input[]; partitions?: number; outSplits?: (number | null)[]; batchPartitionable?: string[] }[]): ModuleRun[] =>
  runPython<{ modules: ModuleRun[] }>('stablehlo_module.py', { modules }, { TESSERA_SIM_LIB: simLibrary, TESSERA_SIM_THREADS: '2' }).modules;

const rand = (n: number, seed: number): number[] => {
  let s = seed;
  return Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 4 - 2);
};
const f32 = (a: readonly number[]): number[] => Array.from(Float32Array.from(a));
const maxRelErr = (got: readonly number[], want: ArrayLike<number>): number => {
  expect(got.length).toBe(want.length);
  let e = 0;
  for (let i = 0; i < want.length; i++) e = Math.max(e, Math.abs(got[i]! - want[i]!) / (1 + Math.abs(want[i]!)));
  return e;
};

const n1 = 8;
const n2 = 48;
const eps = 1e-5;
const xA = shaped([n1, n2], 'f32');
const wA = shaped([n2], 'f32');
const x = f32(rand(n1 * n2, 11));
const w = f32(rand(n2, 12));

describe('RMSNorm modules on jaxlib (CPU targets)', () => {
  it('forward, legacy and typed FFI, matches the JS reference and the eager Tessera kernel on the sim', async () => {
    const fwd = trace((a, b) => rmsNormFwdP.bind([a, b], { eps }), [xA, wA]);
    const inputs: Input[] = [{ dtype: 'f32', shape: [n1, n2], data: x }, { dtype: 'f32', shape: [n2], data: w }];
    const [legacy, ffi] = runModules([
      { text: lowerProgram(fwd, { platform: 'cpu', form: 'legacy' }), inputs },
      { text: lowerProgram(fwd, { platform: 'cpu', form: 'ffi' }), inputs },
    ]);
    const ref = rmsNormFwdRef(x, w, n1, n2, eps);
    const out = new Float32Array(n1 * n2);
    const invvar = new Float32Array(n1);
    await rmsNormFwdKernel.run({ x: Float32Array.from(x), w: Float32Array.from(w), out, invvar, n2, eps, BLOCK: 64 }, { grid: n1, device: 'sim' });
    for (const r of [legacy!, ffi!]) {
      expect(r.hlo).toMatch(/custom-call/);
      expect(r.outputs.map((o) => o.shape)).toEqual([[n1, n2], [n1]]);
      expect(maxRelErr(r.outputs[0]!.data, ref.out)).toBeLessThanOrEqual(1e-5);
      expect(maxRelErr(r.outputs[1]!.data, ref.invvar)).toBeLessThanOrEqual(1e-5);
      expect(maxRelErr(r.outputs[0]!.data, out)).toBeLessThanOrEqual(1e-5);
      expect(maxRelErr(r.outputs[1]!.data, invvar)).toBeLessThanOrEqual(1e-5);
    }
    expect(legacy!.hlo).toMatch(/custom_call_target="rms_forward_affine_mixed_dtype_cpu"/);
    expect(ffi!.hlo).toMatch(/custom_call_target="tessera_rms_norm_fwd_cpu"/);
  });

  it('mixed dtypes (x bf16, weight f32): out f32, invvar f32', () => {
    const xb = Array.from(bf16ToFloat32(bf16Array(x)));
    const p = trace((a, b) => rmsNormFwdP.bind([a, b], { eps }), [shaped([n1, n2], 'bf16'), wA]);
    const text = lowerProgram(p, { platform: 'cpu' });
    expect(text).toContain('(tensor<8x48xbf16>, tensor<48xf32>) -> (tensor<8x48xf32>, tensor<8xf32>)');
    const [r] = runModules([{ text, inputs: [{ dtype: 'bf16', shape: [n1, n2], data: xb }, { dtype: 'f32', shape: [n2], data: w }] }]);
    const ref = rmsNormFwdRef(xb, w, n1, n2, eps);
    expect(maxRelErr(r!.outputs[0]!.data, ref.out)).toBeLessThanOrEqual(1e-5);
    expect(maxRelErr(r!.outputs[1]!.data, ref.invvar)).toBeLessThanOrEqual(1e-5);
  });

  it('vjp (fwd + bwd through the residuals) gives the reference gradients and the eager program\'s, both forms', async () => {
    const g = f32(rand(n1 * n2, 13));
    const prog = vjp((a, b) => rmsNorm(a, b, eps), [xA, wA]);
    const inputs: Input[] = [
      { dtype: 'f32', shape: [n1, n2], data: x }, { dtype: 'f32', shape: [n2], data: w }, { dtype: 'f32', shape: [n1, n2], data: g },
    ];
    const runs = runModules([
      { text: lowerProgram(prog, { platform: 'cpu', form: 'legacy' }), inputs },
      { text: lowerProgram(prog, { platform: 'cpu', form: 'ffi' }), inputs },
    ]);
    const iv = rmsNormFwdRef(x, w, n1, n2, eps).invvar;
    const ref = rmsNormBwdRef(g, iv, x, w, n1, n2, 16);
    // The same program eagerly from Node: each primitive through the Tessera RMSNorm kernels on the sim.
    const eager = await evalProgram(prog, [eagerArray(Float32Array.from(x), 'f32', [n1, n2]), eagerArray(Float32Array.from(w), 'f32', [n2]), eagerArray(Float32Array.from(g), 'f32', [n1, n2])], tesseraRmsNormContext({ device: 'sim' }));
    for (const r of runs) {
      expect(r.outputs.map((o) => o.shape)).toEqual([[n1, n2], [n1, n2], [n2]]);
      r.outputs.forEach((o, i) => expect(maxRelErr(o.data, eager[i]!.data as Float32Array), `output ${i} vs eager`).toBeLessThanOrEqual(1e-4));
      expect(maxRelErr(r.outputs[1]!.data, ref.gradInput)).toBeLessThanOrEqual(1e-4);
      expect(maxRelErr(r.outputs[2]!.data, ref.gradWeight)).toBeLessThanOrEqual(1e-4);
    }
  });

  it('vmap over a middle dim of x moves it to the front and reshapes invvar', () => {
    const B = 3;
    const prog = vmap((a, b) => rmsNormFwdP.bind([a, b], { eps }), [xA, wA], [1, null], B);
    const xb = f32(rand(n1 * B * n2, 14)); // [n1, B, n2]
    const [r] = runModules([{ text: lowerProgram(prog, { platform: 'cpu' }), inputs: [{ dtype: 'f32', shape: [n1, B, n2], data: xb }, { dtype: 'f32', shape: [n2], data: w }] }]);
    expect(r!.outputs.map((o) => o.shape)).toEqual([[B, n1, n2], [B, n1]]);
    const moved: number[] = [];
    for (let b = 0; b < B; b++) for (let i = 0; i < n1; i++) moved.push(...xb.slice((i * B + b) * n2, (i * B + b + 1) * n2));
    const ref = rmsNormFwdRef(moved, w, B * n1, n2, eps);
    expect(maxRelErr(r!.outputs[0]!.data, ref.out)).toBeLessThanOrEqual(1e-5);
    expect(maxRelErr(r!.outputs[1]!.data, ref.invvar)).toBeLessThanOrEqual(1e-5);
  });
});

describe('sharded RMSNorm on 4 host devices', () => {
  const rows = 16;
  const xs = f32(rand(rows * n2, 21));
  const gs = f32(rand(rows * n2, 22));
  const mesh = { axis: 'x', size: 4 };
  const xIn: Input = { dtype: 'f32', shape: [rows, n2], data: xs, split: 0 };
  const wIn: Input = { dtype: 'f32', shape: [n2], data: w, split: null };

  it.each(['legacy', 'ffi'] as const)('forward (%s) runs per shard of the batch dim, no all-gather, and matches', (form) => {
    const fwd = trace((a, b) => rmsNormFwdP.bind([a, b], { eps }), [shaped([rows, n2], 'f32'), wA]);
    const text = lowerProgram(fwd, { platform: 'cpu', form, mesh, inShardings: [['x', null], [null]], outShardings: [['x', null], ['x']] });
    expect(text).toContain('sdy.manual_computation');
    expect(text).toContain('sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [j])->([i, j], [i]) {i=4, j=48}>');
    expect(text).toContain('mhlo.frontend_attributes = {num_batch_dims = "1"}');
    const [r] = runModules([{ text, partitions: 4, outSplits: [0, 0], inputs: [xIn, wIn] }]);
    expect(r!.hlo).not.toMatch(/all-gather/);
    expect(r!.hlo).toMatch(/custom-call\(.*operand_layout_constraints=\{f32\[4,48\]/); // each device runs the target on its 4 rows
    expect(r!.outputs[0]!.shardShapes).toEqual([[4, n2], [4, n2], [4, n2], [4, n2]]);
    const ref = rmsNormFwdRef(xs, w, rows, n2, eps);
    expect(maxRelErr(r!.outputs[0]!.data, ref.out)).toBeLessThanOrEqual(1e-5);
    expect(maxRelErr(r!.outputs[1]!.data, ref.invvar)).toBeLessThanOrEqual(1e-5);
  });

  it('vjp: grad_input per shard, grad_weight all-reduced (no all-gather), matching the reference', () => {
    const prog = vjp((a, b) => rmsNorm(a, b, eps), [shaped([rows, n2], 'f32'), wA]);
    const text = lowerProgram(prog, {
      platform: 'cpu', form: 'ffi', mesh, inShardings: [['x', null], [null], ['x', null]], outShardings: [['x', null], ['x', null], [null]],
    });
    const [r] = runModules([{ text, partitions: 4, outSplits: [0, 0, null], inputs: [xIn, wIn, { dtype: 'f32', shape: [rows, n2], data: gs, split: 0 }] }]);
    expect(r!.hlo).not.toMatch(/all-gather/);
    expect(r!.hlo).toMatch(/all-reduce/);
    const ref = rmsNormBwdRef(gs, rmsNormFwdRef(xs, w, rows, n2, eps).invvar, xs, w, rows, n2, 16);
    expect(maxRelErr(r!.outputs[1]!.data, ref.gradInput)).toBeLessThanOrEqual(1e-4);
    expect(maxRelErr(r!.outputs[2]!.data, ref.gradWeight)).toBeLessThanOrEqual(1e-4);
  });

  it("sharding 'partitioner': XLA's batch partitioner splits the typed-FFI calls (batch_dims), no all-gather", () => {
    const prog = vjp((a, b) => rmsNorm(a, b, eps), [shaped([rows, n2], 'f32'), wA]);
    const text = lowerProgram(prog, {
      platform: 'cpu', form: 'ffi', mesh, sharding: 'partitioner',
      inShardings: [['x', null], [null], ['x', null]], outShardings: [['x', null], ['x', null], [null]],
    });
    expect(text).not.toContain('manual_computation');
    expect(text).toContain('backend_config = {batch_dims = 1 : i64, eps = 0.00001 : f64}');
    const [r] = runModules([{
      text, partitions: 4, outSplits: [0, 0, null], batchPartitionable: ['tessera_rms_norm_fwd_cpu', 'tessera_rms_norm_bwd_cpu'],
      inputs: [xIn, wIn, { dtype: 'f32', shape: [rows, n2], data: gs, split: 0 }],
    }]);
    expect(r!.hlo).not.toMatch(/all-gather/);
    expect(r!.hlo).toMatch(/custom_call_target="tessera_rms_norm_fwd_cpu"/);
    expect(r!.hlo).toMatch(/custom-call\(.*operand_layout_constraints=\{f32\[4,48\]/);
    const fwdRef = rmsNormFwdRef(xs, w, rows, n2, eps);
    const ref = rmsNormBwdRef(gs, fwdRef.invvar, xs, w, rows, n2, 16);
    expect(maxRelErr(r!.outputs[0]!.data, fwdRef.out)).toBeLessThanOrEqual(1e-5);
    expect(maxRelErr(r!.outputs[1]!.data, ref.gradInput)).toBeLessThanOrEqual(1e-4);
    expect(maxRelErr(r!.outputs[2]!.data, ref.gradWeight)).toBeLessThanOrEqual(1e-4);
  });
});

describe('Tessera kernels as primitives inside XLA programs (tessera_kernel_call_cpu on the sim)', () => {
  it('softmax (kernel()) matches its eager run on the sim and the reference', async () => {
    const rows = 6;
    const cols = 40;
    const softmaxP = kernelPrimitive(softmaxKernel, {
      outputs: ([a]) => [a!],
      args: ([a]) => ({ x: { operand: 0 }, out: { result: 0 }, cols: a!.shape[1]!, BLOCK: 64 }),
      grid: ([a]) => a!.shape[0]!,
    }, { device: 'sim' });
    const xs = f32(rand(rows * cols, 31));
    const p = trace((a) => softmaxP.bind([a], {}), [shaped([rows, cols], 'f32')]);
    const text = lowerProgram(p, { platform: 'cpu' });
    expect(text).toContain('stablehlo.custom_call @tessera_kernel_call_cpu(%arg0)');
    const [r] = runModules([{ text, inputs: [{ dtype: 'f32', shape: [rows, cols], data: xs }] }]);
    const [eager] = await softmaxP.apply([eagerArray(Float32Array.from(xs), 'f32', [rows, cols])], {});
    expect(maxRelErr(r!.outputs[0]!.data, eager!.data as Float32Array)).toBeLessThanOrEqual(1e-6);
    expect(maxRelErr(r!.outputs[0]!.data, softmaxRef(Float32Array.from(xs), rows, cols))).toBeLessThanOrEqual(1e-5);
  });

  it('a Pallas-style matmul and a Pallas softmax, chained in one program, match eager', async () => {
    const M = 32, K = 16, N = 32, BM = 16, BN = 16;
    const matmul = pallasCall((a: Ref, b: Ref, o: Ref) => o.store(dot(a.load(), b.load())), {
      outShape: { shape: [M, N], dtype: 'f32' }, grid: [M / BM, N / BN], name: 'matmul',
      inSpecs: [new BlockSpec([BM, K], (i) => [i, 0]), new BlockSpec([K, BN], (_i, j) => [0, j])],
      outSpecs: new BlockSpec([BM, BN], (i, j) => [i, j]),
    });
    const matmulP = pallasPrimitive(matmul, { device: 'sim' });
    const softP = pallasPrimitive(pallasSoftmax(M, N), { device: 'sim' });
    const a = f32(rand(M * K, 41));
    const b = f32(rand(K * N, 42));
    const avals: ShapedArray[] = [shaped([M, K], 'f32'), shaped([K, N], 'f32')];
    const prog = trace((u, v) => softP.bind(matmulP.bind([u, v], {}), {}), avals);
    const [r] = runModules([{ text: lowerProgram(prog, { platform: 'cpu' }), inputs: [{ dtype: 'f32', shape: [M, K], data: a }, { dtype: 'f32', shape: [K, N], data: b }] }]);
    expect(r!.hlo.match(/custom_call_target="tessera_kernel_call_cpu"/g)?.length).toBe(2);
    const [mm] = await matmulP.apply([eagerArray(Float32Array.from(a), 'f32', [M, K]), eagerArray(Float32Array.from(b), 'f32', [K, N])], {});
    const [sm] = await softP.apply([mm!], {});
    expect(maxRelErr(r!.outputs[0]!.data, sm!.data as Float32Array)).toBeLessThanOrEqual(1e-6);
    const ref = new Float64Array(M * N);
    // f32 dot: inputs rounded to tf32 (the default inputPrecision), then exact products summed
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) for (let k = 0; k < K; k++) ref[i * N + j]! += roundTF32(a[i * K + k]!) * roundTF32(b[k * N + j]!);
    expect(maxRelErr(Array.from(mm!.data as Float32Array), ref)).toBeLessThanOrEqual(1e-5);
    expect(maxRelErr(r!.outputs[0]!.data, softmaxRef(Float32Array.from(ref), M, N))).toBeLessThanOrEqual(1e-5);
  });

  it('a Pallas kernel whose output aliases its input becomes output_operand_aliases and matches eager', async () => {
    const n = 96;
    const addOne = pallasCall((xr: Ref, o: Ref) => o.store(xr.load().mul(2).add(1)), {
      outShape: { shape: [n], dtype: 'f32' }, grid: 3, name: 'twice_plus_one',
      inSpecs: [new BlockSpec([32], (i) => [i])], outSpecs: new BlockSpec([32], (i) => [i]), inputOutputAliases: { 0: 0 },
    });
    const p = pallasPrimitive(addOne, { device: 'sim' });
    const xs = f32(rand(n, 51));
    const text = lowerProgram(trace((a) => p.bind([a], {}), [shaped([n], 'f32')]), { platform: 'cpu' });
    expect(text).toContain('output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]');
    const [r] = runModules([{ text, inputs: [{ dtype: 'f32', shape: [n], data: xs }] }]);
    const input = Float32Array.from(xs);
    const [eager] = await p.apply([eagerArray(input, 'f32', [n])], {});
    expect(Array.from(input)).toEqual(xs); // the caller's array is untouched
    expect(r!.outputs[0]!.data).toEqual(Array.from(eager!.data as Float32Array));
    expect(maxRelErr(r!.outputs[0]!.data, xs.map((v) => Math.fround(Math.fround(v * 2) + 1)))).toBe(0);
  });
});
