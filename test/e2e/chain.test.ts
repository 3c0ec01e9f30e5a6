// A chain of five kernels on device arrays (layernorm -> matmul -> softmax -> matmul -> add),
// queued back to back with no host copy in between, on the interpreter and on the sim, against a
// plain-JS reference. Every kernel the sim runs also passes the ptxas gate (sm_80 and sm_90).
import { describe, expect, it, vi } from 'vitest';
import { arange, constexpr, dot, exp, load, max, programId, ptr, range, rsqrt, store, sum, where, zeros } from '../../src/lang/index.js';
import { DeviceArray, getDevice, kernel, setDeviceAnnouncer, type DeviceKind, type Kernel } from '../../src/runtime/index.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { gate } from '../codegen/gate.js';
import { expectClose, randF32 } from './helpers.js';

setDeviceAnnouncer(() => {});

const layernorm = kernel(
  { name: 'chain_layernorm', params: { x: ptr('f32'), g: ptr('f32'), b: ptr('f32'), out: ptr('f32'), D: 'i32', eps: 'f32', BD: constexpr() } },
  ({ x, g, b, out, D, eps, BD }) => {
    const cols = arange(0, BD);
    const mask = cols.lt(D);
    const row = programId(0).mul(D);
    const v = load(x.add(row.add(cols)), { mask, other: 0 });
    const mean = sum(v, 0).div(D);
    const c = where(mask, v.sub(mean), 0);
    const inv = rsqrt(sum(c.mul(c), 0).div(D).add(eps));
    const y = c.mul(inv).mul(load(g.add(cols), { mask })).add(load(b.add(cols), { mask }));
    store(out.add(row.add(cols)), y, { mask });
  },
);

const matmul = kernel(
  { name: 'chain_matmul', params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM)).expandDims(1);
    const rn = programId(1).mul(BN).add(arange(0, BN)).expandDims(0);
    const rk = arange(0, BK);
    const [acc] = range(0, K.floordiv(BK), [zeros([BM as number, BN as number])], (kk, acc) => {
      const k0 = kk.mul(BK).add(rk);
      const av = load(a.add(rm.mul(K).add(k0.expandDims(0))));
      const bv = load(b.add(k0.expandDims(1).mul(N).add(rn)));
      return [dot(av, bv, { acc })];
    });
    store(c.add(rm.mul(N).add(rn)), acc!);
  },
);

const softmax = kernel(
  { name: 'chain_softmax', params: { x: ptr('f32'), out: ptr('f32'), C: 'i32', BC: constexpr() } },
  ({ x, out, C, BC }) => {
    const cols = arange(0, BC);
    const mask = cols.lt(C);
    const row = programId(0).mul(C);
    const v = load(x.add(row.add(cols)), { mask, other: -Infinity });
    const e = exp(v.sub(max(v, 0)));
    store(out.add(row.add(cols)), e.div(sum(e, 0)), { mask });
  },
);

const addk = kernel(
  { name: 'chain_add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, y, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    store(out.add(offs), load(x.add(offs), { mask }).add(load(y.add(offs), { mask })), { mask });
  },
);

// Shapes: X [M, D] -> LN -> H [M, D] -> @W1 [D, F] -> A [M, F] -> softmax -> P -> @W2 [F, D] -> B [M, D] -> + R.
const M = 32, D = 32, F = 64, EPS = 1e-5;

function reference(x: Float32Array, g: Float32Array, b: Float32Array, w1: Float32Array, w2: Float32Array, r: Float32Array): Float64Array {
  const h = new Float64Array(M * D);
  for (let i = 0; i < M; i++) {
    const row = Array.from(x.subarray(i * D, i * D + D));
    const mean = row.reduce((p, q) => p + q, 0) / D;
    const v = row.reduce((p, q) => p + (q - mean) ** 2, 0) / D;
    row.forEach((q, j) => (h[i * D + j] = ((q - mean) / Math.sqrt(v + EPS)) * g[j]! + b[j]!));
  }
  const mm = (a: Float64Array, w: Float32Array, K: number, N: number) => {
    const o = new Float64Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += a[i * K + k]! * w[k * N + j]!;
      o[i * N + j] = s;
    }
    return o;
  };
  const a = mm(h, w1, D, F);
  for (let i = 0; i < M; i++) {
    const row = a.subarray(i * F, i * F + F);
    const m = Math.max(...row);
    let s = 0;
    row.forEach((q, j) => (s += row[j] = Math.exp(q - m)));
    row.forEach((q, j) => (row[j] = q / s));
  }
  const out = mm(a, w2, F, D);
  return out.map((q, i) => q + r[i]!);
}

/** The ptxas gate for what the sim runs: the kernel traced for these constexprs, specialized for these args. */
function gateRun(k: Kernel, args: Record<string, unknown>, numWarps = 4): void {
  const cx: Record<string, number> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as number;
  const f = k.trace(cx);
  gate(f, { numWarps, specialization: launchSpecialization(f, k.def.runtimeParams.map((p) => args[p.name] as LaunchArg)) });
}

describe.each(['interpret', 'sim'] as DeviceKind[])('a five-kernel chain on %s device arrays', (device) => {
  it('layernorm -> matmul -> softmax -> matmul -> add matches the JS reference, with no host copy in between', async () => {
    const x = randF32(M * D, 1), g = randF32(D, 2, 0.5, 1.5), b = randF32(D, 3, -0.5, 0.5);
    const w1 = randF32(D * F, 4, -0.5, 0.5), w2 = randF32(F * D, 5, -0.5, 0.5), r = randF32(M * D, 6);
    const dev = getDevice(device);
    const on = { device };
    const [dx, dg, db, dw1, dw2, dr] = [x, g, b, w1, w2, r].map((a) => DeviceArray.from(a, 'f32', on));
    const h = DeviceArray.empty([M, D], 'f32', on), a = DeviceArray.empty([M, F], 'f32', on), p = DeviceArray.empty([M, F], 'f32', on);
    const bb = DeviceArray.empty([M, D], 'f32', on), out = DeviceArray.empty([M, D], 'f32', on);

    const reads = vi.spyOn(dev.memory!, 'read'), writes = vi.spyOn(dev.memory!, 'write'), syncReads = vi.spyOn(dev.memory!, 'readSync');
    const steps: [Kernel, Record<string, unknown>, number[]][] = [
      [layernorm as unknown as Kernel, { x: dx, g: dg, b: db, out: h, D, eps: EPS, BD: 32 }, [M]],
      [matmul as unknown as Kernel, { a: h, b: dw1, c: a, N: F, K: D, BM: 16, BN: 16, BK: 16 }, [M / 16, F / 16]],
      [softmax as unknown as Kernel, { x: a, out: p, C: F, BC: 64 }, [M]],
      [matmul as unknown as Kernel, { a: p, b: dw2, c: bb, N: D, K: F, BM: 16, BN: 16, BK: 16 }, [M / 16, D / 16]],
      [addk as unknown as Kernel, { x: bb, y: dr, out, n: M * D, BLOCK: 256 }, [(M * D) / 256]],
    ];
    // Queued back to back; only the last future is awaited.
    const futures = steps.map(([k, args, grid]) => k.run(args as never, { grid, device }));
    await futures[4];
    await Promise.all(futures);
    expect(reads).not.toHaveBeenCalled();
    expect(writes).not.toHaveBeenCalled();
    expect(syncReads).not.toHaveBeenCalled();
    reads.mockRestore();
    writes.mockRestore();
    syncReads.mockRestore();

    const got = await out.toArray();
    expectClose(got, reference(x, g, b, w1, w2, r), 2e-4, `${device} chain vs JS`);
    if (device === 'sim') for (const [k, args] of steps) gateRun(k, args);
    for (const arr of [dx, dg, db, dw1, dw2, dr, h, a, p, bb, out]) arr.free();
  });
});
