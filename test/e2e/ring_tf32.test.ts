// f32 operands of tf32 wgmma dots through the sm_90a TMA ring and the warp-specialized ring (on
// the sim as an sm_90; pipeline/ring_tf32.ts): A [M, K] as loaded, B as B^T [N, K] transposed in
// the loop, both staged K-major by TMA. wgmma would read the staged f32 truncated to tf32; the
// consumers round each landed stage to nearest (cvt.rna) first, as the reference does. The data
// makes the difference visible: A's values are integers 1024..2047 (tf32 ulp 1, sign random) plus
// a random fraction below that ulp, which round to nearest and truncate differently; B's are small
// integers; every product and sum is then exact. Each kernel: bit for bit a JS reference (with
// rounding; the one with truncation differs), the interpreter, the unpipelined kernel (numStages 1:
// operands through registers and cvt.rna) and the other ring.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, lcg, runOn } from './helpers.js';
import { tf32MatmulBT } from './ring_tf32_cases.js';
import { wsMatmulKN } from './ws_dtype_cases.js';

const bits = new Uint32Array(1), flt = new Float32Array(bits.buffer);
/** f32 -> tf32: to nearest, ties away (cvt.rna), or truncated (what wgmma does to a staged f32). */
function tf32(x: number, mode: 'rna' | 'trunc'): number {
  flt[0] = x;
  bits[0] = ((mode === 'rna' ? bits[0]! + 0x1000 : bits[0]!) & ~0x1fff) >>> 0;
  return flt[0]!;
}
function data(M: number, N: number, K: number, seed: number): { a: Float32Array; bt: Float32Array } {
  const r = lcg(seed);
  const a = Float32Array.from({ length: M * K }, () => (r() < 0.5 ? -1 : 1) * (1024 + Math.floor(r() * 1024) + r() * 0.999));
  const bt = Float32Array.from({ length: N * K }, () => Math.floor(r() * 5) - 2);
  return { a, bt };
}
function reference(a: Float32Array, bt: Float32Array, M: number, N: number, K: number, mode: 'rna' | 'trunc'): Float32Array {
  const c = new Float32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += tf32(a[i * K + k]!, mode) * tf32(bt[j * K + k]!, mode);
    c[i * N + j] = s;
  }
  return c;
}

// name, [BM, BN, BK], numWarps, M, N, K: K / BK > numStages, so every stage is reused
const CASES: [string, [number, number, number], number, number, number, number][] = [
  ['128x128x32, 4 warps', [128, 128, 32], 4, 128, 128, 160],
  ['128x128x32, 8 warps', [128, 128, 32], 8, 128, 128, 160],
  ['128x256x32, 8 warps', [128, 256, 32], 8, 128, 256, 128],
  ['128x64x64 (two 128-byte boxes per row), 4 warps', [128, 64, 64], 4, 128, 64, 256],
  ['ragged: 2x2 programs, M 200, N 136, K 100 (not a multiple of BK), 4 warps', [128, 128, 32], 4, 200, 136, 100],
];
const pipelineText = (r: CompileResult): string => r.stages.find((s) => s.name === 'pipeline')!.text;

describe('tf32 (f32 operands) through the TMA rings (sm_90a)', () => {
  it.each(CASES)('%s', async (_, tile, numWarps, M, N, K) => {
    const [BM, BN, BK] = tile;
    const opts = (ws: boolean, numStages = 3) => ({ target: 'sm_90a' as const, numWarps, numStages, ptxas: false, constexprs: { BM, BN, BK, WS: ws } });
    const ws = compile(tf32MatmulBT, opts(true));
    expect(pipelineText(ws)).toMatch(/warp-specialized: 1 producer warpgroup \(TMA, 2 tile\(s\)\)/);
    const plain = compile(tf32MatmulBT, opts(false));
    expect(plain.ptx).toContain('// TMA ring: 3 stages');
    for (const r of [ws, plain]) {
      const loop = r.ptx.slice(r.ptx.search(/\$L_(wsfor|tfor)/), r.ptx.search(/bra\.uni \$L_(wsfor|tfor)/));
      expect(loop).toMatch(/wgmma\.mma_async\.sync\.aligned\.m64n\d+k8\.f32\.tf32\.tf32/);
      expect(count(loop, /cvt\.rna\.tf32\.f32/)).toBeGreaterThan(0); // the stage is rounded in place
      expect(loop).toContain('fence.proxy.async.shared::cta');
    }
    const { a, bt } = data(M, N, K, 91);
    const want = reference(a, bt, M, N, K, 'rna');
    expect(Array.from(want)).not.toEqual(Array.from(reference(a, bt, M, N, K, 'trunc'))); // the data tells rounding from truncation
    const grid = [Math.ceil(M / BM), Math.ceil(N / BN)];
    const run = async (dev: 'interpret' | 'sim', wsOn: boolean, numStages: number): Promise<Float32Array> => {
      const c = new Float32Array(M * N);
      await runOn(dev, tf32MatmulBT, { a, bt, c, M, N, K, BM, BN, BK, WS: wsOn }, grid, { numWarps, numStages });
      return c;
    };
    expectBitwise(await run('interpret', true, 3), want, 'interpreter vs JS');
    expectBitwise(await run('sim', true, 3), want, 'sim (warp-specialized ring) vs JS');
    expectBitwise(await run('sim', false, 3), want, 'sim (TMA ring) vs JS');
    expectBitwise(await run('sim', false, 1), want, 'sim (unpipelined) vs JS');
    const full = compile(tf32MatmulBT, { ...opts(true), ptxas: true });
    expect(full.metadata.spills, full.metadata.ptxasLog).toBe(0);
    expect(full.metadata.ptxasLog).not.toMatch(/warning/i);
  });

  it('b loaded [K, N] (N-major) stays off the ring: a rides the plain ring, b goes through registers, same result', async () => {
    const [M, N, K] = [128, 64, 160];
    const k = wsMatmulKN('f32', 'f32', 'tf32');
    const r = compile(k, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 64, BK: 32 } });
    expect(pipelineText(r)).toMatch(/an f32 \(tf32\) b loaded \[K, N\] is N-major/);
    expect(r.ptx).toContain('// TMA ring: 3 stages');
    const { a, bt } = data(M, N, K, 93);
    const b = Float32Array.from({ length: K * N }, (_, i) => bt[(i % N) * K + Math.floor(i / N)]!);
    const c = new Float32Array(M * N);
    await runOn('sim', k, { a, b, c, M, N, K, BM: 128, BN: 64, BK: 32 }, [1, 1], { numWarps: 4, numStages: 3 });
    expectBitwise(c, reference(a, bt, M, N, K, 'rna'), 'sim vs JS');
  });
});
