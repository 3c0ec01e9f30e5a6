// The pipeliners' store rule (compiler/loop_writers.ts; docs/compiler.md, "Software pipelining"):
// a loop that writes global memory (a store, an atomic, a descriptor store, in any region of its
// body) keeps its loads in program order on both rings (cp.async on sm_80/sm_90/sm_90a, TMA on
// sm_90a), and the 'pipeline' stage says why, naming the writer and its source line. The same
// loops without the write stay pipelined. Numerical cases: test/e2e/pipeline_raw*.test.ts.
import { describe, expect, it } from 'vitest';
import { arange, atomicAdd, constexpr, dot, forLoop, ifThenElse, load, makeTensorDescriptor, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { defineKernel } from '../../src/lang/index.js';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { ParamSpec } from '../../src/compiler/axis_info.js';
import { gate, gateTargets } from './gate.js';

type Write = 'none' | 'atomic' | 'store-in-if';

/** c = a @ b over K; the loop also counts its iterations in `n` (an atomic), or stores under an if. */
const matmul = (w: Write) => defineKernel(
  { name: `mm_w_${w.replace(/-/g, '_')}`, params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), n: ptr('i32'), N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, n, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM as number));
    const rn = programId(1).mul(BN).add(arange(0, BN as number));
    const rk = arange(0, BK as number);
    const [acc] = forLoop(0, K, BK as number, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      if (w === 'atomic') atomicAdd(n, 1);
      if (w === 'store-in-if') ifThenElse(k.eq(0), () => store(n, k));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);

const D16: ParamSpec = { divisibleBy16: true };
const ALIGNED = [D16, D16, D16, D16, D16, D16];
const TILE = { BM: 64, BN: 64, BK: 32 };
const stage = (r: CompileResult): string => r.stages.find((s) => s.name === 'pipeline')!.text;

describe('the pipeliner keeps loads in program order in a loop that writes memory', () => {
  it('control: the same loop without a write is pipelined (cp.async ring), no note', () => {
    const { sm80, sm90 } = gate(matmul('none').trace(TILE), { numWarps: 4, numStages: 3, specialization: ALIGNED });
    for (const r of [sm80, sm90]) {
      expect(r.ptx).toMatch(/cp\.async\.cg/);
      expect(stage(r)).not.toMatch(/note/);
    }
  });

  it.each(['atomic', 'store-in-if'] as const)('%s in the loop: no cp.async, the stage names the writer and its line', (w) => {
    const { sm80, sm90 } = gate(matmul(w).trace(TILE), { numWarps: 4, numStages: 3, specialization: ALIGNED });
    const kind = w === 'atomic' ? 'atomic_rmw' : 'store';
    for (const r of [sm80, sm90]) {
      expect(r.ptx).not.toMatch(/cp\.async/);
      const notes = stage(r).split('\n').filter((l) => l.includes('note:'));
      expect(notes).toHaveLength(2); // a and b
      for (const n of notes) expect(n).toMatch(new RegExp(`load %\\d+ not pipelined: the loop also writes memory \\(${kind} at [^)]*pipeline_alias\\.test\\.ts:\\d+\\) that it may read: loads stay in program order \\(no alias proof\\)`));
    }
  });

  it('sm_90a: the wgmma loop over the cp.async ring, with and without an atomic', () => {
    const on = gateTargets(matmul('none').trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 3, specialization: ALIGNED }).sm_90a!;
    expect(on.ptx).toMatch(/wgmma\.mma_async/);
    expect(on.ptx).toMatch(/cp\.async\.cg/);
    const off = gateTargets(matmul('atomic').trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 3, specialization: ALIGNED }).sm_90a!;
    expect(off.ptx).toMatch(/wgmma\.mma_async/);
    expect(off.ptx).not.toMatch(/cp\.async\.(cg|ca)/);
    expect(stage(off)).toMatch(/not pipelined: the loop also writes memory \(atomic_rmw/);
  });
});

/** A descriptor matmul (TMA on sm_90a); `write`: the loop also stores a block through a descriptor. */
const descMatmul = (write: boolean) => defineKernel(
  { name: `tma_mm${write ? '_w' : ''}`, params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => {
      const x = dot(da.load([om, k]), db.load([k, on]), { acc: acc! });
      if (write) dc.store([om, on], x);
      return [x];
    });
    dc.store([om, on], acc!);
  },
);

describe('the TMA ring (sm_90a) keeps descriptor loads in program order in a loop that writes memory', () => {
  const spec: ParamSpec[] = [D16, D16, D16, D16, D16, D16];
  it('control: without the store the loop is a TMA ring', () => {
    const r = gateTargets(descMatmul(false).trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 3, specialization: spec }).sm_90a!;
    expect(r.ptx).toMatch(/TMA ring: 3 stages/);
    expect(stage(r)).not.toMatch(/note/);
  });

  it('a descriptor store in the loop: no ring, each load a TMA copy in order; the stage says why', () => {
    const r = gateTargets(descMatmul(true).trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 3, specialization: spec }).sm_90a!;
    expect(r.ptx).not.toMatch(/TMA ring/);
    expect(r.ptx).toMatch(/cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/);
    const notes = stage(r).split('\n').filter((l) => l.includes('note:'));
    expect(notes).toHaveLength(2);
    for (const n of notes) expect(n).toMatch(/desc_load %\d+ not on a TMA ring: the loop also writes memory \(desc_store at [^)]*pipeline_alias\.test\.ts:\d+\)/);
    // sm_80 / sm_90: the descriptors are masked loads, and the loop is not pipelined either
    const { sm80 } = gate(descMatmul(true).trace(TILE), { numWarps: 4, numStages: 3, specialization: spec });
    expect(sm80.ptx).not.toMatch(/cp\.async/);
    expect(compile(descMatmul(false).trace(TILE), { target: 'sm_80', numWarps: 4, numStages: 3, specialization: spec, ptxas: false }).ptx).toMatch(/cp\.async/);
  });
});
