// definePrimitive, tracing, StableHLO text, and the RMSNorm primitives' rules without a runtime:
// abstract evaluation errors, the escapes of backend_config, vjp/vmap program structure, and the
// eager path through a stand-in EagerContext that implements the targets' contract in JS.
import { describe, expect, it } from 'vitest';
import { unpackRMSNorm } from '../../src/descriptor/rms_norm.js';
import {
  definePrimitive, eagerArray, hostArrays, tesseraRmsNormContext, evalProgram, lowerProgram, mlirBytes, mlirFloat, PrimitiveError, rmsNorm, rmsNormBwdP, rmsNormFwdP, shaped,
  trace, vjp, vmap, type EagerArray, type EagerContext, type ShapedArray,
} from '../../src/primitive/index.js';
import { rmsNormBwdRef, rmsNormFwdRef } from '../../src/primitive/rmsnorm/reference.js';

const x = shaped([4, 8], 'f32');
const w = shaped([8], 'f32');
const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PrimitiveError);
    return `${(e as PrimitiveError).code}: ${(e as Error).message}`;
  }
  throw new Error('expected an error');
};

describe('definePrimitive', () => {
  it('needs a name, abstractEval and lowering', () => {
    expect(code(() => definePrimitive({ name: '1bad', abstractEval: () => [], lowering: () => [] }))).toMatch(/^E_ARG/);
    expect(code(() => definePrimitive({ name: 'p', lowering: () => [] } as never))).toMatch(/needs a 'abstractEval' function/);
  });
  it('bind outside trace() and values of another trace are errors', () => {
    expect(code(() => rmsNormFwdP.bind([], { eps: 1e-5 }))).toMatch(/^E_TRACE.*outside trace/);
    let leaked: unknown;
    trace((a, b) => ((leaked = a), rmsNormFwdP.bind([a, b], { eps: 1e-5 })), [x, w]);
    expect(code(() => trace((_a, b) => rmsNormFwdP.bind([leaked as never, b], { eps: 1e-5 }), [x, w]))).toMatch(/^E_TRACE.*another trace/);
  });
});

describe('RMSNorm abstract evaluation', () => {
  const fwd = (a: ShapedArray, b: ShapedArray, eps = 1e-5) => rmsNormFwdP.abstractEval([a, b], { eps });
  it('gives out in weight dtype and invvar f32 for half inputs', () => {
    expect(fwd(shaped([2, 3, 8], 'bf16'), w)).toEqual([shaped([2, 3, 8], 'f32'), shaped([6], 'f32')]);
    expect(fwd(shaped([4, 8], 'f64'), shaped([8], 'f16'))).toEqual([shaped([4, 8], 'f16'), shaped([4], 'f64')]);
  });
  it('rejects what the seed asserts, naming it', () => {
    expect(code(() => fwd(shaped([4, 8], 'i32'), w))).toMatch(/^E_TYPE.*x must be bf16, f16, f32 or f64/);
    expect(code(() => fwd(x, shaped([0], 'f32')))).toMatch(/^E_SHAPE.*n2 must be >= 1/);
    expect(code(() => fwd(shaped([4, 6], 'f32'), w))).toMatch(/^E_SHAPE.*must end with weight's shape \[8\]/);
    expect(code(() => fwd(x, w, -1))).toMatch(/^E_ARG.*eps/);
    const bwd = (g: ShapedArray, iv: ShapedArray, p = 16) => rmsNormBwdP.abstractEval([g, iv, x, w], { eps: 1e-5, partGradSize: p });
    expect(bwd(x, shaped([4], 'f32'))).toEqual([x, w, shaped([16, 8], 'f32')]);
    expect(code(() => bwd(shaped([4, 8], 'f16'), shaped([4], 'f32')))).toMatch(/^E_TYPE.*g must have weight's dtype f32/);
    expect(code(() => bwd(shaped([8, 4], 'f32'), shaped([4], 'f32')))).toMatch(/^E_SHAPE.*g f32\[8, 4\] must have x's shape/);
    expect(code(() => bwd(x, shaped([3], 'f32')))).toMatch(/^E_SHAPE.*invvar f32\[3\] must have shape \[4\]/);
    expect(code(() => bwd(x, shaped([4], 'f64')))).toMatch(/^E_TYPE.*invvar must be f32/);
    expect(code(() => bwd(x, shaped([4], 'f32'), 0))).toMatch(/^E_ARG.*partGradSize/);
  });
  it('errors surface while tracing, before anything is lowered', () => {
    expect(code(() => trace((a, b) => rmsNorm(a, b), [shaped([4, 6], 'f32'), w]))).toMatch(/rms_norm_fwd/);
  });
});

describe('MLIR text', () => {
  it('escapes every byte that is not printable ASCII, and " and \\', () => {
    expect(mlirBytes(Uint8Array.from([0, 0x22, 0x5c, 0x41, 0x7f, 0xff, 0x0a, 0x20]))).toBe('"\\00\\22\\5CA\\7F\\FF\\0A "');
  });
  it('float attributes carry a dot and round-trip doubles; non-finite values as bits', () => {
    expect(mlirFloat(1e-5, 'f64')).toBe('0.00001 : f64');
    expect(mlirFloat(1e-7, 'f64')).toBe('1.0e-7 : f64');
    expect(mlirFloat(3, 'f64')).toBe('3.0 : f64');
    expect(mlirFloat(0.1 + 0.2, 'f64')).toBe('0.30000000000000004 : f64');
    expect(mlirFloat(Infinity, 'f32')).toBe('0x7F800000 : f32');
  });
  it('the legacy forward carries the packed descriptor as backend_config', () => {
    const text = lowerProgram(trace((a, b) => rmsNormFwdP.bind([a, b], { eps: 1e-6 }), [x, w]), { platform: 'cuda' });
    const m = /backend_config = "((?:[^"\\]|\\[0-9A-F]{2})*)"/.exec(text);
    const bytes = Uint8Array.from(m![1]!.match(/\\[0-9A-F]{2}|./g)!.map((t) => (t.length === 3 ? parseInt(t.slice(1), 16) : t.charCodeAt(0))));
    expect(unpackRMSNorm(bytes)).toEqual({ n1: 4, n2: 8, eps: 1e-6, xType: 'f32', wType: 'f32', partGradSize: 0 });
    expect(text).toContain('stablehlo.custom_call @rms_forward_affine_mixed_dtype(%arg0, %arg1) {api_version = 2 : i32');
    expect(text).toContain('operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]');
  });
  it('the typed-FFI form has api_version 4 and eps in a dictionary', () => {
    const text = lowerProgram(trace((a, b) => rmsNormFwdP.bind([a, b], { eps: 1e-5 }), [x, w]), { platform: 'cpu', form: 'ffi' });
    expect(text).toContain('@tessera_rms_norm_fwd_cpu(%arg0, %arg1) {api_version = 4 : i32, backend_config = {eps = 0.00001 : f64}');
  });
  it('a sharded lowering checks that the batch dim splits', () => {
    const p = trace((a, b) => rmsNormFwdP.bind([a, b], { eps: 1e-5 }), [shaped([6, 8], 'f32'), w]);
    expect(code(() => lowerProgram(p, { platform: 'cpu', mesh: { axis: 'x', size: 4 }, inShardings: [['x', null], [null]] }))).toMatch(/does not (divide|split) into 4 shards/);
    expect(code(() => lowerProgram(p, { platform: 'cpu', inShardings: [['x', null], [null]] }))).toMatch(/no mesh/);
  });
});

describe('transformations', () => {
  it('vjp pairs fwd and bwd through the residuals (invvar, x, weight)', () => {
    const p = vjp((a, b) => rmsNorm(a, b), [x, w]);
    expect(p.eqns.map((e) => e.prim.name)).toEqual(['rms_norm_fwd', 'rms_norm_bwd']);
    const [fwd, bwd] = p.eqns;
    expect(bwd!.ins).toEqual([p.inputs[2], fwd!.outs[1], p.inputs[0], p.inputs[1]]);
    expect(p.outputs.map((v) => v.aval)).toEqual([x, x, w]);
  });
  it('vmap of a batched weight is refused by the rule', () => {
    expect(code(() => vmap((a, b) => rmsNormFwdP.bind([a, b], { eps: 1e-5 }), [x, w], [0, 0], 2))).toMatch(/^E_RULE.*cannot batch over weight/);
  });
});

/** A stand-in for the addon: runs the legacy targets' contract (opaque descriptor, buffers) in JS. */
function jsTargets(calls: string[]): EagerContext {
  return {
    async customCall(symbol, values, outs, opaque) {
      const ins = hostArrays(symbol, values, 'jsTargets');
      calls.push(symbol);
      const d = unpackRMSNorm(opaque);
      const f = (a: EagerArray) => a.data as Float32Array;
      if (symbol === 'rms_forward_affine_mixed_dtype') {
        const r = rmsNormFwdRef(f(ins[0]!), f(ins[1]!), d.n1, d.n2, d.eps);
        return [eagerArray(Float32Array.from(r.out), outs[0]!.dtype, outs[0]!.shape), eagerArray(Float32Array.from(r.invvar), outs[1]!.dtype, outs[1]!.shape)];
      }
      const r = rmsNormBwdRef(f(ins[0]!), f(ins[1]!), f(ins[2]!), f(ins[3]!), d.n1, d.n2, d.partGradSize);
      return [r.gradInput, r.gradWeight, r.partGrad].map((v, i) => eagerArray(Float32Array.from(v), outs[i]!.dtype, outs[i]!.shape));
    },
  };
}

describe('eager execution through an EagerContext', () => {
  it('runs a vjp program primitive by primitive with descriptors the targets accept', async () => {
    const calls: string[] = [];
    const xs = Float32Array.from({ length: 32 }, (_, i) => Math.sin(i));
    const ws = Float32Array.from({ length: 8 }, (_, i) => 1 + i / 8);
    const gs = Float32Array.from({ length: 32 }, (_, i) => Math.cos(i));
    const outs = await evalProgram(vjp((a, b) => rmsNorm(a, b), [x, w]), [eagerArray(xs, 'f32', [4, 8]), eagerArray(ws, 'f32', [8]), eagerArray(gs, 'f32', [4, 8])], jsTargets(calls));
    expect(calls).toEqual(['rms_forward_affine_mixed_dtype', 'rms_backward_affine']);
    const ref = rmsNormBwdRef(gs, rmsNormFwdRef(xs, ws, 4, 8, 1e-5).invvar, xs, ws, 4, 8, 16);
    (outs[2]!.data as Float32Array).forEach((v, i) => expect(v).toBeCloseTo(ref.gradWeight[i]!, 4));
  });
  it('bad input fails before the target is called', async () => {
    const calls: string[] = [];
    await expect(rmsNormFwdP.apply([eagerArray(new Float32Array(12), 'f32', [2, 6]), eagerArray(new Float32Array(8), 'f32', [8])], { eps: 1e-5 }, jsTargets(calls))).rejects.toThrow(/must end with weight's shape/);
    expect(calls).toEqual([]);
  });
  it('the Tessera-kernel context runs RMSNorm eagerly on the interpreter and refuses other dtypes', async () => {
    const xs = Float32Array.from({ length: 32 }, (_, i) => Math.sin(i));
    const ws = Float32Array.from({ length: 8 }, (_, i) => 1 + i / 8);
    const ctx = tesseraRmsNormContext({ device: 'interpret' });
    const [out] = await rmsNormFwdP.apply([eagerArray(xs, 'f32', [4, 8]), eagerArray(ws, 'f32', [8])], { eps: 1e-5 }, ctx);
    const ref = rmsNormFwdRef(xs, ws, 4, 8, 1e-5).out;
    (out!.data as Float32Array).forEach((v, i) => expect(v).toBeCloseTo(ref[i]!, 5));
    await expect(rmsNormFwdP.apply([eagerArray(new Float64Array(32), 'f64', [4, 8]), eagerArray(ws, 'f32', [8])], { eps: 1e-5 }, ctx)).rejects.toThrow(/take f32 x and weight, got f64/);
  });
  it('a context that breaks the contract (outputs of other avals) is an E_RULE error', async () => {
    const ins = [eagerArray(new Float32Array(32), 'f32', [4, 8]), eagerArray(new Float32Array(8), 'f32', [8])];
    const one: EagerContext = { customCall: async (_s, _i, outs) => [eagerArray(new Float32Array(32), 'f32', outs[0]!.shape)] };
    await expect(rmsNormFwdP.apply(ins, { eps: 1e-5 }, one)).rejects.toMatchObject({ code: 'E_RULE', message: expect.stringMatching(/returned 1 outputs \(host f32\[4, 8\]\) where 2 host arrays were due/) });
    const wrong: EagerContext = { customCall: async () => [eagerArray(new Float32Array(32), 'f32', [4, 8]), eagerArray(new Float32Array(4), 'f32', [2, 2])] };
    await expect(rmsNormFwdP.apply(ins, { eps: 1e-5 }, wrong)).rejects.toMatchObject({ code: 'E_RULE' });
  });
  it('without a context the eager custom call says what is missing', async () => {
    await expect(rmsNormFwdP.apply([eagerArray(new Float32Array(32), 'f32', [4, 8]), eagerArray(new Float32Array(8), 'f32', [8])], { eps: 1e-5 })).rejects.toThrow(/E_UNAVAILABLE|no eager context/);
  });
});

describe('kernel-call images carry the compute capability of their target', () => {
  it('sm_80 80, sm_89 89, sm_90 and sm_90a 90 (not NaN)', async () => {
    const { targetArch } = await import('../../src/primitive/kernel_call.js');
    expect((['sm_80', 'sm_89', 'sm_90', 'sm_90a'] as const).map(targetArch)).toEqual([80, 89, 90, 90]);
  });
});
