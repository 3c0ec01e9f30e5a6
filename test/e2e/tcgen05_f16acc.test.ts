// f16 accumulators on tcgen05 (sm_100a): f16 (or fp8) inputs accumulating in f16 use D type f16
// (instruction descriptor bits 4-5 = 0): each value in the low 16 bits of its TMEM cell, moved two
// columns a register (tcgen05.st .unpack::16b, tcgen05.ld .pack::16b). The MMA
// rounds to f16 once per instruction (16 products for kind::f16, 32 for kind::f8f6f4), the
// interpreter after every product: both are within (K+1)·2^-11·Σ of the exact sum
// (docs/semantics.md), which is what is checked against an f64 JS reference; the PTX is checked to
// take the path (a fall back to FMA would compute numbers within the bound too).
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { f8e4m3Value } from '../../src/ir/fp8.js';
import { count, gateTargets } from '../codegen/gate.js';
import { randF32, runBoth, simDevice } from './helpers.js';
import { fp8Codes } from './fp8_matmul_cases.js';

/** c = (LOADED ? c : 0) + a @ b over a masked k loop, accumulating in f16. */
const mm = (ta: DType, loaded: boolean) => kernel(
  { name: `tc5_f16acc_${ta}_${loaded ? 'c' : 'z'}`, params: { a: ptr(ta), b: ptr(ta), c: ptr('f16'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn] = [BM as number, BN as number];
    const rm = programId(0).mul(bm).add(arange(0, bm));
    const rn = programId(1).mul(bn).add(arange(0, bn));
    const rk = arange(0, BK as number);
    const cMask = rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N));
    const pc = c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0)));
    const init = loaded ? load(pc, { mask: cMask, other: 0 }) : zeros([bm, bn], 'f16');
    const [acc] = forLoop(0, K, BK, [init], (k, acc) => {
      const ka = k.add(rk);
      const x = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const y = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(x, y, { acc: acc! })];
    });
    store(pc, acc!, { mask: cMask });
  },
);

/** |got - exact| <= (K+1)·2^-11·Σ per element (Σ = |c| + Σ|a·b|), exact and Σ in f64. */
function expectBound(got: ArrayLike<number>, a: ArrayLike<number>, b: ArrayLike<number>, c0: ArrayLike<number> | undefined, M: number, N: number, K: number, what: string): void {
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = c0 ? c0[i * N + j]! : 0, mag = Math.abs(s);
    for (let k = 0; k < K; k++) {
      const p = a[i * K + k]! * b[k * N + j]!;
      s += p;
      mag += Math.abs(p);
    }
    const err = Math.abs(got[i * N + j]! - s);
    if (!(err <= (K + 1) * 2 ** -11 * mag)) expect.fail(`${what}: element (${i}, ${j}): got ${got[i * N + j]}, exact ${s}, bound ${(K + 1) * 2 ** -11 * mag}`);
  }
}

/** The sm_100a PTX: tcgen05.mma of `kind` with D type f16 (0 in bits 4-5), low halves read back. */
function expectF16AccPath(ptx: string, kind: string): void {
  expect(count(ptx, new RegExp(`tcgen05\\.mma\\.cta_group::1\\.kind::${kind} `))).toBeGreaterThan(0);
  expect(ptx).not.toMatch(/mma\.sync|wgmma|fma\.rn\.f16/);
  const idesc = [...ptx.matchAll(/mov\.b32 %r\d+, 0x([0-9a-f]+);\n(?:[^\n]*\n){0,12}?[^\n]*tcgen05\.mma/g)].map((m) => parseInt(m[1]!, 16));
  expect(idesc.length).toBeGreaterThan(0);
  for (const d of idesc) expect((d >> 4) & 3, 'D type f16').toBe(0);
  expect(ptx).toMatch(/tcgen05\.ld\.sync\.aligned\.(32x32b|16x32bx2)\.x\d+\.pack::16b\.b32/);
}

describe('f16 accumulators on tcgen05', () => {
  it('the sim is an sm_100', () => expect(simDevice().target).toBe('sm_100a'));

  it.each([
    ['128x128x64, 8 warps, zero init (the accumulator stays in TMEM over the loop)', false, 128, 128, 64, 8, 256, 256, 192],
    ['128x256x64, 8 warps, zero init', false, 128, 256, 64, 8, 128, 256, 128],
    ['128x32x32, 4 warps, a loaded accumulator (tcgen05.st of the f16 halves), ragged', true, 128, 32, 32, 4, 136, 40, 56],
    ['M = 64 (16x32bx2), a loaded accumulator, ragged', true, 64, 32, 32, 4, 100, 40, 56],
  ] as const)('f16 inputs, %s: sim and interpreter within the f16 bound of the exact sum', async (_, loaded, BM, BN, BK, numWarps, M, N, K) => {
    const a = f16Array(randF32(M * K, 11)), b = f16Array(randF32(K * N, 12)), c0 = f16Array(randF32(M * N, 13));
    const args = { a, b, c: loaded ? c0.slice() : new Uint16Array(M * N), M, N, K, BM, BN, BK };
    const k = mm('f16', loaded);
    const r = await runBoth(k, args, [Math.ceil(M / BM), Math.ceil(N / BN)], { numWarps, numStages: 1 });
    const [af, bf] = [f16ToFloat32(a), f16ToFloat32(b)];
    expectBound(f16ToFloat32(r.sim.c), af, bf, loaded ? f16ToFloat32(c0) : undefined, M, N, K, 'sim');
    expectBound(f16ToFloat32(r.interpret.c), af, bf, loaded ? f16ToFloat32(c0) : undefined, M, N, K, 'interpreter');
    const ptx = gateTargets(k.trace({ BM, BN, BK }), ['sm_100a'], { numWarps, numStages: 1 })['sm_100a']!.ptx;
    expectF16AccPath(ptx, 'f16');
    if (loaded) expect(ptx).toMatch(/tcgen05\.st\.sync\.aligned\.(32x32b|16x32bx2)\.x\d+\.unpack::16b\.b32/);
  });

  it('e4m3 inputs accumulate in f16 with kind::f8f6f4 (D type f16)', async () => {
    const M = 128, N = 64, K = 96;
    const a = fp8Codes('f8e4m3', M * K, 21), b = fp8Codes('f8e4m3', K * N, 22);
    const args = { a, b, c: new Uint16Array(M * N), M, N, K, BM: 128, BN: 64, BK: 32 };
    const k = mm('f8e4m3', false);
    const r = await runBoth(k, args, [1, 1], { numStages: 1 });
    const [af, bf] = [Array.from(a, f8e4m3Value), Array.from(b, f8e4m3Value)];
    expectBound(f16ToFloat32(r.sim.c), af, bf, undefined, M, N, K, 'sim');
    expectBound(f16ToFloat32(r.interpret.c), af, bf, undefined, M, N, K, 'interpreter');
    expectF16AccPath(gateTargets(k.trace({ BM: 128, BN: 64, BK: 32 }), ['sm_100a'], { numStages: 1 })['sm_100a']!.ptx, 'f8f6f4');
  });
});
