// Warp-specialized matmuls whose tiles are pointer loads, on the sim as an sm_90 (compiled for
// sm_90a): the producer warpgroup's 128 threads fill a ring of S stages by cp.async and arrive on
// the stage's full mbarrier when their copies land (cp.async.mbarrier.arrive.noinc), the numWarps
// consumer warps run wgmma on the stage and release it (ws_cpasync.ts). Each shape is checked
// against a JS reference, the interpreter, and bit for bit against the same kernel without the
// option (the plain cp.async ring: the same wgmma in the same order). Ragged M/N and K not a
// multiple of BK exercise the masked copies' zero fill. ptxas for sm_90a: clean, no spills.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { count } from '../codegen/gate.js';
import { expectClose, runOn } from './helpers.js';
import type { RunArgs } from '../../src/runtime/kernel.js';
import { wsPtrMatmul, wsPtrMatmulBT } from './ws_cpasync_cases.js';
import { matmulRef, pipelineText, producerRegisters, simPtx, smallInts } from './ws_cpasync_helpers.js';
import { arange, dot, forLoop, load, makeTensorDescriptor, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';

// what the runtime specializes for these arguments: 16-aligned pointers and strides
const SPEC = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } };
const build = (tile: readonly [number, number, number], numWarps: number, ws: boolean, ptxas = false): CompileResult =>
  compile(wsPtrMatmul, { target: 'sm_90a', numWarps, numStages: 3, ptxas, specialization: SPEC as never, constexprs: { BM: tile[0], BN: tile[1], BK: tile[2], WS: ws } });

// [BM, BN, BK], numWarps (consumers), M, N, K: K / BK > numStages, so every stage is reused
const CASES: [string, [number, number, number], number, number, number, number][] = [
  ['128x128x64, 4 warps (1 consumer warpgroup)', [128, 128, 64], 4, 128, 128, 320],
  ['128x128x64, 8 warps (2 consumer warpgroups)', [128, 128, 64], 8, 128, 128, 320],
  ['128x256x64, 8 warps', [128, 256, 64], 8, 128, 256, 256],
  ['ragged: M 100, N 80, K 208 (not a multiple of BK), 4 warps', [128, 128, 64], 4, 100, 80, 208],
  ['ragged: 2x2 programs, M 200, N 144, K 144, 8 warps', [128, 128, 64], 8, 200, 144, 144],
];

describe('warp-specialized matmul of pointer loads on the sim (sm_90a, cp.async producer)', () => {
  it.each(CASES)('%s', async (_, tile, numWarps, M, N, K) => {
    const [BM, BN, BK] = tile;
    const a = f16Array(smallInts(M * K, 31)), b = f16Array(smallInts(K * N, 32));
    const r = build(tile, numWarps, true);
    const ptx = simPtx(wsPtrMatmul, { a, b, c: new Float32Array(M * N), M, N, K, BM, BN, BK, WS: true }, numWarps, 3);
    expect(simPtx(wsPtrMatmul, { a, b, c: new Float32Array(M * N), M, N, K, BM, BN, BK, WS: false }, numWarps, 3)).toMatch(/\/\/ pipelined loop: 3 stages[^\n]*by cp\.async/);
    // the structure of what the sim runs: producer warpgroup after the consumers, register split, cp.async into the ring, .noinc arrivals
    expect(r.metadata.producerWarps).toBe(4);
    expect(ptx).toContain(`.reqntid ${32 * (numWarps + 4)}, 1, 1`);
    expect(count(ptx, /setmaxnreg\.dec\.sync\.aligned\.u32 \d+;/)).toBe(1);
    expect(count(ptx, /setmaxnreg\.inc\.sync\.aligned\.u32 \d+;/)).toBe(1);
    expect(count(ptx, /mbarrier\.init\.shared::cta\.b64 \[%r\d+(\+\d+)?\], 128;/)).toBe(numWarps === 4 ? 6 : 3); // full: 128 producer threads (and empty: 128 consumers on 4 warps)
    expect(count(ptx, /mbarrier\.try_wait\.parity/)).toBe(2); // consumers: full; producer: empty
    const [consumers, producer] = [ptx.slice(0, ptx.indexOf('ws_producer:')), ptx.slice(ptx.indexOf('ws_producer:'))];
    expect(count(producer, /cp\.async\.mbarrier\.arrive\.noinc\.shared\.b64 \[%r\d+\];/)).toBe(1);
    expect(count(producer, /cp\.async\.cg\.shared\.global \[[^\]]+\], \[%rd\d+\], 16, %r\d+;/)).toBeGreaterThan(0); // 16-byte chunks, zero-filled past the edges
    expect(consumers).not.toMatch(/cp\.async/); // the consumers only wait, compute and release
    expect(producer).not.toMatch(/bar\.sync|cp\.async\.bulk\.tensor|expect_tx/);
    expect(ptx).not.toMatch(/bar\.sync 0;[\s\S]*bar\.sync 0;/); // only the prologue's, all threads
    expect(pipelineText(r)).toMatch(/warp-specialized: 1 producer warpgroup \(cp\.async by its 128 threads, 2 tile\(s\), full\[s\] expects 128 arrivals\)/);
    const grid = [Math.ceil(M / BM), Math.ceil(N / BN)];
    const run = async (dev: 'interpret' | 'sim', ws: boolean): Promise<Float32Array> => {
      const c = new Float32Array(M * N);
      await runOn(dev, wsPtrMatmul, { a, b, c, M, N, K, BM, BN, BK, WS: ws }, grid, { numWarps, numStages: 3 });
      return c;
    };
    const want = matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K);
    const sim = await run('sim', true);
    expect(Array.from(sim)).toEqual(Array.from(want)); // exact: small integers
    expectClose(await run('interpret', true), want, 0, 'interpreter vs JS');
    // bit for bit the plain cp.async ring's result (same wgmma sequence, same accumulation order)
    expect(Array.from(await run('sim', false))).toEqual(Array.from(sim));
    // ptxas for sm_90a: clean, no spills
    const full = build(tile, numWarps, true, true);
    expect(full.metadata.spills, full.metadata.ptxasLog).toBe(0);
    expect(full.metadata.ptxasLog).not.toMatch(/warning/i);
    // ptxas honours the split: the producer's 128 threads compute their addresses within setmaxnreg.dec's 40 registers
    const regs = producerRegisters(full.cubin!);
    expect(regs.dealloc).toBe(40);
    expect(regs.alloc).toBe(Number(/setmaxnreg\.inc\.sync\.aligned\.u32 (\d+);/.exec(ptx)![1]));
    expect(regs.maxReg).toBeLessThan(40);
  });

  it('b stored as B^T [N, K], its tiles contiguous along k (staged transposed): ragged, 4 and 8 warps', async () => {
    const [M, N, K] = [100, 80, 208];
    for (const numWarps of [4, 8]) {
      const a = f16Array(smallInts(M * K, 61)), bt = f16Array(smallInts(N * K, 62));
      const args = (ws: boolean, c: Float32Array): RunArgs => ({ a, bt, c, M, N, K, BM: 128, BN: 128, BK: 64, WS: ws });
      const ptx = simPtx(wsPtrMatmulBT, args(true, new Float32Array(M * N)), numWarps, 3);
      expect(ptx).toContain('ws_producer:');
      expect(ptx).toMatch(/cp\.async\.mbarrier\.arrive\.noinc/);
      const b = new Float32Array(K * N);
      const btf = f16ToFloat32(bt);
      for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) b[k * N + n] = btf[n * K + k]!;
      const want = matmulRef(f16ToFloat32(a), b, M, N, K);
      const run = async (dev: 'interpret' | 'sim', ws: boolean): Promise<Float32Array> => {
        const c = new Float32Array(M * N);
        await runOn(dev, wsPtrMatmulBT, args(ws, c), [1, 1], { numWarps, numStages: 3 });
        return c;
      };
      const sim = await run('sim', true);
      expect(Array.from(sim)).toEqual(Array.from(want));
      expect(Array.from(await run('interpret', true))).toEqual(Array.from(want));
      expect(Array.from(await run('sim', false))).toEqual(Array.from(sim));
    }
  });

  it('random f16 inputs: the interpreter and an f64 reference agree with the sim', async () => {
    const [M, N, K] = [128, 128, 320];
    let s = 7;
    const rnd = (n: number): Float32Array => Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1);
    const a = f16Array(rnd(M * K)), b = f16Array(rnd(K * N));
    const run = async (dev: 'interpret' | 'sim'): Promise<Float32Array> => {
      const c = new Float32Array(M * N);
      await runOn(dev, wsPtrMatmul, { a, b, c, M, N, K, BM: 128, BN: 128, BK: 64, WS: true }, [1, 1], { numWarps: 4, numStages: 3 });
      return c;
    };
    const interp = await run('interpret');
    expectClose(interp, matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K), 1e-3, 'interpreter vs JS');
    expectClose(await run('sim'), interp, 1e-4, 'sim vs interpreter');
  });
});

// program order: the consumers overwrite a's first block (a pointer store) before the loop; the
// producer, which starts issuing as soon as the partitions part, waits for them (the `start` mbarrier)
const ordered = kernel({ name: 'ws_cp_order', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), x: ptr('f16'), K: 'i32' } }, ({ a, b, c, x, K }) => {
  const r = arange(0, 64);
  store(a.add(r.expandDims(1).mul(K).add(r.expandDims(0))), load(x.add(r.expandDims(1).mul(64).add(r.expandDims(0)))));
  const pa0 = a.add(r.expandDims(1).mul(K).add(r.expandDims(0)));
  const pb0 = b.add(r.expandDims(1).mul(64).add(r.expandDims(0)));
  const [acc] = forLoop(0, K, 64, [zeros([64, 64], 'f32'), pa0, pb0], (_k, acc, pa, pb) => [dot(load(pa!), load(pb!), { acc: acc! }), pa!.add(64), pb!.add(64 * 64)], { warpSpecialize: true });
  store(c.add(r.expandDims(1).mul(64).add(r.expandDims(0))), acc!);
});

describe('program order before a cp.async-fed loop', () => {
  it('a store before the loop into the tile the loop reads first: the producer starts after it', async () => {
    const K = 256;
    const A = smallInts(64 * K, 71), B = smallInts(K * 64, 72), X = Float32Array.from({ length: 64 * 64 }, (_, i) => (i % 3) + 1);
    const ptx = simPtx(ordered, { a: f16Array(A), b: f16Array(B), c: new Float32Array(64 * 64), x: f16Array(X), K }, 4, 3);
    expect(ptx).toContain('ws_producer:');
    expect(ptx).toMatch(/cp\.async\.mbarrier\.arrive\.noinc/);
    const r = compile(ordered, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, specialization: { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, x: { divisibleBy16: true }, K: { divisibleBy16: true } } as never });
    expect(pipelineText(r)).toMatch(/the producer starts after the consumers' writes before the loop \(store\): program order/);
    const a2 = Float32Array.from(A);
    for (let i = 0; i < 64; i++) for (let j = 0; j < 64; j++) a2[i * K + j] = X[i * 64 + j]!;
    const want = matmulRef(a2, B, 64, 64, K);
    for (const dev of ['sim', 'interpret'] as const) {
      const c = new Float32Array(64 * 64);
      await runOn(dev, ordered, { a: f16Array(A), b: f16Array(B), c, x: f16Array(X), K }, [1], { numWarps: 4, numStages: 3 });
      expect(Array.from(c), dev).toEqual(Array.from(want));
    }
  });
});

// descriptor and pointer loads in one loop: one producer kind per loop (refused by name)
const mixed = kernel({ name: 'ws_mixed_loads', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), K: 'i32' } }, ({ a, b, c, K }) => {
  const r = arange(0, 64);
  const db = makeTensorDescriptor(b, [K, 64], [64, 1], [64, 64]);
  const [acc] = forLoop(0, K, 64, [zeros([64, 64], 'f32')], (k, acc) => {
    const ta = load(a.add(r.expandDims(1).mul(K)).add(r.expandDims(0).add(k)));
    return [dot(ta, db.load([k, 0]), { acc: acc! })];
  }, { warpSpecialize: true });
  store(c.add(r.expandDims(1).mul(64)).add(r.expandDims(0)), acc!);
});

describe('pointer loads the cp.async producer does not take say why and fall back', () => {
  it('a descriptor load beside a pointer load', () => {
    const r = compile(mixed, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, specialization: { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, K: { divisibleBy16: true } } as never });
    expect(pipelineText(r)).toMatch(/not warp-specialized: (desc_)?load %\d+ beside (pointer|descriptor) loads: one loop's producer issues either TMA or cp\.async, not both; plain pipeline/);
    expect(r.ptx).not.toContain('setmaxnreg');
  });
  it('a pointer load the cp.async ring does not take (unaligned: no 4-byte runs)', () => {
    const r = compile(wsPtrMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } });
    expect(pipelineText(r)).toMatch(/not warp-specialized: its pointer loads are not on the cp\.async ring \(the pipeline notes say why\); plain pipeline/);
    expect(r.metadata.producerWarps).toBeUndefined();
  });
});
