// The 2-CTA row of `npm run bench:tc -- --target sm_100a`: a 256 x 256 x 64 f16 matmul tile on one
// CTA pair. Tessera: the descriptor matmul (bench/ws_kernels.ts) with 128 x 256 tiles on 8 warps,
// compiled with `twoCta` for clusterDims [2, 1, 1] (codegen/pipeline/tcgen05_pair.ts: one
// tcgen05.mma.cta_group::2 per k-step on the TMA ring, each CTA loading half of B), and with WS
// true (ws_tcgen05_pair.ts: load and MMA warps, the odd CTA's stage-full relayed). Triton 3.8:
// the Gluon kernel of the sm_100 corpus (scripts/corpus/gluon_kernels_sm100.py matmul_2cta,
// TensorMemoryLayout(two_ctas=True), num_ctas 2; tl.dot has no two_ctas option in 3.8) at BM 256,
// BN 256, BK 64 on its 4 warps (its layouts fix warps_per_cta [4, 1]); it loads its operands
// through registers (no TMA) for one K step. Its `.version` is rewritten for our ptxas. Static
// figures from ptxas -arch sm_100a (no GPU); Tessera's kernel also runs on the sim as a [2, 1, 1]
// cluster (against an f64 JS reference, with the sim's warp instruction count); Triton's is n/a
// here (this bench launches foreign PTX without clusters).
import { readFileSync } from 'node:fs';
import { compile, type CompileResult } from '../src/compile/compile.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import { count, figureTable, forPtxas13, repoFile, simMatmul, simNote, tmemColumns, tritonFailed, type Row, type WsTools } from './tc_figure_table.js';
import { wsMatmul } from './ws_kernels.js';

const STAGES = 3;
const [M, N, K] = [256, 256, 64];
const GLUON = repoFile('scripts', 'corpus', 'gluon_kernels_sm100.py');

/**
 * Tessera's rows, each a 256 x 256 x 64 tile on one CTA pair run on the sim (grid [2, 1, 1],
 * cluster [2, 1, 1]) against an f64 JS reference: a row more is one entry more here.
 */
const TESSERA: readonly { readonly name: string; readonly file: string; build(): CompileResult }[] = [
  {
    name: 'tessera twoCta 128x256x64/CTA 8w, TMA ring', file: 'tessera_2cta',
    build: () => compile(wsMatmul.trace({ BM: 128, BN: 256, BK: 64, WS: false }), { target: 'sm_100a', numWarps: 8, numStages: STAGES, ptxas: false, twoCta: true, clusterDims: [2, 1, 1] }),
  },
  {
    name: 'tessera twoCta 128x256x64/CTA 8w, warp-specialized', file: 'tessera_2cta_ws',
    build: () => compile(wsMatmul.trace({ BM: 128, BN: 256, BK: 64, WS: true }), { target: 'sm_100a', numWarps: 8, numStages: STAGES, ptxas: false, twoCta: true, clusterDims: [2, 1, 1] }),
  },
];

/** Prints the rows; sets process.exitCode = 1 when a Tessera result is wrong. */
export function bench2Cta(out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): void {
  out(`\nmatmul_2cta (a 256x256x64 tile on one CTA pair, tcgen05.mma.cta_group::2): f16 in, f32 out; figures from ptxas -arch sm_100a, no GPU\n`);
  const tri = tools.triton([{
    key: 'mm2cta', name: 'matmul_2cta', src: readFileSync(GLUON, 'utf8'), gluon: true, num_ctas: 2,
    signature: { a_ptr: '*fp16', b_ptr: '*fp16', c_ptr: '*fp32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr' },
    constexprs: { BM: 256, BN: 256, BK: 64 }, num_warps: 4, num_stages: 1,
  }]);
  if (tri instanceof Error) out(tritonFailed(tri));
  const rows: Row[] = TESSERA.map((t) => {
    const r = t.build();
    return { name: t.name, ptx: r.ptx, shared: r.metadata.sharedBytes, file: t.file, note: () => simNote(simMatmul(sim, r, { M, N, K, seed: 13, grid: [2, 1, 1], cluster: [2, 1, 1] })) };
  });
  if (!(tri instanceof Error)) rows.push({ name: `triton ${tri.version} gluon 256x256x64 4w, no TMA`, ptx: forPtxas13(tri.ptx['mm2cta']), shared: tri.shared['mm2cta']!, file: 'triton_2cta', note: () => 'n/a' });
  figureTable(out, tools, 52, [
    { head: 'mma', width: 5, cell: (ptx) => count(ptx, /tcgen05\.mma\.cta_group::2/) },
    { head: 'TMA', width: 5, cell: (_, f) => f.tma },
    { head: 'TMEM', width: 6, cell: tmemColumns },
    { head: 'waits', width: 7, cell: (ptx) => count(ptx, /mbarrier\.try_wait/) },
  ], 'sim (one pair, K 64)')(rows);
}
