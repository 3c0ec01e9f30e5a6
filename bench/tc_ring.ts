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
import { join } from 'node:path';
import { compile, type CompileResult } from '../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../src/ir/half.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import type { WsTools } from './tc_ws.js';
import { wsMatmul, wsMatmulBT8 } from './ws_kernels.js';
import { f8e4m3Array, f8e4m3ToFloat32 } from '../src/ir/fp8.js';

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

const count = (ptx: string, re: RegExp): number => ptx.split('\n').filter((l) => re.test(l)).length;
const tmemColumns = (ptx: string): string => /tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[[^\]]+\], (\d+);/.exec(ptx)?.[1] ?? '-';

/** One tile on the sim, K = 512: max relative error vs f64 JS and warp instructions. */
function simRun(sim: NativeRuntimeDevice, r: CompileResult, t: Tile): { err: number; warpInstrs?: number } {
  const [M, N, K] = [t.BM, t.BN, 512];
  let x = 11;
  const rnd = (n: number): Float32Array => Float32Array.from({ length: n }, () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32) * 4 - 2);
  const fp8 = t.dtype === 'e4m3';
  // e4m3: a [M, K] and bt [N, K] codes of values in [-2, 2)
  const a = fp8 ? f8e4m3Array(rnd(M * K)) : f16Array(rnd(M * K)), b = fp8 ? f8e4m3Array(rnd(N * K)) : f16Array(rnd(K * N));
  const dev = sim.native;
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
  try {
    dev.upload(ba, a);
    dev.upload(bb, b);
    dev.launch(r, [ba, bb, bc, M, N, K], [1, 1, 1]);
    dev.synchronize();
    const warpInstrs = dev.simCounters()?.warpInstructions;
    const c = new Float32Array(M * N);
    dev.download(bc, c);
    const [fa, fb] = fp8 ? [f8e4m3ToFloat32(a as Uint8Array), f8e4m3ToFloat32(b as Uint8Array)] : [f16ToFloat32(a as Uint16Array), f16ToFloat32(b as Uint16Array)];
    let worst = 0, scale = 0;
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += fa[i * K + k]! * (fp8 ? fb[j * K + k]! : fb[k * N + j]!);
      scale = Math.max(scale, Math.abs(s));
      const d = Math.abs(c[i * N + j]! - s);
      worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
    }
    return { err: worst / Math.max(scale, 1e-30), ...(warpInstrs !== undefined ? { warpInstrs } : {}) };
  } finally {
    for (const p of [ba, bb, bc]) dev.free(p);
  }
}

/** Prints the rows; sets process.exitCode = 1 when Tessera's result is wrong. */
export function benchRing(out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): void {
  out(`\nring_matmul (descriptor loads on the TMA ring, tcgen05 MMAs in flight): f16 (e4m3: b as B^T, transposed in the loop) in, f32 out, numStages ${STAGES}; figures from ptxas -arch sm_100a, no GPU\n`);
  const key = (t: Tile): string => `ring_${t.dtype}_${t.BN}${t.ws ? '_ws' : ''}`;
  const src = (t: Tile): string => {
    const plain = t.dtype === 'f16' ? TRITON_SRC : TRITON_SRC_FP8;
    return t.ws ? plain.replace('range(0, tl.cdiv(K, BK))', 'tl.range(0, tl.cdiv(K, BK), warp_specialize=True)') : plain;
  };
  const tri = tools.triton(TILES.map((t) => ({ key: key(t), name: t.dtype === 'f16' ? 'ws_matmul' : 'ws_matmul_bt', src: src(t), signature: signature(t), constexprs: { BM: t.BM, BN: t.BN, BK: t.BK }, num_warps: t.numWarps, num_stages: STAGES })));
  if (tri instanceof Error) out(`  Triton failed: ${tri.message.split('\n').slice(-3).join(' | ')}\n`);
  out(`  ${'kernel'.padEnd(40)}${'regs'.padStart(6)}${'spills'.padStart(8)}${'SASS'.padStart(7)}${'smem B'.padStart(9)}${'mma'.padStart(5)}${'TMA'.padStart(5)}${'TMEM'.padStart(6)}${'waits'.padStart(7)}  sim (one tile, K 512)\n`);
  for (const t of TILES) {
    const label = `${t.dtype} ${t.BM}x${t.BN}x${t.BK} ${t.numWarps}w${t.ws ? ' ws' : ''}`;
    const ours = compile((t.dtype === 'f16' ? wsMatmul : wsMatmulBT8).trace({ BM: t.BM, BN: t.BN, BK: t.BK, WS: t.ws }), { target: 'sm_100a', numWarps: t.numWarps, numStages: STAGES, ptxas: false });
    const rows: [string, string | undefined, number, string][] = [[`tessera ${label}`, ours.ptx, ours.metadata.sharedBytes, `tessera_${key(t)}`]];
    if (!(tri instanceof Error)) rows.push([`triton ${tri.version} ${label}`, tri.ptx[key(t)]?.replace(/^\.version 9\.\d+$/m, '.version 9.0'), tri.shared[key(t)]!, `triton_${key(t)}`]);
    for (const [name, ptx, shared, file] of rows) {
      if (!ptx) continue;
      const f = tools.figures(ptx, shared, join(tools.dir, file));
      let run = 'n/a';
      if (name.startsWith('tessera')) {
        const s = simRun(sim, ours, t);
        if (!(s.err <= 1e-5)) process.exitCode = 1;
        run = `vs JS ${s.err.toExponential(1)}${s.err <= 1e-5 ? '' : ' MISMATCH'}, warp instructions ${s.warpInstrs ?? 'n/a'}`;
      }
      out(`  ${name.padEnd(40)}${String(f.registers).padStart(6)}${String(f.spills).padStart(8)}${(f.sass === undefined ? 'n/a' : String(f.sass)).padStart(7)}${String(f.shared).padStart(9)}${String(count(ptx, /tcgen05\.mma\.cta_group/)).padStart(5)}${String(f.tma).padStart(5)}${tmemColumns(ptx).padStart(6)}${String(count(ptx, /mbarrier\.try_wait/)).padStart(7)}  ${run}\n`);
    }
  }
}
