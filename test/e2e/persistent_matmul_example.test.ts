// examples/persistent_matmul.ts, the README-style persistent warp-specialized GEMM a Triton user
// writes (tutorial 09 with warp_specialize=True), unmodified: it runs on the sim as an sm_90 (so
// `run` picks sm_90a and the warp-specialized form) and on the interpreter, bit for bit the JS
// reference (small integers: exact sums, exact f16), and its sm_90a / sm_100a PTX has the
// structure the option promises (a producer with setmaxnreg, mbarrier rings, TMA loads and
// stores, stmatrix; on sm_100a tcgen05 with the load and MMA warps).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { matmulF16, persistentMatmul } from '../../examples/persistent_matmul.js';
import { compile } from '../../src/compile/compile.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { f16Array } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, simDevice } from './helpers.js';
import { getDevice } from '../../src/runtime/device.js';
import { ints, reference } from './persistent_cases.js';

const M = 200, N = 304, K = 208; // ragged against 128x128x64 in every dimension; 8 tiles, K 4 steps
const A = ints(M * K, 31), B = ints(K * N, 32);
const want = f16Array(reference(A.vals, B.vals, M, N, K));

describe('examples/persistent_matmul.ts', () => {
  it("runs on the sim (sm_90a, grid 'sms') and equals the reference", async () => {
    simDevice(); // fails (not skips) when the sim is missing
    const saved = process.env['TESSERA_DEVICE'];
    process.env['TESSERA_DEVICE'] = 'sim';
    try {
      expect((getDevice() as unknown as { target: string }).target, 'what run() compiles for').toBe('sm_90a');
      expectBitwise(await matmulF16(A.bits, B.bits, M, N, K), want, 'sim vs reference');
    } finally {
      if (saved === undefined) delete process.env['TESSERA_DEVICE'];
      else process.env['TESSERA_DEVICE'] = saved;
    }
  });

  it('runs on the interpreter and equals the reference', async () => {
    const c = new Uint16Array(M * N);
    await persistentMatmul.run({ a: A.bits, b: B.bits, c, M, N, K, BM: 128, BN: 128, BK: 64, GROUP_M: 8 }, { grid: 'sms', device: 'interpret', numWarps: 4 });
    expectBitwise(c, want, 'interpreter vs reference');
  });

  const f = persistentMatmul.trace({ BM: 128, BN: 128, BK: 64, GROUP_M: 8 });
  const spec = launchSpecialization(f, [A.bits, B.bits, new Uint16Array(M * N), M, N, K]);

  it('sm_90a: a producer warpgroup walks the tile loop; setmaxnreg, mbarrier ring, TMA in and out, stmatrix', () => {
    const r = compile(f, { target: 'sm_90a', numWarps: 4, specialization: spec, ptxas: true });
    expect(r.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/warp-specialized: .*inside tile loop %\d+, which the producer runs too/);
    expect(r.metadata.producerWarps).toBe(4);
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(count(r.ptx, /setmaxnreg\.dec\.sync\.aligned\.u32 40;/)).toBe(1);
    expect(count(r.ptx, /setmaxnreg\.inc\.sync\.aligned\.u32/)).toBe(1);
    expect(count(r.ptx, /mbarrier\.try_wait\.parity/)).toBeGreaterThan(1);
    expect(count(r.ptx, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes/)).toBeGreaterThan(0);
    expect(count(r.ptx, /stmatrix\.sync\.aligned/)).toBeGreaterThan(0);
    expect(count(r.ptx, /cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group/)).toBeGreaterThan(0);
  });

  it('sm_100a: a load warp and an MMA warp on tcgen05, the accumulator double-buffered in tensor memory', () => {
    const r = compile(f, { target: 'sm_100a', numWarps: 4, specialization: spec, ptxas: true });
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(count(r.ptx, /setmaxnreg\.dec/)).toBeGreaterThan(0);
    expect(count(r.ptx, /tcgen05\.mma\.cta_group::1/)).toBeGreaterThan(0);
    expect(count(r.ptx, /tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[[^\]]+\], 256;/)).toBe(1); // 2 x 128 columns
  });
});
