// A of a tcgen05 dot from tensor memory (sm_100a; codegen/tensor_cores/tcgen05_tmem_a.ts): a
// 16-bit register A already in the accumulator layout (flash attention's P = softmax(S), a second
// dot on a first dot's result) is stored with tcgen05.st and read by `tcgen05.mma [d], [a], b_desc`
// instead of through a swizzled shared tile. The sim pretends to be a B200 (TESSERA_SIM_ARCH, read
// at cuInit) and runs the A-from-TMEM MMA as the ISA lays it out; each kernel runs on the
// interpreter and the sim and is compared with an f64 JS reference; the PTX is checked to read A
// from TMEM; the sanitizers find nothing. Sabotage: the wait::st after A's stores removed gives a
// wrong product.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { KernelDef } from '../../src/lang/index.js';
import { arange, constexpr, defineKernel, dot, exp, forLoop, full, load, max, maximum, programId, ptr, store, sum, where, zeros } from '../../src/lang/index.js';
import { Kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { f16Array } from '../../src/ir/half.js';
import { flashAttention, type Half } from '../../bench/kernels.js';
import { DeviceArray } from '../../src/runtime/index.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, expectClose, lcg, randF32, runBoth, simDevice } from './helpers.js';
import { attentionRef, dec, enc, specializedPtx } from './tc_matmul_cases.js';

/** An MMA reading A from TMEM: `tcgen05.mma... [d], [a], b_desc, idesc, enable`. */
const TMEM_A = /tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], \[%r\d+\], %rd\d+, %r\d+, %p\d+;/g;
/** One reading A through a shared-memory descriptor. */
const SMEM_A = /tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], %rd\d+, %rd\d+, %r\d+, %p\d+;/g;

/** The flash kernel of bench/kernels.ts with a causal mask (key j > query i gets -inf); L % BM = 0. */
const flashCausal = (t: Half) => defineKernel(
  { name: `flash_causal_${t}`, params: { q: ptr(t), k: ptr(t), v: ptr(t), o: ptr('f32'), L: 'i32', scale: 'f32', BM: constexpr(), BN: constexpr(), D: constexpr() } },
  ({ q, k, v, o, L, scale, BM, BN, D }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = arange(0, BN);
    const rd = arange(0, D);
    const qv = load(q.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))));
    const init = [full([BM], -Infinity, 'f32'), zeros([BM], 'f32'), zeros([BM, D], 'f32')];
    const [, l, acc] = forLoop(0, L, BN, init, (j, m, l, acc) => {
      const kn = j.add(rn);
      const kt = load(k.add(kn.expandDims(0).mul(D).add(rd.expandDims(1))));
      const vv = load(v.add(kn.expandDims(1).mul(D).add(rd.expandDims(0))));
      // a fully masked row of a block keeps m finite from earlier blocks (key 0 is always seen first)
      const s = where(kn.expandDims(0).gt(rm.expandDims(1)), -Infinity, dot(qv, kt).mul(scale));
      const mNew = maximum(m!, max(s, 1));
      const alpha = exp(m!.sub(mNew));
      const p = exp(s.sub(mNew.expandDims(1)));
      return [mNew, l!.mul(alpha).add(sum(p, 1)), acc!.mul(alpha.expandDims(1)).add(dot(p.to(t), vv))];
    });
    store(o.add(rm.expandDims(1).mul(D).add(rd.expandDims(0))), acc!.div(l!.expandDims(1)));
  },
);

/** The sm_100a PTX of a flash kernel; P V reads A from TMEM, S = Q K^T from shared. */
function flashPtx(def: KernelDef, args: RunArgs, numWarps: number, numStages: number): string {
  const ptx = specializedPtx(def, args, 'sm_100a', { numWarps, numStages });
  const { BN, D } = args as { BN: number; D: number };
  expect(count(ptx, TMEM_A), 'P V: one MMA per k-step of 16, A from TMEM').toBe(BN / 16);
  expect(count(ptx, SMEM_A), 'S = Q K^T: A (Q) from shared').toBe(D / 16);
  expect(ptx).toMatch(/tcgen05\.st\.sync\.aligned\.(32x32b|16x32bx2)\.x\d+\.b32/);
  return ptx;
}

const CASES = [
  { BM: 64, BN: 64, D: 64, numWarps: 4 },
  { BM: 64, BN: 32, D: 128, numWarps: 4 },
  { BM: 128, BN: 32, D: 64, numWarps: 4 },
  { BM: 128, BN: 32, D: 64, numWarps: 8 },
  { BM: 128, BN: 32, D: 128, numWarps: 8 },
] as const;

describe.each(['f16', 'bf16'] as const)('flash attention on sm_100a, P from TMEM (%s)', (t) => {
  it.each(CASES.flatMap((c) => [false, true].map((causal) => ({ ...c, causal }))))('BM $BM, BN $BN, D $D, $numWarps warps, causal $causal', async ({ BM, BN, D, numWarps, causal }) => {
    const L = 2 * Math.max(BM, BN), scale = 1 / Math.sqrt(D);
    const q = enc(t, randF32(L * D, 41)), k = enc(t, randF32(L * D, 42)), v = enc(t, randF32(L * D, 43));
    const args = { q, k, v, o: new Float32Array(L * D), L, scale, BM, BN, D };
    const def = (causal ? flashCausal(t) : flashAttention[t]) as unknown as KernelDef;
    const r = await runBoth(new Kernel(def), args, L / BM, { numWarps, numStages: 1 });
    const tol = t === 'bf16' ? 2e-2 : 4e-3;
    expectClose(r.sim.o, r.interpret.o, tol / 4, 'sim vs interpreter');
    expectClose(r.sim.o, attentionRef(dec(t, q), dec(t, k), dec(t, v), L, D, scale, causal), tol, 'sim vs f64 JS');
    flashPtx(def, args, numWarps, 1);
  });
});

it('the bench configuration (BM = BN = D = 64, 3 stages): P is stored to TMEM, not to shared memory', async () => {
  const L = 256, D = 64, scale = 1 / Math.sqrt(D);
  const q = enc('f16', randF32(L * D, 51)), k = enc('f16', randF32(L * D, 52)), v = enc('f16', randF32(L * D, 53));
  const args = { q, k, v, o: new Float32Array(L * D), L, scale, BM: 64, BN: 64, D };
  const r = await runBoth(new Kernel(flashAttention.f16), args, L / 64, { numWarps: 4, numStages: 3 });
  expectClose(r.sim.o, attentionRef(dec('f16', q), dec('f16', k), dec('f16', v), L, D, scale, false), 4e-3, 'sim vs f64 JS');
  const ptx = flashPtx(flashAttention.f16 as unknown as KernelDef, args, 4, 3);
  // the pipelined loop: K and V arrive by cp.async; its only shared stores are Q's (A of S = Q K^T,
  // before the first MMA); nothing is stored to shared memory between S's MMAs and P V's
  const start = ptx.indexOf('\n$L_pfor'), end = ptx.indexOf('\n$L_endpfor');
  expect(start).toBeGreaterThan(0);
  const loop = ptx.slice(start, end);
  const firstMma = loop.indexOf('tcgen05.mma');
  expect(loop.slice(firstMma).match(/.*st\.shared.*/g) ?? []).toEqual([]);
  expect(count(loop, /tcgen05\.st\.sync\.aligned\.16x32bx2\.x16\.b32/)).toBe(1);
});

/** c = (a b).to(T) d: the second dot's A is the first dot's accumulator, in registers. */
const chained = (t: Half) => defineKernel(
  { name: `chain_${t}`, params: { a: ptr(t), b: ptr(t), d: ptr(t), c: ptr('f32'), M: constexpr(), K: constexpr(), J: constexpr(), N: constexpr() } },
  ({ a, b, d, c, M, K, J, N }) => {
    const rm = arange(0, M), rk = arange(0, K), rj = arange(0, J), rn = arange(0, N);
    const ta = load(a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0))));
    const tb = load(b.add(rk.expandDims(1).mul(J).add(rj.expandDims(0))));
    const td = load(d.add(rj.expandDims(1).mul(N).add(rn.expandDims(0))));
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), dot(dot(ta, tb).to(t), td));
  },
);

/** Small integers: every product and sum is exact in f32, and (a b) is exact in f16/bf16. */
const ints = (n: number, seed: number, lim: number): Float32Array => {
  const r = lcg(seed);
  return Float32Array.from({ length: n }, () => Math.floor(r() * (2 * lim + 1)) - lim);
};

function chainRef(a: Float32Array, b: Float32Array, d: Float32Array, M: number, K: number, J: number, N: number): Float32Array {
  const p = new Float64Array(M * J), c = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < J; j++) for (let x = 0; x < K; x++) p[i * J + j] += a[i * K + x]! * b[x * J + j]!;
  for (let i = 0; i < M; i++) for (let n = 0; n < N; n++) {
    let s = 0;
    for (let j = 0; j < J; j++) s += p[i * J + j]! * d[j * N + n]!;
    c[i * N + n] = s;
  }
  return c;
}

describe.each(['f16', 'bf16'] as const)('a dot on a dot\'s accumulator (%s)', (t) => {
  it.each([
    { M: 128, K: 32, J: 64, N: 64, numWarps: 4 },
    { M: 128, K: 16, J: 128, N: 32, numWarps: 8 },
    { M: 64, K: 32, J: 64, N: 128, numWarps: 4 },
    { M: 64, K: 16, J: 32, N: 16, numWarps: 4 },
  ])('M $M, K $K, J $J, N $N, $numWarps warps: bit for bit with exact values', async ({ M, K, J, N, numWarps }) => {
    // |a b| <= K * 4 <= 128 fits bf16's 8 bits exactly; sums of J products stay far below 2^24
    const af = ints(M * K, 61, 2), bf = ints(K * J, 62, 2), df = ints(J * N, 63, 3);
    const args = { a: enc(t, af), b: enc(t, bf), d: enc(t, df), c: new Float32Array(M * N), M, K, J, N };
    const def = chained(t) as unknown as KernelDef;
    const r = await runBoth(new Kernel(def), args, 1, { numWarps, numStages: 1 });
    const want = chainRef(af, bf, df, M, K, J, N);
    expectBitwise(r.interpret.c, want, 'interpreter vs JS');
    expectBitwise(r.sim.c, want, 'sim vs JS');
    const ptx = specializedPtx(def, args, 'sm_100a', { numWarps, numStages: 1 });
    expect(count(ptx, TMEM_A), 'the second dot: A from TMEM').toBe(J / 16);
    expect(count(ptx, SMEM_A), 'the first dot: A from shared').toBe(K / 16);
  });
});

describe('sabotage: A\'s tcgen05.st not waited for before the MMA', () => {
  /** Removes the wait::st that follows A's stores (the only tcgen05.st of the kernel). */
  function noWaitSt(ptx: string): string {
    const lines = ptx.split('\n');
    const st = lines.findIndex((l) => /^\s*tcgen05\.st\.sync/.test(l));
    expect(st).toBeGreaterThan(0);
    const wait = lines.findIndex((l, i) => i > st && /^\s*tcgen05\.wait::st/.test(l));
    expect(wait).toBeGreaterThan(st);
    expect(lines.slice(wait).findIndex((l) => /tcgen05\.mma/.test(l))).toBeGreaterThan(0);
    lines.splice(wait, 1);
    return lines.join('\n');
  }

  it('the intact PTX computes (a b) d; without the wait::st the MMA reads A\'s columns before the stores land', async () => {
    const dev = simDevice();
    const M = 128, K = 32, J = 64, N = 64;
    const af = ints(M * K, 71, 2), bf = ints(K * J, 72, 2), df = ints(J * N, 73, 3);
    const want = chainRef(af, bf, df, M, K, J, N);
    const f = chained('f16').trace({ M, K, J, N });
    const r = compile(f, { target: dev.target, numWarps: 4, numStages: 1, ptxas: true });
    const run = async (ptx: string): Promise<Float32Array> => {
      const a = DeviceArray.from(f16Array(af), 'f16', { device: dev });
      const b = DeviceArray.from(f16Array(bf), 'f16', { device: dev });
      const d = DeviceArray.from(f16Array(df), 'f16', { device: dev });
      const c = DeviceArray.zeros([M * N], 'f32', { device: dev });
      const fn = dev.loadModule(ptx).getFunction(r.metadata.name);
      const sharedBytes = /\.extern\s+\.shared/.test(ptx) ? r.metadata.sharedBytes : 0;
      await fn.launch({ grid: [1, 1, 1], block: 128, sharedBytes, args: [a, b, d, c] });
      return (await c.toArray()) as Float32Array;
    };
    expectBitwise(await run(r.ptx), want, 'intact');
    const got = await run(noWaitSt(r.ptx));
    const off = Array.from(got).filter((x, i) => x !== want[i]).length;
    expect(off, 'elements that differ from the product').toBeGreaterThan(M * N / 2);
  });
});

describe('the sanitizers (racecheck, synccheck, initcheck) find nothing with A in TMEM', () => {
  it('flash attention (BM = BN = D = 64, 3 stages, 2 CTAs) and a chained dot at M = 128', async () => {
    const sanitize = ['racecheck', 'synccheck', 'initcheck'] as const;
    const L = 128, D = 64, scale = 1 / Math.sqrt(D);
    const qf = randF32(L * D, 81), kf = randF32(L * D, 82), vf = randF32(L * D, 83);
    const o = new Float32Array(L * D);
    await new Kernel(flashAttention.f16).run({ q: f16Array(qf), k: f16Array(kf), v: f16Array(vf), o, L, scale, BM: 64, BN: 64, D }, { grid: L / 64, device: 'sim', numStages: 3, sanitize: [...sanitize] });
    expectClose(o, attentionRef(dec('f16', f16Array(qf)), dec('f16', f16Array(kf)), dec('f16', f16Array(vf)), L, D, scale, false), 4e-3, 'flash under the sanitizers');
    const M = 128, K = 32, J = 64, N = 64;
    const af = ints(M * K, 84, 2), bf = ints(K * J, 85, 2), df = ints(J * N, 86, 3);
    const c = new Float32Array(M * N);
    await new Kernel(chained('f16') as unknown as KernelDef).run({ a: f16Array(af), b: f16Array(bf), d: f16Array(df), c, M, K, J, N }, { grid: 1, device: 'sim', numStages: 1, sanitize: [...sanitize] });
    expectBitwise(c, chainRef(af, bf, df, M, K, J, N), 'chained under the sanitizers');
  });
});
