// Tensor descriptors (makeTensorDescriptor, docs/language.md) end to end on the sim pretending to
// be an sm_90 (TESSERA_SIM_ARCH=sm_90, read at cuInit, so set before the sim opens): the runtime
// compiles for sm_90a, where descriptor loads and stores are TMA copies (cp.async.bulk.tensor with
// an mbarrier) through CUtensorMaps the launcher encodes. Each result is compared with the
// interpreter and a plain-JS reference; the PTX the sim ran must really use TMA, and every kernel
// also assembles for sm_90a and sm_80 (where descriptors are masked loads and stores).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { constexpr, dot, forLoop, makeTensorDescriptor, programId, ptr, arange, store, tensorDesc, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import { compile, type CompileOptions, type CompileResult } from '../../src/compile/compile.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { count, gateTargets } from '../codegen/gate.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompileCache } from '../../src/runtime/cache/compile_cache.js';
import { compileCached } from '../../src/runtime/cache/compile_cached.js';
import { mmDesc, traced } from './desc_matmul_cases.js';
import { expectClose, matmulF64 as matmulRef, randF32, runBoth, simDevice } from './helpers.js';

const TMA_LOAD = /cp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes/;
const TMA_STORE = /cp\.async\.bulk\.tensor\.\dd\.global\.shared::cta\.tile\.bulk_group/;

/** y[block] = x[block] through two descriptors: a copy, out-of-bounds blocks included. */
const copy2d = (t: 'f16' | 'f32') => kernel(
  { name: `tma_copy2d_${t}`, params: { x: ptr(t), y: ptr(t), M: 'i32', N: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, y, M, N, BM, BN }) => {
    const dx = makeTensorDescriptor(x, [M, N], [N, 1], [BM as number, BN as number]);
    const dy = makeTensorDescriptor(y, [M, N], [N, 1], [BM as number, BN as number]);
    const om = programId(0).mul(BM), on = programId(1).mul(BN);
    dy.store([om, on], dx.load([om, on]));
  },
);

/** A 3-D tensor [D0, D1, D2] with row strides S0, S1 (elements), copied block by block. */
const copy3d = kernel(
  { name: 'tma_copy3d', params: { x: ptr('f32'), y: ptr('f32'), D0: 'i32', D1: 'i32', D2: 'i32', S0: 'i32', S1: 'i32', B0: constexpr(), B1: constexpr(), B2: constexpr() } },
  ({ x, y, D0, D1, D2, S0, S1, B0, B1, B2 }) => {
    const block = [B0 as number, B1 as number, B2 as number];
    const dx = makeTensorDescriptor(x, [D0, D1, D2], [S0, S1, 1], block);
    const dy = makeTensorDescriptor(y, [D0, D1, D2], [S0, S1, 1], block);
    const offs = [programId(0).mul(B0), programId(1).mul(B1), programId(2).mul(B2)];
    dy.store(offs, dx.load(offs).mul(2));
  },
);

/** Loads a block that hangs over every edge (offsets -3 and N - 5) into a dense output: the outside reads as zero. */
const overhang = kernel(
  { name: 'tma_overhang', params: { x: ptr('f32'), out: ptr('f32'), M: 'i32', N: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, out, M, N, BM, BN }) => {
    const dx = makeTensorDescriptor(x, [M, N], [N, 1], [BM as number, BN as number]);
    const v = dx.load([programId(0).mul(M).sub(3), N.sub(5)]); // program 0: rows -3.., program 1: rows M-3..
    const rm = arange(0, BM as number).expandDims(1), rn = arange(0, BN as number).expandDims(0);
    store(out.add(programId(0).mul((BM as number) * (BN as number)).add(rm.mul(BN).add(rn))), v);
  },
);

/** A 1-D copy of blocks smaller than the CTA (64 f32 on 128 threads: replicated lanes). */
const copy1d = kernel(
  { name: 'tma_copy1d', params: { x: ptr('f32'), y: ptr('f32'), n: 'i32', B: constexpr() } },
  ({ x, y, n, B }) => {
    const dx = makeTensorDescriptor(x, [n], [1], [B as number]);
    const dy = makeTensorDescriptor(y, [n], [1], [B as number]);
    dy.store([programId(0).mul(B)], dx.load([programId(0).mul(B)]).add(1));
  },
);

/** The 1-D copy with an i64 length (cast to i32 in the kernel; the map is built from the i64 argument). */
const copy1dI64 = kernel(
  { name: 'tma_copy1d_i64', params: { x: ptr('f32'), y: ptr('f32'), n: 'i64', B: constexpr() } },
  ({ x, y, n, B }) => {
    const dx = makeTensorDescriptor(x, [n], [1], [B as number]);
    const dy = makeTensorDescriptor(y, [n], [1], [B as number]);
    dy.store([programId(0).mul(B)], dx.load([programId(0).mul(B)]));
  },
);

/** Row sums of x [M, N] over column blocks: one TMA load op runs every iteration (its mbarrier's phase flips). */
const rowSums = kernel(
  { name: 'tma_row_sums', params: { x: ptr('f32'), out: ptr('f32'), M: 'i32', N: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, out, M, N, BM, BN }) => {
    const dx = makeTensorDescriptor(x, [M, N], [N, 1], [BM as number, BN as number]);
    const dout = makeTensorDescriptor(out, [M, BN], [BN, 1], [BM as number, BN as number]);
    const om = programId(0).mul(BM);
    const [acc] = forLoop(0, N, BN as number, [zeros([BM as number, BN as number], 'f32')], (n, acc) => [acc!.add(dx.load([om, n]))]);
    dout.store([om, 0], acc!);
  },
);

/** A matmul whose operands and result all go through descriptors. */
const mm = mmDesc('f16', 'tma_mm', { cFirst: true });

/** The PTX the sim device compiles for these arguments (its specialization). */
function simPtx(k: Kernel, args: Record<string, unknown>): CompileResult {
  const { f, positional } = traced(k, args);
  return simDevice().compile(f, 4, positional);
}

/** Compiles with explicit options and runs on the sim's NativeDevice (grid 3-D); returns the array args after. */
function runCompiled(k: Kernel, args: Record<string, unknown>, grid: readonly number[], options: Omit<CompileOptions, 'target'> & { target: CompileOptions['target'] }): Record<string, unknown> {
  const { f, positional } = traced(k, args);
  const compiled = compile(f, { ptxas: false, specialization: launchSpecialization(f, positional), ...options });
  const dev = simDevice().native;
  const bufs = positional.map((a) => {
    if (!ArrayBuffer.isView(a)) return undefined;
    const b = dev.alloc(Math.max(1, a.byteLength));
    dev.upload(b, a);
    return b;
  });
  try {
    dev.launch(compiled, positional.map((a, i) => bufs[i] ?? a), grid);
    dev.synchronize();
    const out: Record<string, unknown> = { ...args };
    k.def.runtimeParams.forEach((p, i) => {
      const b = bufs[i];
      const a = positional[i];
      if (b && ArrayBuffer.isView(a)) out[p.name] = dev.download(b, (a as unknown as { slice(): ArrayBufferView }).slice());
    });
    return out;
  } finally {
    for (const b of bufs) if (b) dev.free(b);
  }
}

/** Batched C[z] = A[z] @ B[z] through 3-D descriptors: blocks [1, R, C] reshaped to 2-D for the dot. */
const mmBatched = kernel(
  {
    name: 'tma_mm_batched',
    params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), Z: 'i32', M: 'i32', N: 'i32', K: 'i32', SA: 'i32', SB: 'i32', SC: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() },
  },
  ({ a, b, c, Z, M, N, K, SA, SB, SC, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    // batch strides are parameters: a stride computed in the kernel would leave the launcher unable to build the map
    const da = makeTensorDescriptor(a, [Z, M, K], [SA, K, 1], [1, bm, bk]);
    const db = makeTensorDescriptor(b, [Z, K, N], [SB, N, 1], [1, bk, bn]);
    const dc = makeTensorDescriptor(c, [Z, M, N], [SC, N, 1], [1, bm, bn]);
    const z = programId(2), om = programId(0).mul(bm), on = programId(1).mul(bn);
    const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) =>
      [dot(da.load([z, om, k]).reshape([bm, bk]), db.load([z, k, on]).reshape([bk, bn]), { acc: acc! })]);
    dc.store([z, om, on], acc!.reshape([1, bm, bn]));
  },
);

/** Two row blocks per program: the ring loop runs twice (5 k-steps each, not a multiple of the stages). */
const mmTwice = kernel(
  { name: 'tma_mm_twice', params: { a: ptr('bf16'), b: ptr('bf16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, M, N, K, BM, BN, BK }) => {
    const [bm, bn, bk] = [BM as number, BN as number, BK as number];
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [bm, bk]);
    const db = makeTensorDescriptor(b, [K, N], [N, 1], [bk, bn]);
    const dc = makeTensorDescriptor(c, [M, N], [N, 1], [bm, bn]);
    const on = programId(1).mul(bn);
    forLoop(0, 2, 1, [], (t) => {
      const om = programId(0).mul(2).add(t).mul(bm);
      const [acc] = forLoop(0, K, bk, [zeros([bm, bn], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, on]), { acc: acc! })]);
      dc.store([om, on], acc!);
      return [];
    });
  },
);

/** The matmul with host-side descriptors (Triton's TensorDescriptor arguments). */
const mmHost = kernel(
  { name: 'tma_mm_host', params: { a: tensorDesc('f16', ['BM', 'BK']), b: tensorDesc('f16', ['BK', 'BN']), c: tensorDesc('f32', ['BM', 'BN']), K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, K, BM, BN, BK }) => {
    const om = programId(0).mul(BM), on = programId(1).mul(BN);
    const [acc] = forLoop(0, K, BK as number, [zeros([BM as number, BN as number], 'f32')], (k, acc) => [dot(a.load([om, k]), b.load([k, on]), { acc: acc! })]);
    c.store([om, on], acc!);
  },
);

describe('tensor descriptors on the sim as sm_90 (TMA)', () => {
  it('the sim device compiles for sm_90a', () => {
    expect(simDevice().target).toBe('sm_90a');
  });

  it('copies a 2-D f32 tensor whose edges are partial blocks, with TMA loads and stores', async () => {
    const M = 40, N = 24, BM = 16, BN = 16;
    const x = Float32Array.from({ length: M * N }, (_, i) => i * 0.5 - 7);
    const args = { x, y: new Float32Array(M * N).fill(-1), M, N, BM, BN };
    const ptx = simPtx(copy2d('f32'), args).ptx;
    expect(count(ptx, TMA_LOAD)).toBe(1);
    expect(count(ptx, TMA_STORE)).toBe(1);
    const r = await runBoth(copy2d('f32'), args, [Math.ceil(M / BM), Math.ceil(N / BN)]);
    expect(Array.from(r.sim.y as Float32Array)).toEqual(Array.from(x));
    expect(Array.from(r.interpret.y as Float32Array)).toEqual(Array.from(x));
    gateTargets(traced(copy2d('f32'), args).f, ['sm_90a', 'sm_80']);
  });

  it('copies f16 blocks of 256-byte rows: two 128B-swizzled boxes per block', async () => {
    const M = 48, N = 256, BM = 16, BN = 128;
    const x = Uint16Array.from({ length: M * N }, (_, i) => (i * 7) & 0x3bff);
    const args = { x, y: new Uint16Array(M * N), M, N, BM, BN };
    const ptx = simPtx(copy2d('f16'), args).ptx;
    expect(count(ptx, TMA_LOAD)).toBe(2); // column blocks at inner coordinates on and on + 64
    expect(ptx).toContain('swizzle 128');
    const r = await runBoth(copy2d('f16'), args, [M / BM, N / BN]);
    expect(Array.from(r.sim.y as Uint16Array)).toEqual(Array.from(x));
    expect(Array.from(r.interpret.y as Uint16Array)).toEqual(Array.from(x));
  });

  it('copies (and doubles) a 3-D tensor with padded row strides, partial blocks in every dim', async () => {
    const [D0, D1, D2] = [3, 10, 40];
    const [S1, S0] = [44, 44 * 11]; // rows padded to 44 elements (176 bytes), planes to 11 rows
    const x = Float32Array.from({ length: D0 * S0 }, (_, i) => (i % 97) - 40);
    const y = new Float32Array(D0 * S0).fill(5);
    const args = { x, y, D0, D1, D2, S0, S1, B0: 2, B1: 8, B2: 32 };
    expect(count(simPtx(copy3d, args).ptx, TMA_LOAD)).toBe(1);
    const r = await runBoth(copy3d, args, [2, 2, 2]);
    const want = Float32Array.from(y);
    for (let i = 0; i < D0; i++) for (let j = 0; j < D1; j++) for (let k = 0; k < D2; k++) want[i * S0 + j * S1 + k] = 2 * x[i * S0 + j * S1 + k]!;
    expect(Array.from(r.sim.y as Float32Array)).toEqual(Array.from(want));
    expect(Array.from(r.interpret.y as Float32Array)).toEqual(Array.from(want));
  });

  it('copies a 1-D tensor in blocks smaller than the CTA (replicated lanes store once)', async () => {
    const n = 150, B = 64;
    const x = Float32Array.from({ length: n }, (_, i) => i * 3);
    const args = { x, y: new Float32Array(n), n, B };
    expect(count(simPtx(copy1d, args).ptx, /cp\.async\.bulk\.tensor\.1d/)).toBe(2);
    const r = await runBoth(copy1d, args, [3]);
    const want = Array.from(x, (v) => v + 1);
    expect(Array.from(r.sim.y as Float32Array)).toEqual(want);
    expect(Array.from(r.interpret.y as Float32Array)).toEqual(want);
    await copy1d.run({ ...args, y: new Float32Array(n) }, { grid: [3], device: 'sim', sanitize: ['racecheck', 'synccheck', 'initcheck'] });
  });

  it('an i64 length builds the map from the argument (bigint or number)', async () => {
    const n = 100, B = 32;
    const x = Float32Array.from({ length: n }, (_, i) => i + 0.5);
    expect(count(simPtx(copy1dI64, { x, y: new Float32Array(n), n, B }).ptx, /cp\.async\.bulk\.tensor\.1d/)).toBe(2);
    for (const len of [BigInt(n), n]) {
      const y = new Float32Array(n + 8).fill(-1);
      await copy1dI64.run({ x, y, n: len, B }, { grid: [4], device: 'sim' });
      expect(Array.from(y.subarray(0, n))).toEqual(Array.from(x));
      expect(Array.from(y.subarray(n))).toEqual(new Array(8).fill(-1));
    }
  });

  it('reads zeros outside the tensor (negative offsets and past the end), as TMA fills', async () => {
    const M = 20, N = 24, BM = 8, BN = 16;
    const x = Float32Array.from({ length: M * N }, (_, i) => i + 1);
    const args = { x, out: new Float32Array(2 * BM * BN).fill(-9), M, N, BM, BN };
    const r = await runBoth(overhang, args, [2]);
    const want = new Float32Array(2 * BM * BN);
    for (let p = 0; p < 2; p++) for (let i = 0; i < BM; i++) for (let j = 0; j < BN; j++) {
      const gi = p * M - 3 + i, gj = N - 5 + j;
      want[p * BM * BN + i * BN + j] = gi >= 0 && gi < M && gj < N ? x[gi * N + gj]! : 0;
    }
    expect(Array.from(r.sim.out as Float32Array)).toEqual(Array.from(want));
    expect(Array.from(r.interpret.out as Float32Array)).toEqual(Array.from(want));
  });

  it('a TMA load in a loop that feeds no dot reuses its mbarrier every iteration (phase parity)', async () => {
    const M = 32, N = 160, BM = 16, BN = 32;
    const x = Float32Array.from({ length: M * N }, (_, i) => (i % 13) - 6);
    const args = { x, out: new Float32Array(M * BN), M, N, BM, BN };
    const ptx = simPtx(rowSums, args).ptx;
    expect(count(ptx, TMA_LOAD)).toBe(1);
    expect(ptx).not.toContain('TMA ring');
    const r = await runBoth(rowSums, args, [M / BM]);
    const want = new Float32Array(M * BN);
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) want[i * BN + (j % BN)] += x[i * N + j]!;
    expect(Array.from(r.sim.out as Float32Array)).toEqual(Array.from(want));
    expect(Array.from(r.interpret.out as Float32Array)).toEqual(Array.from(want));
  });

  it('the interpreter names an in-bounds descriptor element that lies outside its buffer (E_OOB)', async () => {
    // shape says 40 rows, the buffer holds 32: rows 32.. are inside the tensor but not the buffer
    const args = { x: new Float32Array(32 * 16), y: new Float32Array(32 * 16), M: 40, N: 16, BM: 16, BN: 16 };
    await expect(copy2d('f32').run(args, { grid: [3, 1], device: 'interpret' })).rejects.toMatchObject({ code: 'E_OOB', message: expect.stringMatching(/out-of-bounds descriptor load/) });
  });

  it('sabotage: without the mbarrier wait a load reads stale shared memory (a wrong copy on the sim)', () => {
    const M = 32, N = 32, BM = 16, BN = 16;
    const x = Float32Array.from({ length: M * N }, (_, i) => i + 1);
    const args = { x, y: new Float32Array(M * N), M, N, BM, BN };
    const good = runCompiled(copy2d('f32'), args, [2, 2, 1], { target: 'sm_90a' });
    expect(Array.from(good.y as Float32Array)).toEqual(Array.from(x));
    const bad = runCompiled(copy2d('f32'), args, [2, 2, 1], { target: 'sm_90a', tmaSabotage: 'no-wait' });
    const wrong = Array.from(bad.y as Float32Array).filter((v, i) => v !== x[i]).length;
    expect(wrong).toBeGreaterThan(M * N / 2);
  });

  it('encodes each tensor map once per (address, shape, strides, box): relaunches hit the cache', () => {
    const M = 32, N = 32;
    const { f, positional } = traced(copy2d('f32'), { x: new Float32Array(M * N), y: new Float32Array(M * N), M, N, BM: 16, BN: 16 });
    const compiled = compile(f, { target: 'sm_90a', ptxas: false, specialization: launchSpecialization(f, positional) });
    expect(compiled.metadata.tensorMaps).toHaveLength(2);
    const dev = simDevice().native;
    const x = Float32Array.from({ length: M * N }, (_, i) => i);
    const [bx, by, bz] = [dev.alloc(x.byteLength), dev.alloc(x.byteLength), dev.alloc(x.byteLength)];
    try {
      dev.upload(bx, x);
      const before = dev.tensorMaps.encodes;
      dev.launch(compiled, [bx, by, M, N], [2, 2, 1]);
      expect(dev.tensorMaps.encodes - before).toBe(2);
      dev.launch(compiled, [bx, by, M, N], [2, 2, 1]); // same tensors: no new encode
      expect(dev.tensorMaps.encodes - before).toBe(2);
      dev.launch(compiled, [bx, bz, M, N], [2, 2, 1]); // a new output address: one new map
      expect(dev.tensorMaps.encodes - before).toBe(3);
      dev.launch(compiled, [bx, bz, M / 2, N], [1, 2, 1]); // a new shape: both maps again
      expect(dev.tensorMaps.encodes - before).toBe(5);
      dev.synchronize();
      expect(Array.from(dev.download(bz, new Float32Array(M * N)))).toEqual(Array.from(x));
    } finally {
      for (const b of [bx, by, bz]) dev.free(b);
    }
  });

  it('a kernel read back from the persistent cache carries its tensor-map recipes and launches', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-tma-cache-'));
    try {
      const M = 32, N = 32;
      const { f } = traced(copy2d('f32'), { x: new Float32Array(M * N), y: new Float32Array(M * N), M, N, BM: 16, BN: 16 });
      const opts = { target: 'sm_90a' as const, ptxas: false };
      const first = compileCached(f, opts, { cache: new CompileCache({ dir, disk: true }) });
      let compiles = 0;
      const fromDisk = compileCached(f, opts, { cache: new CompileCache({ dir, disk: true }), compile: (g, o) => (compiles++, compile(g, o)) });
      expect(compiles).toBe(0);
      expect(fromDisk).not.toBe(first);
      expect(fromDisk.metadata.tensorMaps).toEqual(first.metadata.tensorMaps);
      const dev = simDevice().native;
      const x = Float32Array.from({ length: M * N }, (_, i) => i - 3);
      const [bx, by] = [dev.alloc(x.byteLength), dev.alloc(x.byteLength)];
      try {
        dev.upload(bx, x);
        dev.launch(fromDisk, [bx, by, M, N], [2, 2, 1]);
        dev.synchronize();
        expect(Array.from(dev.download(by, new Float32Array(M * N)))).toEqual(Array.from(x));
      } finally {
        dev.free(bx);
        dev.free(by);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a misaligned base or a stride that is not a multiple of 16 bytes at launch, by name, before anything runs', async () => {
    const M = 32, N = 32;
    const { f, positional } = traced(copy2d('f32'), { x: new Float32Array(M * N), y: new Float32Array(M * N), M, N, BM: 16, BN: 16 });
    const compiled = compile(f, { target: 'sm_90a', ptxas: false, specialization: launchSpecialization(f, positional) });
    const dev = simDevice().native;
    const [bx, by] = [dev.alloc(4 * M * N + 16), dev.alloc(4 * M * N)];
    try {
      dev.fill(by, 0x11);
      expect(() => dev.launch(compiled, [bx.address + 4n, by, M, N], [2, 2, 1])).toThrow(
        expect.objectContaining({ code: 'E_DESCRIPTOR', message: expect.stringMatching(/tensor descriptor base 'x' is at 0x[0-9a-f]+, not 16-byte aligned/) }),
      );
      expect(() => dev.launch(compiled, [bx, by, M, 18], [2, 2, 1])).toThrow(
        expect.objectContaining({ code: 'E_DESCRIPTOR', message: expect.stringMatching(/stride of dim 0 is 72 bytes, not a positive multiple of 16/) }),
      );
      dev.synchronize();
      expect(new Uint8Array(dev.download(by, new Uint8Array(4 * M * N))).every((b) => b === 0x11)).toBe(true);
    } finally {
      for (const b of [bx, by]) dev.free(b);
    }
    // through kernel.run: the host arrays are left as they were
    const y = new Float32Array(20 * 18).fill(3);
    await expect(copy2d('f32').run({ x: new Float32Array(20 * 18), y, M: 20, N: 18, BM: 16, BN: 16 }, { grid: [2, 2], device: 'sim' })).rejects.toMatchObject({ code: 'E_DESCRIPTOR' });
    expect(y.every((v) => v === 3)).toBe(true);
  });

  describe('a matmul through descriptors (f16 in, f32 out)', () => {
    const M = 64, N = 64, K = 160; // 5 k-steps: every ring depth wraps
    const af = randF32(M * K, 1), bf = randF32(K * N, 2);
    const a = f16Array(af), b = f16Array(bf);
    const want = matmulRef(f16ToFloat32(a), f16ToFloat32(b), M, N, K);
    const args = { a, b, c: new Float32Array(M * N), M, N, K, BM: 32, BN: 32, BK: 32 };
    const grid = [M / 32, N / 32, 1];

    it('sm_90a: a TMA ring of 3 stages feeds the dot, a TMA store after the loop', async () => {
      const ptx = simPtx(mm, args).ptx;
      expect(ptx).toContain('// TMA ring: 3 stages of 4096 bytes, 2 tile(s), one mbarrier per stage');
      expect(count(ptx, TMA_LOAD)).toBe(6); // a and b for 2 prologue issues and the loop's
      expect(count(ptx, /mbarrier\.init/)).toBe(3);
      expect(count(ptx, /ldmatrix/)).toBeGreaterThan(0); // the dot reads the stages directly
      expect(count(ptx, TMA_STORE)).toBe(1);
      const r = await runBoth(mm, args, grid);
      expectClose(r.sim.c as Float32Array, want, 1e-4, 'sim (sm_90a) vs reference');
      expectClose(r.interpret.c as Float32Array, want, 1e-4, 'interpreter vs reference');
    });

    it.each([1, 2, 4])('sm_90a at numStages %i', (numStages) => {
      const out = runCompiled(mm, args, grid, { target: 'sm_90a', numStages });
      expectClose(out.c as Float32Array, want, 1e-4, `sim (sm_90a, ${numStages} stages) vs reference`);
      const { f } = traced(mm, args);
      const ptx = compile(f, { target: 'sm_90a', numStages, ptxas: true }).ptx;
      expect(count(ptx, TMA_LOAD)).toBe(numStages === 1 ? 2 : 2 * numStages);
    });

    it('sm_80: masked loads pipelined with cp.async, the same result', () => {
      const out = runCompiled(mm, args, grid, { target: 'sm_80' });
      expectClose(out.c as Float32Array, want, 1e-4, 'sim (sm_80 PTX) vs reference');
      const { f, positional } = traced(mm, args);
      const ptx = compile(f, { target: 'sm_80', ptxas: false, specialization: launchSpecialization(f, positional) }).ptx;
      expect(count(ptx, /cp\.async\.bulk/)).toBe(0);
      expect(count(ptx, /cp\.async\.cg\.shared\.global/)).toBeGreaterThan(0);
    });

    it('bf16, the ring loop inside another loop (its stages and mbarrier phases reused)', async () => {
      const a16 = bf16Array(af), b16 = bf16Array(bf);
      const want16 = matmulRef(bf16ToFloat32(a16), bf16ToFloat32(b16), M, N, K);
      const margs = { a: a16, b: b16, c: new Float32Array(M * N), M, N, K, BM: 32, BN: 32, BK: 32 };
      expect(simPtx(mmTwice, margs).ptx).toContain('// TMA ring: 3 stages');
      const r = await runBoth(mmTwice, margs, [1, 2, 1]);
      expectClose(r.sim.c as Float32Array, want16, 1e-4, 'sim vs reference');
      expectClose(r.interpret.c as Float32Array, want16, 1e-4, 'interpreter vs reference');
    });

    it('host-side descriptors ({ base, shape, strides } arguments) take the same TMA path', async () => {
      const hargs = {
        a: { base: a, shape: [M, K], strides: [K, 1] }, b: { base: b, shape: [K, N], strides: [N, 1] },
        c: { base: new Float32Array(M * N), shape: [M, N], strides: [N, 1] }, K, BM: 32, BN: 32, BK: 32,
      };
      const f = mmHost.trace({ BM: 32, BN: 32, BK: 32 });
      expect(f.params.map((p) => p.name)).toEqual(['a', 'a_shape0', 'a_shape1', 'a_stride0', 'b', 'b_shape0', 'b_shape1', 'b_stride0', 'c', 'c_shape0', 'c_shape1', 'c_stride0', 'K']);
      expect(compile(f, { target: 'sm_90a', ptxas: true }).ptx).toContain('// TMA ring: 3 stages');
      const outs: Float32Array[] = [];
      for (const device of ['sim', 'interpret'] as const) {
        const c = new Float32Array(M * N);
        await mmHost.run({ ...hargs, c: { ...hargs.c, base: c } }, { grid, device });
        outs.push(c);
      }
      expectClose(outs[0]!, want, 1e-4, 'sim vs reference');
      expectClose(outs[1]!, want, 1e-4, 'interpreter vs reference');
      const bad = mmHost.run({ ...hargs, a: { base: a, shape: [M, K], strides: [K + 1, 1] } }, { grid, device: 'sim' });
      await expect(bad).rejects.toMatchObject({ code: 'E_DESCRIPTOR', message: expect.stringMatching(/tensor descriptor 'a': strides\[0\] = 161 elements is 322 bytes, not a multiple of 16/) });
    });

    it('BM = 64: the dot is a wgmma reading both operands from the TMA ring', async () => {
      const wargs = { ...args, c: new Float32Array(M * N), BM: 64, BN: 64 };
      const ptx = simPtx(mm, wargs).ptx;
      // the wgmma stays in flight into the next iteration (wait_group 1), so tiles go 1 ahead, not 2
      expect(ptx).toContain('one mbarrier per stage, issued 1 ahead');
      expect(count(ptx, /wgmma\.wait_group\.sync\.aligned 1;/)).toBe(1);
      expect(count(ptx, /wgmma\.mma_async/)).toBeGreaterThan(0);
      expect(count(ptx, /ldmatrix|st\.shared\.v4\.b32/)).toBe(0); // no staging: wgmma descriptors point into the stages
      const r = await runBoth(mm, wargs, [1, 1, 1]);
      expectClose(r.sim.c as Float32Array, want, 1e-4, 'sim (wgmma + TMA ring) vs reference');
      expectClose(r.interpret.c as Float32Array, want, 1e-4, 'interpreter vs reference');
      for (const numStages of [2, 4]) {
        const out = runCompiled(mm, wargs, [1, 1, 1], { target: 'sm_90a', numStages });
        expectClose(out.c as Float32Array, want, 1e-4, `sim (wgmma + TMA ring, ${numStages} stages) vs reference`);
      }
    });

    it('batched through 3-D descriptors: [1, R, C] blocks reshaped for the dot ride the ring', async () => {
      const Z = 2;
      const az = f16Array(randF32(Z * M * K, 7)), bz = f16Array(randF32(Z * K * N, 8));
      const [af32, bf32] = [f16ToFloat32(az), f16ToFloat32(bz)];
      const bargs = { a: az, b: bz, c: new Float32Array(Z * M * N), Z, M, N, K, SA: M * K, SB: K * N, SC: M * N, BM: 32, BN: 32, BK: 32 };
      const ptx = simPtx(mmBatched, bargs).ptx;
      expect(ptx).toContain('// TMA ring: 3 stages');
      expect(count(ptx, /cp\.async\.bulk\.tensor\.3d\.shared::cluster/)).toBe(6);
      const r = await runBoth(mmBatched, bargs, [M / 32, N / 32, Z]);
      for (let zi = 0; zi < Z; zi++) {
        const wz = matmulRef(af32.subarray(zi * M * K, (zi + 1) * M * K), bf32.subarray(zi * K * N, (zi + 1) * K * N), M, N, K);
        expectClose((r.sim.c as Float32Array).subarray(zi * M * N, (zi + 1) * M * N), wz, 1e-4, `sim, batch ${zi}`);
        expectClose((r.interpret.c as Float32Array).subarray(zi * M * N, (zi + 1) * M * N), wz, 1e-4, `interpreter, batch ${zi}`);
      }
    });

    it('8 warps (two warpgroups, BM = 128) and 1 warp (BM = 32, mma.sync) read the same ring', () => {
      const M2 = 128;
      const a2 = f16Array(randF32(M2 * K, 9));
      const want2 = matmulRef(f16ToFloat32(a2), f16ToFloat32(b), M2, N, K);
      const big = runCompiled(mm, { ...args, a: a2, c: new Float32Array(M2 * N), M: M2, BM: 128, BN: 64 }, [1, 1, 1], { target: 'sm_90a', numWarps: 8 });
      expectClose(big.c as Float32Array, want2, 1e-4, 'sim, 8 warps, BM 128');
      const one = runCompiled(mm, { ...args, c: new Float32Array(M * N) }, grid, { target: 'sm_90a', numWarps: 1 });
      expectClose(one.c as Float32Array, want, 1e-4, 'sim, 1 warp');
    });

    it("sm_90a with the option tma: false takes sm_80's path", () => {
      const out = runCompiled(mm, args, grid, { target: 'sm_90a', tma: false });
      expectClose(out.c as Float32Array, want, 1e-4, 'sim (sm_90a, tma off) vs reference');
    });

  });

  it('the TMA kernels run clean under racecheck, synccheck and initcheck', async () => {
    const M = 64, N = 64, K = 160;
    const a = f16Array(randF32(M * K, 5)), b = f16Array(randF32(K * N, 6));
    const sanitize = ['racecheck', 'synccheck', 'initcheck'] as const;
    const run = (k: Kernel, args: Record<string, unknown>, grid: number[]) => k.run(args as never, { grid, device: 'sim', sanitize: [...sanitize] });
    await run(mm, { a, b, c: new Float32Array(M * N), M, N, K, BM: 32, BN: 32, BK: 32 }, [2, 2]);
    await run(mm, { a, b, c: new Float32Array(M * N), M, N, K, BM: 64, BN: 64, BK: 32 }, [1, 1]); // wgmma, overlapped
    await run(copy2d('f32'), { x: new Float32Array(40 * 24), y: new Float32Array(40 * 24), M: 40, N: 24, BM: 16, BN: 16 }, [3, 2]);
    await run(overhang, { x: new Float32Array(20 * 24), out: new Float32Array(2 * 8 * 16), M: 20, N: 24, BM: 8, BN: 16 }, [2]);
  });
});
