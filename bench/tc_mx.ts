// The mx_dot_scaled rows of `npm run bench:tc -- --target sm_100a`: the microscaled (OCP MX) matmul,
// mxfp8 (e4m3 x e4m3) and mxfp4 (e2m1 x e2m1, two codes a byte packed along K), e8m0 scales per 32
// elements along K, one 128x128 tile with BK = 128 (the tile of the corpus's dot_scaled kernel,
// scripts/corpus/triton_kernels_sm100.py), 4 warps, numStages 2, M = N = 128, K = 256, b stored
// [N, K] (K contiguous: the MX weight layout, which the block-scaled kinds read, K-major, without a
// transpose; the corpus kernel's b is [K, N]). Tessera's
// dotScaled (src/lang/dot_scaled.ts) runs on the block-scaled kinds (kind::mxf8f6f4 / kind::mxf4
// .block_scale, the scales copied into tensor memory by tcgen05.cp: compiler/tcgen05_scaled.ts),
// its operands and scales copied global -> shared by the cp.async ring (compiler/pipeline_scaled.ts);
// the `emulated` rows are its exact emulation (option blockScaled: false): every element decoded
// and scaled in f32, then an ordinary dot (tf32 for e4m3, bf16 for e2m1) on kind::tf32 / kind::f16. Triton 3.8
// (GPUTarget('cuda', 100, 32), its `.version 9.3` rewritten to 9.0 for our ptxas) issues the
// block-scaled kinds (kind::mxf8f6f4 / kind::mxf4 .block_scale) with the scales stored into tensor
// memory (tcgen05.st). Static figures from ptxas -arch sm_100a (no GPU); both PTX also run on the sim
// (as an sm_100) against an f64 JS reference, with the sim's warp instruction count.
import { compile } from '../src/compile/compile.js';
import type { ParamSpec } from '../src/compiler/axis_info.js';
import { f8e4m3Value } from '../src/ir/fp8.js';
import { e8m0Value, mxValue } from '../src/ir/mx.js';
import { arange, dotScaled, forLoop, load, multipleOf, ptr, store, zeros } from '../src/lang/index.js';
import { kernel, type Kernel } from '../src/runtime/kernel.js';
import { DeviceArray } from '../src/runtime/device_array.js';
import { loadModule } from '../src/runtime/native/foreign_module.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import { count, figureTable, forPtxas13, relErr, tritonFailed, type Column, type Row, type WsTools } from './tc_figure_table.js';

const TILE = { BM: 128, BN: 128, BK: 128 } as const;
const NUM_WARPS = 4;
/** Both compilers pipeline the K loop this deep (Tessera: the cp.async ring; Triton: its pipeliner). */
const NUM_STAGES = 2;
const [M, N, K] = [128, 128, 256];
const TOL = 1e-5;

type MxFormat = 'e4m3' | 'e2m1';
export const MX_ROWS: readonly { label: string; format: MxFormat }[] = [
  { label: 'mxfp8', format: 'e4m3' },
  { label: 'mxfp4', format: 'e2m1' },
];
const packed = (f: MxFormat): number => (f === 'e2m1' ? 2 : 1);

/** Triton's kernel: the corpus's dot_scaled (scripts/corpus/triton_kernels_sm100.py). */
const TRITON_SRC = `import triton
import triton.language as tl

@triton.jit
def dot_scaled(a, sa, b, sb, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               FA: tl.constexpr, FB: tl.constexpr):
    PA: tl.constexpr = 2 if FA == 'e2m1' else 1
    PB: tl.constexpr = 2 if FB == 'e2m1' else 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rka = tl.arange(0, BK // PA)
    rkb = tl.arange(0, BK // PB)
    rs = tl.arange(0, BK // 32)
    KS = tl.multiple_of(K // 32, 4)  # K is a multiple of BK = 128
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K // BK):
        av = tl.load(a + rm[:, None] * (K // PA) + (k * (BK // PA) + rka)[None, :])
        bv = tl.load(b + rn[None, :] * (K // PB) + (k * (BK // PB) + rkb)[:, None])
        sav = tl.load(sa + rm[:, None] * KS + (k * (BK // 32) + rs)[None, :])
        sbv = tl.load(sb + rn[:, None] * KS + (k * (BK // 32) + rs)[None, :])
        acc = tl.dot_scaled(av, sav, FA, bv, sbv, FB, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)
`;
const PARAMS = ['a', 'sa', 'b', 'sb', 'c', 'M', 'N', 'K'] as const;
const TRITON_SIGNATURE = {
  a: '*u8', sa: '*u8', b: '*u8', sb: '*u8', c: '*fp32', M: 'i32', N: 'i32', K: 'i32',
  BM: 'constexpr', BN: 'constexpr', BK: 'constexpr', FA: 'constexpr', FB: 'constexpr',
};

/** Tessera's kernel: the same loads (b [BK/p, BN] from b stored [N, K/p]), the same loop, dotScaled on the tiles (operands as u8 bit patterns, as Triton's). */
export function tesseraKernel(f: MxFormat): Kernel {
  const p = packed(f);
  const { BM, BN, BK } = TILE;
  return kernel(
    { name: 'dot_scaled', params: { a: ptr('u8'), sa: ptr('u8'), b: ptr('u8'), sb: ptr('u8'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32' } },
    ({ a, sa, b, sb, c, N: n, K: k }) => {
      // the scales' row stride K/32 is a multiple of 4 (K of BK = 128), told to both compilers
      const kp = k.floordiv(p), ks = multipleOf(k.floordiv(32), 4);
      const rm = arange(0, BM).expandDims(1), rn = arange(0, BN).expandDims(0), rnc = arange(0, BN).expandDims(1);
      const [acc] = forLoop(0, k.floordiv(BK), 1, [zeros([BM, BN], 'f32')], (it, acc) => {
        const av = load(a.add(rm.mul(kp).add(arange(0, BK / p).expandDims(0).add(it.mul(BK / p)))));
        const bv = load(b.add(rn.mul(kp).add(arange(0, BK / p).expandDims(1).add(it.mul(BK / p)))));
        const sc = arange(0, BK / 32).expandDims(0).add(it.mul(BK / 32));
        const sav = load(sa.add(rm.mul(ks).add(sc)));
        const sbv = load(sb.add(rnc.mul(ks).add(sc)));
        return [dotScaled(av, sav, f, bv, sbv, f, { acc: acc! })];
      });
      store(c.add(rm.mul(n).add(rn)), acc!);
    },
  );
}

interface Data { a: Uint8Array; sa: Uint8Array; b: Uint8Array; sb: Uint8Array; ref: Float64Array }

/** Random operands (finite codes), scales 2^-7..2^6, and the f64 reference of (a scaled)·(b scaled). */
function makeData(f: MxFormat, seed: number): Data {
  let x = seed;
  const rnd = (n: number): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) % n;
  const code = (): number => {
    if (f === 'e2m1') return rnd(16);
    for (;;) { const c = rnd(256); if ((c & 0x7f) !== 0x7f) return c; } // e4m3: no NaN
  };
  const value = (c: number): number => (f === 'e2m1' ? mxValue('e2m1', c) : f8e4m3Value(c));
  const ac = Array.from({ length: M * K }, code), bc = Array.from({ length: K * N }, code);
  const sa = Uint8Array.from({ length: M * (K / 32) }, () => 120 + rnd(14)), sb = Uint8Array.from({ length: N * (K / 32) }, () => 120 + rnd(14));
  const p = packed(f);
  // a [M, K/p] packed along K (low nibble first); b stored [N, K/p], packed along K likewise
  const a = new Uint8Array(M * (K / p)), b = new Uint8Array(N * (K / p));
  for (let m = 0; m < M; m++) for (let k = 0; k < K; k++) a[m * (K / p) + Math.floor(k / p)]! |= p === 2 ? ac[m * K + k]! << (4 * (k & 1)) : ac[m * K + k]!;
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) b[n * (K / p) + Math.floor(k / p)]! |= p === 2 ? bc[k * N + n]! << (4 * (k & 1)) : bc[k * N + n]!;
  const ref = new Float64Array(M * N);
  for (let m = 0; m < M; m++) for (let n = 0; n < N; n++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += value(ac[m * K + k]!) * e8m0Value(sa[m * (K / 32) + (k >> 5)]!) * value(bc[k * N + n]!) * e8m0Value(sb[n * (K / 32) + (k >> 5)]!);
    ref[m * N + n] = s;
  }
  return { a, sa, b, sb, ref };
}

/** One launch on the sim: the output and the warp instructions it took. */
async function simRun(sim: NativeRuntimeDevice, ptx: string, dynShared: number, d: Data): Promise<{ out: Float32Array; warpInstrs?: number }> {
  const fn = loadModule(ptx, { device: sim }).getFunction('dot_scaled');
  const bufs = [d.a, d.sa, d.b, d.sb].map((v) => DeviceArray.from(v, 'u8', { device: sim }));
  const c = DeviceArray.from(new Float32Array(M * N), 'f32', { device: sim });
  const user = [...bufs, c, M, N, K];
  try {
    // Triton's trailing scratch pointers get 0 (its global/profile scratch is empty here)
    await fn.launch({ grid: [M / TILE.BM, N / TILE.BN, 1], block: NUM_WARPS * 32, sharedBytes: dynShared, args: fn.params.map((_, i) => (i < user.length ? user[i] : 0)) });
    const warpInstrs = sim.native.simCounters()?.warpInstructions;
    return { out: (await c.toArray()) as Float32Array, ...(warpInstrs !== undefined ? { warpInstrs } : {}) };
  } finally {
    for (const a of [...bufs, c]) a.free();
  }
}

/** The tcgen05.mma forms in the PTX (kind and its qualifiers), e.g. kind::tf32 or kind::mxf4.block_scale.block32. */
export const mmaForms = (ptx: string): string => [...new Set([...ptx.matchAll(/tcgen05\.mma\.cta_group::\d\.(kind::[\w:.]+)/g)].map((m) => m[1]!))].join(',') || '-';
/** TMEM columns allocated (every tcgen05.alloc's immediate, summed; tc_figure_table.ts's tmemColumns takes the first). */
const tmemTotal = (ptx: string): number => [...ptx.matchAll(/tcgen05\.alloc\.cta_group::\d\.sync\.aligned\.shared::cta\.b32 \[[^\]]+\], (\d+);/g)].reduce((s, m) => s + Number(m[1]), 0);

/** A row and its sim run's warp instructions. */
interface MxRow extends Row { readonly warpInstrs?: number }
/** After ptxas's: TMEM columns, tcgen05.mma sites, tcgen05.st / tcgen05.cp sites, the sim's warp instructions. */
const MX_COLUMNS: readonly Column<MxRow>[] = [
  { head: 'TMEM', width: 6, cell: (ptx) => tmemTotal(ptx) },
  { head: 'mma', width: 5, cell: (ptx) => count(ptx, /\btcgen05\.mma\.cta_group/) },
  { head: 'st/cp', width: 7, cell: (ptx) => `${count(ptx, /\btcgen05\.st\b/)}/${count(ptx, /\btcgen05\.cp\b/)}` },
  { head: 'warp instrs', width: 13, cell: (_, __, r) => r.warpInstrs ?? 'n/a' },
];

/** Prints the table; sets process.exitCode = 1 when either kernel's output is wrong on the sim. */
export async function benchMx(out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): Promise<void> {
  out(`\nmx_dot_scaled (dotScaled / tl.dot_scaled, e8m0 scales per 32 along K): ${TILE.BM}x${TILE.BN}x${TILE.BK} tile (the corpus's Triton dot_scaled tile), ${NUM_WARPS} warps, numStages ${NUM_STAGES}, M ${M} N ${N} K ${K}, b stored [N, K]\n`);
  out('  Tessera\'s dotScaled issues the block-scaled kinds (kind::mxf8f6f4 / kind::mxf4 .block_scale), operands and scales copied\n');
  out('  global -> shared by its cp.async ring and the scales on into tensor memory by tcgen05.cp; its `emulated` rows (blockScaled: false)\n');
  out('  decode operands and scales to f32 in registers, then an ordinary tf32 (e4m3) or bf16 (e2m1) dot on kind::tf32 / kind::f16;\n');
  out('  Triton issues the block-scaled kinds with the scales stored into tensor memory (tcgen05.st).\n');
  out('  No GPU was used: registers, spills, SASS, shared bytes and TMEM columns come from ptxas -arch sm_100a and the PTX;\n');
  out('  warp instructions are counted by the sim (as an sm_100) running each PTX on the same inputs.\n');
  const tri = tools.triton(MX_ROWS.map((r) => ({
    key: `mx_${r.label}`, name: 'dot_scaled', src: TRITON_SRC, signature: TRITON_SIGNATURE,
    constexprs: { ...TILE, FA: r.format, FB: r.format }, num_warps: NUM_WARPS, num_stages: NUM_STAGES, divisible: [...PARAMS],
  })));
  if (tri instanceof Error) out(tritonFailed(tri));
  const print = figureTable<MxRow>(out, tools, 22, MX_COLUMNS, 'vs JS     MMA form');
  const spec = Object.fromEntries(PARAMS.map((n): [string, ParamSpec] => [n, { divisibleBy16: true }]));
  for (const r of MX_ROWS) {
    const d = makeData(r.format, r.format === 'e2m1' ? 29 : 31);
    const rows: [string, string | undefined, number, number][] = [];
    for (const blockScaled of [true, false]) {
      const ours = compile(tesseraKernel(r.format).trace({}), { target: 'sm_100a', numWarps: NUM_WARPS, numStages: NUM_STAGES, ptxas: false, specialization: spec, blockScaled });
      rows.push([`tessera ${r.label}${blockScaled ? '' : ' emulated'}`, ours.ptx, ours.metadata.sharedBytes, ours.metadata.dynamicShared ? ours.metadata.sharedBytes : 0]);
    }
    if (!(tri instanceof Error)) {
      const s = tri.shared[`mx_${r.label}`]!;
      rows.push([`triton ${tri.version} ${r.label}`, forPtxas13(tri.ptx[`mx_${r.label}`]), s, s]);
    }
    for (const [name, ptx, shared, dyn] of rows) {
      if (!ptx) continue;
      const run = await simRun(sim, ptx, dyn, d);
      const err = relErr(run.out, d.ref);
      if (!(err <= TOL)) process.exitCode = 1;
      const note = (p: string): string => `${err.toExponential(1)}${err <= TOL ? '' : ' MISMATCH'}  ${mmaForms(p)}`;
      print([{ name, ptx, shared, file: name.replace(/\W+/g, '_'), note, ...(run.warpInstrs !== undefined ? { warpInstrs: run.warpInstrs } : {}) }]);
    }
  }
}
