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
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type CompileResult } from '../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../src/ir/half.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import type { WsTools } from './tc_ws.js';
import { wsMatmul } from './ws_kernels.js';

const STAGES = 3;
const [M, N, K] = [256, 256, 64];
const GLUON = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'corpus', 'gluon_kernels_sm100.py');

const count = (ptx: string, re: RegExp): number => ptx.split('\n').filter((l) => re.test(l)).length;
const tmemColumns = (ptx: string): string => /tcgen05\.alloc\.cta_group::\d\.sync\.aligned\.shared::cta\.b32 \[[^\]]+\], (\d+);/.exec(ptx)?.[1] ?? '-';

/** The pair on the sim (grid [2, 1], cluster [2, 1, 1]): max relative error vs f64 JS and warp instructions. */
function simRun(sim: NativeRuntimeDevice, r: CompileResult): { err: number; warpInstrs?: number } {
  let x = 13;
  const rnd = (n: number): Float32Array => Float32Array.from({ length: n }, () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32) * 4 - 2);
  const a = f16Array(rnd(M * K)), b = f16Array(rnd(K * N));
  const dev = sim.native;
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
  try {
    dev.upload(ba, a);
    dev.upload(bb, b);
    dev.launch(r, [ba, bb, bc, M, N, K], [2, 1, 1], { cluster: [2, 1, 1] });
    dev.synchronize();
    const warpInstrs = dev.simCounters()?.warpInstructions;
    const c = new Float32Array(M * N);
    dev.download(bc, c);
    const [fa, fb] = [f16ToFloat32(a), f16ToFloat32(b)];
    let worst = 0, scale = 0;
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += fa[i * K + k]! * fb[k * N + j]!;
      scale = Math.max(scale, Math.abs(s));
      const d = Math.abs(c[i * N + j]! - s);
      worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
    }
    return { err: worst / Math.max(scale, 1e-30), ...(warpInstrs !== undefined ? { warpInstrs } : {}) };
  } finally {
    for (const p of [ba, bb, bc]) dev.free(p);
  }
}

/** Prints the row; sets process.exitCode = 1 when Tessera's result is wrong. */
export function bench2Cta(out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): void {
  out(`\nmatmul_2cta (a 256x256x64 tile on one CTA pair, tcgen05.mma.cta_group::2): f16 in, f32 out; figures from ptxas -arch sm_100a, no GPU\n`);
  const tri = tools.triton([{
    key: 'mm2cta', name: 'matmul_2cta', src: readFileSync(GLUON, 'utf8'), gluon: true, num_ctas: 2,
    signature: { a_ptr: '*fp16', b_ptr: '*fp16', c_ptr: '*fp32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr' },
    constexprs: { BM: 256, BN: 256, BK: 64 }, num_warps: 4, num_stages: 1,
  }]);
  if (tri instanceof Error) out(`  Triton failed: ${tri.message.split('\n').slice(-3).join(' | ')}\n`);
  out(`  ${'kernel'.padEnd(52)}${'regs'.padStart(6)}${'spills'.padStart(8)}${'SASS'.padStart(7)}${'smem B'.padStart(9)}${'mma'.padStart(5)}${'TMA'.padStart(5)}${'TMEM'.padStart(6)}${'waits'.padStart(7)}  sim (one pair, K 64)\n`);
  const pair = (ws: boolean): CompileResult => compile(wsMatmul.trace({ BM: 128, BN: 256, BK: 64, WS: ws }), { target: 'sm_100a', numWarps: 8, numStages: STAGES, ptxas: false, twoCta: true, clusterDims: [2, 1, 1] });
  const [ours, oursWs] = [pair(false), pair(true)];
  const rows: [string, string | undefined, number, string, CompileResult?][] = [
    ['tessera twoCta 128x256x64/CTA 8w, TMA ring', ours.ptx, ours.metadata.sharedBytes, 'tessera_2cta', ours],
    ['tessera twoCta 128x256x64/CTA 8w, warp-specialized', oursWs.ptx, oursWs.metadata.sharedBytes, 'tessera_2cta_ws', oursWs],
  ];
  if (!(tri instanceof Error)) rows.push([`triton ${tri.version} gluon 256x256x64 4w, no TMA`, tri.ptx['mm2cta']?.replace(/^\.version 9\.\d+$/m, '.version 9.0'), tri.shared['mm2cta']!, 'triton_2cta']);
  for (const [name, ptx, shared, file, r] of rows) {
    if (!ptx) continue;
    const f = tools.figures(ptx, shared, join(tools.dir, file));
    let run = 'n/a';
    if (r) {
      const s = simRun(sim, r);
      if (!(s.err <= 1e-5)) process.exitCode = 1;
      run = `vs JS ${s.err.toExponential(1)}${s.err <= 1e-5 ? '' : ' MISMATCH'}, warp instructions ${s.warpInstrs ?? 'n/a'}`;
    }
    out(`  ${name.padEnd(52)}${String(f.registers).padStart(6)}${String(f.spills).padStart(8)}${(f.sass === undefined ? 'n/a' : String(f.sass)).padStart(7)}${String(f.shared).padStart(9)}${String(count(ptx, /tcgen05\.mma\.cta_group::2/)).padStart(5)}${String(f.tma).padStart(5)}${tmemColumns(ptx).padStart(6)}${String(count(ptx, /mbarrier\.try_wait/)).padStart(7)}  ${run}\n`);
  }
}
