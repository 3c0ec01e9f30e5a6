// Matmul-class kernels whose dots run on tensor cores (mma.sync + ldmatrix): masked/ragged,
// pipelined aligned (cp.async ring, numStages 3), batched, and a flash-attention forward, in f16
// and bf16. Each runs on the interpreter and the sim (runBoth also assembles the PTX with ptxas
// for sm_80 and sm_90) and is compared with an f64 JS reference computed from the same
// half-precision inputs. test/codegen/mma.test.ts checks that
// these dots really lower to mma.sync/ldmatrix.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, exp, forLoop, full, load, maximum, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/runtime/half.js';
import { expectClose, randF32, runBoth, simDevice } from './helpers.js';

type Half = 'f16' | 'bf16';
const enc = (t: Half, x: Float32Array): Uint16Array => (t === 'f16' ? f16Array(x) : bf16Array(x));
const dec = (t: Half, x: Uint16Array): Float32Array => (t === 'f16' ? f16ToFloat32(x) : bf16ToFloat32(x));

function matmulRef(a: Float32Array, b: Float32Array, M: number, N: number, K: number, batch = 1): Float64Array {
  const c = new Float64Array(batch * M * N);
  for (let z = 0; z < batch; z++) for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[z * M * K + i * K + k]! * b[z * K * N + k * N + j]!;
    c[z * M * N + i * N + j] = s;
  }
  return c;
}

const matmulMasked = (t: Half) => kernel(
  { name: `mm_masked_${t}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
);

const matmulBatched = (t: Half) => kernel(
  { name: `mm_batched_${t}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const z = programId(2);
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const pa = a.add(z.mul(M).mul(K)), pb = b.add(z.mul(K).mul(N)), pc = c.add(z.mul(M).mul(N));
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(pa.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(pb.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(pc.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

/** The aligned matmul of the pipeliner: addresses from the induction variable, no masks. */
const matmulAligned = (t: Half) => kernel(
  { name: `mm_aligned_${t}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

/** Flash-attention forward: one program per BM query rows, online softmax over BN-key blocks. */
const flashAttn = (t: Half) => kernel(
  { name: `flash_fwd_${t}`, params: { q: ptr(t), k: ptr(t), v: ptr(t), o: ptr('f32'), L: 'i32', scale: 'f32', BM: constexpr(), BN: constexpr(), D: constexpr() } },
  ({ q, k, v, o, L, scale, BM, BN, D }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = arange(0, BN);
    const rd = arange(0, D);
    const qv = load(q.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))));
    const init = [full([BM as number], -Infinity, 'f32'), zeros([BM as number], 'f32'), zeros([BM as number, D as number], 'f32')];
    const [m, l, acc] = forLoop(0, L, BN, init, (j, m, l, acc) => {
      const kn = j.add(rn);
      const kt = load(k.add(kn.expandDims(0).mul(D).add(rd.expandDims(1)))); // [D, BN] = K^T block
      const vv = load(v.add(kn.expandDims(1).mul(D).add(rd.expandDims(0)))); // [BN, D]
      const s = dot(qv, kt).mul(scale);
      const mNew = maximum(m!, s.max(1));
      const alpha = exp(m!.sub(mNew));
      const p = exp(s.sub(mNew.expandDims(1)));
      return [mNew, l!.mul(alpha).add(p.sum(1)), acc!.mul(alpha.expandDims(1)).add(dot(p.to(t), vv))];
    });
    void m;
    store(o.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))), acc!.div(l!.expandDims(1)));
  },
);

function attentionRef(q: Float32Array, k: Float32Array, v: Float32Array, L: number, D: number, scale: number): Float64Array {
  const o = new Float64Array(L * D);
  for (let i = 0; i < L; i++) {
    const s = Array.from({ length: L }, (_, j) => {
      let d = 0;
      for (let x = 0; x < D; x++) d += q[i * D + x]! * k[j * D + x]!;
      return d * scale;
    });
    const mx = Math.max(...s);
    const e = s.map((x) => Math.exp(x - mx));
    const sum = e.reduce((x, y) => x + y, 0);
    for (let x = 0; x < D; x++) o[i * D + x] = e.reduce((acc, p, j) => acc + p * v[j * D + x]!, 0) / sum;
  }
  return o;
}

describe.each(['f16', 'bf16'] as const)('tensor-core matmuls in %s', (t) => {
  // products of half inputs are exact in f32; sums differ only in order (1e-4 is loose for K <= 64)
  it('masked matmul, ragged in M, N and K (72 x 40 x 56; BM 64, BN 32, BK 32; 4 warps)', async () => {
    const M = 72, N = 40, K = 56;
    const a = enc(t, randF32(M * K, 31)), b = enc(t, randF32(K * N, 32));
    const r = await runBoth(matmulMasked(t), { a, b, c: new Float32Array(M * N), M, N, K, BM: 64, BN: 32, BK: 32 }, [2, 2]);
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
  });

  it('pipelined aligned matmul (128 x 128 x 128; BM = BN = 64, BK = 32; 4 warps; numStages 3: cp.async ring)', async () => {
    const M = 128, N = 128, K = 128;
    const a = enc(t, randF32(M * K, 38)), b = enc(t, randF32(K * N, 39));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 64, BN: 64, BK: 32 };
    // the PTX the sim runs for these (16-aligned, multiple-of-16) arguments is pipelined
    const f = matmulAligned(t).trace({ BM: 64, BN: 64, BK: 32 });
    const ptx = simDevice().compile(f, 4, [a, b, args.c, M, N, K], 3).ptx;
    expect(ptx).toMatch(/cp\.async\.cg\.shared\.global/);
    expect(ptx).toContain('cp.async.wait_group 1;');
    const r = await runBoth(matmulAligned(t), args, [2, 2], { numStages: 3 });
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
  });

  it('batched matmul (3 x 64 x 64 x 64; BM = BN = 64, BK = 32; 4 warps)', async () => {
    const B = 3, M = 64, N = 64, K = 64;
    const a = enc(t, randF32(B * M * K, 33)), b = enc(t, randF32(B * K * N, 34));
    const r = await runBoth(matmulBatched(t), { a, b, c: new Float32Array(B * M * N), M, N, K, BM: 64, BN: 64, BK: 32 }, [1, 1, B]);
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K, B), 1e-4, 'sim vs JS');
  });

  it('flash-attention forward (L = 64, D = 32; BM = BN = 32; 4 warps; two dots in a loop)', async () => {
    const L = 64, D = 32, scale = 1 / Math.sqrt(D);
    const q = enc(t, randF32(L * D, 35)), k = enc(t, randF32(L * D, 36)), v = enc(t, randF32(L * D, 37));
    const r = await runBoth(flashAttn(t), { q, k, v, o: new Float32Array(L * D), L, scale, BM: 32, BN: 32, D }, L / 32);
    // p is rounded to the half type before the second dot: about 2^-8 (bf16) / 2^-11 (f16) relative
    const tol = t === 'bf16' ? 2e-2 : 4e-3;
    expectClose(r.sim.o, r.interpret.o, tol / 4, 'sim vs interpreter');
    expectClose(r.sim.o, attentionRef(dec(t, q), dec(t, k), dec(t, v), L, D, scale), tol, 'sim vs JS');
  });
});
