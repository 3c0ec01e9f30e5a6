// The matmul-class kernels on wgmma (target sm_90a): the sim pretends to be an sm_90
// (TESSERA_SIM_ARCH, read at cuInit, so it is set before anything opens the sim) and the runtime
// then compiles for sm_90a. Each kernel runs on the interpreter and the sim and is compared with
// a plain-JS reference; the PTX the sim ran (generic and specialized) is assembled by ptxas for
// sm_90a and checked to take the wgmma path (a silent fall back to mma.sync would compute the
// same numbers), with the expected count of wgmma.mma_async per tile.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { DType } from '../../src/ir/types.js';
import type { KernelDef } from '../../src/lang/index.js';
import { arange, constexpr, dot, load, max, ptr, store, sum } from '../../src/lang/index.js';
import { Kernel, kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { roundTF32 } from '../../src/ir/numeric.js';
import { flashAttention, matmulAligned, matmulBatched, matmulMasked } from '../../bench/kernels.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, expectClose, randF32, runBoth, simDevice } from './helpers.js';
import { cdiv, expectWithin as expectFp8Within, fp8Codes, fp8Matmul, reference, U_F16, U_F32 } from './fp8_matmul_cases.js';
import { accMatmul, attentionRef, cInit, dec, enc, expectWithin, ints, launchPtx, magnitude, matmulRef, type Prec } from './tc_matmul_cases.js';
import type { Fp8 } from '../ir/fp8_ref.js';

/**
 * The PTX of `def` for sm_90a — generic, and specialized for `args` as the sim device compiles
 * it — assembles with ptxas and has `wgmmas` wgmma.mma_async (matching `form`), one
 * commit_group per dot, and no mma.sync. Returns the specialized PTX.
 */
function expectWgmmaPath(def: KernelDef, args: RunArgs, wgmmas: number, form: RegExp, opts: { numWarps?: number; numStages?: number; dots?: number } = {}): string {
  const ptx = launchPtx(def, args, 'sm_90a', opts);
  expect(count(ptx, /wgmma\.mma_async/), `${def.name}: wgmma.mma_async`).toBe(wgmmas);
  expect(count(ptx, form), `${def.name}: the wgmma form`).toBe(wgmmas);
  expect(count(ptx, /wgmma\.commit_group\.sync\.aligned;/), `${def.name}: commit_group`).toBe(opts.dots ?? 1);
  expect(ptx, `${def.name}: mma.sync`).not.toMatch(/mma\.sync/);
  return ptx;
}

describe('the sim as an sm_90', () => {
  it('compiles for sm_90a (compute 9.0)', () => {
    expect(simDevice().target).toBe('sm_90a');
  });
});

describe.each(['f16', 'bf16'] as const)('wgmma matmuls in %s', (t) => {
  const form = new RegExp(`wgmma\\.mma_async\\.sync\\.aligned\\.m64n(\\d+)k16\\.f32\\.${t}\\.${t} `);

  it('masked matmul, ragged in M, N and K (72 x 40 x 56; BM 64, BN 32, BK 32; 4 warps): m64n32k16, 2 per tile', async () => {
    const M = 72, N = 40, K = 56;
    const a = enc(t, randF32(M * K, 31)), b = enc(t, randF32(K * N, 32));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 64, BN: 32, BK: 32 };
    const r = await runBoth(new Kernel(matmulMasked[t]), args, [2, 2]);
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectWgmmaPath(matmulMasked[t] as unknown as KernelDef, args, 2, form, { numStages: 3 });
    expect(ptx).toMatch(/m64n32k16/);
  });

  it.each([1, 3])('aligned matmul (128 x 64 x 96; BM = BN = 64, BK = 32; 4 warps; numStages %i): 2 wgmma per tile, as Triton 3.8 for cc 90', async (numStages) => {
    const M = 128, N = 64, K = 96;
    const a = enc(t, randF32(M * K, 38)), b = enc(t, randF32(K * N, 39));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 64, BN: 64, BK: 32 };
    const r = await runBoth(new Kernel(matmulAligned[t]), args, [2, 1], { numStages });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectWgmmaPath(matmulAligned[t] as unknown as KernelDef, args, 2, form, { numStages });
    if (numStages === 3) {
      // operands from the cp.async ring of 3 stages (no st.shared in the loop); the wgmma of
      // iteration i stays in flight into i+1 (wait_group 1), copies run S-1 = 2 iterations ahead
      const body = ptx.slice(ptx.indexOf('\n$L_pfor'), ptx.indexOf('\n$L_endpfor'));
      expect(ptx).toContain('// pipelined loop: 3 stages of 8192 bytes');
      expect(body).toMatch(/cp\.async\.cg\.shared\.global/);
      expect(body).not.toMatch(/st\.shared/);
      expect(body).toContain('wgmma.wait_group.sync.aligned 1;');
      expect(body).toContain('cp.async.wait_group 1;');
      expect(ptx.slice(ptx.indexOf('\n$L_endpfor'))).toContain('wgmma.wait_group.sync.aligned 0;');
    }
  });

  it('batched matmul, batch = programId(2) (3 x 64 x 64 x 64; BM = BN = 64, BK = 32; 4 warps)', async () => {
    const B = 3, M = 64, N = 64, K = 64;
    const a = enc(t, randF32(B * M * K, 33)), b = enc(t, randF32(B * K * N, 34));
    const args = { a, b, c: new Float32Array(B * M * N), M, N, K, BM: 64, BN: 64, BK: 32 };
    const r = await runBoth(new Kernel(matmulBatched[t]), args, [1, 1, B], { numStages: 1 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K, B), 1e-4, 'sim vs JS');
    expectWgmmaPath(matmulBatched[t] as unknown as KernelDef, args, 2, form);
  });

  // BM 128 on one warpgroup: two m64 instructions per k-step; on two warpgroups: one each
  it.each([[4, 2], [8, 1]] as const)('BM = 128, BN = 128 (%i warps): %i wgmma.m64n128k16 per k-step and warpgroup', async (numWarps, perStep) => {
    const M = 128, N = 128, K = 64;
    const a = enc(t, randF32(M * K, 44)), b = enc(t, randF32(K * N, 45));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 128, BN: 128, BK: 32 };
    const r = await runBoth(new Kernel(matmulMasked[t]), args, [1, 1], { numWarps, numStages: 1 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectWgmmaPath(matmulMasked[t] as unknown as KernelDef, args, 2 * perStep, form, { numWarps });
    expect(ptx).toMatch(/m64n128k16/);
  });

  it('flash-attention forward (L = 128, BM = BN = 64, D = 32, 4 warps): A from registers in both dots (Q loaded once before the loop, P)', async () => {
    const L = 128, D = 32, scale = 1 / Math.sqrt(D);
    const q = enc(t, randF32(L * D, 41)), k = enc(t, randF32(L * D, 42)), v = enc(t, randF32(L * D, 43));
    const args = { q, k, v, o: new Float32Array(L * D), L, scale, BM: 64, BN: 64, D };
    const r = await runBoth(new Kernel(flashAttention[t]), args, L / 64, { numStages: 1 });
    const tol = t === 'bf16' ? 2e-2 : 4e-3;
    expectClose(r.sim.o, r.interpret.o, tol / 4, 'sim vs interpreter');
    expectClose(r.sim.o, attentionRef(dec(t, q), dec(t, k), dec(t, v), L, D, scale), tol, 'sim vs JS');
    // S: K = D = 32, two m64n64k16; P V: K = BN = 64, four m64n32k16
    const ptx = expectWgmmaPath(flashAttention[t] as unknown as KernelDef, args, 6, form, { dots: 2 });
    // P V reads A from four registers ({...}) and V MN-major (trans-b 1); S = Q K^T reads Q's
    // fragments, loaded once before the loop (wgmma_a_hoist.ts), and K^T staged as [BN, D],
    // K-major (trans-b 0)
    expect(count(ptx, /wgmma\.mma_async\S*m64n32k16\S* \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %p\d+, 1, 1, 1;/)).toBe(4);
    expect(count(ptx, /wgmma\.mma_async\S*m64n64k16\S* \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %p\d+, 1, 1, 0;/)).toBe(2);
    expect(ptx.indexOf('\n$L_for')).toBeGreaterThan(0);
    const loop = ptx.slice(ptx.indexOf('\n$L_for'), ptx.lastIndexOf('wgmma.wait_group'));
    expect(ptx.slice(0, ptx.indexOf('\n$L_for'))).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/);
    expect(loop).not.toMatch(/ldmatrix/);
  });
});

describe('the 64 x 64 f32 epilogue out of the wgmma layout', () => {
  // warp w owns rows 16w.. of the accumulator, so no range of rows is a round; row bit 3 (the
  // lane repeat) is a register bit of both layouts: 2 rounds of 32 rows, each padded to 72 words
  it('converts in 2 rounds by row bit 3 within the 8 KiB of operands plus padding, conflict-free, exact', async () => {
    const M = 128, N = 64, K = 64, BM = 64, BN = 64, BK = 32;
    const a = enc('f16', randF32(M * K, 51)), b = enc('f16', randF32(K * N, 52));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM, BN, BK };
    const r = await runBoth(new Kernel(matmulAligned.f16), args, [M / BM, N / BN], { numStages: 1 });
    expect(simDevice().native.simCounters()!.sharedBankConflicts).toBe(0);
    expectClose(r.sim.c, matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectWgmmaPath(matmulAligned.f16 as unknown as KernelDef, args, 2, /wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 /);
    expect(ptx).toMatch(/0 bank conflicts \(model\), 2 rounds by coordinate bits \[0:3\] of \[32,64\] tiles/);
    const f = matmulAligned.f16.trace({ BM, BN, BK });
    const positional = matmulAligned.f16.runtimeParams.map((p) => args[p.name as keyof typeof args] as LaunchArg);
    const shared = compile(f, { target: 'sm_90a', numWarps: 4, numStages: 1, specialization: launchSpecialization(f, positional) }).metadata.sharedBytes;
    const operands = (BM * BK + BK * BN) * 2;
    const round = ((BM / 2 - 1) * (BN + 8) + BN) * 4;
    expect(shared).toBe(Math.max(operands, round));
    // Triton 3.8 takes 16384 (the whole tile unpadded); one round took 64 padded rows
    expect(shared).toBeLessThan(BM * BN * 4);
  });
});

describe('chained dots with two m64 blocks per warpgroup', () => {
  it('flash attention with BM = 128 on 4 warps (L = 256, BN = 32, D = 16): P (two m64 blocks of rows per warp) is the A of P V from registers', async () => {
    const L = 256, D = 16, scale = 1 / Math.sqrt(D);
    const q = enc('f16', randF32(L * D, 61)), k = enc('f16', randF32(L * D, 62)), v = enc('f16', randF32(L * D, 63));
    const args = { q, k, v, o: new Float32Array(L * D), L, scale, BM: 128, BN: 32, D };
    const r = await runBoth(new Kernel(flashAttention.f16), args, L / 128, { numStages: 1 });
    expectClose(r.sim.o, r.interpret.o, 1e-3, 'sim vs interpreter');
    expectClose(r.sim.o, attentionRef(dec('f16', q), dec('f16', k), dec('f16', v), L, D, scale), 4e-3, 'sim vs JS');
    // S: 2 m64 blocks x 1 k-step (m64n32k16); P V: 2 m64 blocks x 2 k-steps (m64n16k16), A from registers
    const ptx = expectWgmmaPath(flashAttention.f16 as unknown as KernelDef, args, 6, /wgmma\.mma_async\.sync\.aligned\.m64n(32|16)k16\.f32\.f16\.f16 /, { dots: 2 });
    expect(count(ptx, /wgmma\.mma_async\S*m64n16k16\S* \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}/)).toBe(4);
  });
});

const transStore = kernel(
  { name: 'mm_wg_trans_store', params: { a: ptr('f16'), b: ptr('f16'), ct: ptr('f32'), BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, ct, BM, BN, BK }) => {
    const rm = arange(0, BM), rn = arange(0, BN), rk = arange(0, BK);
    const c = dot(load(a.add(rm.expandDims(1).mul(BK).add(rk.expandDims(0)))), load(b.add(rk.expandDims(1).mul(BN).add(rn.expandDims(0)))));
    // c^T stored row-major [BN, BM]: the accumulator's layout transposed, then converted for the store
    store(ct.add(rn.expandDims(1).mul(BM).add(rm.expandDims(0))), c.trans(1, 0));
  },
);

describe('the accumulator transposed', () => {
  it('c^T of a [64, 128] wgmma dot stored row-major: trans relabels the layout, the store converts it', async () => {
    const BM = 64, BN = 128, BK = 32;
    const a = f16Array(randF32(BM * BK, 71)), b = f16Array(randF32(BK * BN, 72));
    const args = { a, b, ct: new Float32Array(BM * BN), BM, BN, BK };
    const r = await runBoth(transStore, args, 1, { numStages: 1 });
    const c = matmulRef(f16ToFloat32(a), f16ToFloat32(b), BM, BN, BK);
    const want = Float64Array.from({ length: BM * BN }, (_, i) => c[(i % BM) * BN + Math.floor(i / BM)]!);
    expectClose(r.sim.ct, want, 1e-4, 'sim vs JS');
    expectWgmmaPath(transStore.def, args, 2, /wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16 /);
  });
});

describe.each(['f16', 'bf16'] as const)('flash attention at the bench tiles in %s', (t) => {
  it('BM = BN = D = 64, 4 warps, 3 stages (L = 256): V through the cp.async ring, K^T staged [BN, D], P from registers; 8 wgmma per iteration', async () => {
    const L = 256, D = 64, scale = 1 / Math.sqrt(D);
    const q = enc(t, randF32(L * D, 51)), k = enc(t, randF32(L * D, 52)), v = enc(t, randF32(L * D, 53));
    const args = { q, k, v, o: new Float32Array(L * D), L, scale, BM: 64, BN: 64, D };
    const r = await runBoth(new Kernel(flashAttention[t]), args, L / 64, { numStages: 3 });
    const tol = t === 'bf16' ? 2e-2 : 4e-3;
    expectClose(r.sim.o, r.interpret.o, tol / 4, 'sim vs interpreter');
    expectClose(r.sim.o, attentionRef(dec(t, q), dec(t, k), dec(t, v), L, D, scale), tol, 'sim vs JS');
    const ptx = expectWgmmaPath(flashAttention[t] as unknown as KernelDef, args, 8, new RegExp(`wgmma\\.mma_async\\.sync\\.aligned\\.m64n64k16\\.f32\\.${t}\\.${t} `), { numStages: 3, dots: 2 });
    const body = ptx.slice(ptx.indexOf('\n$L_pfor'), ptx.indexOf('\n$L_endpfor'));
    expect(body).toMatch(/cp\.async\.cg\.shared\.global/);
    // both dots' results are read in the iteration (softmax, acc update): each waits for itself
    expect(count(body, /wgmma\.wait_group\.sync\.aligned 0;/)).toBe(2);
  });
});

/** c[M,N] = c + a[M,K] @ b[K,N] (masked tiles, k-loop); c is both the initial accumulator and the output. */
const matmulAcc = (ta: DType, tc: DType, prec: Prec) => accMatmul(`mm_wg_${ta}_${tc}`, ta, tc, prec);

describe('wgmma beyond f16/bf16 with f32 accumulators', () => {
  const M = 72, N = 40, K = 56;

  it('tf32 (f32 inputs, default precision): m64n32k8.f32.tf32.tf32, B staged K-major; sim = JS on tf32-rounded inputs', async () => {
    const a = randF32(M * K, 41), b = randF32(K * N, 42), c0 = randF32(M * N, 43);
    const u = new Uint32Array(a.buffer);
    for (let i = 0; i < u.length; i += 5) u[i] = (u[i]! & 0xffffe000) | 0x1000; // ties: rounding shows
    const args = { a, b, c: c0.slice(), M, N, K, BM: 64, BN: 32, BK: 32 };
    const r = await runBoth(matmulAcc('f32', 'f32', undefined), args, [2, 2], { numStages: 1 });
    const want = matmulRef(a.map(roundTF32), b.map(roundTF32), M, N, K, 1, c0);
    const mag = magnitude(a, b, c0, M, N, K);
    expectWithin(r.sim.c, want, mag, 2 * (K + 1) * 2 ** -24, 'sim vs JS (tf32 inputs)');
    expectWithin(r.interpret.c, want, mag, 2 * (K + 1) * 2 ** -24, 'interpreter vs JS');
    const ptx = expectWgmmaPath(matmulAcc('f32', 'f32', undefined).def, args, 4, /wgmma\.mma_async\.sync\.aligned\.m64n32k8\.f32\.tf32\.tf32 /);
    expect(ptx).toMatch(/cvt\.rna\.tf32\.f32/);
  });

  it('f16 inputs with an f16 accumulator: m64n64k16.f16.f16.f16 (packed pairs)', async () => {
    const M2 = 64, N2 = 64, K2 = 64;
    const a = f16Array(randF32(M2 * K2, 61, -1, 1)), b = f16Array(randF32(K2 * N2, 62, -1, 1)), c = f16Array(randF32(M2 * N2, 63, -1, 1));
    const args = { a, b, c: c.slice(), M: M2, N: N2, K: K2, BM: 64, BN: 64, BK: 32 };
    const r = await runBoth(matmulAcc('f16', 'f16', undefined), args, [1, 1], { numStages: 1 });
    const fa = f16ToFloat32(a), fb = f16ToFloat32(b), fc = f16ToFloat32(c);
    const bound = (K2 + 1) * 2 ** -11;
    expectWithin(f16ToFloat32(r.sim.c as Uint16Array), matmulRef(fa, fb, M2, N2, K2, 1, fc), magnitude(fa, fb, fc, M2, N2, K2), bound, 'sim vs JS');
    expectWgmmaPath(matmulAcc('f16', 'f16', undefined).def, args, 2, /wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f16\.f16\.f16 /);
  });
});

describe('wgmma on 8-bit integers (i32 accumulator, wrapping)', () => {
  const M = 72, N = 40, K = 80;

  it.each([['i8', 's8'], ['u8', 'u8']] as const)('%s: m64n32k32.s32.%s, B staged K-major; sim, interpreter and JS bit for bit', async (t, ptxT) => {
    const a = ints(t, M * K, 51), b = ints(t, K * N, 52), c = cInit(M * N);
    const args = { a, b, c: c.slice(), M, N, K, BM: 64, BN: 32, BK: 32 };
    const r = await runBoth(matmulAcc(t, 'i32', undefined), args, [2, 2], { numStages: 1 });
    const want = new Int32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = c[i * N + j]!;
      for (let k = 0; k < K; k++) s = (s + a[i * K + k]! * b[k * N + j]!) | 0;
      want[i * N + j] = s;
    }
    expectBitwise(r.sim.c, want, 'sim vs JS');
    expectBitwise(r.interpret.c, want, 'interpreter vs JS');
    expectWgmmaPath(matmulAcc(t, 'i32', undefined).def, args, 1, new RegExp(`wgmma\\.mma_async\\.sync\\.aligned\\.m64n32k32\\.s32\\.${ptxT}\\.${ptxT} `));
  });
});

// The accumulator layout is a blocked layout with a lane repeat along M (compiler/layout.ts): the
// reductions (in-thread, shuffles, across warps), conversions and stores of the epilogue read it
// like any other layout.
const dotReduce = kernel(
  { name: 'mm_wg_reduce', params: { a: ptr('f16'), b: ptr('f16'), rows: ptr('f32'), cols: ptr('f32'), mx: ptr('f32'), BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, rows, cols, mx, BM, BN, BK }) => {
    const rm = arange(0, BM), rn = arange(0, BN), rk = arange(0, BK);
    const c = dot(load(a.add(rm.expandDims(1).mul(BK).add(rk.expandDims(0)))), load(b.add(rk.expandDims(1).mul(BN).add(rn.expandDims(0)))));
    store(rows.add(rm), sum(c, 1));
    store(cols.add(rn), sum(c, 0));
    store(mx.add(rn), max(c, 0));
  },
);

describe('reductions of the wgmma accumulator', () => {
  it.each([[64, 64, 4], [128, 32, 8]] as const)('row sums, column sums and column maxima of a [%i, %i] dot on %i warps', async (BM, BN, numWarps) => {
    const BK = 32;
    const a = f16Array(randF32(BM * BK, 81)), b = f16Array(randF32(BK * BN, 82));
    const args = { a, b, rows: new Float32Array(BM), cols: new Float32Array(BN), mx: new Float32Array(BN), BM, BN, BK };
    const r = await runBoth(dotReduce, args, 1, { numWarps, numStages: 1 });
    const c = matmulRef(f16ToFloat32(a), f16ToFloat32(b), BM, BN, BK);
    const rows = Array.from({ length: BM }, (_, i) => c.subarray(i * BN, (i + 1) * BN).reduce((x, y) => x + y, 0));
    const cols = Array.from({ length: BN }, (_, j) => Array.from({ length: BM }, (_, i) => c[i * BN + j]!));
    expectClose(r.sim.rows, rows, 1e-4, 'row sums');
    expectClose(r.sim.cols, cols.map((x) => x.reduce((p, q) => p + q, 0)), 1e-4, 'column sums');
    expectClose(r.sim.mx, cols.map((x) => Math.max(...x)), 1e-5, 'column maxima');
    expectWgmmaPath(dotReduce.def, args, BK / 16 * (BM / (16 * numWarps)), /wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16 /, { numWarps });
  });
});

describe('wgmma on fp8 (e4m3, e5m2; same or mixed)', () => {
  const PAIRS: [Fp8, Fp8][] = [['f8e4m3', 'f8e4m3'], ['f8e5m2', 'f8e5m2'], ['f8e4m3', 'f8e5m2'], ['f8e5m2', 'f8e4m3']];
  it.each(PAIRS)('%s x %s -> f32, masked 72 x 40 x 56 (BM 64, BN 32, BK 32): m64n32k32, B staged K-major; within the f32 bound of the exact sum', async (ta, tb) => {
    const M = 72, N = 40, K = 56, BM = 64, BN = 32, BK = 32;
    const a = fp8Codes(ta, M * K, 71), b = fp8Codes(tb, K * N, 72), c = randF32(M * N, 73);
    const GN = cdiv(N, BN);
    const args = { a, b, c: c.slice(), M, N, K, GN, BM, BN, BK };
    const r = await runBoth(fp8Matmul(ta, tb, 'f32'), args, cdiv(M, BM) * GN, { numStages: 1 });
    const ref = reference(ta, tb, a, b, c, M, N, K);
    expectFp8Within(r.sim.c as Float32Array, ref, K, U_F32, 'sim (wgmma) vs JS');
    expectFp8Within(r.interpret.c as Float32Array, ref, K, U_F32, 'interpreter vs JS');
    const pa = ta.slice(2), pb = tb.slice(2);
    expectWgmmaPath(fp8Matmul(ta, tb, 'f32').def, args, 1, new RegExp(`wgmma\\.mma_async\\.sync\\.aligned\\.m64n32k32\\.f32\\.${pa}\\.${pb} .*, 1, 1;`));
  });

  it('e4m3 into an f16 accumulator (the .f16 form), 64 x 64 x 64: within the f16 bound', async () => {
    const M = 64, N = 64, K = 64;
    const a = fp8Codes('f8e4m3', M * K, 91), b = fp8Codes('f8e4m3', K * N, 92), c = f16Array(randF32(M * N, 93));
    const args = { a, b, c: c.slice(), M, N, K, GN: 1, BM: 64, BN: 64, BK: 32 };
    const r = await runBoth(fp8Matmul('f8e4m3', 'f8e4m3', 'f16'), args, 1, { numStages: 1 });
    const ref = reference('f8e4m3', 'f8e4m3', a, b, f16ToFloat32(c), M, N, K);
    expectFp8Within(f16ToFloat32(r.sim.c as Uint16Array), ref, K, U_F16, 'sim (wgmma) vs JS');
    expectWgmmaPath(fp8Matmul('f8e4m3', 'f8e4m3', 'f16').def, args, 1, /wgmma\.mma_async\.sync\.aligned\.m64n64k32\.f16\.e4m3\.e4m3 /);
  });
});

describe('the sanitizers (racecheck, synccheck, initcheck) find nothing in the wgmma kernels', () => {
  const ALL = ['racecheck', 'synccheck', 'initcheck'] as const;
  it('masked (staged from registers), aligned at 3 stages (ring, overlapped wgmma) and flash attention (A from registers)', async () => {
    const M = 128, N = 64, K = 96;
    const a = f16Array(randF32(M * K, 91)), b = f16Array(randF32(K * N, 92));
    const want = matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K);
    for (const [def, numStages] of [[matmulMasked.f16, 1], [matmulAligned.f16, 3]] as const) {
      const c = new Float32Array(M * N);
      await new Kernel(def).run({ a, b, c, M, N, K, BM: 64, BN: 64, BK: 32 }, { grid: [2, 1], device: 'sim', numStages, sanitize: [...ALL] });
      expectClose(c, want, 1e-4, `${def.name} under the sanitizers`);
    }
    const L = 128, D = 64;
    const q = f16Array(randF32(L * D, 93)), k = f16Array(randF32(L * D, 94)), v = f16Array(randF32(L * D, 95));
    const o = new Float32Array(L * D);
    await new Kernel(flashAttention.f16).run({ q, k, v, o, L, scale: 0.125, BM: 64, BN: 64, D }, { grid: L / 64, device: 'sim', numStages: 3, sanitize: [...ALL] });
    expectClose(o, attentionRef(f16ToFloat32(q), f16ToFloat32(k), f16ToFloat32(v), L, D, 0.125), 4e-3, 'flash under the sanitizers');
  });
});

describe('dots that do not fit wgmma stay on mma.sync', () => {
  it('BM 32 (less than 64 rows per warpgroup) and 2 warps compile to mma.sync for sm_90a', () => {
    for (const [BM, numWarps] of [[32, 4], [64, 2]] as const) {
      const { ptx } = compile(matmulMasked.f16.trace({ BM, BN: 32, BK: 32 }), { target: 'sm_90a', numWarps, ptxas: false });
      expect(ptx).toMatch(/mma\.sync\.aligned\.m16n8k16/);
      expect(ptx).not.toMatch(/wgmma\./);
    }
  });
});
