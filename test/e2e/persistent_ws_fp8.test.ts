// The persistent warp-specialized fp8 matmul of the bench (bench/ws_kernels.ts persistentWsMatmulBT8:
// e4m3 A [M, K] and B^T [N, K], f16 out through stmatrix and a TMA store) on the sim as an sm_90:
// the producer runs the tile loop over the K-major 8-bit ring. Small-integer inputs keep every sum
// exact (and within f16's integers): bit for bit a JS reference, the interpreter and the plain ring.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { fp8Bits } from '../../src/ir/fp8.js';
import { f16Array } from '../../src/ir/half.js';
import { expectBitwise, lcg } from './helpers.js';
import { persistentWsMatmulBT8 } from '../../bench/ws_kernels.js';

describe('persistent warp-specialized fp8 matmul (sm_90a)', () => {
  it.each([
    ['128x128x64, 4 warps, 4 or 5 tiles per program, ragged M, N and K (K 208: an 8-bit row pitch must be 16-byte aligned)', 128, 128, 64, 4, 300, 264, 208, 2],
    ['128x256x64, 8 warps, 2 tiles per program', 128, 256, 64, 8, 256, 512, 256, 2],
  ] as const)('%s', async (_, BM, BN, BK, numWarps, M, N, K, programs) => {
    const cx = { BM, BN, BK, GROUP_M: 8 };
    const r = compile(persistentWsMatmulBT8, { target: 'sm_90a', numWarps, numStages: 3, ptxas: true, constexprs: { ...cx, WS: true } });
    expect(r.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/warp-specialized: .*inside tile loop/);
    expect(r.ptx).toContain('setmaxnreg.dec');
    expect(r.ptx).toMatch(/wgmma\.mma_async\.sync\.aligned\.m64n\d+k32\.f32\.e4m3\.e4m3/);
    expect(r.ptx).toContain('stmatrix');
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    const rnd = lcg(81);
    const av = Array.from({ length: M * K }, () => Math.floor(rnd() * 7) - 3), bv = Array.from({ length: N * K }, () => Math.floor(rnd() * 7) - 3);
    const a = Uint8Array.from(av, (x) => fp8Bits('f8e4m3', x)), bt = Uint8Array.from(bv, (x) => fp8Bits('f8e4m3', x));
    const want = new Float32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += av[i * K + k]! * bv[j * K + k]!;
      want[i * N + j] = s;
    }
    const run = async (device: 'sim' | 'interpret', ws: boolean): Promise<Uint16Array> => {
      const c = new Uint16Array(M * N);
      await persistentWsMatmulBT8.run({ a, bt, c, M, N, K, ...cx, WS: ws } as never, { grid: [programs], device, numWarps, numStages: 3 });
      return c;
    };
    const w = f16Array(want);
    expectBitwise(await run('interpret', true), w, 'interpreter vs JS');
    expectBitwise(await run('sim', true), w, 'sim (warp-specialized) vs JS');
    expectBitwise(await run('sim', false), w, 'sim (plain ring) vs JS');
  });
});
