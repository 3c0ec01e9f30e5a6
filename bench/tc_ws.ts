// The warp-specialized row of `npm run bench:tc -- --target sm_90a`: Tessera's descriptor matmul
// with `warpSpecialize: true` (128x256x64, 8 consumer warps, 3 stages; test/e2e/ws_cases.ts)
// beside Triton 3.8's host-descriptor matmul with `tl.range(..., warp_specialize=True)` at the same
// tile, and both compilers' plain (no warp specialization) kernels. Static figures for all four
// (ptxas registers and spills, SASS, shared memory, and what the PTX holds: setmaxnreg, mbarrier
// waits, TMA, wgmma); Tessera's kernels also run on the sim (against an f64 JS reference, with the
// sim's warp-instruction count). Triton's run needs its CUtensorMap arguments encoded as its launcher
// does, which this bench's foreign-PTX launch does not do: its dynamic figures are n/a.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile, type CompileResult } from '../src/compile/compile.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import { count, figureTable, simMatmul, tritonFailed, type Column, type Row, type WsTools } from './tc_figure_table.js';
import { persistentWsMatmul, persistentWsMatmulBT8, wsMatmul } from './ws_kernels.js';
import { clusterPersistentWsMatmul } from './ws_cluster_kernels.js';

const TILE = { BM: 128, BN: 256, BK: 64 };
const NUM_WARPS = 8;
const STAGES = 3;

/** Triton's kernel: the corpus's host_desc_matmul_ws (scripts/corpus/triton_kernels_sm90.py) with an f32 C, as ours. */
const tritonSrc = (ws: boolean): string => `import triton
import triton.language as tl

@triton.jit
def ws_matmul(ad, bd, cd, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK)${ws ? ', warp_specialize=True' : ''}):
        av = ad.load([pid_m * BM, k * BK])
        bv = bd.load([k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    cd.store([pid_m * BM, pid_n * BN], acc)
`;
const TRITON_SIGNATURE = {
  ad: `tensordesc<fp16[${TILE.BM}, ${TILE.BK}]>`, bd: `tensordesc<fp16[${TILE.BK}, ${TILE.BN}]>`, cd: `tensordesc<fp32[${TILE.BM}, ${TILE.BN}]>`,
  K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr',
};

export type { WsTools } from './tc_figure_table.js';

const structure = (ptx: string): string => {
  const inc = /setmaxnreg\.inc\.sync\.aligned\.u32 (\d+)/.exec(ptx)?.[1], dec = /setmaxnreg\.dec\.sync\.aligned\.u32 (\d+)/.exec(ptx)?.[1];
  const threads = /\.reqntid (\d+)/.exec(ptx)?.[1] ?? '?';
  const cluster = /\.reqnctapercluster (\d+)/.exec(ptx)?.[1];
  const copies = count(ptx, /\.multicast::cluster/);
  // Triton marks a clustered kernel .reqnctapercluster; ours takes its cluster shape at launch
  const mc = `${cluster ? `, .reqnctapercluster ${cluster}` : ''}${cluster || copies ? `, ${copies} multicast copies` : ''}`;
  return `${threads} threads, setmaxnreg ${dec || inc ? `dec ${dec ?? '-'} / inc ${inc ?? '-'}` : 'none'}, ${count(ptx, /mbarrier\.try_wait/)} mbarrier wait sites${mc}`;
};

/** The columns after ptxas's of both tables here: what the PTX holds. */
const WGMMA_TMA: readonly Column[] = [{ head: 'wgmma', width: 7, cell: (_, f) => f.wgmma }, { head: 'TMA', width: 5, cell: (_, f) => f.tma }];
const row = ([name, ptx, shared, file]: [string, string | undefined, number, string]): Row => ({ name, ptx, shared, file, note: structure });

/** Prints the row; sets process.exitCode = 1 when Tessera's result is wrong. */
export function benchWs(out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): void {
  const cx = { ...TILE };
  out(`\nws_matmul (warp-specialized): BM=${TILE.BM} BN=${TILE.BN} BK=${TILE.BK}, ${NUM_WARPS} warps (Tessera: consumers; + a producer warpgroup), numStages ${STAGES}\n`);
  const ours = (ws: boolean): CompileResult => compile(wsMatmul.trace({ ...cx, WS: ws }), { target: 'sm_90a', numWarps: NUM_WARPS, numStages: STAGES, ptxas: false });
  const tk = (ws: boolean) => ({ key: `ws_${ws}`, name: 'ws_matmul', src: tritonSrc(ws), signature: TRITON_SIGNATURE, constexprs: cx, num_warps: NUM_WARPS, num_stages: STAGES });
  const tri = tools.triton([tk(true), tk(false)]);
  const rows: [string, string | undefined, number, string][] = [];
  const [ows, oplain] = [ours(true), ours(false)];
  // the plain TMA ring in 2x1 clusters: B multicast (codegen/async/tma_multicast.ts)
  const omc = compile(wsMatmul.trace({ ...cx, WS: false }), { target: 'sm_90a', numWarps: NUM_WARPS, numStages: STAGES, ptxas: false, clusterDims: [2, 1, 1] });
  rows.push(['tessera warpSpecialize', ows.ptx, ows.metadata.sharedBytes, 'tessera_ws'], ['tessera plain', oplain.ptx, oplain.metadata.sharedBytes, 'tessera_plain'],
    ['tessera plain, 2x1 multicast', omc.ptx, omc.metadata.sharedBytes, 'tessera_multicast']);
  if (tri instanceof Error) out(tritonFailed(tri));
  else rows.push([`triton ${tri.version} warp_specialize`, tri.ptx['ws_true'], tri.shared['ws_true']!, 'triton_ws'], [`triton ${tri.version} plain`, tri.ptx['ws_false'], tri.shared['ws_false']!, 'triton_plain']);
  figureTable(out, tools, 34, WGMMA_TMA, 'structure')(rows.map(row));
  if (!(tri instanceof Error)) {
    const same = tri.ptx['ws_true'] === tri.ptx['ws_false'];
    const noop = !/setmaxnreg/.test(tri.ptx['ws_true'] ?? '');
    out(`  Triton's warp_specialize=True at this tile: ${same ? 'the same PTX as without the flag' : 'a different PTX'}${noop ? ', no setmaxnreg and no producer partition: a no-op here (the issue says so too)' : ''}\n`);
    writeFileSync(join(tools.dir, 'triton_ws.ptx'), tri.ptx['ws_true'] ?? '');
  }
  out("  registers: ptxas's launch count (.maxnreg for Tessera's warp-specialized kernel; its consumers run at the setmaxnreg.inc count)\n");
  for (const [name, r, cm] of [['tessera warpSpecialize', ows, 1], ['tessera plain', oplain, 1], ['tessera plain, 2x1 multicast', omc, 2]] as const) {
    // one 128x256 tile a CTA, K = 512; a cluster of cm tiles along M: its counters per tile
    const s = simMatmul(sim, r, { M: TILE.BM * cm, N: TILE.BN, K: 512, seed: 7, grid: [cm, 1, 1], ...(cm > 1 ? { cluster: [cm, 1, 1] as const } : {}), per: cm });
    const ok = s.err <= 1e-5;
    if (!ok) process.exitCode = 1;
    out(`  sim (${cm > 1 ? `a cluster of ${cm} tiles, per tile` : 'one tile'}, K 512): ${name}: vs JS ${s.err.toExponential(1)}${ok ? '' : '  MISMATCH'}, warp instructions ${s.warpInstrs ?? 'n/a'}, global load requests ${s.loads ?? 'n/a'}\n`);
  }
  out("  multicast: each CTA of the 2x1 cluster loads half of B's boxes and multicasts them to both (docs/compiler.md, TMA multicast in clusters);\n"
    + "  the sim's warp instructions count the mbarrier spin loops, which grow while a CTA waits for its peer's half (not a kernel figure)\n");
  out("  Triton's kernels are not run on the sim here (their CUtensorMap arguments are not encoded by this bench): dynamic figures n/a\n");
  benchPersistent(out, tools);
}

/** Triton's persistent tensor-descriptor matmul (tutorial 09's TMA form): f16 in and out, grouped tiles, a program per SM. */
const tritonPersistentSrc = `import triton
import triton.language as tl

@triton.jit
def persistent_matmul(ad, bd, cd, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    in_group = GROUP_M * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=True):
        first_m = (tile // in_group) * GROUP_M
        size_m = min(tiles_m - first_m, GROUP_M)
        pm = first_m + (tile % size_m)
        pn = (tile % in_group) // size_m
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(ad.load([pm * BM, k * BK]), bd.load([k * BK, pn * BN]), acc)
        cd.store([pm * BM, pn * BN], acc.to(tl.float16))
`;

/**
 * Triton's fp8 form of it, written by us in the same style: e4m3 A [M, K] and B^T [N, K] (its
 * B tile transposed in the dot, as tutorial 09's fp8 path feeds wgmma K-major 8-bit operands), f16 out.
 */
const tritonPersistentFp8Src = tritonPersistentSrc
  .replace('def persistent_matmul(ad, bd,', 'def persistent_matmul_fp8(ad, btd,')
  .replace('bd.load([k * BK, pn * BN])', 'btd.load([pn * BN, k * BK]).T');

/**
 * The persistent rows: Tessera's persistentWsMatmul (grid = SM count, 128x256x64, 8 consumer
 * warps; the producer runs the tile loop and loads the next tile during the epilogue) and its
 * plain form (its ring prefetches the next tile's first stages before the epilogue:
 * codegen/pipeline/ring_prefetch.ts), beside Triton's persistent descriptor matmul at the same tile. Static figures only
 * (ptxas, no GPU); the e2e tests check the results on the sim (test/e2e/persistent_ws_overlap.test.ts).
 */
function benchPersistent(out: (s: string) => void, tools: WsTools): void {
  const cx = { ...TILE, GROUP_M: 8 };
  out(`\npersistent TMA matmul (grid = SM count, grouped tiles, f16 out through stmatrix + TMA store): BM=${TILE.BM} BN=${TILE.BN} BK=${TILE.BK}, ${NUM_WARPS} warps, numStages ${STAGES}\n`);
  const ours = (ws: boolean): CompileResult => compile(persistentWsMatmul.trace({ ...cx, WS: ws }), { target: 'sm_90a', numWarps: NUM_WARPS, numStages: STAGES, ptxas: false });
  const scalars = { M: 'i32', N: 'i32', K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr', GROUP_M: 'constexpr', NUM_SMS: 'constexpr' };
  const cd = `tensordesc<fp16[${TILE.BM}, ${TILE.BN}]>`;
  const f16Sig = { ad: `tensordesc<fp16[${TILE.BM}, ${TILE.BK}]>`, bd: `tensordesc<fp16[${TILE.BK}, ${TILE.BN}]>`, cd, ...scalars };
  const common = { constexprs: { ...cx, NUM_SMS: 132 }, num_warps: NUM_WARPS, num_stages: STAGES };
  const tri = tools.triton([
    { key: 'persistent', name: 'persistent_matmul', src: tritonPersistentSrc, signature: f16Sig, ...common },
    // fp8: the same loop on e4m3 A [M, K] and B^T [N, K] (BK stays 64, as our fp8 row)
    { key: 'persistent_fp8', name: 'persistent_matmul_fp8', src: tritonPersistentFp8Src, signature: { ad: `tensordesc<fp8e4nv[${TILE.BM}, ${TILE.BK}]>`, btd: `tensordesc<fp8e4nv[${TILE.BN}, ${TILE.BK}]>`, cd, ...scalars }, ...common },
    // clusters of 2 CTAs (num_ctas=2): the same source; what Triton does with the cluster is printed below
    { key: 'persistent_2cta', name: 'persistent_matmul', src: tritonPersistentSrc, signature: f16Sig, ...common, num_ctas: 2 },
  ]);
  const [ows, oplain] = [ours(true), ours(false)];
  // fp8 (e4m3, B given as B^T [N, K]: K-major stages), the same structure (test/e2e/persistent_ws_fp8.test.ts)
  const o8 = compile(persistentWsMatmulBT8.trace({ ...cx, WS: true }), { target: 'sm_90a', numWarps: NUM_WARPS, numStages: STAGES, ptxas: false });
  // clusters 2x1 (B multicast along M) over cluster tiles (test/e2e/ws_multicast_persistent.test.ts)
  const omc = compile(clusterPersistentWsMatmul.trace({ ...cx, CX: 2, CY: 1, WS: true }), { target: 'sm_90a', numWarps: NUM_WARPS, numStages: STAGES, ptxas: false, clusterDims: [2, 1, 1] });
  const t = tri instanceof Error ? undefined : tri;
  if (tri instanceof Error) out(tritonFailed(tri));
  // each Triton kernel beside ours (rows whose PTX is undefined are left out)
  const rows: [string, string | undefined, number, string][] = [
    ['tessera persistent warpSpecialize', ows.ptx, ows.metadata.sharedBytes, 'tessera_pws'],
    ['tessera persistent plain', oplain.ptx, oplain.metadata.sharedBytes, 'tessera_pplain'],
    [`triton ${t?.version} persistent`, t?.ptx['persistent'], t?.shared['persistent'] ?? 0, 'triton_persistent'],
    ['tessera persistent fp8 warpSpec.', o8.ptx, o8.metadata.sharedBytes, 'tessera_pws_fp8'],
    [`triton ${t?.version} persistent fp8`, t?.ptx['persistent_fp8'], t?.shared['persistent_fp8'] ?? 0, 'triton_persistent_fp8'],
    ['tessera persistent WS, 2x1 mcast', omc.ptx, omc.metadata.sharedBytes, 'tessera_pws_mc'],
    [`triton ${t?.version} persistent, num_ctas=2`, t?.ptx['persistent_2cta'], t?.shared['persistent_2cta'] ?? 0, 'triton_persistent_2cta'],
  ];
  figureTable(out, tools, 34, WGMMA_TMA, 'structure')(rows.map(row));
  out(`  2x1 mcast row: grid [2, 1, SMs / 2] in clusters [2, 1, 1] walking cluster tiles; each CTA loads half of B's boxes and multicasts them (${(omc.ptx.match(/\.multicast::cluster \[/g) ?? []).length} multicast copy instructions in the PTX)\n`);
  const c2 = t?.ptx['persistent_2cta'];
  if (c2) {
    const wg = /wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k/.exec(c2)?.[1];
    out(`  num_ctas=2 row: Triton ${t!.version} cc 90 marks the kernel .reqnctapercluster ${/\.reqnctapercluster (\d+)/.exec(c2)?.[1] ?? '?'} and ${/\.multicast::cluster/.test(c2) ? 'multicasts' : 'emits no TMA multicast (no .multicast::cluster)'}: `
      + `it splits each ${TILE.BM}x${TILE.BN} tile between the 2 CTAs of a cluster (wgmma n${wg ?? '?'}: each CTA computes ${TILE.BM}x${TILE.BN / 2}, loads its half of B and the whole A tile itself), so A is read twice per tile\n`);
  }
  out("  fp8 rows: e4m3 A [M, K] and B^T [N, K] (wgmma reads 8-bit operands K-major), f32 accumulate, f16 out; Triton's is the persistent kernel above with B^T's tile transposed in the dot\n");
  out('  figures from ptxas 13.0 and the PTX, no GPU\n');
}
