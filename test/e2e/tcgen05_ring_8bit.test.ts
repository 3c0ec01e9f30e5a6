// 8-bit operands (e4m3, e5m2, s8, u8) on the tcgen05 TMA ring (sm_100a; pipeline/ring_operands.ts,
// pipeline/tcgen05_ring.ts): tcgen05 reads non-16-bit A and B K-major only, so, as on sm_90a's
// wgmma rings, b is loaded as B^T [N, K] through a descriptor on the transposed tensor and
// `.trans()`ed in the loop; the stage holds it K-major and the MMAs (kind::f8f6f4 / kind::i8) stay
// in flight across iterations. Small integer inputs: every product and partial sum is exact, so
// the sim (as a B200), the interpreter and a JS reference agree bit for bit; the PTX is checked to
// use the ring (one commit, to the stage's empty barrier) with the expected kind.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { DType } from '../../src/ir/types.js';
import { f8e4m3Bits, f8e5m2Bits } from '../../src/ir/fp8.js';
import { count, gateTargets } from '../codegen/gate.js';
import { EMPTY_WAIT, FINAL_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import { expectBitwise, lcg, runOn, simDevice } from './helpers.js';
import { wsMatmulBT } from './ws_dtype_cases.js';

const enc = (t: DType, v: number): number => (t === 'f8e4m3' ? f8e4m3Bits(v) : t === 'f8e5m2' ? f8e5m2Bits(v) : v & 0xff);

type Case = [ta: 'f8e4m3' | 'f8e5m2' | 'i8' | 'u8', tb: 'f8e4m3' | 'f8e5m2' | 'i8' | 'u8', acc: 'f32' | 'i32', BM: number, BN: number, BK: number, numWarps: number, M: number, N: number, K: number, stages: number];
const CASES: Case[] = [
  // ta, tb, acc, BM, BN, BK, numWarps, M, N, K, stages
  ['f8e4m3', 'f8e4m3', 'f32', 128, 128, 64, 4, 128, 128, 448, 3],
  ['f8e5m2', 'f8e4m3', 'f32', 128, 256, 128, 8, 256, 256, 256, 2],
  ['i8', 'i8', 'i32', 128, 64, 64, 4, 200, 136, 208, 3],
  ['u8', 'u8', 'i32', 128, 128, 128, 4, 128, 128, 128, 2],
];

describe('8-bit operands on the tcgen05 ring (B^T [N, K] transposed in the loop)', () => {
  it('the sim is an sm_100', () => expect(simDevice().target).toBe('sm_100a'));

  it.each(CASES)('%s x %s -> %s, %dx%dx%d on %d warps, M %d N %d K %d, %d stages: sim = interpreter = JS', async (ta, tb, acc, BM, BN, BK, numWarps, M, N, K, S) => {
    const r = lcg(ta.length * 7 + BN);
    const small = (t: DType): number => (t === 'u8' ? Math.floor(r() * 6) : Math.floor(r() * 7) - 3);
    const av = Array.from({ length: M * K }, () => small(ta)), bv = Array.from({ length: N * K }, () => small(tb)); // bt is [N, K]
    const a = ta === 'i8' ? Int8Array.from(av) : Uint8Array.from(av, (v) => enc(ta, v));
    const bt = tb === 'i8' ? Int8Array.from(bv) : Uint8Array.from(bv, (v) => enc(tb, v));
    const want = acc === 'f32' ? new Float32Array(M * N) : new Int32Array(M * N);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += av[i * K + k]! * bv[j * K + k]!;
      want[i * N + j] = s;
    }
    const k = wsMatmulBT(ta, tb, acc);
    const run = async (dev: 'sim' | 'interpret') => {
      const c = acc === 'f32' ? new Float32Array(M * N) : new Int32Array(M * N);
      await runOn(dev, k, { a, bt, c, M, N, K, BM, BN, BK, WS: false }, [Math.ceil(M / BM), Math.ceil(N / BN)], { numWarps, numStages: S });
      return c;
    };
    const sim = await run('sim');
    expectBitwise(sim, want, 'sim vs JS');
    expectBitwise(await run('interpret'), want, 'interpreter vs JS');
    const f = k.trace({ BM, BN, BK, WS: false });
    const res = gateTargets(f, ['sm_100a'], { numWarps, numStages: S })['sm_100a']!;
    const ptx = res.ptx;
    expect(res.stages.find((s) => s.name === 'pipeline')!.text).not.toMatch(/8-bit/);
    expect(ptx).toContain(EMPTY_WAIT);
    expect(ptx).toContain(FINAL_WAIT);
    expect(count(ptx, /tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one/)).toBe(1);
    expect(count(ptx, new RegExp(`tcgen05\\.mma\\.cta_group::1\\.kind::${acc === 'f32' ? 'f8f6f4' : 'i8'} `))).toBeGreaterThan(0);
    expect(ptx).not.toMatch(/tcgen05\.st\./); // the accumulator stays in TMEM, the operands go TMA -> stage -> MMA
  });
});
