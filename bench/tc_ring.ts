// The TMA-ring rows of `npm run bench:tc -- --target sm_100a`: Tessera's descriptor matmul
// (bench/ws_kernels.ts with WS false: the K loop on the TMA ring of codegen/pipeline/tcgen05_ring.ts,
// its tcgen05 MMAs in flight across iterations) beside Triton 3.8's host-descriptor matmul for
// GPUTarget('cuda', 100, 32) at the same tile, warps and stages (its `.version 9.3` rewritten to
// 9.0 for our ptxas). Static figures from ptxas -arch sm_100a (no GPU): registers, spills, SASS,
// shared memory, tcgen05.mma and TMA copies in the PTX, TMEM columns allocated, mbarrier wait
// sites. Tessera's kernels also run on the sim (against an f64 JS reference, with the sim's warp
// instruction count); Triton's need CUtensorMap arguments encoded as its launcher does, which
// this bench's foreign-PTX launch does not do: their dynamic figures are n/a.
// The `ws` rows: the same kernels with `warpSpecialize: true` (codegen/pipeline/ws_tcgen05.ts: a
// load warp, an MMA warp, the kernel's warps as the epilogue) beside Triton's with
// `tl.range(..., warp_specialize=True)`.
import { compile } from '../src/compile/compile.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import { count, figureTable, forPtxas13, simMatmul, simNote, tmemColumns, tritonFailed, type Row, type WsTools } from './tc_figure_table.js';
import { wsMatmul, wsMatmulBT8 } from './ws_kernels.js';

const STAGES = 3;
/** The rows: 128 x 128 on 4 warps (TMEM 128 columns) and 128 x 256 on 8 (256 columns). */
const TILES = [
  { BM: 128, BN: 128, BK: 64, numWarps: 4, dtype: 'f16', ws: false },
  { BM: 128, BN: 256, BK: 64, numWarps: 8, dtype: 'f16', ws: false },
  // e4m3: b as B^T [N, K] transposed in the loop (the stage K-major, kind::f8f6f4), BK 128 = 128 bytes
  { BM: 128, BN: 128, BK: 128, numWarps: 4, dtype: 'e4m3', ws: false },
  // warp-specialized (a load warp and an MMA warp beside the numWarps epilogue warps)
  { BM: 128, BN: 128, BK: 64, numWarps: 4, dtype: 'f16', ws: true },
  { BM: 128, BN: 256, BK: 64, numWarps: 8, dtype: 'f16', ws: true },
] as const;
type Tile = (typeof TILES)[number];

/** Triton's kernel: the same loop over host tensor descriptors, an f32 C. */
const TRITON_SRC = `import triton
import triton.language as tl

@triton.jit
def ws_matmul(ad, bd, cd, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = ad.load([pid_m * BM, k * BK])
        bv = bd.load([k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    cd.store([pid_m * BM, pid_n * BN], acc)
`;
/** The e4m3 twin: bd describes B^T [N, K], transposed in the loop (as ours). */
const TRITON_SRC_FP8 = `import triton
import triton.language as tl

@triton.jit
def ws_matmul_bt(ad, bd, cd, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = ad.load([pid_m * BM, k * BK])
        bv = bd.load([pid_n * BN, k * BK])
        acc = tl.dot(av, bv.T, acc)
    cd.store([pid_m * BM, pid_n * BN], acc)
`;
const signature = (t: Tile): Record<string, string> => (t.dtype === 'f16' ? {
  ad: `tensordesc<fp16[${t.BM}, ${t.BK}]>`, bd: `tensordesc<fp16[${t.BK}, ${t.BN}]>`, cd: `tensordesc<fp32[${t.BM}, ${t.BN}]>`,
  K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr',
} : {
  ad: `tensordesc<fp8e4nv[${t.BM}, ${t.BK}]>`, bd: `tensordesc<fp8e4nv[${t.BN}, ${t.BK}]>`, cd: `tensordesc<fp32[${t.BM}, ${t.BN}]>`,
  K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr',
});

/** Prints the rows; sets process.exitCode = 1 when Tessera's result is wrong. */
export function benchRing(out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): void {
  out(`\nring_matmul (descriptor loads on the TMA ring, tcgen05 MMAs in flight): f16 (e4m3: b as B^T, transposed in the loop) in, f32 out, numStages ${STAGES}; figures from ptxas -arch sm_100a, no GPU\n`);
  const key = (t: Tile): string => `ring_${t.dtype}_${t.BN}${t.ws ? '_ws' : ''}`;
  const src = (t: Tile): string => {
    const plain = t.dtype === 'f16' ? TRITON_SRC : TRITON_SRC_FP8;
    return t.ws ? plain.replace('range(0, tl.cdiv(K, BK))', 'tl.range(0, tl.cdiv(K, BK), warp_specialize=True)') : plain;
  };
  const tri = tools.triton(TILES.map((t) => ({ key: key(t), name: t.dtype === 'f16' ? 'ws_matmul' : 'ws_matmul_bt', src: src(t), signature: signature(t), constexprs: { BM: t.BM, BN: t.BN, BK: t.BK }, num_warps: t.numWarps, num_stages: STAGES })));
  if (tri instanceof Error) out(tritonFailed(tri));
  const rows = figureTable(out, tools, 40, [
    { head: 'mma', width: 5, cell: (ptx) => count(ptx, /tcgen05\.mma\.cta_group/) },
    { head: 'TMA', width: 5, cell: (_, f) => f.tma },
    { head: 'TMEM', width: 6, cell: tmemColumns },
    { head: 'waits', width: 7, cell: (ptx) => count(ptx, /mbarrier\.try_wait/) },
  ], 'sim (one tile, K 512)');
  for (const t of TILES) {
    const label = `${t.dtype} ${t.BM}x${t.BN}x${t.BK} ${t.numWarps}w${t.ws ? ' ws' : ''}`;
    const ours = compile((t.dtype === 'f16' ? wsMatmul : wsMatmulBT8).trace({ BM: t.BM, BN: t.BN, BK: t.BK, WS: t.ws }), { target: 'sm_100a', numWarps: t.numWarps, numStages: STAGES, ptxas: false });
    // one tile on the sim, K = 512 (e4m3: a [M, K] and bt [N, K])
    const sim1 = (): string => simNote(simMatmul(sim, ours, { M: t.BM, N: t.BN, K: 512, seed: 11, grid: [1, 1, 1], e4m3BT: t.dtype === 'e4m3' }));
    const pair: Row[] = [{ name: `tessera ${label}`, ptx: ours.ptx, shared: ours.metadata.sharedBytes, file: `tessera_${key(t)}`, note: sim1 }];
    if (!(tri instanceof Error)) pair.push({ name: `triton ${tri.version} ${label}`, ptx: forPtxas13(tri.ptx[key(t)]), shared: tri.shared[key(t)]!, file: `triton_${key(t)}`, note: () => 'n/a' });
    rows(pair);
  }
}
