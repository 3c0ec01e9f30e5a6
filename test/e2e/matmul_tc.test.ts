// Matmul-class kernels whose dots run on tensor cores (mma.sync + ldmatrix): masked/ragged,
// aligned, batched, and a flash-attention forward, in f16 and bf16 — the tensor-core kernels of
// bench/kernels.ts (TC_KERNELS), which bench:tc compares with Triton. Each runs on the interpreter
// and the sim (runBoth also assembles the PTX with ptxas for sm_80 and sm_90) and is compared with
// an f64 JS reference computed from the same half-precision inputs; and the PTX is checked to take
// the tensor-core path (a silent fall back to FMA would still compute the right numbers).
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { KernelDef } from '../../src/lang/index.js';
import { Kernel } from '../../src/runtime/kernel.js';
import { flashAttention, matmulAligned, matmulBatched, matmulMasked, TC_KERNELS, type Half } from '../../bench/kernels.js';
import { count } from '../codegen/gate.js';
import { expectClose, randF32, runBoth, simDevice } from './helpers.js';
import { attentionRef, dec, enc, matmulRef } from './tc_matmul_cases.js';

/**
 * The PTX of `def` at `cx` for sm_80 and sm_90 takes the tensor-core path: exactly one
 * m16n8k16 mma.sync per (16 x 8 x 16) block of every dot divided over the warps, operands read
 * with ldmatrix (.trans for the [K, N] operand), and no FMA dot (fma.rn.f32) where none is wanted.
 */
function expectTensorCorePath(def: KernelDef, cx: Record<string, number>, t: Half, dots: readonly [number, number, number][], numWarps = 4, fma = false): void {
  for (const target of ['sm_80', 'sm_90'] as const) {
    const { ptx } = compile(def.trace(cx), { target, numWarps, ptxas: false });
    const mmas = dots.reduce((n, [M, N, K]) => n + (M * N * K) / (16 * 8 * 16 * numWarps), 0);
    expect(count(ptx, new RegExp(`mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.${t}\\.${t}\\.f32`)), `${def.name} ${target}: mma.sync`).toBe(mmas);
    expect(count(ptx, /ldmatrix\.sync\.aligned\.m8n8\.x[24]\.shared\.b16/), `${def.name} ${target}: ldmatrix (a)`).toBeGreaterThan(0);
    expect(count(ptx, /ldmatrix\.sync\.aligned\.m8n8\.x[24]\.trans\.shared\.b16/), `${def.name} ${target}: ldmatrix.trans (b)`).toBeGreaterThan(0);
    if (!fma) expect(ptx, `${def.name} ${target}: an FMA dot`).not.toMatch(/fma\.rn\.f32/);
  }
}

describe('the tensor-core bench kernels are all covered here', () => {
  it('TC_KERNELS = masked, aligned, batched and flash-attention, in f16 and bf16', () => {
    const defs = [matmulMasked, matmulAligned, matmulBatched, flashAttention].flatMap((d) => [d.f16, d.bf16]) as unknown as KernelDef[];
    expect(TC_KERNELS.map((k) => k.def.name).sort()).toEqual(defs.map((d) => d.name).sort());
  });
});

describe.each(['f16', 'bf16'] as const)('tensor-core matmuls in %s', (t) => {
  // products of half inputs are exact in f32; sums differ only in order (1e-4 is loose for K <= 96)
  it('masked matmul, ragged in M, N and K (72 x 40 x 56; BM 64, BN 32, BK 32; 4 warps)', async () => {
    const M = 72, N = 40, K = 56;
    const a = enc(t, randF32(M * K, 31)), b = enc(t, randF32(K * N, 32));
    const cx = { BM: 64, BN: 32, BK: 32 };
    const r = await runBoth(new Kernel(matmulMasked[t]), { a, b, c: new Float32Array(M * N), M, N, K, ...cx }, [2, 2]);
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    expectTensorCorePath(matmulMasked[t] as unknown as KernelDef, cx, t, [[64, 32, 32]]);
  });

  it('aligned matmul, the loop a pipeliner targets (128 x 64 x 96; BM = BN = 64, BK = 32; 4 warps)', async () => {
    const M = 128, N = 64, K = 96;
    const a = enc(t, randF32(M * K, 38)), b = enc(t, randF32(K * N, 39));
    const cx = { BM: 64, BN: 64, BK: 32 };
    const c = new Float32Array(M * N);
    // the PTX the sim runs for these (16-aligned, multiple-of-16) arguments is pipelined: a cp.async
    // ring of numStages 3 (the default)
    const ptx = simDevice().compile(matmulAligned[t].trace(cx), 4, [a, b, c, M, N, K], 3).ptx;
    expect(ptx).toMatch(/cp\.async\.cg\.shared\.global/);
    expect(ptx).toContain('cp.async.wait_group 1;');
    const r = await runBoth(new Kernel(matmulAligned[t]), { a, b, c, M, N, K, ...cx }, [2, 1], { numStages: 3 });
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K), 1e-4, 'sim vs JS');
    expectTensorCorePath(matmulAligned[t] as unknown as KernelDef, cx, t, [[64, 64, 32]]);
  });

  it('batched matmul, batch = programId(2) (3 x 64 x 64 x 64; BM = BN = 64, BK = 32; 4 warps)', async () => {
    const B = 3, M = 64, N = 64, K = 64;
    const a = enc(t, randF32(B * M * K, 33)), b = enc(t, randF32(B * K * N, 34));
    const cx = { BM: 64, BN: 64, BK: 32 };
    const r = await runBoth(new Kernel(matmulBatched[t]), { a, b, c: new Float32Array(B * M * N), M, N, K, ...cx }, [1, 1, B]);
    expectClose(r.sim.c, r.interpret.c, 1e-5, 'sim vs interpreter');
    expectClose(r.sim.c, matmulRef(dec(t, a), dec(t, b), M, N, K, B), 1e-4, 'sim vs JS');
    expectTensorCorePath(matmulBatched[t] as unknown as KernelDef, cx, t, [[64, 64, 32]]);
  });

  it('flash-attention forward (L = 64, D = 32; BM = BN = 32; 4 warps; two dots in a loop)', async () => {
    const L = 64, D = 32, scale = 1 / Math.sqrt(D);
    const q = enc(t, randF32(L * D, 35)), k = enc(t, randF32(L * D, 36)), v = enc(t, randF32(L * D, 37));
    const cx = { BM: 32, BN: 32, D };
    const r = await runBoth(new Kernel(flashAttention[t]), { q, k, v, o: new Float32Array(L * D), L, scale, ...cx }, L / 32);
    // p is rounded to the half type before the second dot: about 2^-8 (bf16) / 2^-11 (f16) relative
    const tol = t === 'bf16' ? 2e-2 : 4e-3;
    expectClose(r.sim.o, r.interpret.o, tol / 4, 'sim vs interpreter');
    expectClose(r.sim.o, attentionRef(dec(t, q), dec(t, k), dec(t, v), L, D, scale), tol, 'sim vs JS');
    // S = Q K^T is [BM, D] x [D, BN], then P V is [BM, BN] x [BN, D]; the softmax may use FMA
    expectTensorCorePath(flashAttention[t] as unknown as KernelDef, cx, t, [[32, 32, 32], [32, 32, 32]], 4, true);
  });

  // The bench's tiles (64/64/64, 4 warps) and 32/32/32 on 2 warps: both dots get warps [WM, 1]
  // (compiler/mma_warps.ts), so P is the second dot's A operand straight from registers
  // (codegen/tensor_cores/mma_a_regs.ts); K^T, contiguous along k, is staged transposed (lower_mma.ts bT).
  it.each([[64, 4, 128], [32, 2, 96]] as const)('flash-attention forward, A of P V from registers (BM = BN = D = %i; %i warps; L = %i)', async (T, numWarps, L) => {
    const D = T, scale = 1 / Math.sqrt(D);
    const q = enc(t, randF32(L * D, 41)), k = enc(t, randF32(L * D, 42)), v = enc(t, randF32(L * D, 43));
    const cx = { BM: T, BN: T, D };
    const r = await runBoth(new Kernel(flashAttention[t]), { q, k, v, o: new Float32Array(L * D), L, scale, ...cx }, L / T, { numWarps });
    const tol = t === 'bf16' ? 2e-2 : 4e-3;
    expectClose(r.sim.o, r.interpret.o, tol / 4, 'sim vs interpreter');
    expectClose(r.sim.o, attentionRef(dec(t, q), dec(t, k), dec(t, v), L, D, scale), tol, 'sim vs JS');
    expectTensorCorePath(flashAttention[t] as unknown as KernelDef, cx, t, [[T, T, D], [T, D, T]], numWarps, true);
    const { ptx } = compile(flashAttention[t].trace(cx), { target: 'sm_80', numWarps, ptxas: false });
    // non-.trans ldmatrix per k-step (D/16 of them): Q's one m16 tile and K^T's BN/16 pairs of n8
    // tiles (staged as [BN, D]); none for P
    expect(count(ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe((D / 16) * (1 + T / 16));
  });

  it('the bench configurations (bench:tc tiles) take the tensor-core path too', () => {
    for (const k of TC_KERNELS.filter((x) => x.def.name.endsWith(`_${t}`))) {
      const cx = k.constexprs as Record<string, number>;
      const dots: [number, number, number][] = k.def.name.startsWith('flash')
        ? [[cx.BM!, cx.BN!, cx.D!], [cx.BM!, cx.D!, cx.BN!]]
        : [[cx.BM!, cx.BN!, cx.BK!]];
      expectTensorCorePath(k.def, cx, t, dots, k.options?.numWarps ?? 4, k.def.name.startsWith('flash'));
    }
  });
});
