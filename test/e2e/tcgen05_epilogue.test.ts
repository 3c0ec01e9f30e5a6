// The tcgen05 epilogue (sm_100a, compiler/tcgen05_epilogue.ts): C is stored straight from the
// layout tcgen05.ld reads the accumulator back in (a row per thread), with no layout conversion
// through a shared scratch: pointer stores as st.global vectors of each thread's row segment
// (masked at ragged edges), descriptor stores as 16-byte st.shared into the swizzled TMA tile.
// A transposed store keeps the conversion. Inputs are small integers, so every summation order
// gives the same f32 bits: the sim, the interpreter and the JS reference agree bit for bit (f16
// outputs: the f32 result rounded once, exactly as JS's f16 encoding does).
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { f16Array } from '../../src/ir/half.js';
import { arange, dot, forLoop, load, programId, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { count } from '../codegen/gate.js';
import { expectBitwise, runOn, simDevice } from './helpers.js';
import { DESC, ints, mmParams, problem, reference, sm100, type Out, type Problem } from './tcgen05_epilogue_cases.js';
import { build, mmDesc as pairKernel, problem as pairProblem, runPtx as runPair } from './tcgen05_2cta_cases.js';

/** C = A B through pointers, masked at every edge; C in f32 or rounded to f16. */
const mmPtr = (out: Out): Kernel => kernel({ name: `epi_ptr_${out}`, params: mmParams(out) }, ({ a, b, c, M, N, K, BM, BN, BK }) => {
  const rm = programId(0).mul(BM).add(arange(0, BM as number));
  const rn = programId(1).mul(BN).add(arange(0, BN as number));
  const rk = arange(0, BK as number);
  const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
    const ka = k.add(rk);
    const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
    const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
    return [dot(ta, tb, { acc: acc! })];
  });
  store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), out === 'f16' ? acc!.to('f16') : acc!, { mask: rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N)) });
});
const PTR = { f32: mmPtr('f32'), f16: mmPtr('f16') };

/** C^T = (A B)^T through pointers: memory contiguous along C's rows, so the conversion stays. */
const mmPtrT = kernel({ name: 'epi_ptr_t', params: mmParams('f32') }, ({ a, b, c, M, N, K, BM, BN, BK }) => {
  const rm = programId(0).mul(BM).add(arange(0, BM as number));
  const rn = programId(1).mul(BN).add(arange(0, BN as number));
  const rk = arange(0, BK as number);
  const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
    const ka = k.add(rk);
    const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
    const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
    return [dot(ta, tb, { acc: acc! })];
  });
  store(c.add(rn.expandDims(0).mul(M).add(rm.expandDims(1))), acc!);
});

/** C += A B in place (c read as the accumulator's init, then written through the same pointers). */
const mmAccumulate = kernel({ name: 'epi_ptr_acc', params: mmParams('f32') }, ({ a, b, c, M, N, K, BM, BN, BK }) => {
  const rm = programId(0).mul(BM).add(arange(0, BM as number));
  const rn = programId(1).mul(BN).add(arange(0, BN as number));
  const rk = arange(0, BK as number);
  const pc = c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0)));
  const mc = rm.expandDims(1).lt(M).logicalAnd(rn.expandDims(0).lt(N));
  const [acc] = forLoop(0, K, BK, [load(pc, { mask: mc, other: 0 })], (k, acc) => {
    const ka = k.add(rk);
    const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))), { mask: rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K)), other: 0 });
    const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))), { mask: ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N)), other: 0 });
    return [dot(ta, tb, { acc: acc! })];
  });
  store(pc, acc!, { mask: mc });
});

/** On the sim and the interpreter, bit for bit against JS. */
async function expectRuns(k: Kernel, args: Record<string, unknown>, want: ArrayBufferView, grid: readonly number[], numWarps: number, numStages: number): Promise<void> {
  for (const dev of ['sim', 'interpret'] as const) {
    const mine = { ...args, c: (args.c as Float32Array).slice() };
    await runOn(dev, k, mine, grid, { numWarps, numStages });
    expectBitwise(mine.c, want, `${dev} vs JS`);
  }
}

/** The epilogue's PTX: tcgen05.ld, then no layout conversion (no scratch round trip). */
function expectDirect(ptx: string): void {
  expect(ptx).toMatch(/tcgen05\.ld\.sync\.aligned\.(32x32b|16x32bx2)\./);
  expect(ptx).not.toContain('// convert_layout');
}

/** Operand staging bytes of a 1-stage pointer matmul: a [BM, BK] and b [BK, BN] f16 tiles. */
const staging = (p: Problem): number => 2 * (p.BM * p.BK + p.BK * p.BN);

describe('the sim as an sm_100', () => {
  it('compiles for sm_100a (compute 10.0)', () => {
    expect(simDevice().target).toBe('sm_100a');
  });
});

describe.each(['f32', 'f16'] as const)('pointer stores of a tcgen05 accumulator, C in %s (bit-exact)', (out) => {
  const vbytes = 16; // every thread's row segment in 16-byte vectors where the edge allows
  it.each([
    ['128x128x64 on 4 warps', { M: 128, N: 128, K: 128, BM: 128, BN: 128, BK: 64, numWarps: 4 }],
    ['128x256x64 on 8 warps', { M: 128, N: 256, K: 128, BM: 128, BN: 256, BK: 64, numWarps: 8 }],
    ['M = 64 (16x32bx2: half a row a thread)', { M: 64, N: 128, K: 64, BM: 64, BN: 128, BK: 64, numWarps: 4 }],
  ] as const)('%s: no conversion, 16-byte vector stores, shared memory only the operand tiles', async (_n, p) => {
    const { args, want, grid } = problem(p, out, 11 + p.N);
    const r = sm100(PTR[out], args, p.numWarps, 1);
    expectDirect(r.ptx);
    const perThread = (p.BM * p.BN * (out === 'f16' ? 2 : 4)) / (32 * p.numWarps) / vbytes;
    expect(count(r.ptx, /st\.global\.v4\.(b32|f32)/)).toBe(perThread);
    // the scratch holds the operand tiles only (a conversion needed BM x BN x 4 bytes or more)
    expect(r.metadata.sharedBytes).toBeLessThanOrEqual(staging(p) + 1024);
    await expectRuns(PTR[out], args, want, grid, p.numWarps, 1);
  });

  it('ragged 200x100x80: rows of C not 16-byte aligned (N = 100), so the store keeps the conversion (coalesced scalar stores), bit-exact', async () => {
    const p = { M: 200, N: 100, K: 80, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem(p, out, 37);
    const r = sm100(PTR[out], args, p.numWarps, 1);
    expect(r.ptx).toContain('// convert_layout');
    await expectRuns(PTR[out], args, want, grid, p.numWarps, 1);
  });

  it('ragged 200x144x80 over 128x128x64 tiles (N a multiple of 16): masked per row and column, bit-exact', async () => {
    const p = { M: 200, N: 144, K: 80, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem(p, out, 23);
    const r = sm100(PTR[out], args, p.numWarps, 1);
    expectDirect(r.ptx);
    await expectRuns(PTR[out], args, want, grid, p.numWarps, 1);
  });
});

describe('pointer stores that keep or avoid the conversion', () => {
  it('C^T (memory contiguous along the rows) keeps the conversion, bit-exact', async () => {
    const p = { M: 128, N: 128, K: 64, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const af = ints(p.M * p.K, 41), bf = ints(p.K * p.N, 42);
    const c = reference(af, bf, p.M, p.N, p.K, 'f32') as Float32Array;
    const want = new Float32Array(p.M * p.N);
    for (let i = 0; i < p.M; i++) for (let j = 0; j < p.N; j++) want[j * p.M + i] = c[i * p.N + j]!;
    const args = { a: f16Array(af), b: f16Array(bf), c: new Float32Array(p.M * p.N), M: p.M, N: p.N, K: p.K, BM: p.BM, BN: p.BN, BK: p.BK };
    expect(sm100(mmPtrT, args, 4, 1).ptx).toContain('// convert_layout');
    await expectRuns(mmPtrT, args, want, [1, 1, 1], 4, 1);
  });

  it('C += A B with c read and written through the same pointers (ragged), stored without a conversion, bit-exact', async () => {
    const p = { M: 200, N: 144, K: 80, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const c0 = ints(p.M * p.N, 77);
    const { args, want, grid } = problem(p, 'f32', 29, c0);
    const r = sm100(mmAccumulate, args, 4, 1);
    // the store takes the accumulator as it comes back from TMEM (the init may be converted on its way in)
    const tail = r.ptx.slice(r.ptx.lastIndexOf('tcgen05.ld.sync'));
    expect(tail).not.toContain('// convert_layout');
    await expectRuns(mmAccumulate, args, want, grid, 4, 1);
  });
});

describe.each(['f32', 'f16'] as const)('descriptor (TMA) stores of a tcgen05 accumulator, C in %s (bit-exact)', (out) => {
  it.each([
    ['128x128x64 on 4 warps', { M: 128, N: 128, K: 192, BM: 128, BN: 128, BK: 64, numWarps: 4 }],
    ['128x256x64 on 8 warps', { M: 128, N: 256, K: 128, BM: 128, BN: 256, BK: 64, numWarps: 8 }],
    ['ragged 200x136x200 over 128x128x64 tiles', { M: 200, N: 136, K: 200, BM: 128, BN: 128, BK: 64, numWarps: 4 }],
  ] as const)('%s: the swizzled TMA tile written from the accumulator layout in 16-byte chunks', async (_n, p) => {
    const { args, want, grid } = problem(p, out, 5 + p.K);
    const r = sm100(DESC[out], args, p.numWarps, 3);
    expectDirect(r.ptx);
    const chunks = (p.BM * p.BN * (out === 'f16' ? 2 : 4)) / (32 * p.numWarps) / 16;
    expect(count(r.ptx, /st\.shared\.v4\.(b32|f32)/)).toBe(chunks);
    // f32: a thread's run is 4 boxes (32 columns each) wide, staged a slice at a time through two
    // buffers; f16: 2 boxes (64 columns), the whole tile is no larger
    const bytes = out === 'f16' ? 2 : 4;
    expect(r.ptx.includes('// epilogue subtiled'), 'subtiled').toBe(out === 'f32');
    expect(count(r.ptx, /cp\.async\.bulk\.tensor\.2d\.global\.shared::cta/)).toBe((p.BN * bytes) / 128);
    await expectRuns(DESC[out], args, want, grid, p.numWarps, 3);
  });

  it('128x128x64 on 4 warps, numStages 1: shared memory is the operand tiles, the staging of C fits in them', async () => {
    const p = { M: 256, N: 128, K: 128, BM: 128, BN: 128, BK: 64, numWarps: 4 };
    const { args, want, grid } = problem(p, out, 91);
    const r = sm100(DESC[out], args, p.numWarps, 1);
    expectDirect(r.ptx);
    // a and b tiles: 32 KB; C's staging: 2 boxes of 128 rows x 128 bytes (f32, subtiled) or the
    // whole f16 tile, 32 KB; a whole f32 tile would take 64 KB
    expect(r.metadata.sharedBytes).toBeLessThanOrEqual(32768 + 1024);
    await expectRuns(DESC[out], args, want, grid, p.numWarps, 1);
  });
});

describe('2-CTA 256x256x64 (twoCta, 128x256 per CTA on 8 warps)', () => {
  it('each CTA stores its 128 rows from the accumulator layout: no conversion, bit-exact on the pair', () => {
    const { args, want, grid } = pairProblem('f16', { M: 256, N: 256, K: 64, BN: 256, BK: 64, numWarps: 8 }, 61);
    const k = pairKernel('f16');
    const r = build(k, args, 8, true, { ptxas: true });
    expect(r.ptx).toContain('cta_group::2');
    expectDirect(r.ptx);
    // the ring's 3 stages (A 16 KB + half of B 16 KB each), and no conversion scratch above them
    expect(r.metadata.sharedBytes).toBeLessThan(3 * 32768 + 1024);
    expectBitwise(runPair(k, args, grid, r), want, 'pair vs JS');
  });
});


describe('the sanitizers (racecheck, synccheck, initcheck) find nothing in the direct epilogues', () => {
  it.each([
    ['pointer store, 128x256 on 8 warps, ragged', 'ptr', { M: 200, N: 256, K: 64, BM: 128, BN: 256, BK: 64, numWarps: 8 }],
    ['subtiled TMA store, 128x256 on 8 warps (2 column groups), 2 tiles', 'desc', { M: 256, N: 256, K: 128, BM: 128, BN: 256, BK: 64, numWarps: 8 }],
  ] as const)('%s', async (_n, kind, p) => {
    const { args, want, grid } = problem(p, 'f32', 131);
    const k = kind === 'ptr' ? PTR.f32 : DESC.f32;
    const stages = kind === 'ptr' ? 1 : 3;
    await k.run(args, { grid, device: 'sim', numWarps: p.numWarps, numStages: stages, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    expectBitwise(args.c, want, 'under the sanitizers');
  });
});
