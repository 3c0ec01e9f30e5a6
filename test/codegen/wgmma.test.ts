// The wgmma lowering (codegen/tensor_cores/lower_wgmma.ts, sm_90a): the accumulator layout against the ISA's
// D fragment, the matrix descriptors against the canonical layouts (as the sim reads them), golden
// PTX for the forms (fence.proxy.async / wgmma.fence / mma_async / commit / wait, descriptor
// construction), and on the sim (as an sm_90): a missing proxy fence or wgmma wait gives a wrong
// result or a named fault. Numerical e2e cases are in test/e2e/matmul_wgmma.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/compile.js';
import { regSlots, threadShifts, wgmmaLayout } from '../../src/compiler/layout.js';
import { coordsOf } from '../../src/codegen/convert/convert_plan.js';
import { swizzledOffset, swizzleFor, type SwizzleBytes } from '../../src/codegen/smem/smem_swizzle.js';
import { encodeDesc, sliceOffset, strideBytes, type SwizzledTile } from '../../src/codegen/tensor_cores/wgmma_desc.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { matmulAligned } from '../../bench/kernels.js';
import { arange, constexpr, dot, load, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import type { ParamSpec } from '../../src/compiler/axis_info.js';
import { mmDesc } from '../e2e/desc_matmul_cases.js';
import { randF32, simDevice } from '../e2e/helpers.js';
import { count, gateTargets } from './gate.js';

describe('the wgmma accumulator layout', () => {
  it.each([[64, 64, 4], [128, 32, 4], [128, 256, 8], [256, 16, 8]] as const)('[%i, %i] on %i warps: every thread holds the ISA D fragment of its warpgroup', (M, N, W) => {
    const l = wgmmaLayout(M, W)!;
    const slots = regSlots(l, [M, N]);
    const sh = threadShifts(l);
    for (let warp = 0; warp < W; warp++) for (let lane = 0; lane < 32; lane++) {
      const got = new Set(slots.map((s) => coordsOf(l, [M, N], sh, warp, lane, s.off).join(',')));
      // PTX ISA (wgmma D, f32): warp w%4 of warpgroup w/4 holds rows 16(w%4) + g (+8) of each of
      // its m64 blocks (warpgroup g takes rows 64g.. of every 64*W/4), columns 8j + 2t (+1)
      const want = new Set<string>();
      const g = lane >> 2, t = lane & 3;
      for (let blk = 0; blk < M / (16 * W); blk++) for (let h = 0; h < 2; h++) for (let j = 0; j < N / 8; j++) for (let e = 0; e < 2; e++) {
        want.add(`${blk * 16 * W + 64 * (warp >> 2) + 16 * (warp & 3) + g + 8 * h},${8 * j + 2 * t + e}`);
      }
      expect(got).toEqual(want);
      expect(slots.length).toBe(want.size);
    }
  });

  it('exists for 1 and 2 warpgroups only, with 64 rows per warpgroup', () => {
    expect(wgmmaLayout(64, 4)).toBeDefined();
    expect(wgmmaLayout(64, 8)).toBeUndefined();
    expect(wgmmaLayout(32, 4)).toBeUndefined();
    expect(wgmmaLayout(64, 2)).toBeUndefined();
    expect(wgmmaLayout(256, 16)).toBeUndefined();
  });
});

// The shared-memory address of element (mn, k) as the PTX ISA's canonical layouts define it for a
// descriptor (restated in native/sim/src/exec_wgmma.cpp, which implements it): K-major
// start + (mn%8)*S + (mn/8)*SBO + k*eb, MN-major start + (k%8)*S + (k/8)*SBO + (mn*eb)%S +
// ((mn*eb)/S)*LBO, then bits [4,7) of the address XORed with bits [7,10) (masked to the mode).
function isaAddr(desc: bigint, mnMajor: boolean, mn: number, k: number, eb: number): number {
  const f = (lo: bigint): number => Number((desc >> lo) & 0x3fffn) << 4;
  const start = f(0n), lbo = f(16n), sbo = f(32n);
  const S = [0, 128, 64, 32][Number(desc >> 62n)]!;
  let a = mnMajor
    ? start + (k % 8) * S + Math.floor(k / 8) * sbo + ((mn * eb) % S) + Math.floor((mn * eb) / S) * lbo
    : start + (mn % 8) * S + Math.floor(mn / 8) * sbo + k * eb;
  const bits = S === 128 ? 3 : S === 64 ? 2 : 1;
  a ^= ((a >> 7) & ((1 << bits) - 1)) << 4;
  return a;
}

describe('matrix descriptors read our swizzled tiles (smem_swizzle.ts)', () => {
  const base = 3 * 1024; // tiles are 1024-byte aligned
  it.each([
    // [stored rows, stored cols, element bytes, MN-major, instruction MN, instruction K]
    [64, 32, 2, false, 64, 16], [64, 64, 2, false, 64, 16], [128, 16, 2, false, 64, 16], [64, 128, 2, false, 64, 16],
    [32, 64, 2, true, 64, 16], [64, 128, 2, true, 128, 16], [32, 256, 2, true, 256, 16], [16, 16, 2, true, 16, 16],
    [32, 32, 4, false, 32, 8], [64, 64, 1, false, 64, 32], [32, 128, 1, false, 32, 32],
  ] as const)('[%i, %i] of %i-byte elements, MN-major %s: every element of every slice', (rows, cols, eb, mnMajor, IMN, IK) => {
    const tile: SwizzledTile = { rows, rowBytes: cols * eb, swizzle: swizzleFor(cols * eb) as SwizzleBytes };
    const { lbo, sbo } = strideBytes(tile, mnMajor);
    const [MN, K] = mnMajor ? [cols, rows] : [rows, cols];
    for (let mn0 = 0; mn0 < MN; mn0 += IMN) for (let k0 = 0; k0 < K; k0 += IK) {
      const desc = encodeDesc(base + sliceOffset(tile, mnMajor, mn0, k0, eb), lbo, sbo, tile.swizzle);
      for (let mn = 0; mn < IMN; mn++) for (let k = 0; k < IK; k++) {
        const [r, c] = mnMajor ? [k0 + k, mn0 + mn] : [mn0 + mn, k0 + k];
        expect(isaAddr(desc, mnMajor, mn, k, eb)).toBe(base + swizzledOffset(r, c * eb, rows, tile.rowBytes, tile.swizzle));
      }
    }
  });
});

const D16: ParamSpec = { divisibleBy16: true };
const ALIGNED = [D16, D16, D16, D16, D16, D16];
const TILE = { BM: 64, BN: 64, BK: 32 };
const lines = (ptx: string, re: RegExp): string[] => ptx.split('\n').map((l) => l.trim()).filter((l) => re.test(l));

describe('golden PTX: the 64x64x32 f16 matmul on 4 warps', () => {
  const f = matmulAligned.f16.trace(TILE);

  it('outside a pipeline: st.shared, fence.proxy.async, bar.sync, wgmma.fence, 2 x m64n64k16, commit, wait 0', () => {
    const ptx = gateTargets(f, ['sm_90a'], { numWarps: 4, numStages: 1, specialization: ALIGNED })['sm_90a']!.ptx;
    const seq = lines(ptx, /^(fence|bar\.sync|wgmma|st\.shared)/).filter((l, i, a) => !(l.startsWith('st.shared') && a[i - 1]?.startsWith('st.shared')));
    const loop = seq.slice(seq.indexOf('bar.sync 0;'), seq.indexOf('wgmma.wait_group.sync.aligned 0;') + 1).map((l) => l.replace(/\{[^}]*\}.*/, '{...}').replace(/\[[^\]]*\].*/, '[...]'));
    expect(loop).toEqual([
      'bar.sync 0;',
      'st.shared.v4.b32 [...]',
      'fence.proxy.async.shared::cta;',
      'bar.sync 0;',
      'wgmma.fence.sync.aligned;',
      'wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {...}',
      'wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {...}',
      'wgmma.commit_group.sync.aligned;',
      'wgmma.wait_group.sync.aligned 0;',
    ]);
    // 2 wgmma per tile, as Triton 3.8 emits for cc 90 (issue 17)
    expect(count(ptx, /wgmma\.mma_async/)).toBe(2);
    // A [64, 32] f16: 64-byte rows, 64B swizzle (mode 2), SBO 512; B [32, 64]: 128-byte rows,
    // 128B swizzle (mode 1), SBO 1024, LBO = 32 rows x 128 B (read MN-major: trans-b 1)
    expect(lines(ptx, /^mov\.u32 %r\d+, 0x/)).toEqual(['0x80000020', '0x40000040'].map((h) => expect.stringContaining(h)));
    expect(ptx).toMatch(/or\.b32 %r\d+, %r\d+, 65536;/); // A: LBO 16 >> 4 = 1
    expect(ptx).toMatch(/or\.b32 %r\d+, %r\d+, 16777216;/); // B: LBO 4096 >> 4 = 256
    // the second k-step: A moves 32 bytes along k (+2), B 16 rows of 128 bytes (+128)
    expect(ptx).toMatch(/add\.s64 %rd\d+, %rd\d+, 2;/);
    expect(ptx).toMatch(/add\.s64 %rd\d+, %rd\d+, 128;/);
    const mma = lines(ptx, /wgmma\.mma_async/);
    for (const l of mma) expect(l).toMatch(/, %rd\d+, %rd\d+, %p\d+, 1, 1, 0, 1;$/);
    // tiles 1024-byte aligned
    expect(ptx).toMatch(/\.shared \.align 1024 \.b8 tessera_smem/);
  });
});

/** A matmul whose operands and result go through tensor descriptors (TMA on sm_90a). */
const descMatmul = mmDesc('f16', 'wg_tma_mm', { cFirst: true });

/** c = a @ b with no accumulator operand (a zero one). */
const plainDot = kernel(
  { name: 'wg_plain_dot', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, BM, BN, BK }) => {
    const rm = arange(0, BM), rn = arange(0, BN), rk = arange(0, BK);
    const d = dot(load(a.add(rm.expandDims(1).mul(BK).add(rk.expandDims(0)))), load(b.add(rk.expandDims(1).mul(BN).add(rn.expandDims(0)))));
    store(c.add(rm.expandDims(1).mul(BN).add(rn.expandDims(0))), d);
  },
);

describe('golden PTX: a zero accumulator', () => {
  it('is never materialized: the first k-step of each fragment has scale-d 0, the next ones 1', () => {
    const ptx = gateTargets(plainDot.trace(TILE), ['sm_90a'], { numWarps: 4 })['sm_90a']!.ptx;
    const p0 = /setp\.ne\.b32 (%p\d+), 0, 0;/.exec(ptx)?.[1], p1 = /setp\.ne\.b32 (%p\d+), 1, 0;/.exec(ptx)?.[1];
    expect(p0 && p1).toBeTruthy();
    const mma = lines(ptx, /wgmma\.mma_async/);
    expect(mma.map((l) => /, (%p\d+), 1, 1, 0, 1;$/.exec(l)?.[1])).toEqual([p0, p1]);
    expect(ptx).not.toMatch(/mov\.f32 %f\d+, 0f00000000;/);
  });
});

describe('golden PTX: wgmma reading the TMA ring (tensor descriptors, sm_90a)', () => {
  it('64x64x32 f16 at 3 stages: TMA boxes into the stages, 2 wgmma per iteration read them by descriptor and stay in flight into the next, nothing staged from registers', () => {
    const ptx = gateTargets(descMatmul.trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 3 })['sm_90a']!.ptx;
    expect(ptx).toContain('// TMA ring: 3 stages');
    const body = ptx.slice(ptx.indexOf('\n$L_tfor'), ptx.indexOf('\n$L_endtfor'));
    expect(count(body, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/)).toBe(2); // a, b of iteration i+2
    expect(count(body, /wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 /)).toBe(2);
    expect(body).not.toMatch(/st\.shared|ld\.shared|mma\.sync|ldmatrix/);
    // A [64, 32]: 64B swizzle (SBO 512); B [32, 64]: 128B swizzle, read MN-major
    expect(lines(body, /^mov\.u32 %r\d+, 0x/)).toEqual(['0x80000020', '0x40000040'].map((h) => expect.stringContaining(h)));
    // the wgmma stays in flight into the next iteration (the TMA ring then issues S-2 ahead)
    expect(body).toContain('wgmma.wait_group.sync.aligned 1;');
    expect(ptx).toContain('issued 1 ahead');
    expect(ptx.slice(ptx.indexOf('\n$L_endtfor'))).toContain('wgmma.wait_group.sync.aligned 0;');
  });
});

describe('on the sim: a broken wgmma synchronization is caught', () => {
  const M = 64, N = 64, KMAX = 192;
  const a0 = f16Array(randF32(M * KMAX, 71)), b = f16Array(randF32(KMAX * N, 72));
  const fb = f16ToFloat32(b);
  const run = (o: Partial<CompileOptions>, K = 64): Float32Array => {
    const rt = simDevice();
    const compiled = compile(matmulAligned.f16.trace(TILE), { target: rt.target, numWarps: 4, numStages: 1, ptxas: false, specialization: ALIGNED, ...o });
    const dev = rt.native;
    const a = a0.subarray(0, M * K); // a [M, K] row-major; b's first K rows
    const bufs = [a, b.subarray(0, K * N), new Float32Array(M * N)].map((x) => {
      const p = dev.alloc(x.byteLength);
      dev.upload(p, x);
      return p;
    });
    try {
      dev.launch(compiled, [...bufs, M, N, K], [1, 1, 1]);
      dev.synchronize();
      return dev.download(bufs[2]!, new Float32Array(M * N));
    } finally {
      bufs.forEach((p) => dev.free(p));
    }
  };
  const maxErr = (c: Float32Array, K = 64): number => {
    const fa = f16ToFloat32(a0.subarray(0, M * K));
    let e = 0;
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += fa[i * K + k]! * fb[k * N + j]!;
      e = Math.max(e, Math.abs(c[i * N + j]! - s));
    }
    return e;
  };

  it('as compiled: right', () => {
    expect(simDevice().target).toBe('sm_90a');
    expect(maxErr(run({}))).toBeLessThan(1e-3);
  });

  it('without fence.proxy.async the wgmma reads what the async proxy saw: a wrong product', () => {
    gateTargets(matmulAligned.f16.trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 1, specialization: ALIGNED, wgmmaSabotage: 'no-proxy-fence' });
    expect(maxErr(run({ wgmmaSabotage: 'no-proxy-fence' }))).toBeGreaterThan(1);
  });

  it('pipelined (3 stages, 6 iterations): right as compiled, with the wgmma of each iteration in flight into the next', () => {
    const r = gateTargets(matmulAligned.f16.trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 3, specialization: ALIGNED })['sm_90a']!;
    expect(r.ptx).toContain('wgmma.wait_group.sync.aligned 1;');
    expect(maxErr(run({ numStages: 3 }, KMAX), KMAX)).toBeLessThan(1e-3);
  });

  it('pipelined without the wait in the loop: the wgmmas complete after the loop, reading stages the ring has overwritten', () => {
    gateTargets(matmulAligned.f16.trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 3, specialization: ALIGNED, wgmmaSabotage: 'no-wait' });
    expect(maxErr(run({ numStages: 3, wgmmaSabotage: 'no-wait' }, KMAX), KMAX)).toBeGreaterThan(1);
  });

  it('the option is checked', () => {
    expect(() => compile(matmulAligned.f16.trace(TILE), { target: 'sm_90a', wgmmaSabotage: 'x' as never })).toThrow(/wgmmaSabotage/);
  });

  // Last on the sim in this file: a fault is sticky on the context.
  it('without wgmma.wait_group the accumulator is read in flight: a named fault', () => {
    gateTargets(matmulAligned.f16.trace(TILE), ['sm_90a'], { numWarps: 4, numStages: 1, specialization: ALIGNED, wgmmaSabotage: 'no-wait' });
    expect(() => run({ wgmmaSabotage: 'no-wait' })).toThrow(/before a wgmma\.wait_group covers it/);
  });
});
