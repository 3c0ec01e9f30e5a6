// The masked batched matmul of issue 27 (8 x 100x80 @ 80x96, bf16 -> f32, grid z = batch): its
// loads are masked (ragged M and N tiles, K = 80 not a multiple of BK = 32) with `other` 0, which
// the cp.async ring takes as zero-filling copies (src-size 0), as Triton does. The PTX the sim
// device compiles for these arguments has as many cp.async as the unmasked copy of the kernel on
// aligned shapes (18 at 64 x 128 x 32, 3 stages), and the result matches the interpreter and an
// f64 JS reference. The pointer walked by the loop (Triton's tutorial style) is pipelined the same
// way (the 'carried' IR pass reads it as a closed form of k): same cp.async count, right result.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { bf16Array, bf16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, randF32, runBoth, simDevice } from './helpers.js';

/** c[z] = a[z] @ b[z]; `masked`: ragged M, N and K are masked, else every tile is whole. */
const bmm = (masked: boolean) => kernel(
  { name: `bmm_bf16${masked ? '_masked' : ''}`, params: { a: ptr('bf16'), b: ptr('bf16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const z = programId(2);
    const rm = programId(0).mul(BM).add(arange(0, BM as number));
    const rn = programId(1).mul(BN).add(arange(0, BN as number));
    const rk = arange(0, BK as number);
    const az = a.add(z.mul(M).mul(K)), bz = b.add(z.mul(K).mul(N));
    const [acc] = forLoop(0, K, BK as number, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const pa = az.add(rm.expandDims(1).mul(K).add(ka.expandDims(0)));
      const pb = bz.add(ka.expandDims(1).mul(N).add(rn.expandDims(0)));
      const ta = masked ? load(pa, { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 }) : load(pa);
      const tb = masked ? load(pb, { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 }) : load(pb);
      return [dot(ta, tb, { acc: acc! })];
    });
    const pc = c.add(z.mul(M).mul(N)).add(rm.expandDims(1).mul(N).add(rn.expandDims(0)));
    store(pc, acc!, masked ? { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) } : {});
  },
);

/** The same with pointers advanced by the loop (Triton's tutorial). */
const bmmWalked = kernel(
  { name: 'bmm_bf16_walked', params: { a: ptr('bf16'), b: ptr('bf16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const z = programId(2);
    const rm = programId(0).mul(BM).add(arange(0, BM as number));
    const rn = programId(1).mul(BN).add(arange(0, BN as number));
    const rk = arange(0, BK as number);
    const pa0 = a.add(z.mul(M).mul(K)).add(rm.expandDims(1).mul(K).add(rk.expandDims(0)));
    const pb0 = b.add(z.mul(K).mul(N)).add(rk.expandDims(1).mul(N).add(rn.expandDims(0)));
    const [acc] = forLoop(0, K, BK as number, [zeros([BM as number, BN as number], 'f32'), pa0, pb0], (k, acc, pa, pb) => {
      const ta = load(pa!, { mask: rm.expandDims(1).lt(M).logicalAnd(rk.expandDims(0).lt(K.sub(k))), other: 0 });
      const tb = load(pb!, { mask: rk.expandDims(1).lt(K.sub(k)).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! }), pa!.add(BK), pb!.add(N.mul(BK))];
    });
    store(c.add(z.mul(M).mul(N)).add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
);

const TILE = { BM: 64, BN: 128, BK: 32 };

function ref(a: Float32Array, b: Float32Array, B: number, M: number, N: number, K: number): Float64Array {
  const c = new Float64Array(B * M * N);
  for (let z = 0; z < B; z++) for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[(z * M + i) * K + k]! * b[(z * K + k) * N + j]!;
    c[(z * M + i) * N + j] = s;
  }
  return c;
}

function simCompile(k: Kernel, args: Record<string, unknown>) {
  const positional = k.def.runtimeParams.map((p) => args[p.name] as LaunchArg);
  return simDevice().compile(k.trace(TILE), 4, positional, 3);
}

const argsFor = (B: number, M: number, N: number, K: number, seed: number) => {
  const a = bf16Array(randF32(B * M * K, seed)), b = bf16Array(randF32(B * K * N, seed + 1));
  return { a, b, c: new Float32Array(B * M * N), M, N, K, ...TILE };
};
const cpAsync = (ptx: string): number => (ptx.match(/^\s*cp\.async\.c[ag]\.shared\.global/gm) ?? []).length;

describe('masked batched bf16 matmul (issue 27: 8 x 100x80 @ 80x96)', () => {
  it('is pipelined like its unmasked copy: zero-filling cp.async, same count, right result', async () => {
    const [B, M, N, K] = [8, 100, 96, 80];
    const args = argsFor(B, M, N, K, 81);
    const masked = simCompile(bmm(true), args);
    const unmasked = simCompile(bmm(false), argsFor(B, 128, 128, 96, 83));
    expect(cpAsync(unmasked.ptx)).toBe(18); // (64x32 + 32x128) bf16 = 6 chunks of 16 bytes a thread, 3 issues
    expect(cpAsync(masked.ptx)).toBe(18);
    expect(masked.ptx).toMatch(/cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], \[%rd\d+\], 16, %r\d+;/); // src-size: zero-fill
    expect(masked.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/cp\.async 16 bytes zero-fill/);
    const r = await runBoth(bmm(true), args, [Math.ceil(M / TILE.BM), Math.ceil(N / TILE.BN), B], { numWarps: 4, numStages: 3 });
    const want = ref(bf16ToFloat32(args.a), bf16ToFloat32(args.b), B, M, N, K);
    expectClose(r.interpret.c, want, 1e-4, 'interpreter vs JS');
    expectClose(r.sim.c, want, 1e-4, 'sim vs JS');
  });

  it('pointers advanced by the loop are pipelined like the k-indexed form: same cp.async count, right result', async () => {
    const [B, M, N, K] = [8, 100, 96, 80];
    const args = argsFor(B, M, N, K, 85);
    const r = simCompile(bmmWalked, args);
    expect(cpAsync(r.ptx)).toBe(18);
    const plan = r.stages.find((s) => s.name === 'pipeline')!.text;
    expect(plan).not.toMatch(/loop-carried/);
    expect(plan.match(/cp\.async 16 bytes zero-fill/g)?.length).toBe(2);
    const out = await runBoth(bmmWalked, args, [Math.ceil(M / TILE.BM), Math.ceil(N / TILE.BN), B], { numWarps: 4, numStages: 3 });
    const want = ref(bf16ToFloat32(args.a), bf16ToFloat32(args.b), B, M, N, K);
    expectClose(out.interpret.c, want, 1e-4, 'interpreter vs JS');
    expectClose(out.sim.c, want, 1e-4, 'sim vs JS');
  });
});
