// The software pipeliner (compiler/pipeline.ts + codegen/pipeline/lower_pipeline.ts): golden checks of the
// PTX for numStages 1..4 (cp.async / commit_group / wait_group, none at 1), every kernel through
// ptxas for sm_80 and sm_90, the rule for which loads are pipelined (the 'pipeline' stage), the
// numStages option, and on the sim: that breaking the wait or the barrier gives wrong results (the
// sim lands cp.async data only at the covering wait_group), and that the pipelined main loop adds
// no shared-memory bank conflicts. Numerical e2e cases are in test/e2e/pipeline.test.ts.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { defineKernel } from '../../src/lang/index.js';
import { compile, type CompileOptions, type CompileResult } from '../../src/compile/compile.js';
import type { ParamSpec } from '../../src/compiler/axis_info.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { randF32, simDevice } from '../e2e/helpers.js';
import { count, gate } from './gate.js';

type Elem = 'f16' | 'bf16' | 'f32';

/**
 * c = a @ b over K in BK steps; `carried` walks the pointers as loop-carried tiles instead;
 * `variant` (with carried) advances them by an amount that varies with k (not a matmul: the plan only).
 */
const matmul = (t: Elem, o: { other?: number; carried?: boolean; variant?: boolean; masked?: boolean } = {}) => defineKernel(
  { name: `mm_${t}${o.masked ? '_masked' : ''}${o.other ? '_other' : ''}${o.carried ? '_carried' : ''}${o.variant ? '_variant' : ''}`, params: { a: ptr(t), b: ptr(t), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const acc0 = zeros([BM as number, BN as number], 'f32');
    let acc;
    if (o.carried) {
      const pa0 = a.add(rm.expandDims(1).mul(K).add(rk.expandDims(0)));
      const pb0 = b.add(rk.expandDims(1).mul(N).add(rn.expandDims(0)));
      [acc] = forLoop(0, K, BK, [acc0, pa0, pb0], (k, acc, pa, pb) =>
        [dot(load(pa!), load(pb!), { acc: acc! }), pa!.add(o.variant ? k.add(BK) : BK), pb!.add(o.variant ? k.add(BK).mul(N) : N.mul(BK))]);
    } else {
      [acc] = forLoop(0, K, BK, [acc0], (k, acc) => {
        const ka = k.add(rk);
        const pa = a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0)));
        const pb = b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0)));
        const ma = rm.expandDims(1).lt(M).logicalAnd(ka.expandDims(0).lt(K));
        const mb = ka.expandDims(1).lt(K).logicalAnd(rn.expandDims(0).lt(N));
        const ta = o.masked ? load(pa, { mask: ma, other: o.other ?? 0 }) : load(pa);
        const tb = o.masked ? load(pb, { mask: mb, other: 0 }) : load(pb);
        return [dot(ta, tb, { acc: acc! })];
      });
    }
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

const D16: ParamSpec = { divisibleBy16: true };
/** What the sim device passes for 16-aligned buffers and M, N, K multiples of 16. */
const ALIGNED = [D16, D16, D16, D16, D16, D16];
const TILE = { BM: 64, BN: 64, BK: 32 };

const stageText = (r: CompileResult, name: string): string => r.stages.find((s) => s.name === name)!.text;
const lines = (ptx: string, re: RegExp): string[] => ptx.split('\n').filter((l) => re.test(l));

describe('software pipelining: PTX', () => {
  it.each([2, 3, 4])('numStages %i: S issue blocks of cp.async.cg 16 bytes into S-1 stages, wait_group S-2 then bar.sync, ldmatrix, bar.sync, the next copies, the last mma', (S) => {
    const f = matmul('f16').trace(TILE);
    const { sm80, sm90 } = gate(f, { numWarps: 4, numStages: S, specialization: ALIGNED });
    for (const r of [sm80, sm90]) {
      const ptx = r.ptx;
      // per issue: 64x32 a + 32x64 b = 512 chunks of 16 bytes over 128 threads = 4 per thread
      expect(count(ptx, /cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], \[%rd\d+\], 16;/)).toBe(4 * S);
      expect(count(ptx, /cp\.async\.commit_group;/)).toBe(S);
      expect(lines(ptx, /cp\.async\.wait_group/).map((l) => l.trim())).toEqual([`cp.async.wait_group ${S - 2};`, 'cp.async.wait_group 0;']);
      // operands go global -> shared without registers (st.shared remains in the epilogue only)
      const body = ptx.slice(ptx.indexOf('\n$L_pfor'), ptx.indexOf('\n$L_endpfor'));
      expect(body.length).toBeGreaterThan(100);
      expect(ptx).not.toMatch(/ld\.global/);
      expect(body).not.toMatch(/st\.shared|ld\.shared/);
      // the carried accumulator is updated in place by the mma: no register copies of it
      expect(body).not.toMatch(/mov\.(f32|b32) %f/);
      // in the loop: the wait, a barrier, every ldmatrix of the stage, a second barrier (every warp
      // has read the stage), then the copies that overwrite it, then the last k-step's mma
      const seq = body.split('\n').map((l) => l.trim()).filter((l) => /^(cp\.async\.wait|bar\.sync|cp\.async\.cg|ldmatrix|mma)/.test(l)).map((l) => l.split(/[ .]/)[0] === 'cp' ? l.split(' ')[0]!.split('.').slice(0, 2).join('.') : l.split('.')[0]!);
      const squeeze = seq.filter((x, i) => x !== seq[i - 1]);
      expect(squeeze).toEqual(['cp.async', 'bar', 'ldmatrix', 'mma', 'ldmatrix', 'bar', 'cp.async', 'mma']);
      expect(body.split('\n').map((l) => l.trim()).find((l) => l.startsWith('cp.async'))).toBe(`cp.async.wait_group ${S - 2};`);
      expect(r.metadata.numStages).toBe(S);
      // S-1 stages of swizzled tiles, no padding: (64 rows x 64 bytes) + (32 rows x 128 bytes);
      // the epilogue's conversion runs in rounds that fit in the ring's bytes
      expect(r.metadata.sharedBytes).toBe((S - 1) * (64 * 64 + 32 * 128));
    }
    expect(stageText(sm80, 'pipeline')).toMatch(/load %\d+: f16\[64x32\] cp\.async 16 bytes/);
  });

  it('numStages 1: no cp.async at all, operands staged through registers as before', () => {
    const { sm80, sm90 } = gate(matmul('f16').trace(TILE), { numWarps: 4, numStages: 1, specialization: ALIGNED });
    for (const r of [sm80, sm90]) {
      expect(r.ptx).not.toMatch(/cp\.async/);
      expect(r.ptx).toMatch(/ld\.global\.v4\.b32/);
      expect(r.ptx).toMatch(/ldmatrix/);
      expect(r.metadata.numStages).toBe(1);
      // loaded words go to shared memory as loaded: no unpacking into halves and packing again
      const body = r.ptx.slice(r.ptx.indexOf('\n$L_for'), r.ptx.indexOf('\n$L_endfor'));
      expect(count(body, /st\.shared\.v4\.b32/)).toBe(4);
      expect(body).not.toMatch(/mov\.b32 (\{%h|%r\d+, \{%h)/);
    }
  });

  it('the default is 3 stages on sm_80 and sm_90', () => {
    const f = matmul('bf16').trace(TILE);
    const { sm80, sm90 } = gate(f, { numWarps: 4, specialization: ALIGNED });
    for (const r of [sm80, sm90]) {
      expect(r.metadata.numStages).toBe(3);
      expect(r.ptx).toContain('cp.async.wait_group 1;');
    }
  });

  it('masked loads with other = 0 become zero-filling copies (src-size operand)', () => {
    const { sm80 } = gate(matmul('f16', { masked: true }).trace(TILE), { numWarps: 4, numStages: 3, specialization: ALIGNED });
    expect(count(sm80.ptx, /cp\.async\.cg\.shared\.global \[%r\d+(\+\d+)?\], \[%rd\d+\], 16, %r\d+;/)).toBe(4 * 3);
    expect(sm80.ptx).toMatch(/selp\.u32 %r\d+, 16, 0, %p\d+;/);
    expect(stageText(sm80, 'pipeline')).toMatch(/cp\.async 16 bytes zero-fill/);
  });

  it('8 warps and 128-byte rows (BK = 64), 5 stages in dynamic shared memory, assemble for both targets', () => {
    const { sm80, sm90 } = gate(matmul('bf16').trace({ BM: 64, BN: 64, BK: 64 }), { numWarps: 8, numStages: 5, specialization: ALIGNED });
    for (const r of [sm80, sm90]) {
      expect(r.metadata.sharedBytes).toBe(4 * (64 * 128 + 64 * 128)); // over 48 KiB: dynamic
      expect(r.metadata.dynamicShared).toBe(true);
      // 1024-aligned: the swizzled tiles' pattern repeats every 1024 bytes (smem_swizzle.ts)
      expect(r.ptx).toMatch(/\.extern \.shared \.align 1024 \.b8 tessera_smem\[\];/);
    }
    expect(sm80.ptx).toContain('cp.async.wait_group 3;');
    expect(sm80.ptx).toMatch(/mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32/);
  });
});

describe('software pipelining: which loads (the pipeline stage)', () => {
  const plan = (f: ReturnType<ReturnType<typeof matmul>['trace']>, o: Partial<CompileOptions> = {}): string =>
    stageText(compile(f, { target: 'sm_80', numWarps: 4, ptxas: false, specialization: ALIGNED, ...o }), 'pipeline');

  // Pointers walked by the loop (Triton's tutorial style) were not pipelined before the 'carried'
  // IR pass (compiler/carried_induction.ts); now they read as closed forms of k and are, with the
  // same copies as the induction-variable form.
  it('pointers carried by the loop and advanced by a loop-invariant amount are pipelined like k-indexed ones', () => {
    const f = matmul('f16', { carried: true }).trace(TILE);
    const text = plan(f);
    expect(text).not.toMatch(/loop-carried/);
    expect(text.match(/ {4}load %\d+: f16\[(64x32|32x64)\] cp\.async 16 bytes/g)?.length).toBe(2);
    const { sm80, sm90 } = gate(f, { numWarps: 4, numStages: 3, specialization: ALIGNED });
    const { sm80: ref } = gate(matmul('f16').trace(TILE), { numWarps: 4, numStages: 3, specialization: ALIGNED });
    expect(count(sm80.ptx, /cp\.async\.cg\.shared\.global/)).toBe(count(ref.ptx, /cp\.async\.cg\.shared\.global/));
    expect(count(sm80.ptx, /cp\.async\.cg\.shared\.global/)).toBe(4 * 3);
    expect(sm80.ptx).toContain('cp.async.wait_group 1;');
    expect(sm90.ptx).toMatch(/cp\.async\.cg/);
  });

  it.each([
    ['pointers carried by the loop, advanced by an amount that varies with k', matmul('f16', { carried: true, variant: true }), /not pipelined: its address or mask depends on a loop-carried value/],
    ['f32 operands (the dot stays on FMA)', matmul('f32'), /not pipelined: f32 is not a 2-byte dtype/],
  ] as const)('not pipelined: %s', (_, k, why) => {
    const f = k.trace(TILE);
    const text = plan(f);
    expect(text).toMatch(why);
    expect(text).not.toMatch(/load %\d+: /);
    const { sm80, sm90 } = gate(f, { numWarps: 4, specialization: ALIGNED });
    for (const r of [sm80, sm90]) expect(r.ptx).not.toMatch(/cp\.async/);
  });

  it('a masked load with other = 1 is not pipelined; b (other = 0) is, and a is staged from registers in the same loop', () => {
    const f = matmul('f16', { masked: true, other: 1 }).trace(TILE);
    const text = plan(f);
    expect(text).toMatch(/load %\d+ not pipelined: masked with an `other` that is not the constant 0/);
    expect(text.match(/ {4}load %\d+: f16\[32x64\] cp\.async/g)?.length).toBe(1); // b (other = 0)
    const { sm80 } = gate(f, { numWarps: 4, specialization: ALIGNED });
    expect(sm80.ptx).toMatch(/cp\.async\.cg/);
    expect(sm80.ptx).toMatch(/st\.shared\.v4\.b32/); // a, through registers
  });

  it("unaligned (generic) pointers, numStages 1 and dot: 'fma' pipeline nothing", () => {
    const f = matmul('f16').trace(TILE);
    expect(stageText(compile(f, { target: 'sm_80', numWarps: 4, ptxas: false }), 'pipeline')).toMatch(/no 4-byte aligned, uniformly masked runs/);
    expect(plan(f, { numStages: 1 })).not.toMatch(/load %/);
    expect(plan(f, { dot: 'fma' })).not.toMatch(/load %/);
  });

  it('rejects a numStages that is not an integer in 1..8, naming it', () => {
    const f = matmul('f16').trace(TILE);
    for (const bad of [0, 1.5, 9, Number.NaN]) {
      expect(() => compile(f, { target: 'sm_80', ptxas: false, numStages: bad })).toThrow(expect.objectContaining({ code: 'E_COMPILE', message: expect.stringMatching(/option 'numStages' must be an integer in 1\.\.8/) }));
    }
  });
});

describe('software pipelining on the sim', () => {
  const M = 64, N = 64;
  const run = (K: number, o: Partial<CompileOptions>, tile = TILE): { c: Float32Array; err: number; accesses: number; conflicts: number } => {
    const f = matmul('f16').trace(tile);
    const r = compile(f, { target: 'sm_80', numWarps: 4, ptxas: false, specialization: ALIGNED, ...o });
    const dev = simDevice().native;
    const a = f16Array(randF32(M * K, 61)), b = f16Array(randF32(K * N, 62));
    const bufs = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
    try {
      dev.upload(bufs[0]!, a);
      dev.upload(bufs[1]!, b);
      dev.launch(r, [...bufs, M, N, K], 1);
      dev.synchronize();
      const cnt = dev.simCounters()!;
      const c = dev.download(bufs[2]!, new Float32Array(M * N)) as Float32Array;
      const af = f16ToFloat32(a), bf = f16ToFloat32(b);
      let err = 0;
      for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += af[i * K + k]! * bf[k * N + j]!;
        err = Math.max(err, Math.abs(s - c[i * N + j]!));
      }
      return { c, err, accesses: cnt.sharedAccesses, conflicts: cnt.sharedBankConflicts };
    } finally {
      for (const x of bufs) dev.free(x);
    }
  };

  it.each([2, 3])('numStages %i computes the product; each way of breaking the wait or the barrier does not', (S) => {
    expect(run(128, { numStages: S }).err).toBeLessThan(1e-4);
    // without the barrier between the last read of a stage and the copies into it, a fast warp's
    // wait lands the next tile while slower warps still read the stage: with one stage (S = 2) the
    // sim shows it; with more, the sim's copies land only after the next barrier (real hardware
    // would race: racecheck reports it at both, test/e2e/sanitize.test.ts)
    for (const sabotage of ['no-wait', 'short-wait', 'no-barrier', ...(S === 2 ? ['no-release-barrier' as const] : [])] as const) {
      // the broken kernels still assemble: only their results are wrong
      gate(matmul('f16').trace(TILE), { numWarps: 4, numStages: S, specialization: ALIGNED, pipelineSabotage: sabotage });
      expect(run(128, { numStages: S, pipelineSabotage: sabotage }).err, sabotage).toBeGreaterThan(1);
    }
  });

  it('the pipelined main loop adds no shared-memory bank conflicts (cp.async writes and ldmatrix reads)', () => {
    for (const S of [2, 3, 4]) {
      const one = run(32, { numStages: S }), four = run(128, { numStages: S });
      // three more iterations: their copies and ldmatrix reads are counted, with no extra conflict
      expect(four.accesses).toBeGreaterThan(one.accesses);
      expect(four.conflicts - one.conflicts).toBe(0);
    }
  });

  it.each([
    [1, 32], [3, 32], [1, 64], [3, 64],
  ])('numStages %i, BK = %i (64- and 128-byte swizzled rows): the product, with no bank conflict in the whole run', (S, BK) => {
    // at 1 stage the operands are stored from registers (st.shared.v4) into the swizzled tiles,
    // where padded rows conflicted 2-way; the epilogue's conversion is conflict-free too
    const r = run(128, { numStages: S }, { BM: 64, BN: 64, BK });
    expect(r.err).toBeLessThan(1e-4);
    expect(r.accesses).toBeGreaterThan(0);
    expect(r.conflicts).toBe(0);
  });
});

/** c = a @ b with b given as bt [N, K] row-major: the b tile [BK, BN] is contiguous along k (dim 0). */
const matmulNT = defineKernel(
  { name: 'mm_nt_f16', params: { a: ptr('f16'), bt: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, bt, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(bt.add(rn.expandDims(0).mul(K).add(ka.expandDims(1))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

describe('software pipelining of a b contiguous along k (staged transposed)', () => {
  it.each([2, 3])('numStages %i: both tiles by cp.async, b^T read with plain ldmatrix, the product right, no bank conflict', (S) => {
    const f = matmulNT.trace(TILE);
    const { sm80 } = gate(f, { numWarps: 4, numStages: S, specialization: ALIGNED });
    expect(stageText(sm80, 'pipeline')).toMatch(/load %\d+: f16\[32x64\] cp\.async 16 bytes staged transposed/);
    const body = sm80.ptx.slice(sm80.ptx.indexOf('\n$L_pfor'), sm80.ptx.indexOf('\n$L_endpfor'));
    expect(body).not.toMatch(/st\.shared|ld\.shared|ld\.global/);
    expect(count(body, /cp\.async\.cg\.shared\.global/)).toBe(4);
    expect(body).not.toMatch(/ldmatrix[^\n]*\.trans/);
    const M = 64, N = 64, K = 128;
    const dev = simDevice().native;
    const a = f16Array(randF32(M * K, 71)), bt = f16Array(randF32(N * K, 72));
    const bufs = [dev.alloc(a.byteLength), dev.alloc(bt.byteLength), dev.alloc(M * N * 4)];
    try {
      dev.upload(bufs[0]!, a);
      dev.upload(bufs[1]!, bt);
      dev.launch(compile(f, { target: 'sm_80', numWarps: 4, numStages: S, ptxas: false, specialization: ALIGNED }), [...bufs, M, N, K], 1);
      dev.synchronize();
      const cnt = dev.simCounters()!;
      const c = dev.download(bufs[2]!, new Float32Array(M * N)) as Float32Array;
      const af = f16ToFloat32(a), bf = f16ToFloat32(bt);
      let err = 0;
      for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += af[i * K + k]! * bf[j * K + k]!;
        err = Math.max(err, Math.abs(s - c[i * N + j]!));
      }
      expect(err).toBeLessThan(1e-4);
      expect(cnt.sharedBankConflicts).toBe(0);
    } finally {
      for (const x of bufs) dev.free(x);
    }
  });
});
