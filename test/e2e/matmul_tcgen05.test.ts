// The matmul kernels on tcgen05 (target sm_100a): the sim pretends to be a B200 (compute 10.0,
// TESSERA_SIM_ARCH, read at cuInit, so it is set before anything opens the sim) and the runtime
// then compiles for sm_100a. Each kernel runs on the interpreter and the sim and is compared with
// a plain-JS reference; the PTX the sim ran is assembled by ptxas for sm_100a and checked to take
// the tcgen05 path (a silent fall back to mma.sync would compute the same numbers): the expected
// count of tcgen05.mma per tile, TMEM allocated, relinquished and freed.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { DType } from '../../src/ir/types.js';
import type { KernelDef } from '../../src/lang/index.js';
import { Kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { roundTF32 } from '../../src/ir/numeric.js';
import { matmulAligned, matmulMasked } from '../../bench/kernels.js';
import { DeviceArray } from '../../src/runtime/index.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, expectClose, randF32, runBoth, runOn, simDevice } from './helpers.js';
import { cdiv, expectWithin as expectFp8Within, fp8Codes, fp8Matmul, reference, U_F32 } from './fp8_matmul_cases.js';
import { accMatmul, cInit, dec, enc, expectWithin, ints, launchPtx, magnitude, matmulRef } from './tc_matmul_cases.js';
import type { Fp8 } from '../ir/fp8_ref.js';

/**
 * The PTX of `def` for sm_100a, specialized for `args` as the sim device compiles it, assembles
 * with ptxas without spills and has `mmas` tcgen05.mma of `kind`, one commit per dot, TMEM
 * alloc / relinquish / dealloc, and no mma.sync or wgmma. Returns the PTX.
 */
function expectTcgen05Path(def: KernelDef, args: RunArgs, mmas: number, kind: string, opts: { numWarps?: number; numStages?: number } = {}): string {
  const ptx = launchPtx(def, args, 'sm_100a', opts);
  expect(ptx).toContain('.target sm_100a');
  expect(count(ptx, /tcgen05\.mma\.cta_group::1\.kind::/), `${def.name}: tcgen05.mma`).toBe(mmas);
  expect(count(ptx, new RegExp(`tcgen05\\.mma\\.cta_group::1\\.kind::${kind} `)), `${def.name}: kind::${kind}`).toBe(mmas);
  expect(count(ptx, /tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one/)).toBe(1);
  expect(count(ptx, /tcgen05\.alloc\.cta_group::1/)).toBe(1);
  expect(count(ptx, /tcgen05\.relinquish_alloc_permit/)).toBe(1);
  expect(count(ptx, /tcgen05\.dealloc\.cta_group::1/)).toBe(1);
  expect(ptx).toMatch(/tcgen05\.ld\.sync\.aligned\.(32x32b|16x32bx2)\.x\d+\.b32/);
  expect(ptx).not.toMatch(/mma\.sync|wgmma/);
  return ptx;
}

describe('the sim as an sm_100', () => {
  it('compiles for sm_100a (compute 10.0)', () => {
    expect(simDevice().target).toBe('sm_100a');
  });
});

describe.each(['f16', 'bf16'] as const)('tcgen05 matmuls in %s', (t) => {
  it('128 x 128 x 64 (BM 128, BN 128, BK 64; 8 warps): 4 tcgen05.mma (M 128, N 128, K 16) per tile', async () => {
    const M = 128, N = 128, K = 64;
    const a = enc(t, randF32(M * K, 31)), b = enc(t, randF32(K * N, 32));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 128, BN: 128, BK: 64 };
    const r = await runBoth(new Kernel(matmulMasked[t]), args, [1, 1], { numWarps: 8, numStages: 1 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectTcgen05Path(matmulMasked[t] as unknown as KernelDef, args, 4, 'f16', { numWarps: 8 });
    // the instruction descriptor: f32 D, A and B types, B MN-major (bit 16), N >> 3, M >> 4
    const ty = t === 'f16' ? 0 : 1;
    const idesc = ((1 << 4) | (ty << 7) | (ty << 10) | (1 << 16) | ((N >> 3) << 17) | ((128 >> 4) << 24)) >>> 0;
    expect(ptx).toContain(`0x${idesc.toString(16)};`);
  });

  it('128 x 256 x 64 (BN 256; 8 warps, 128 columns each): N 256 in one instruction, 256 TMEM columns', async () => {
    const M = 128, N = 256, K = 64;
    const a = enc(t, randF32(M * K, 33)), b = enc(t, randF32(K * N, 34));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 128, BN: 256, BK: 64 };
    // not runBoth: its sm_80 / sm_90 gate would take this tile on mma.sync, where 8 warps spill it
    // (the sm_100a PTX is gated below)
    const r = { interpret: { ...args, c: new Float32Array(M * N) }, sim: { ...args, c: new Float32Array(M * N) } };
    await runOn('interpret', new Kernel(matmulMasked[t]), r.interpret, [1, 1], { numWarps: 8, numStages: 1 });
    await runOn('sim', new Kernel(matmulMasked[t]), r.sim, [1, 1], { numWarps: 8, numStages: 1 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectTcgen05Path(matmulMasked[t] as unknown as KernelDef, args, 4, 'f16', { numWarps: 8 });
    expect(ptx).toMatch(/tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[%r\d+\], 256;/);
  });

  it('ragged M, N and K (200 x 100 x 80; BM 128, BN 64, BK 32; 4 warps): masked tiles, zero padding', async () => {
    const M = 200, N = 100, K = 80;
    const a = enc(t, randF32(M * K, 35)), b = enc(t, randF32(K * N, 36));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 128, BN: 64, BK: 32 };
    const r = await runBoth(new Kernel(matmulMasked[t]), args, [2, 2], { numStages: 1 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    expectTcgen05Path(matmulMasked[t] as unknown as KernelDef, args, 2, 'f16');
  });
});

describe.each(['f16', 'bf16'] as const)('M = 64 in %s (4 warps; tcgen05.ld / st .16x32bx2)', (t) => {
  it('ragged 72 x 40 x 56 (BM 64, BN 32, BK 32) and 64 x 256 x 64 (BN 256)', async () => {
    for (const [M, N, K, BN] of [[72, 40, 56, 32], [64, 256, 64, 256]] as const) {
      const a = enc(t, randF32(M * K, 111)), b = enc(t, randF32(K * N, 112));
      const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 64, BN, BK: 32 };
      const r = await runBoth(new Kernel(matmulMasked[t]), args, [Math.ceil(M / 64), Math.ceil(N / BN)], { numStages: 1 });
      expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
      expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
      const ptx = expectTcgen05Path(matmulMasked[t] as unknown as KernelDef, args, 2, 'f16');
      // half a row a thread (x BN/2, split BN/2) where the store keeps the conversion (N = 40: rows
      // not 16-byte aligned), else the sector layout (compiler/tcgen05_sector_layout.ts: x4, split
      // 4, 16 bytes of f32 C a lane, lanes t and t + 16 a whole sector)
      const [x, split] = N % 16 === 0 ? [4, 4] : [BN / 2, BN / 2];
      expect(ptx).toMatch(new RegExp(`tcgen05\\.ld\\.sync\\.aligned\\.16x32bx2\\.x${x}\\.b32 \\{[^}]*\\}, \\[%r\\d+(\\+\\d+)?\\], ${split};`));
      // M >> 4 = 4 in bits 24-28 of the instruction descriptor
      const ty = t === 'f16' ? 0 : 1;
      expect(ptx).toContain(`0x${(((1 << 4) | (ty << 7) | (ty << 10) | (1 << 16) | ((BN >> 3) << 17) | (4 << 24)) >>> 0).toString(16)};`);
    }
  });
});

describe('operands from the cp.async ring', () => {
  it('aligned 128 x 128 x 128 (BM 128, BN 64, BK 32; 4 warps; 3 stages): the MMAs read the ring stages, no st.shared in the loop', async () => {
    const M = 128, N = 128, K = 128;
    const a = enc('f16', randF32(M * K, 37)), b = enc('f16', randF32(K * N, 38));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 128, BN: 64, BK: 32 };
    const r = await runBoth(new Kernel(matmulAligned.f16), args, [1, 2], { numStages: 3 });
    // the same MMAs in the same order as without the ring: bit for bit
    const plain = { ...args, c: new Float32Array(M * N) };
    await runOn('sim', new Kernel(matmulAligned.f16), plain, [1, 2], { numStages: 1 });
    expectBitwise(r.sim.c, plain.c, 'ring vs no ring');
    // the sim rounds once per 16-deep MMA, the interpreter once per product: K = 128 apart
    expectClose(r.sim.c, r.interpret.c, 1e-4, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec('f16', a), dec('f16', b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectTcgen05Path(matmulAligned.f16 as unknown as KernelDef, args, 2, 'f16', { numStages: 3 });
    const body = ptx.slice(ptx.indexOf('\n$L_pfor'), ptx.indexOf('\n$L_endpfor'));
    expect(body).toMatch(/cp\.async\.cg\.shared\.global/);
    expect(body).not.toMatch(/st\.shared/);
  });
});

/** c[M,N] = c + a[M,K] @ b[K,N] (masked tiles, k-loop): a non-zero accumulator goes to TMEM with tcgen05.st. */
const matmulAcc = (ta: DType, tc: DType) => accMatmul(`mm_tc5_${ta}_${tc}`, ta, tc);

describe('tcgen05 beyond f16/bf16, with a loaded accumulator (tcgen05.st)', () => {
  const M = 136, N = 40, K = 56;

  it('tf32 (f32 inputs, default precision): kind::tf32, B staged K-major; sim = JS on tf32-rounded inputs', async () => {
    const a = randF32(M * K, 41), b = randF32(K * N, 42), c0 = randF32(M * N, 43);
    const u = new Uint32Array(a.buffer);
    for (let i = 0; i < u.length; i += 5) u[i] = (u[i]! & 0xffffe000) | 0x1000; // ties: rounding shows
    const args = { a, b, c: c0.slice(), M, N, K, BM: 128, BN: 32, BK: 32 };
    const r = await runBoth(matmulAcc('f32', 'f32'), args, [2, 2], { numStages: 1 });
    const want = matmulRef(a.map(roundTF32), b.map(roundTF32), M, N, K, 1, c0);
    const mag = magnitude(a, b, c0, M, N, K);
    expectWithin(r.sim.c, want, mag, 2 * (K + 1) * 2 ** -24, 'sim vs JS (tf32 inputs)');
    expectWithin(r.interpret.c, want, mag, 2 * (K + 1) * 2 ** -24, 'interpreter vs JS');
    const ptx = expectTcgen05Path(matmulAcc('f32', 'f32').def, args, 4, 'tf32');
    expect(ptx).toMatch(/cvt\.rna\.tf32\.f32/);
    expect(ptx).toMatch(/tcgen05\.st\.sync\.aligned\.32x32b\.x32\.b32/);
  });

  it('M = 64: the loaded accumulator goes to TMEM with tcgen05.st.16x32bx2 (tf32, BM 64, BN 32)', async () => {
    const a = randF32(M * K, 44), b = randF32(K * N, 45), c0 = randF32(M * N, 46);
    const args = { a, b, c: c0.slice(), M, N, K, BM: 64, BN: 32, BK: 32 };
    const r = await runBoth(matmulAcc('f32', 'f32'), args, [3, 2], { numStages: 1 });
    const want = matmulRef(a.map(roundTF32), b.map(roundTF32), M, N, K, 1, c0);
    const mag = magnitude(a, b, c0, M, N, K);
    expectWithin(r.sim.c, want, mag, 2 * (K + 1) * 2 ** -24, 'sim vs JS (tf32 inputs)');
    const ptx = expectTcgen05Path(matmulAcc('f32', 'f32').def, args, 4, 'tf32');
    expect(ptx).toMatch(/tcgen05\.st\.sync\.aligned\.16x32bx2\.x16\.b32 \[%r\d+\], 16, \{/);
  });

  it.each(['i8', 'u8'] as const)('%s -> i32 (kind::i8, wrapping): sim, interpreter and JS bit for bit', async (t) => {
    const K8 = 80;
    const a = ints(t, M * K8, 51), b = ints(t, K8 * N, 52);
    const c = cInit(M * N);
    // BN 64: at BN 32 ptxas 13.0 spills 12 bytes of this kernel at 80 registers
    const args = { a, b, c: c.slice(), M, N, K: K8, BM: 128, BN: 64, BK: 32 };
    const r = await runBoth(matmulAcc(t, 'i32'), args, [2, 1], { numStages: 1 });
    const want = new Int32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = c[i * N + j]!;
      for (let k = 0; k < K8; k++) s = (s + a[i * K8 + k]! * b[k * N + j]!) | 0;
      want[i * N + j] = s;
    }
    expectBitwise(r.sim.c, want, 'sim vs JS');
    expectBitwise(r.interpret.c, want, 'interpreter vs JS');
    expectTcgen05Path(matmulAcc(t, 'i32').def, args, 1, 'i8');
  });

  const PAIRS: [Fp8, Fp8][] = [['f8e4m3', 'f8e4m3'], ['f8e5m2', 'f8e5m2'], ['f8e4m3', 'f8e5m2'], ['f8e5m2', 'f8e4m3']];
  it.each(PAIRS)('%s x %s -> f32 (kind::f8f6f4), masked 136 x 40 x 56: within the f32 bound of the exact sum', async (ta, tb) => {
    const BM = 128, BN = 32, BK = 32;
    const a = fp8Codes(ta, M * K, 71), b = fp8Codes(tb, K * N, 72), c = randF32(M * N, 73);
    const GN = cdiv(N, BN);
    const args = { a, b, c: c.slice(), M, N, K, GN, BM, BN, BK };
    const r = await runBoth(fp8Matmul(ta, tb, 'f32'), args, cdiv(M, BM) * GN, { numStages: 1 });
    const ref = reference(ta, tb, a, b, c, M, N, K);
    expectFp8Within(r.sim.c as Float32Array, ref, K, U_F32, 'sim (tcgen05) vs JS');
    expectFp8Within(r.interpret.c as Float32Array, ref, K, U_F32, 'interpreter vs JS');
    expectTcgen05Path(fp8Matmul(ta, tb, 'f32').def, args, 1, 'f8f6f4');
  });
});

describe('sabotage: the epilogue reads TMEM before the commit\'s mbarrier phase completes', () => {
  /** Moves the tcgen05.ld (and its wait::ld) above the mbarrier wait loop. */
  function ldBeforeWait(ptx: string): string {
    const lines = ptx.split('\n');
    const ld = lines.findIndex((l) => /^\s*tcgen05\.ld\.sync/.test(l));
    const wait = lines.findIndex((l) => /^\$L_mma_wait_\d+:/.test(l));
    expect(ld).toBeGreaterThan(wait);
    expect(wait).toBeGreaterThan(0);
    const moved = lines.splice(ld, 2);
    expect(moved[1]).toMatch(/tcgen05\.wait::ld/);
    lines.splice(wait, 0, ...moved);
    return lines.join('\n');
  }

  it('the intact PTX through loadModule computes the product; the sabotaged one does not', async () => {
    const dev = simDevice();
    const M = 128, N = 64, K = 64;
    const af = randF32(M * K, 81), bf = randF32(K * N, 82);
    const f = matmulMasked.f16.trace({ BM: 128, BN: 64, BK: 32 });
    const r = compile(f, { target: dev.target, numWarps: 4, numStages: 1, ptxas: true });
    const want = matmulRef(f16ToFloat32(f16Array(af)), f16ToFloat32(f16Array(bf)), M, N, K);
    const run = async (ptx: string): Promise<Float32Array> => {
      const a = DeviceArray.from(f16Array(af), 'f16', { device: dev });
      const b = DeviceArray.from(f16Array(bf), 'f16', { device: dev });
      const c = DeviceArray.zeros([M * N], 'f32', { device: dev });
      const fn = dev.loadModule(ptx).getFunction(r.metadata.name);
      const sharedBytes = /\.extern\s+\.shared/.test(ptx) ? r.metadata.sharedBytes : 0;
      await fn.launch({ grid: [1, 1, 1], block: 128, sharedBytes, args: [a, b, c, M, N, K] });
      return (await c.toArray()) as Float32Array;
    };
    expectClose(await run(r.ptx), want, 1e-4, 'intact');
    const bad = ldBeforeWait(r.ptx);
    let got: Float32Array | undefined;
    let err: Error | undefined;
    try {
      got = await run(bad);
    } catch (e) {
      err = e as Error;
    }
    if (err) expect(err.message).toMatch(/tcgen05|tensor memory|poison/i);
    else {
      const off = Array.from(got!).filter((x, i) => Math.abs(x - want[i]!) > 1e-2 * (1 + Math.abs(want[i]!))).length;
      // on the sim the MMAs run when a thread first tests the mbarrier: the warp that gets to its
      // tcgen05.ld before any thread did reads the old accumulator, 32 rows at least
      expect(off, 'elements that differ from the product').toBeGreaterThan(M * N / 8);
    }
  });
});

describe('the sanitizers (racecheck, synccheck, initcheck) find nothing in the tcgen05 kernels', () => {
  const ALL = ['racecheck', 'synccheck', 'initcheck'] as const;
  it('masked (staged from registers, 2 CTAs) and aligned at 3 stages (the cp.async ring)', async () => {
    const M = 256, N = 64, K = 96;
    const a = f16Array(randF32(M * K, 95)), b = f16Array(randF32(K * N, 96));
    const want = matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K);
    for (const [def, numStages] of [[matmulMasked.f16, 1], [matmulAligned.f16, 3]] as const) {
      const c = new Float32Array(M * N);
      await new Kernel(def).run({ a, b, c, M, N, K, BM: 128, BN: 64, BK: 32 }, { grid: [2, 1], device: 'sim', numStages, sanitize: [...ALL] });
      expectClose(c, want, 1e-4, `${def.name} under the sanitizers`);
    }
  });
});

describe('the K loop\'s accumulator stays in tensor memory (tcgen05_resident.ts)', () => {
  it('128 x 128 x 64 on 4 warps (BK 32): no tcgen05.ld / st in the loop, the lds after it; no spills (128 accumulator registers live only after the loop)', async () => {
    const M = 128, N = 128, K = 64;
    const a = f16Array(randF32(M * K, 101)), b = f16Array(randF32(K * N, 102));
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 128, BN: 128, BK: 32 };
    const r = { interpret: { ...args, c: new Float32Array(M * N) }, sim: { ...args, c: new Float32Array(M * N) } };
    await runOn('interpret', new Kernel(matmulMasked.f16), r.interpret, [1, 1], { numStages: 1 });
    await runOn('sim', new Kernel(matmulMasked.f16), r.sim, [1, 1], { numStages: 1 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-4, 'sim vs JS');
    const ptx = expectTcgen05Path(matmulMasked.f16 as unknown as KernelDef, args, 2, 'f16');
    const loop = ptx.slice(ptx.indexOf('\n$L_for'), ptx.indexOf('\n$L_endfor'));
    expect(loop).toContain('tcgen05.mma');
    expect(loop).not.toMatch(/tcgen05\.(ld|st)/);
    // read back in the sector layout (the result is only stored, 16 bytes a lane): 16 lanes by
    // 8 columns a load, 2 x 16 per thread (compiler/tcgen05_sector_layout.ts)
    expect(count(ptx.slice(ptx.indexOf('\n$L_endfor')), /tcgen05\.ld\.sync\.aligned\.16x32bx2\.x4\.b32/)).toBe(32);
  });

  it('a loop of no iteration (K = 0) gives its init: zeros without reading TMEM, a loaded c unchanged', async () => {
    const M = 128, N = 64;
    const zero = { a: new Uint16Array(1), b: new Uint16Array(1), c: new Float32Array(M * N).fill(7), M, N, K: 0, BM: 128, BN: 64, BK: 32 };
    // initcheck: a tcgen05.ld of columns no MMA or st wrote since the alloc would be reported
    await new Kernel(matmulMasked.f16).run(zero, { grid: [1, 1], device: 'sim', numStages: 1, sanitize: ['initcheck'] });
    expect(Array.from(zero.c).every((x) => x === 0)).toBe(true);
    const c0 = randF32(M * N, 103);
    const loaded = { a: new Float32Array(1), b: new Float32Array(1), c: c0.slice(), M, N, K: 0, BM: 128, BN: 64, BK: 32 };
    await runOn('sim', matmulAcc('f32', 'f32'), loaded, [1, 1], { numStages: 1 });
    expectBitwise(loaded.c, c0, 'c unchanged');
  });
});
