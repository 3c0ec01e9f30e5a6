// Whole-sector pointer stores from the tcgen05 accumulator (sm_100a, compiler/tcgen05_sector_layout.ts):
// a dot whose result is only stored by 16-byte pointer stores is read back with
// tcgen05.ld.16x32bx2 (split: 16 bytes of C), so lanes t and t + 16 hold the two halves of one
// 32-byte sector of a row and each st.global.v4 writes whole sectors: the sim's store-sector count
// is the tile's bytes / 32, Triton 3.8's 2048 for the bench's aligned 128x128 f32 C (4 programs of
// 64x64). Bit for bit on the sim against the interpreter and JS for f16 / bf16 / f32 C, 4 and 8
// warps, N 64 / 128 / 256, ragged edges (inputs are small integers: every order sums exactly).
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { bf16Array, f16Array } from '../../src/ir/half.js';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, runOn, simDevice } from './helpers.js';
import { ints, reference, runPtx, sm100 } from './tcgen05_epilogue_cases.js';

type COut = 'f32' | 'f16' | 'bf16';
/** C = A B, masked at every edge; C rounded once from the f32 accumulator. */
const mm = (out: COut): Kernel => kernel(
  { name: `sector_${out}`, params: { a: ptr('f16'), b: ptr('f16'), c: ptr(out), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM as number));
    const rn = programId(1).mul(BN).add(arange(0, BN as number));
    const rk = arange(0, BK as number);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), out === 'f32' ? acc! : acc!.to(out), { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
  },
);
const K_OF = { f32: mm('f32'), f16: mm('f16'), bf16: mm('bf16') };

interface P { M: number; N: number; K: number; BM: number; BN: number; BK: number; numWarps: number }
function problem(p: P, out: COut, seed: number) {
  const af = ints(p.M * p.K, seed), bf = ints(p.K * p.N, seed + 1);
  const c32 = reference(af, bf, p.M, p.N, p.K, 'f32') as Float32Array;
  const want = out === 'f32' ? c32 : out === 'f16' ? f16Array(c32) : bf16Array(c32);
  const c = out === 'f32' ? new Float32Array(p.M * p.N) : new Uint16Array(p.M * p.N);
  const args = { a: f16Array(af), b: f16Array(bf), c, M: p.M, N: p.N, K: p.K, BM: p.BM, BN: p.BN, BK: p.BK };
  return { args, want, grid: [Math.ceil(p.M / p.BM), Math.ceil(p.N / p.BN), 1] as const };
}

/** The sim's distinct 32-byte sectors written by global stores in one launch of the compiled PTX. */
function storeSectors(k: Kernel, args: Record<string, unknown>, grid: readonly number[], numWarps: number): { sectors: number; ptx: string; c: ArrayBufferView } {
  const r = sm100(k, args, numWarps, 1);
  const c = runPtx(k, args, grid, r, r.ptx);
  const counters = simDevice().native.simCounters();
  if (!counters) throw new Error('the sim device reported no counters');
  return { sectors: counters.globalStoreSectors, ptx: r.ptx, c };
}

describe.each(['f32', 'f16', 'bf16'] as const)('whole-sector pointer stores, C in %s (bit-exact)', (out) => {
  const bytes = out === 'f32' ? 4 : 2;
  it.each([
    ['128x64 on 4 warps', { M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64, numWarps: 4 }],
    ['128x128 on 4 warps', { M: 128, N: 128, K: 128, BM: 128, BN: 128, BK: 64, numWarps: 4 }],
    ['128x128 on 8 warps', { M: 128, N: 128, K: 64, BM: 128, BN: 128, BK: 64, numWarps: 8 }],
    ['128x256 on 8 warps', { M: 128, N: 256, K: 64, BM: 128, BN: 256, BK: 64, numWarps: 8 }],
    ['M = 64, N = 64 on 4 warps', { M: 64, N: 64, K: 64, BM: 64, BN: 64, BK: 32, numWarps: 4 }],
    ['ragged 200x144x80 over 128x128 on 4 warps', { M: 200, N: 144, K: 80, BM: 128, BN: 128, BK: 64, numWarps: 4 }],
    ['ragged 200x176x80 over 128x256 on 8 warps', { M: 200, N: 176, K: 80, BM: 128, BN: 256, BK: 64, numWarps: 8 }],
  ] as const)('%s: 16x32bx2 loads (split = 16 bytes of C), each sector written once, no conversion', async (_n, p) => {
    const { args, want, grid } = problem(p, out, 7 + p.N + p.numWarps);
    const run = 16 / bytes; // columns of 16 bytes of C
    const { sectors, ptx, c } = storeSectors(K_OF[out], args, grid, p.numWarps);
    expect(ptx).not.toContain('// convert_layout');
    expect(ptx).not.toMatch(/tcgen05\.ld\.sync\.aligned\.32x32b/);
    // one load per 16 TMEM lanes and 2 runs of columns
    const loads = (p.BM / 16) * (p.BN / (2 * run)) / p.numWarps;
    expect(count(ptx, new RegExp(`tcgen05\\.ld\\.sync\\.aligned\\.16x32bx2\\.x${run}\\.b32 .*, ${run};`))).toBe(loads);
    expect(count(ptx, /st\.global\.v4\.(b32|f32)/)).toBe((p.BM * p.BN * bytes) / (32 * p.numWarps) / 16);
    expectBitwise(c, want, 'sim vs JS');
    // each 32-byte sector of C written once (rows of C are whole sectors: N * bytes % 32 === 0)
    if ((p.N * bytes) % 32 === 0) expect(sectors).toBe((p.M * p.N * bytes) / 32);
    const mine = { ...args, c: args.c.slice() };
    await runOn('interpret', K_OF[out], mine, grid, { numWarps: p.numWarps, numStages: 1 });
    expectBitwise(mine.c, want, 'interpreter vs JS');
  });
});

describe('the bench aligned 128x128 tile (f32 C over 64x64 tiles, 4 warps)', () => {
  it("writes Triton 3.8 cc 100's 2048 store sectors (each sector once), bit-exact", () => {
    const p = { M: 128, N: 128, K: 128, BM: 64, BN: 64, BK: 32, numWarps: 4 };
    const { args, want, grid } = problem(p, 'f32', 3);
    const { sectors, ptx, c } = storeSectors(K_OF.f32, args, grid, 4);
    expect(ptx).toContain('tcgen05.ld.sync.aligned.16x32bx2.x4.b32');
    expectBitwise(c, want, 'sim vs JS');
    expect(sectors).toBe(2048);
  });
});
