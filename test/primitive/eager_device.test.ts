// Eager RMSNorm primitives on the runtime's device arrays, on the sim: the GPU legacy targets of
// libtessera_xla.so (rms_forward_affine_mixed_dtype / rms_backward_affine, nvcc's PTX run by the
// sim) called through the addon's callCustomCall on the device's stream with the arrays' own
// memory. Checked against the JS reference for several dtype mixes, chained on the device,
// against the Tessera-language kernels, and with bad descriptors and bad inputs.
import { afterAll, describe, expect, it, vi } from 'vitest';
import '../../src/runtime/index.js';
import { pallasSoftmax, softmaxKernel, softmaxRef } from '../../examples/softmax.js';
import { BlockSpec, dot, type Ref } from '../../src/lang/index.js';
import { pallasCall } from '../../src/runtime/pallas_call.js';
import { packRMSNorm } from '../../src/descriptor/rms_norm.js';
import type { DType } from '../../src/ir/types.js';
import { getDevice } from '../../src/runtime/device.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { xlaLibraryPath } from '../../src/runtime/native/addon.js';
import {
  deviceEagerContext, eagerArray, evalProgram, invvarDType, kernelPrimitive, nativeEagerContext, pallasPrimitive, rmsNorm, rmsNormBwdP, rmsNormBwdRef, rmsNormFwdP, rmsNormFwdRef,
  shaped, tesseraRmsNormContext, vjp, type EagerArray,
} from '../../src/primitive/index.js';
import { openSimDriver } from '../native/sim-helpers.js';

const sim = getDevice('sim');
const lib = xlaLibraryPath();

type Float = 'f64' | 'f32' | 'f16' | 'bf16';
const encode = (v: ArrayLike<number>, d: Float) =>
  d === 'f64' ? Float64Array.from(v) : d === 'f32' ? Float32Array.from(v) : d === 'f16' ? f16Array(v) : bf16Array(v);
const decode = (a: ArrayLike<number>, d: DType): number[] =>
  Array.from(d === 'f16' ? f16ToFloat32(a) : d === 'bf16' ? bf16ToFloat32(a) : a);
const onSim = (v: ArrayLike<number>, d: Float, shape: number[]) => DeviceArray.from(encode(v, d), d, { device: sim, shape });
const read = async (a: DeviceArray): Promise<number[]> => decode(await a.toArray() as ArrayLike<number>, a.dtype);

/** Relative tolerance of a result stored in `d` (the rounding of the stored value dominates). */
const TOL: Record<Float, number> = { f64: 1e-12, f32: 2e-5, f16: 2e-3, bf16: 1.2e-2 };

function close(got: readonly number[], want: ArrayLike<number>, tol: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  let worst = 0;
  got.forEach((g, i) => (worst = Math.max(worst, Math.abs(g - want[i]!) / (1 + Math.abs(want[i]!)))));
  expect(worst, what).toBeLessThanOrEqual(tol);
}

const wave = (n: number, f: number, a = 1, b = 0) => Array.from({ length: n }, (_, i) => b + a * Math.sin(i * f + 0.3));

describe('RMSNorm on sim device arrays through the GPU targets', () => {
  const mixes: [Float, Float][] = [['f32', 'f32'], ['f16', 'f32'], ['bf16', 'f16'], ['f64', 'f64']];

  it.each(mixes)('forward and backward, x %s / weight %s, match the JS reference', async (xt, wt) => {
    const B = 3, S = 5, n2 = 37, n1 = B * S, eps = 1e-5, P = 4;
    const x = onSim(wave(n1 * n2, 0.7, 2), xt, [B, S, n2]);
    const w = onSim(wave(n2, 1.3, 0.5, 1), wt, [n2]);
    const g = onSim(wave(n1 * n2, 0.31), wt, [B, S, n2]);
    const [xs, ws, gs] = [await read(x), await read(w), await read(g)]; // the values the targets see

    const [out, invvar] = await rmsNormFwdP.apply([x, w], { eps });
    expect([out, invvar].map(String)).toEqual([`DeviceArray(${wt}[${B}, ${S}, ${n2}] on sim)`, `DeviceArray(${invvarDType(xt)}[${n1}] on sim)`]);
    const ref = rmsNormFwdRef(xs, ws, n1, n2, eps);
    close(await read(out!), ref.out, TOL[wt], 'out');
    close(await read(invvar!), ref.invvar, TOL[invvarDType(xt) as Float], 'invvar');

    const ivs = await read(invvar!);
    const [gi, gw, pg] = await rmsNormBwdP.apply([g, invvar!, x, w], { eps, partGradSize: P });
    expect([gi, gw, pg].map((a) => `${a!.dtype}[${a!.shape.join(', ')}]`)).toEqual([`${xt}[${B}, ${S}, ${n2}]`, `${wt}[${n2}]`, `${invvarDType(xt)}[${P}, ${n2}]`]);
    const bref = rmsNormBwdRef(gs, ivs, xs, ws, n1, n2, P);
    close(await read(gi!), bref.gradInput, TOL[xt] * 4, 'grad_input');
    close(await read(gw!), bref.gradWeight, TOL[wt] * 4, 'grad_weight');
    close(await read(pg!), bref.partGrad, TOL[invvarDType(xt) as Float] * 4, 'part_grad');
    for (const a of [x, w, g, out, invvar, gi, gw, pg]) a!.free();
  });

  it('chains forward into backward on the device: no host copy between them', async () => {
    const n1 = 8, n2 = 64, eps = 1e-6;
    const xs = wave(n1 * n2, 0.45, 3), ws = wave(n2, 0.9, 0.25, 1);
    const x = onSim(xs, 'f32', [n1, n2]), w = onSim(ws, 'f32', [n2]);
    await sim.synchronize!();
    const read_ = vi.spyOn(sim.memory!, 'read'), write = vi.spyOn(sim.memory!, 'write'), readSync = vi.spyOn(sim.memory!, 'readSync');
    const call = vi.spyOn(sim, 'callCustomCall');
    let outs: DeviceArray[];
    try {
      // The forward's output is the backward's cotangent; invvar goes straight in too.
      const [out, invvar] = await rmsNormFwdP.apply([x, w], { eps });
      const [gi, gw] = await rmsNormBwdP.apply([out!, invvar!, x, w], { eps, partGradSize: 16 });
      // And a whole vjp program, equation by equation, on device arrays.
      const prog = await evalProgram(vjp((a, b) => rmsNorm(a, b, eps), [shaped([n1, n2], 'f32'), shaped([n2], 'f32')]), [x, w, out!]);
      outs = [out!, gi!, gw!, ...prog];
      expect(call).toHaveBeenCalledTimes(4);
      expect(read_).not.toHaveBeenCalled();
      expect(readSync).not.toHaveBeenCalled();
      expect(write).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
    const f = rmsNormFwdRef(Float32Array.from(xs), Float32Array.from(ws), n1, n2, eps);
    const b = rmsNormBwdRef(f.out, f.invvar, Float32Array.from(xs), Float32Array.from(ws), n1, n2, 16);
    const [out, gi, gw, pOut, pGi, pGw] = outs;
    close(await read(out!), f.out, 2e-5, 'out');
    close(await read(gi!), b.gradInput, 1e-4, 'grad_input');
    close(await read(gw!), b.gradWeight, 1e-4, 'grad_weight');
    expect(outs.length).toBe(6);
    expect(outs.every((a) => a instanceof DeviceArray && a.device === sim)).toBe(true);
    close(await read(pOut!), f.out, 2e-5, 'program out');
    close(await read(pGi!), b.gradInput, 1e-4, 'program grad_input');
    close(await read(pGw!), b.gradWeight, 1e-4, 'program grad_weight');
  });

  it('keeps inputs alive until the call is done, even when freed at once', async () => {
    const n1 = 64, n2 = 256, eps = 1e-5;
    const xs = wave(n1 * n2, 0.11, 1.5), ws = wave(n2, 0.5, 0.5, 1);
    const x = onSim(xs, 'f32', [n1, n2]), w = onSim(ws, 'f32', [n2]);
    const pending = rmsNormFwdP.apply([x, w], { eps }); // queued on the stream by now
    x.free();
    w.free();
    expect(x.freed).toBe(true);
    expect(x.storage.inflight).toBeGreaterThan(0); // held by the call, the free deferred
    const [out] = await pending;
    expect(x.storage.inflight).toBe(0);
    close(await read(out!), rmsNormFwdRef(Float32Array.from(xs), Float32Array.from(ws), n1, n2, eps).out, 2e-5, 'out');
  });

  it('runs on a stream of the device', async () => {
    const s = sim.createStream!();
    const n1 = 4, n2 = 48, eps = 1e-5;
    const xs = wave(n1 * n2, 0.2), ws = wave(n2, 0.7, 0.1, 1);
    const x = DeviceArray.from(Float32Array.from(xs), 'f32', { device: sim, shape: [n1, n2], stream: s });
    const w = DeviceArray.from(Float32Array.from(ws), 'f32', { device: sim, stream: s });
    const [out] = await rmsNormFwdP.apply([x, w], { eps }, deviceEagerContext(sim, { stream: s }));
    close(Array.from(await out!.toArray({ stream: s }) as Float32Array), rmsNormFwdRef(Float32Array.from(xs), Float32Array.from(ws), n1, n2, eps).out, 2e-5, 'out');
    s.destroy();
  });

  it('host inputs keep working: host in, host out (deviceEagerContext, and nativeEagerContext on a raw driver)', async () => {
    const n1 = 6, n2 = 20, eps = 1e-5;
    const xs = Float32Array.from(wave(n1 * n2, 0.8, 2)), ws = Float32Array.from(wave(n2, 0.4, 0.3, 1));
    const want = rmsNormFwdRef(xs, ws, n1, n2, eps).out;
    const ins = [eagerArray(xs, 'f32', [n1, n2]), eagerArray(ws, 'f32', [n2])];
    const [a] = await rmsNormFwdP.apply(ins, { eps }, deviceEagerContext('sim'));
    close(Array.from(a!.data as Float32Array), want, 2e-5, 'deviceEagerContext, host arrays');
    const drv = openSimDriver();
    try {
      const [b] = await rmsNormFwdP.apply(ins, { eps }, nativeEagerContext({ driver: drv, libraryPath: lib }));
      close(Array.from(b!.data as Float32Array), want, 2e-5, 'nativeEagerContext');
      // A raw driver's context cannot take the runtime's device arrays: said so, by name.
      await expect(rmsNormFwdP.apply([onSim(xs, 'f32', [n1, n2]), ins[1]!], { eps }, nativeEagerContext({ driver: drv, libraryPath: lib })))
        .rejects.toMatchObject({ code: 'E_DEVICE', message: expect.stringMatching(/nativeEagerContext works on host arrays, but input 0 is DeviceArray\(f32\[6, 20\] on sim\)/) });
    } finally {
      drv.close();
    }
    // Mixed host and device inputs: the host one is uploaded, the outputs stay on the device.
    const [c] = await rmsNormFwdP.apply([onSim(xs, 'f32', [n1, n2]), ins[1]!], { eps });
    expect(c).toBeInstanceOf(DeviceArray);
    close(await read(c as DeviceArray), want, 2e-5, 'mixed');
  });
});

describe('errors before anything runs', () => {
  const x = onSim(wave(32, 0.5), 'f32', [4, 8]), w = onSim(wave(8, 0.5, 0.1, 1), 'f32', [8]);
  afterAll(() => {
    x.free();
    w.free();
  });

  it('a contradiction with abstract evaluation, a device mismatch, a freed or strided input', async () => {
    const call = vi.spyOn(sim, 'callCustomCall');
    try {
      const bad = async (p: Promise<unknown>, code: string, msg: RegExp) => expect(p).rejects.toMatchObject({ code, message: expect.stringMatching(msg) });
      await bad(rmsNormFwdP.apply([x, onSim([1, 2, 3], 'f32', [3])], { eps: 1e-5 }), 'E_SHAPE', /rms_norm_fwd.*x f32\[4, 8\] must end with weight's shape \[3\]/);
      await bad(rmsNormFwdP.apply([DeviceArray.zeros([4, 8], 'i32', { device: sim }), w], { eps: 1e-5 }), 'E_TYPE', /x must be bf16, f16, f32 or f64, got i32\[4, 8\]/);
      const f16iv = DeviceArray.zeros([4], 'f16', { device: sim });
      await bad(rmsNormBwdP.apply([x, f16iv, x, w], { eps: 1e-5, partGradSize: 2 }), 'E_TYPE', /invvar must be f32 for x of f32, got f16/);
      await bad(rmsNormBwdP.apply([x, DeviceArray.zeros([3], 'f32', { device: sim }), x, w], { eps: 1e-5, partGradSize: 2 }), 'E_SHAPE', /invvar f32\[3\] must have shape \[4\]/);
      const wi = DeviceArray.from(Float32Array.from(wave(8, 0.5)), 'f32', { device: 'interpret' });
      await bad(rmsNormFwdP.apply([x, wi], { eps: 1e-5 }), 'E_DEVICE', /inputs are on different devices: DeviceArray\(f32\[4, 8\] on sim\) and DeviceArray\(f32\[8\] on interpret\)/);
      expect(() => deviceEagerContext('interpret')).toThrow(expect.objectContaining({ code: 'E_UNAVAILABLE', message: expect.stringMatching(/device 'interpret' cannot run CUDA custom-call targets/) }));
      const xi = DeviceArray.from(Float32Array.from(wave(32, 0.5)), 'f32', { device: 'interpret', shape: [4, 8] });
      await bad(rmsNormFwdP.apply([xi, wi], { eps: 1e-5 }, deviceEagerContext(sim)), 'E_DEVICE', /input 0 \(DeviceArray\(f32\[4, 8\] on interpret\)\) is on device 'interpret:0', the call runs on 'sim:0'/);
      const dead = onSim(wave(8, 0.5), 'f32', [8]);
      dead.free();
      await bad(rmsNormFwdP.apply([x, dead], { eps: 1e-5 }), 'E_FREED', /input 1.*the array was freed/);
      const xt = onSim(wave(32, 0.5), 'f32', [8, 4]).transpose();
      await bad(rmsNormFwdP.apply([xt, onSim(wave(8, 0.5), 'f32', [8])], { eps: 1e-5 }), 'E_ARG', /input 0 .* is a strided view/);
      await bad(rmsNormFwdP.apply([x, w], { eps: -1 }), 'E_ARG', /eps must be a finite number >= 0/);
      expect(call).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('bad descriptors: an error, and the outputs left untouched', () => {
  const n1 = 4, n2 = 8;
  const good = (partGradSize = 0) => packRMSNorm({ n1, n2, eps: 1e-5, xType: 'f32', wType: 'f32', partGradSize });
  const edit = (bytes: Uint8Array, f: (v: DataView) => void) => {
    const b = bytes.slice();
    f(new DataView(b.buffer));
    return b;
  };
  const cases: [string, string, Uint8Array, RegExp][] = [
    ['forward, opaque one byte short', 'rms_forward_affine_mixed_dtype', good().slice(0, 31), /opaque_len is 31, an RMSNormDescriptor has 32 bytes/],
    ['forward, opaque one byte long', 'rms_forward_affine_mixed_dtype', Uint8Array.from([...good(), 0]), /opaque_len is 33/],
    ['forward, unknown x dtype enum', 'rms_forward_affine_mixed_dtype', edit(good(), (v) => v.setInt32(16, 7, true)), /x_type 7 is not an ElementType/],
    ['forward, unknown weight dtype enum', 'rms_forward_affine_mixed_dtype', edit(good(), (v) => v.setInt32(20, -1, true)), /w_type -1 is not an ElementType/],
    ['forward, n2 == 0', 'rms_forward_affine_mixed_dtype', edit(good(), (v) => v.setInt32(4, 0, true)), /n2 must be >= 1, got 0/],
    ['backward, n2 == 0', 'rms_backward_affine', edit(good(2), (v) => v.setInt32(4, 0, true)), /n2 must be >= 1, got 0/],
    ['backward, unknown x dtype enum', 'rms_backward_affine', edit(good(2), (v) => v.setInt32(16, 4, true)), /x_type 4 is not an ElementType/],
    ['backward, wrong opaque length', 'rms_backward_affine', new Uint8Array(16), /opaque_len is 16/],
  ];

  it.each(cases)('%s', async (_name, symbol, opaque, msg) => {
    const x = onSim(wave(n1 * n2, 0.5), 'f32', [n1, n2]), w = onSim(wave(n2, 0.3, 0.1, 1), 'f32', [n2]);
    const outs = symbol === 'rms_forward_affine_mixed_dtype'
      ? [DeviceArray.full([n1, n2], 7.5, 'f32', { device: sim }), DeviceArray.full([n1], -3, 'f32', { device: sim })]
      : [DeviceArray.full([n1, n2], 7.5, 'f32', { device: sim }), DeviceArray.full([n2], -3, 'f32', { device: sim }), DeviceArray.full([2, n2], 9, 'f32', { device: sim })];
    const ins = symbol === 'rms_forward_affine_mixed_dtype' ? [x, w] : [x, DeviceArray.full([n1], 1, 'f32', { device: sim }), x, w];
    const before = await Promise.all(outs.map(read));
    await expect(sim.callCustomCall!(lib, symbol, [...ins, ...outs], opaque))
      .rejects.toMatchObject({ code: 'E_CUSTOM_CALL', message: expect.stringMatching(new RegExp(`custom call '${symbol}'.*failed: .*${msg.source}`)) });
    await sim.synchronize!();
    expect(await Promise.all(outs.map(read))).toEqual(before);
    // Through an eager context too: the same error; its fresh outputs are released.
    await expect(deviceEagerContext(sim).customCall(symbol, ins, outs.map((o) => shaped(o.shape, o.dtype)), opaque)).rejects.toMatchObject({ code: 'E_CUSTOM_CALL' });
    // The device is fine afterwards: the good descriptor runs.
    await sim.callCustomCall!(lib, symbol, [...ins, ...outs], symbol === 'rms_forward_affine_mixed_dtype' ? good() : good(2));
    expect(await read(outs[0]!)).not.toEqual(before[0]);
  });

  it('an unknown symbol or library is a clear error', async () => {
    const a = DeviceArray.zeros([4], 'f32', { device: sim });
    await expect(sim.callCustomCall!(lib, 'no_such_target', [a], good())).rejects.toMatchObject({ code: 'E_NO_SYMBOL' });
    await expect(sim.callCustomCall!('/nonexistent/libx.so', 'f', [a], good())).rejects.toMatchObject({ code: 'E_NO_LIBRARY' });
    await expect(sim.callCustomCall!(lib, 'f', [new Float32Array(4) as never], good())).rejects.toMatchObject({ code: 'E_ARG', message: expect.stringMatching(/buffer 0: expected a DeviceArray, got Float32Array/) });
    await expect(deviceEagerContext(sim, { libraryPath: '/nonexistent/libx.so' }).customCall('f', [a], [], good())).rejects.toMatchObject({ code: 'E_UNAVAILABLE' });
  });
});

describe('the Tessera-language RMSNorm against the CUDA one, on the same sim device arrays', () => {
  it('forward and backward agree (f32)', async () => {
    const n1 = 12, n2 = 100, P = 4, eps = 1e-6;
    const x = onSim(wave(n1 * n2, 0.7, 3), 'f32', [n1, n2]), w = onSim(wave(n2, 1, 1, 0.5), 'f32', [n2]);
    const g = onSim(wave(n1 * n2, 0.3), 'f32', [n1, n2]);
    const tessera = tesseraRmsNormContext();
    const cudaF = await rmsNormFwdP.apply([x, w], { eps });
    const oursF = await rmsNormFwdP.apply([x, w], { eps }, tessera);
    expect(oursF.every((a) => a instanceof DeviceArray && a.device === sim)).toBe(true);
    const cudaB = await rmsNormBwdP.apply([g, cudaF[1]!, x, w], { eps, partGradSize: P });
    const oursB = await rmsNormBwdP.apply([g, oursF[1]!, x, w], { eps, partGradSize: P }, tessera);
    const names = ['out', 'invvar', 'grad_input', 'grad_weight', 'part_grad'];
    const [c, o] = [[...cudaF, ...cudaB], [...oursF, ...oursB]];
    for (let i = 0; i < names.length; i++) close(await read(o[i]!), await read(c[i]!), i < 2 ? 1e-5 : 1e-4, names[i]!);
  });

  it('refuses what its kernels do not serve, by name', async () => {
    const x = onSim(wave(16, 0.5), 'f16', [2, 8]), w = onSim(wave(8, 0.5), 'f16', [8]);
    await expect(rmsNormFwdP.apply([x, w], { eps: 1e-5 }, tesseraRmsNormContext())).rejects.toThrow(/take f32 x and weight, got f16 and f16/);
    const xi = DeviceArray.zeros([2, 8], 'f32', { device: 'interpret' }), wi = DeviceArray.zeros([8], 'f32', { device: 'interpret' });
    await expect(rmsNormFwdP.apply([xi, wi], { eps: 1e-5 }, tesseraRmsNormContext({ device: 'sim' }))).rejects.toMatchObject({ code: 'E_DEVICE' });
  });
});

// The host path of the Tessera context still works (EagerArray in, EagerArray out) on the sim.
it('tesseraRmsNormContext on host arrays', async () => {
  const xs = Float32Array.from(wave(32, 0.5)), ws = Float32Array.from(wave(8, 0.2, 0.1, 1));
  const [out] = await rmsNormFwdP.apply([eagerArray(xs, 'f32', [4, 8]), eagerArray(ws, 'f32', [8])], { eps: 1e-5 }, tesseraRmsNormContext({ device: 'sim' }));
  close(Array.from((out as EagerArray).data as Float32Array), rmsNormFwdRef(xs, ws, 4, 8, 1e-5).out, 2e-5, 'out');
});

describe('Tessera kernels as primitives on sim device arrays (the generic GPU target tessera_kernel_call)', () => {
  it('a Pallas matmul chained into a softmax kernel: the GPU target on device arrays matches the direct launch', async () => {
    const M = 32, K = 16, N = 40, BM = 16, BN = 8;
    const matmulP = pallasPrimitive(pallasCall((a: Ref, b: Ref, o: Ref) => o.store(dot(a.load(), b.load())), {
      outShape: { shape: [M, N], dtype: 'f32' }, grid: [M / BM, N / BN], name: 'matmul',
      inSpecs: [new BlockSpec([BM, K], (i) => [i, 0]), new BlockSpec([K, BN], (_i, j) => [0, j])],
      outSpecs: new BlockSpec([BM, BN], (i, j) => [i, j]),
    }), { device: 'sim' });
    const softmaxP = kernelPrimitive(softmaxKernel, {
      outputs: ([a]) => [a!],
      args: ([a]) => ({ x: { operand: 0 }, out: { result: 0 }, cols: a!.shape[1]!, BLOCK: 64 }),
      grid: ([a]) => a!.shape[0]!,
    }, { device: 'sim' });
    const as = wave(M * K, 0.37), bs = wave(K * N, 0.91);
    const call = vi.spyOn(sim, 'callCustomCall');
    let mm: DeviceArray, sm: DeviceArray;
    try {
      [mm] = (await matmulP.apply([onSim(as, 'f32', [M, K]), onSim(bs, 'f32', [K, N])], {})) as [DeviceArray];
      [sm] = (await softmaxP.apply([mm], {})) as [DeviceArray];
      expect(call.mock.calls.map((c) => c[1])).toEqual(['tessera_kernel_call', 'tessera_kernel_call']);
    } finally {
      vi.restoreAllMocks();
    }
    expect(String(sm)).toBe(`DeviceArray(f32[${M}, ${N}] on sim)`);
    // The host path launches the same kernels on the sim directly (no custom call).
    const [hm] = await matmulP.apply([eagerArray(Float32Array.from(as), 'f32', [M, K]), eagerArray(Float32Array.from(bs), 'f32', [K, N])], {});
    const [hs] = await softmaxP.apply([hm!], {});
    expect(Array.from(await mm.toArray() as Float32Array)).toEqual(Array.from(hm!.data as Float32Array));
    expect(Array.from(await sm.toArray() as Float32Array)).toEqual(Array.from(hs!.data as Float32Array));
    close(await read(sm), softmaxRef(hm!.data as Float32Array, M, N), 1e-5, 'softmax');
  });

  it('a result aliasing its operand starts as a copy; the input array is untouched', async () => {
    const n = 96;
    const p = pallasPrimitive(pallasCall((xr: Ref, o: Ref) => o.store(xr.load().mul(2).add(1)), {
      outShape: { shape: [n], dtype: 'f32' }, grid: 3, name: 'twice_plus_one',
      inSpecs: [new BlockSpec([32], (i) => [i])], outSpecs: new BlockSpec([32], (i) => [i]), inputOutputAliases: { 0: 0 },
    }), { device: 'sim' });
    const xs = Float32Array.from(wave(n, 0.2, 4));
    const x = DeviceArray.from(xs, 'f32', { device: sim });
    const [y] = await p.apply([x], {});
    expect(Array.from(await x.toArray())).toEqual(Array.from(xs));
    expect(Array.from(await y!.toArray() as Float32Array)).toEqual(Array.from(xs, (v) => Math.fround(Math.fround(v * 2) + 1)));
    // The same target through nativeEagerContext on host arrays (apply would run the host impl).
    const drv = openSimDriver();
    try {
      const { symbol, opaque, aliases } = p.eagerCustomCall!([shaped([n], 'f32')], {});
      expect([...aliases!]).toEqual([[0, 0]]);
      const input = eagerArray(Float32Array.from(xs), 'f32', [n]);
      const [h] = await nativeEagerContext({ driver: drv, libraryPath: lib }).customCall(symbol, [input], [shaped([n], 'f32')], opaque, aliases);
      expect(Array.from(input.data as Float32Array)).toEqual(Array.from(xs));
      expect(Array.from((h as EagerArray).data as Float32Array)).toEqual(Array.from(xs, (v) => Math.fround(Math.fround(v * 2) + 1)));
    } finally {
      drv.close();
    }
  });
});
