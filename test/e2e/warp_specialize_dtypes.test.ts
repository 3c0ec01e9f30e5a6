// 8-bit operands (fp8 e4m3/e5m2, s8/u8 -> s32) through the TMA ring and the warp-specialized ring
// on the sim as an sm_90 (compiled for sm_90a; pipeline/ring_operands.ts). wgmma reads them
// K-major only: A [M, K] as loaded, B loaded as B^T [N, K] and transposed in the loop, staged
// as is (K-major descriptors, k32 per instruction; 64-byte rows of a BK 64 tile: 64-byte swizzle).
// The inputs are small integers, so every product and sum is exact: the sim's result is compared
// bit for bit with a JS reference, the interpreter and the plain TMA ring (WS false). Loops the
// ring cannot take (an 8-bit or f32 B loaded [K, N]) say why and fall back.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { fp8Bits } from '../../src/ir/fp8.js';
import type { DType } from '../../src/ir/types.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, lcg, runOn } from './helpers.js';
import { wsMatmulBT, wsMatmulKN } from './ws_dtype_cases.js';

type Acc = 'f32' | 'i32';
/** n values of `t` (small integers for fp8, the whole range for 8-bit integers) as numbers and as the kernel's bytes. */
function values(t: DType, n: number, seed: number): { data: Uint8Array | Int8Array; v: number[] } {
  const r = lcg(seed);
  if (t === 'f8e4m3' || t === 'f8e5m2') {
    const v = Array.from({ length: n }, () => Math.floor(r() * 9) - 4);
    return { data: Uint8Array.from(v, (x) => fp8Bits(t, x)), v };
  }
  const v = Array.from({ length: n }, () => (t === 'i8' ? Math.floor(r() * 256) - 128 : Math.floor(r() * 256)));
  return { data: t === 'i8' ? Int8Array.from(v) : Uint8Array.from(v), v };
}

/** C = A @ B^T^T in numbers (exact: small integers), as the accumulator's array. */
function reference(a: number[], bt: number[], M: number, N: number, K: number, acc: Acc): Float32Array | Int32Array {
  const c = acc === 'f32' ? new Float32Array(M * N) : new Int32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[i * K + k]! * bt[j * K + k]!;
    c[i * N + j] = s;
  }
  return c;
}

// ta, tb, acc, [BM, BN, BK], numWarps (consumers), M, N, K
const CASES: [string, DType, DType, Acc, [number, number, number], number, number, number, number][] = [
  ['e4m3 128x128x64, 4 warps', 'f8e4m3', 'f8e4m3', 'f32', [128, 128, 64], 4, 128, 128, 320],
  ['e5m2 x e4m3 128x128x64, 8 warps', 'f8e5m2', 'f8e4m3', 'f32', [128, 128, 64], 8, 128, 128, 320],
  ['s8 128x256x64, 8 warps', 'i8', 'i8', 'i32', [128, 256, 64], 8, 128, 256, 256],
  ['u8 ragged: M 100, N 72, K 208 (not a multiple of BK), 4 warps', 'u8', 'u8', 'i32', [128, 128, 64], 4, 100, 72, 208],
  ['e4m3 ragged: 2x2 programs, M 200, N 136, K 144, 8 warps', 'f8e4m3', 'f8e4m3', 'f32', [128, 128, 64], 8, 200, 136, 144],
  ['e5m2 128x128x128 (128-byte swizzle), 4 warps', 'f8e5m2', 'f8e5m2', 'f32', [128, 128, 128], 4, 128, 128, 384],
];

const DEV = (process.env['WS_DEV'] ?? 'sim') as 'sim' | 'interpret';
const pipelineText = (r: CompileResult): string => r.stages.find((s) => s.name === 'pipeline')!.text;

describe('8-bit operands through the warp-specialized ring (sm_90a)', () => {
  it.each(CASES)('%s', async (_, ta, tb, acc, tile, numWarps, M, N, K) => {
    const [BM, BN, BK] = tile;
    const k = wsMatmulBT(ta, tb, acc);
    const opts = { target: 'sm_90a' as const, numWarps, numStages: 3, ptxas: false, constexprs: { BM, BN, BK, WS: true } };
    const r = compile(k, opts);
    expect(pipelineText(r)).toMatch(/warp-specialized: 1 producer warpgroup \(TMA, 2 tile\(s\)\)/);
    expect(r.metadata.producerWarps).toBe(4);
    expect(count(r.ptx, /setmaxnreg\.dec\.sync\.aligned\.u32 40;/)).toBe(1);
    expect(count(r.ptx, /mbarrier\.try_wait\.parity/)).toBe(2); // consumers: full; producer: empty
    // both tiles by TMA (a box per swizzle-wide column block), wgmma k32 on descriptors
    expect(count(r.ptx, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe(2 * (BK / Math.min(BK, 128)));
    expect(r.ptx).toMatch(new RegExp(`wgmma\\.mma_async\\.sync\\.aligned\\.m64n\\d+k32\\.(f32|s32)\\.`));
    const loop = r.ptx.slice(r.ptx.indexOf('$L_wsfor'), r.ptx.lastIndexOf('bra.uni $L_wsfor'));
    expect(loop).toContain('wgmma.mma_async');
    expect(loop).not.toMatch(/st\.shared/); // no operand goes through the scratch
    const A = values(ta, M * K, 61), B = values(tb, N * K, 62);
    const grid = [Math.ceil(M / BM), Math.ceil(N / BN)];
    const want = reference(A.v, B.v, M, N, K, acc);
    const run = async (dev: 'interpret' | 'sim', ws: boolean): Promise<ArrayBufferView> => {
      const c = acc === 'f32' ? new Float32Array(M * N) : new Int32Array(M * N);
      await runOn(dev, k, { a: A.data, bt: B.data, c, M, N, K, BM, BN, BK, WS: ws }, grid, { numWarps, numStages: 3 });
      return c;
    };
    expectBitwise(await run('interpret', true), want, 'interpreter vs JS');
    expectBitwise(await run('sim', true), want, 'sim (warp-specialized) vs JS');
    // the plain TMA ring stages the same tiles: same result
    const plain = compile(k, { ...opts, constexprs: { BM, BN, BK, WS: false } });
    expect(plain.ptx).toContain('// TMA ring: 3 stages');
    expectBitwise(await run('sim', false), want, 'sim (TMA ring) vs JS');
    // ptxas for sm_90a: clean, no spills
    const full = compile(k, { ...opts, ptxas: true });
    expect(full.metadata.spills, full.metadata.ptxasLog).toBe(0);
    expect(full.metadata.ptxasLog).not.toMatch(/warning/i);
  });
});

describe('operand types the ring does not take say why, and the loop stays right', () => {
  it('an 8-bit b loaded [K, N] is N-major: not on the ring (wgmma reads 8-bit B K-major only)', async () => {
    const [M, N, K] = [128, 128, 128];
    const k = wsMatmulKN('i8', 'i32');
    const r = compile(k, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64 } });
    expect(pipelineText(r)).toMatch(/not warp-specialized: .*an 8-bit b loaded \[K, N\] is N-major, and wgmma and tcgen05 read 8-bit B K-major only/);
    expect(r.ptx).not.toContain('setmaxnreg');
    const A = values('i8', M * K, 71), B = values('i8', K * N, 72);
    const bt = Array.from({ length: N * K }, (_, i) => B.v[(i % K) * N + Math.floor(i / K)]!);
    const c = new Int32Array(M * N);
    await runOn(DEV, k, { a: A.data, b: B.data, c, M, N, K, BM: 128, BN: 128, BK: 64 }, [1, 1], { numWarps: 4, numStages: 3 });
    expectBitwise(c, reference(A.v, bt, M, N, K, 'i32'), 'sim vs JS');
  });
  it('an f32 (tf32) b loaded [K, N] is N-major: not on the ring (wgmma reads tf32 B K-major only; ring_tf32.test.ts runs it)', () => {
    const r = compile(wsMatmulKN('f32', 'f32', 'tf32'), { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 64, BK: 32 } });
    expect(pipelineText(r)).toMatch(/not warp-specialized: .*an f32 \(tf32\) b loaded \[K, N\] is N-major, and wgmma reads tf32 B K-major only/);
    expect(r.ptx).not.toContain('setmaxnreg');
    expect(r.ptx).toContain('cvt.rna.tf32.f32');
  });
});
