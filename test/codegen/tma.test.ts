// The TMA lowering of tensor descriptors on sm_90a (codegen/async/lower_tma.ts, tensor_map.ts): golden
// lines for the cp.async.bulk.tensor and mbarrier forms, the hidden CUtensorMap parameters and
// the recipe the launcher builds them from (metadata.tensorMaps), which descriptors fall back to
// masked loads, and ptxas for sm_90a on each. Runs on the sim: test/e2e/tma.test.ts.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, defineKernel, devicePrint, forLoop, load, makeTensorDescriptor, programId, ptr, store } from '../../src/lang/index.js';
import { compile } from '../../src/compile/compile.js';
import { mmDesc } from '../e2e/desc_matmul_cases.js';
import { count, gateTargets } from './gate.js';

const copy = defineKernel(
  { name: 'tcopy', params: { x: ptr('f16'), y: ptr('f16'), M: 'i32', N: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, y, M, N, BM, BN }) => {
    const dx = makeTensorDescriptor(x, [M, N], [N, 1], [BM as number, BN as number]);
    const dy = makeTensorDescriptor(y, [M, N], [N, 1], [BM as number, BN as number]);
    const om = programId(0).mul(BM);
    // the same descriptor read twice shares one tensor map
    dy.store([om, 0], dx.load([om, 0]).add(dx.load([om, 64])));
  },
);

/** Registers renamed to %R so lines compare whatever the allocation. */
const lines = (ptx: string): string[] => ptx.split('\n').map((l) => l.trim().replace(/%[a-z]+\d+/g, '%R'));

describe('TMA lowering (sm_90a)', () => {
  const r = compile(copy.trace({ BM: 32, BN: 64 }), { target: 'sm_90a', ptxas: true });
  const L = lines(r.ptx);

  it('golden lines: tensor-map params, mbarrier setup, TMA load, wait, TMA store', () => {
    for (const want of [
      '.param .align 64 .b8 tcopy_tmap_0[128],',
      '.param .align 64 .b8 tcopy_tmap_1[128]',
      '.shared .align 1024 .b8 tessera_smem[4112];', // the 4096-byte scratch, then the two mbarriers
      'mov.u32 %R, tessera_smem+4096;',
      'mov.u64 %R, tcopy_tmap_0;',
      'cvta.param.u64 %R, %R;',
      '@%R mbarrier.init.shared::cta.b64 [%R], 1;',
      'fence.mbarrier_init.release.cluster;',
      'fence.proxy.async.shared::cta;',
      '@%R mbarrier.arrive.expect_tx.shared::cta.b64 _, [%R], 4096;',
      '@%R cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%R], [%R, {%R, %R}], [%R];',
      'mbarrier.try_wait.parity.shared::cta.b64 %R, [%R], %R;',
      '@!%R bra.uni $L_tma_wait_0;',
      'xor.b32 %R, %R, 1;',
      '@%R cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%R, {%R, %R}], [%R];',
      '@%R cp.async.bulk.commit_group;',
      '@%R cp.async.bulk.wait_group.read 0;',
    ]) expect(L, want).toContain(want);
    expect(count(r.ptx, /mbarrier\.init/)).toBe(2); // one per load op
    expect(r.metadata.ptxasLog).toBeDefined();
  });

  it('records how the launcher builds each map: base, dims and strides from the parameters, innermost first', () => {
    const maps = r.metadata.tensorMaps!;
    expect(maps).toHaveLength(2);
    expect(maps[0]).toEqual({
      name: 'tcopy_tmap_0', offset: 64, dtype: 'f16', dataType: 6, base: 0,
      dims: [{ param: 3 }, { param: 2 }], strides: [{ param: 3 }], box: [64, 32], swizzle: 128,
    });
    expect(maps[1]).toMatchObject({ name: 'tcopy_tmap_1', offset: 192, base: 1 });
    expect(r.metadata.params.map((p) => p.name)).toEqual(['x', 'y', 'M', 'N']);
  });

  it('other targets, and tma: false, lower descriptors to masked global loads and stores', () => {
    const f = copy.trace({ BM: 16, BN: 64 });
    const out = gateTargets(f, ['sm_80', 'sm_90']);
    const off = compile(f, { target: 'sm_90a', tma: false, ptxas: true });
    for (const c of [out['sm_80']!, out['sm_90']!, off]) {
      expect(count(c.ptx, /cp\.async\.bulk|mbarrier/)).toBe(0);
      expect(count(c.ptx, /ld\.global/)).toBeGreaterThan(0);
      expect(c.metadata.tensorMaps).toBeUndefined();
    }
  });

  it('a descriptor whose shape is computed in the kernel falls back to masked loads on sm_90a', () => {
    const k = defineKernel(
      { name: 'tcomputed', params: { x: ptr('f32'), y: ptr('f32'), n: 'i32' } },
      ({ x, y, n }) => {
        const dx = makeTensorDescriptor(x, [n.sub(1)], [1], [64]); // n - 1 is not known at launch
        const dy = makeTensorDescriptor(y, [n], [1], [64]);
        dy.store([0], dx.load([0]));
      },
    );
    const c = compile(k.trace({}), { target: 'sm_90a', ptxas: true });
    // the 'descriptors' stage says what each became and why
    const stage = c.stages.find((s) => s.name === 'descriptors')!.text.split('\n');
    expect(stage[0]).toMatch(/^%\d+ = desc_load \[64\] \(tma\.test\.ts:\d+\): masked loads \(shape\[0\] is computed in the kernel\)$/);
    expect(stage[1]).toMatch(/^desc_store \[64\] \(tma\.test\.ts:\d+\): TMA, tensor map built at launch$/);
    expect(compile(k.trace({}), { target: 'sm_80', ptxas: false }).stages.find((s) => s.name === 'descriptors')!.text).toMatch(/masked loads \(no TMA on sm_80\)/);
    expect(count(c.ptx, /cp\.async\.bulk\.tensor\.1d\.shared::cluster/)).toBe(0); // the load: masked ld.global
    expect(count(c.ptx, /cp\.async\.bulk\.tensor\.1d\.global/)).toBe(1); // the store: TMA
    expect(c.metadata.tensorMaps).toHaveLength(1);
  });

  describe('the TMA ring (numStages 3)', () => {
    const mm = mmDesc('f16', 'tring');

    it.each([[32, 'mma.sync', 2], [64, 'wgmma (in flight across iterations)', 1]] as const)('BM = %i, %s: golden lines, issue distance %i', (BM, _, D) => {
      const r = compile(mm.trace({ BM, BN: 64, BK: 32 }), { target: 'sm_90a', numStages: 3, ptxas: true });
      const L = lines(r.ptx);
      const stage = BM * 32 * 2 + 32 * 64 * 2;
      for (const want of [
        `// TMA ring: 3 stages of ${stage} bytes, 2 tile(s), one mbarrier per stage, issued ${D} ahead`,
        '@%R mbarrier.init.shared::cta.b64 [%R], 1;',
        '@%R mbarrier.init.shared::cta.b64 [%R+8], 1;',
        '@%R mbarrier.init.shared::cta.b64 [%R+16], 1;',
        `@%R mbarrier.arrive.expect_tx.shared::cta.b64 _, [%R], ${stage};`,
        '@%R cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%R], [%R, {%R, %R}], [%R];',
        `@%R cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%R+${BM * 64}], [%R, {%R, %R}], [%R];`,
        'bfe.u32 %R, %R, %R, 1;',
        'mbarrier.try_wait.parity.shared::cta.b64 %R, [%R], %R;',
        'shl.b32 %R, 1, %R;',
        'xor.b32 %R, %R, %R;',
      ]) expect(L, want).toContain(want);
      // the prologue issues D iterations, the loop one: 2 tiles each
      expect(count(r.ptx, /cp\.async\.bulk\.tensor\.2d\.shared::cluster/)).toBe(2 * (D + 1));
      expect(r.metadata.tensorMaps).toHaveLength(3);
    });
  });

  // One shared buffer, whether static or dynamic: a second .shared variable beside the dynamic
  // one leaves where the dynamic buffer starts to the driver (the sim puts the 1024-aligned buffer
  // at 1024 but grows the window by the 16-aligned static size; a real GPU ignores the alignment),
  // and the ring's last boxes at production tiles (128x128x64, 3 stages) left shared memory.
  describe('shared memory: the mbarriers live in the one buffer, past the scratch', () => {
    const mm = mmDesc('f16', 'tlayout');
    const shared = (ptx: string): string[] => ptx.split('\n').filter((l) => /^\s*(\.extern\s+)?\.shared\s/.test(l)).map((l) => l.trim());

    it('128x128x64 at 3 stages: a dynamic buffer of the ring (96 KB) and 3 mbarriers, nothing static', () => {
      const r = compile(mm.trace({ BM: 128, BN: 128, BK: 64 }), { target: 'sm_90a', numStages: 3, ptxas: true });
      expect(r.ptx).toContain('// TMA ring: 3 stages of 32768 bytes');
      expect(shared(r.ptx)).toEqual(['.extern .shared .align 1024 .b8 tessera_smem[];']);
      expect(lines(r.ptx)).toContain('mov.u32 %R, tessera_smem+98304;');
      expect(r.metadata).toMatchObject({ sharedBytes: 98304 + 24, dynamicShared: true });
      expect(r.metadata.ptxasLog).toMatch(/Used \d+ registers/);
    });

    it('the mbarriers count toward the 48 KB static limit: a 48 KB ring plus its mbarriers is dynamic', () => {
      // 64x64x64 at 3 stages: 3 x 16 KB of ring (the epilogue's scratch fits in it) + 3 mbarriers
      const r = compile(mm.trace({ BM: 64, BN: 64, BK: 64 }), { target: 'sm_90a', numStages: 3, ptxas: true });
      expect(shared(r.ptx)).toEqual(['.extern .shared .align 1024 .b8 tessera_smem[];']);
      expect(r.metadata).toMatchObject({ sharedBytes: 49152 + 24, dynamicShared: true });
      // at 2 stages it stays static, in one variable
      const s2 = compile(mm.trace({ BM: 64, BN: 64, BK: 64 }), { target: 'sm_90a', numStages: 2, ptxas: true });
      expect(shared(s2.ptx)).toEqual([`.shared .align 1024 .b8 tessera_smem[${s2.metadata.sharedBytes}];`]);
      expect(s2.metadata.dynamicShared).toBe(false);
      expect(lines(s2.ptx)).toContain(`mov.u32 %R, tessera_smem+${s2.metadata.sharedBytes - 16};`);
    });
  });

  it('an i64 shape parameter (cast to i32 in the kernel) still builds its map from the parameter', () => {
    const k = defineKernel(
      { name: 'ti64', params: { x: ptr('f32'), y: ptr('f32'), n: 'i64' } },
      ({ x, y, n }) => {
        const dx = makeTensorDescriptor(x, [n], [1], [64]);
        makeTensorDescriptor(y, [n], [1], [64]).store([0], dx.load([0]));
      },
    );
    const c = compile(k.trace({}), { target: 'sm_90a', ptxas: true });
    expect(c.metadata.tensorMaps!.map((m) => m.dims)).toEqual([[{ param: 2 }], [{ param: 2 }]]);
    expect(count(c.ptx, /cp\.async\.bulk\.tensor\.1d/)).toBe(2);
  });
});

// cp.async.bulk.wait_group.read only waits for the TMA store to read its shared tile; the global
// writes complete at a full wait_group. A store some later op of the program may observe waits
// fully, then syncs the CTA (codegen/async/tma_store_wait.ts); one with nothing after it keeps .read.
describe('TMA store wait (sm_90a)', () => {
  const storeThen = (after: 'nothing' | 'load' | 'desc_load' | 'print' | 'loop') => defineKernel(
    { name: `tstore_${after}`, params: { x: ptr('f32'), y: ptr('f32'), z: ptr('f32'), M: 'i32', N: 'i32', BM: constexpr(), BN: constexpr() } },
    ({ x, y, z, M, N, BM, BN }) => {
      const [bm, bn] = [BM as number, BN as number];
      const dx = makeTensorDescriptor(x, [M, N], [N, 1], [bm, bn]);
      const dy = makeTensorDescriptor(y, [M, N], [N, 1], [bm, bn]);
      const at = arange(0, bm).expandDims(1).mul(bn).add(arange(0, bn).expandDims(0));
      if (after === 'loop') {
        forLoop(0, N, bn, [], (k) => {
          dy.store([0, k], dx.load([0, k]));
          return [];
        });
        return;
      }
      dy.store([0, 0], dx.load([0, 0]));
      if (after === 'load') store(z.add(at), load(y.add(at)));
      if (after === 'desc_load') store(z.add(at), dy.load([0, 0]));
      if (after === 'print') devicePrint('stored', programId(0));
    },
  );
  const ptxOf = (after: Parameters<typeof storeThen>[0]) =>
    compile(storeThen(after).trace({ BM: 16, BN: 32 }), { target: 'sm_90a', ptxas: true }).ptx;
  const FULL = /@%p\d+ cp\.async\.bulk\.wait_group 0;\s*\n\s*bar\.sync 0;/;

  it.each(['nothing', 'print'] as const)('a store followed by %s keeps wait_group.read', (after) => {
    const ptx = ptxOf(after);
    expect(ptx).toMatch(/cp\.async\.bulk\.wait_group\.read 0;/);
    expect(ptx).not.toMatch(/cp\.async\.bulk\.wait_group 0;/);
  });

  it.each(['load', 'desc_load', 'loop'] as const)('a store followed by a %s waits for its writes, then syncs', (after) => {
    const ptx = ptxOf(after);
    expect(ptx).toMatch(FULL);
    expect(ptx).not.toMatch(/wait_group\.read/);
  });
});
