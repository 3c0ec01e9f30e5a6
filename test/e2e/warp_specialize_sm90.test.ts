// Warp-specialized matmuls on the sim as an sm_90 (compiled for sm_90a): a producer warpgroup
// fills a ring of TMA stages, the numWarps consumer warps (1 or 2 warpgroups) run wgmma on them,
// full/empty mbarriers between (lower_warp_specialize.ts). Each shape is checked against an f64
// JS reference, the interpreter, and bit for bit against the same kernel without the option (the
// plain TMA ring: the same wgmma in the same order). Ragged M/N and K not a multiple of BK
// exercise TMA's zero fill. Then the sabotages: the PTX with the consumers' full-barrier wait,
// the producer's empty-barrier wait or the fence.proxy.async cut out must fail on the sim (a
// wrong result or a named fault), never pass.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { expectClose, matmulF64, randF32, runOn } from './helpers.js';
import { wsMatmul, wsMatmulBias } from './ws_cases.js';
import { kernel } from '../../src/runtime/kernel.js';
import { arange, dot, forLoop, load, makeTensorDescriptor, programId, ptr, store, zeros } from '../../src/lang/index.js';
import { dropProxyFences, isWrong, launchWs, releaseEarly, wsPtx, wsWant } from './ws_sabotage.js';

const build = (tile: readonly [number, number, number], numWarps: number, ws: boolean): CompileResult =>
  compile(wsMatmul, { target: 'sm_90a', numWarps, numStages: 3, ptxas: false, constexprs: { BM: tile[0], BN: tile[1], BK: tile[2], WS: ws } });

// [BM, BN, BK], numWarps (consumers), M, N, K: K / BK > numStages, so every stage is reused
const CASES: [string, [number, number, number], number, number, number, number][] = [
  ['128x128x64, 4 warps (1 consumer warpgroup)', [128, 128, 64], 4, 128, 128, 320],
  ['128x128x64, 8 warps (2 consumer warpgroups)', [128, 128, 64], 8, 128, 128, 320],
  ['128x256x64, 8 warps', [128, 256, 64], 8, 128, 256, 256],
  ['ragged: M 100, N 72, K 200 (not a multiple of BK), 4 warps', [128, 128, 64], 4, 100, 72, 200],
  ['ragged: 2x2 programs, M 200, N 136, K 136, 8 warps', [128, 128, 64], 8, 200, 136, 136],
];

describe('warp-specialized matmul on the sim (sm_90a)', () => {
  it.each(CASES)('%s', async (_, tile, numWarps, M, N, K) => {
    const [BM, BN, BK] = tile;
    const r = build(tile, numWarps, true);
    // the structure: producer warpgroup after the consumers, register split, the rings' barriers
    expect(r.metadata.producerWarps).toBe(4);
    expect(r.ptx).toContain(`.reqntid ${32 * (numWarps + 4)}, 1, 1`);
    expect(r.ptx).toMatch(/\.maxnreg \d+/);
    expect(count(r.ptx, /setmaxnreg\.dec\.sync\.aligned\.u32 40;/)).toBe(1);
    expect(count(r.ptx, /setmaxnreg\.inc\.sync\.aligned\.u32 \d+;/)).toBe(1);
    expect(count(r.ptx, /mbarrier\.init/)).toBe(6);
    expect(count(r.ptx, /mbarrier\.try_wait\.parity/)).toBe(2); // consumers: full; producer: empty
    expect(count(r.ptx, /wgmma\.wait_group\.sync\.aligned 1;/)).toBe(1); // the wgmma in flight into the next iteration
    expect(count(r.ptx, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBeGreaterThan(0);
    expect(r.ptx).not.toMatch(/bar\.sync 0;[\s\S]*bar\.sync 0;/); // only the prologue's, all threads
    expect(r.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/warp-specialized: 1 producer warpgroup/);
    const a = f16Array(randF32(M * K, 31)), b = f16Array(randF32(K * N, 32));
    const grid = [Math.ceil(M / BM), Math.ceil(N / BN)];
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM, BN, BK, WS: true };
    const run = async (dev: 'interpret' | 'sim', ws: boolean): Promise<Float32Array> => {
      const c = new Float32Array(M * N);
      await runOn(dev, wsMatmul, { ...args, c, WS: ws }, grid, { numWarps, numStages: 3 });
      return c;
    };
    const [interp, sim] = [await run('interpret', true), await run('sim', true)];
    expectClose(interp, matmulF64(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-4, 'interpreter vs JS');
    expectClose(sim, interp, 1e-4, 'sim vs interpreter');
    // bit for bit the plain TMA ring's result (same wgmma sequence, same accumulation order)
    expect(Array.from(sim)).toEqual(Array.from(await run('sim', false)));
    // ptxas for sm_90a (what the kernel is for; the sm_80 fallback of these big tiles spills): clean, no spills
    const full = compile(wsMatmul, { target: 'sm_90a', numWarps, numStages: 3, ptxas: true, constexprs: { BM, BN, BK, WS: true } });
    expect(full.metadata.spills, full.metadata.ptxasLog).toBe(0);
    expect(full.metadata.ptxasLog).not.toMatch(/warning/i);
  });
});

const ALIGNED = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true } };
const pipelineText = (r: CompileResult): string => r.stages.find((s) => s.name === 'pipeline')!.text;
// pointer loads: the cp.async producer (ws_cpasync.ts; warp_specialize_cpasync.test.ts runs it)
const ptrMm = kernel({ name: 'ws_ptr_mm', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32') } }, ({ a, b, c }) => {
  const r = arange(0, 64);
  const [acc] = forLoop(0, 256, 64, [zeros([64, 64], 'f32')], (k, acc) => {
    const ta = load(a.add(r.expandDims(1).mul(256)).add(r.expandDims(0).add(k)));
    const tb = load(b.add(r.expandDims(1).add(k).mul(64)).add(r.expandDims(0)));
    return [dot(ta, tb, { acc: acc! })];
  }, { warpSpecialize: true });
  store(c.add(r.expandDims(1).mul(64)).add(r.expandDims(0)), acc!);
});
// the loop inside a top-level loop: the producer runs that loop too (ws_tiles.ts)
const nested = kernel({ name: 'ws_nested', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32' } }, ({ a, b, c, M, N, K }) => {
  const da = makeTensorDescriptor(a, [M, K], [K, 1], [64, 64]);
  const db = makeTensorDescriptor(b, [K, N], [N, 1], [64, 64]);
  const dc = makeTensorDescriptor(c, [M, N], [N, 1], [64, 64]);
  forLoop(0, 2, 1, [], (t) => {
    const om = programId(0).mul(2).add(t).mul(64);
    const [acc] = forLoop(0, K, 64, [zeros([64, 64], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })], { warpSpecialize: true });
    dc.store([om, 0], acc!);
    return [];
  });
});
// two loops deep: the producer runs only a top-level tile loop around the K loop
const nested2 = kernel({ name: 'ws_nested2', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32' } }, ({ a, b, c, M, N, K }) => {
  const da = makeTensorDescriptor(a, [M, K], [K, 1], [64, 64]);
  const db = makeTensorDescriptor(b, [K, N], [N, 1], [64, 64]);
  const dc = makeTensorDescriptor(c, [M, N], [N, 1], [64, 64]);
  forLoop(0, 2, 1, [], (s) => {
    forLoop(0, 2, 1, [], (t) => {
      const om = programId(0).mul(4).add(s.mul(2)).add(t).mul(64);
      const [acc] = forLoop(0, K, 64, [zeros([64, 64], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })], { warpSpecialize: true });
      dc.store([om, 0], acc!);
      return [];
    });
    return [];
  });
});

describe('the ring is the producer\'s from the kernel\'s start', () => {
  it('a reduction before the loop (shared scratch) does not overlap the ring the producer is filling', async () => {
    const [M, N, K] = [128, 128, 512];
    const a = f16Array(randF32(M * K, 51)), b = f16Array(randF32(K * N, 52)), x = randF32(1024, 53);
    const r = compile(wsMatmulBias, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false });
    expect(r.ptx).toContain('ws_producer:');
    const args = { a, b, c: new Float32Array(M * N), x, M, N, K };
    const run = async (dev: 'interpret' | 'sim'): Promise<Float32Array> => {
      const c = new Float32Array(M * N);
      await runOn(dev, wsMatmulBias, { ...args, c }, [1, 1], { numWarps: 4, numStages: 3 });
      return c;
    };
    const interp = await run('interpret');
    const ref = matmulF64(f16ToFloat32(a), f16ToFloat32(b), M, N, K);
    const bias = x.reduce((s, v) => s + v, 0);
    expectClose(interp, ref.map((v) => v + bias), 1e-4, 'interpreter vs JS');
    expectClose(await run('sim'), interp, 1e-4, 'sim vs interpreter');
  });
});

describe('loops that are not warp-specialized say why and fall back to the plain pipeline', () => {
  it('pointer loads: the cp.async producer where the cp.async ring takes them, else the reason', () => {
    const r = compile(ptrMm, { target: 'sm_90a', numWarps: 4, ptxas: false, specialization: ALIGNED });
    expect(pipelineText(r)).toMatch(/warp-specialized: 1 producer warpgroup \(cp\.async by its 128 threads/);
    // without 16-byte alignment AxisInfo proves no 4-byte runs: not on the cp.async ring, not warp-specialized
    const u = compile(ptrMm, { target: 'sm_90a', numWarps: 4, ptxas: false });
    expect(pipelineText(u)).toMatch(/not warp-specialized: its pointer loads are not on the cp\.async ring \(the pipeline notes say why\); plain pipeline/);
    expect(u.ptx).not.toContain('setmaxnreg');
  });
  it('a loop two loops deep (one top-level tile loop around it is taken: the producer runs it too)', () => {
    const r = compile(nested2, { target: 'sm_90a', numWarps: 4, ptxas: false });
    expect(pipelineText(r)).toMatch(/not warp-specialized: not at the kernel's top level nor directly in a top-level tile loop/);
    expect(r.ptx).toContain('// TMA ring: 3 stages');
    expect(r.metadata.producerWarps).toBeUndefined();
    const one = compile(nested, { target: 'sm_90a', numWarps: 4, ptxas: false });
    expect(pipelineText(one)).toMatch(/warp-specialized: .*inside tile loop %\d+, which the producer runs too/);
    expect(one.metadata.producerWarps).toBe(4);
  });
  it('on sm_80 (no TMA, no wgmma)', () => {
    const r = compile(wsMatmul, { target: 'sm_80', numWarps: 4, ptxas: false, constexprs: { BM: 64, BN: 64, BK: 32, WS: true } });
    expect(r.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/not warp-specialized: needs sm_90a or sm_100a \(target sm_80\); plain pipeline/);
    expect(r.ptx).not.toContain('setmaxnreg');
    expect(r.metadata.producerWarps).toBeUndefined();
  });
  it('numWarps 2 is not a whole consumer warpgroup: the plain TMA ring', () => {
    const r = compile(wsMatmul, { target: 'sm_90a', numWarps: 2, ptxas: false, constexprs: { BM: 64, BN: 64, BK: 32, WS: true } });
    expect(r.stages.find((s) => s.name === 'pipeline')!.text).toMatch(/not warp-specialized: numWarps 2 is not whole consumer warpgroups/);
    expect(r.ptx).toContain('// TMA ring: 3 stages');
    expect(r.ptx).toContain('.reqntid 64, 1, 1');
  });
});

// A sabotage that faults ends the sim's context, so each faulting one has its own file
// (warp_specialize_sabotage_*.test.ts); the missing proxy fences give a wrong result, here.
describe('sabotaged warp-specialized PTX never passes on the sim', () => {
  it('the unsabotaged PTX is right (the control)', () => {
    const c = launchWs(wsPtx());
    expect(c).toBeInstanceOf(Float32Array);
    expectClose(c as Float32Array, wsWant(), 1e-4, 'sim vs JS');
  });
  it('without the fence.proxy.async fences: a wrong result', () => {
    expect(wsPtx()).toContain('ws_producer:');
    const c = launchWs(dropProxyFences(wsPtx()));
    expect(c).toBeInstanceOf(Float32Array);
    expect(isWrong(c)).toBe(true);
  });
  it('releasing a stage while its wgmma is still in flight: a wrong result', () => {
    const c = launchWs(releaseEarly(wsPtx()));
    expect(c).toBeInstanceOf(Float32Array);
    expect(isWrong(c)).toBe(true);
  });
});
