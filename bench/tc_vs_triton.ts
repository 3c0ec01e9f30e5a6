// `node dist/bench/tc_vs_triton.js`: static code quality of tensor-core kernels against Triton 3.8
// (.venv), same tile sizes, numWarps and numStages, both PTX assembled by the same ptxas for
// sm_80: registers, spills, shared memory, SASS instruction count (cuobjdump -sass). No GPU: these
// are static figures. Both sides run with numStages 1 (Tessera's default is 3, like Triton's).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arange, constexpr, defineKernel, dot, forLoop, load, programId, ptr, store, zeros } from '../src/lang/index.js';
import { compile } from '../src/compiler/compile.js';
import { findPtxas } from '../src/codegen/ptxas.js';
import type { ParamInfo } from '../src/codegen/render.js';
import { getDevice } from '../src/runtime/device.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import type { SimCounters } from '../src/runtime/native/addon.js';
import '../src/runtime/index.js'; // registers the native devices (cuda, sim)

const matmulF16 = defineKernel(
  { name: 'mm_f16', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), M: 'i32', N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
);
const TRITON_MM = `import triton
import triton.language as tl

@triton.jit
def mm_f16(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = k + rk
        ta = tl.load(a + rm[:, None] * K + ka[None, :])
        tb = tl.load(b + ka[:, None] * N + rn[None, :])
        acc = tl.dot(ta, tb, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)
`;

interface Figures { registers: number; spills: number; shared: number; mma: number; ldmatrix: number; sass?: number }

/** cuobjdump from the toolkit, when installed (the CUDA image here ships ptxas and nvcc only). */
const CUOBJDUMP = [process.env.CUDA_HOME, '/usr/local/cuda'].filter(Boolean).map((d) => join(d!, 'bin', 'cuobjdump')).find((p) => existsSync(p));

/** ptxas -v figures (shared: the kernel's own count, Triton's is dynamic) and PTX instruction counts. */
function figures(ptx: string, shared: number, dir: string, name: string, ptxas: string): Figures {
  const p = join(dir, `${name}.ptx`), o = join(dir, `${name}.cubin`);
  writeFileSync(p, ptx);
  const r = spawnSync(ptxas, ['-arch=sm_80', '-v', p, '-o', o], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ptxas failed on ${name}:\n${r.stderr}`);
  const log = r.stderr + r.stdout;
  const num = (re: RegExp): number => Number(re.exec(log)?.[1] ?? 0);
  const spills = num(/(\d+) bytes spill stores/) + num(/(\d+) bytes spill loads/);
  const lines = ptx.split('\n');
  const n = (re: RegExp): number => lines.filter((l) => re.test(l)).length;
  const base = { registers: num(/Used (\d+) registers/), spills, shared, mma: n(/\bmma\.sync/), ldmatrix: n(/\bldmatrix/) };
  if (!CUOBJDUMP) return base;
  const sass = spawnSync(CUOBJDUMP, ['-sass', o], { encoding: 'utf8' });
  return { ...base, sass: sass.stdout.split('\n').filter((l) => /^\s+\/\*[0-9a-f]{4}\*\/\s+\S/.test(l)).length };
}

const SIM_SIZE = 128;
const ptxas = findPtxas();
if (!ptxas) throw new Error('ptxas not found');
const cx = { BM: 64, BN: 64, BK: 32 };
const numWarps = 4;
const ours = compile(matmulF16.trace(cx), { target: 'sm_80', numWarps, numStages: 1, ptxas: false, specialization: [{ divisibleBy16: true }, { divisibleBy16: true }, { divisibleBy16: true }, {}, { divisibleBy16: true }, { divisibleBy16: true }] as never });
const req = { kernels: [{ name: 'mm_f16', src: TRITON_MM, signature: { a: '*fp16', b: '*fp16', c: '*fp32', M: 'i32', N: 'i32', K: 'i32', BM: 'constexpr', BN: 'constexpr', BK: 'constexpr' }, constexprs: cx, num_warps: numWarps, num_stages: 1 }] };
const py = spawnSync('.venv/bin/python', ['bench/tc_triton.py'], { input: JSON.stringify(req), encoding: 'utf8' });
if (py.status !== 0) throw new Error(`Triton failed:\n${py.stderr}`);
const tri = JSON.parse(py.stdout) as { version: string; ptx: Record<string, string>; shared: Record<string, number> };
const dir = mkdtempSync(join(tmpdir(), 'tessera-tc-'));
try {
  const a = figures(ours.ptx, ours.metadata.sharedBytes, dir, 'tessera', ptxas);
  const b = figures(tri.ptx['mm_f16']!, tri.shared['mm_f16']!, dir, 'triton', ptxas);
  console.log(`f16 matmul 64x64x32 tile, 4 warps, numStages 1, sm_80 (static figures, no GPU); Triton ${tri.version}`);
  console.log('figure'.padEnd(14) + 'tessera'.padStart(10) + 'triton'.padStart(10) + 'ratio'.padStart(8));
  for (const k of ['registers', 'spills', 'shared', 'mma', 'ldmatrix', 'sass'] as const) {
    const x = a[k], y = b[k];
    if (x === undefined || y === undefined) console.log(k.padEnd(14) + 'n/a: cuobjdump not installed'.padStart(28));
    else console.log(k.padEnd(14) + String(x).padStart(10) + String(y).padStart(10) + (y ? (x / y).toFixed(2) : '-').padStart(8));
  }
  const sim = simRun(ours.ptx, ours.metadata.sharedBytes, tri.ptx['mm_f16']!, tri.shared['mm_f16']!);
  if (sim) {
    console.log(`\nsame kernel on the sim, M = N = K = ${SIM_SIZE}, same f16 inputs (max |difference| of c: ${sim.maxDiff.toExponential(2)})`);
    const rows: [string, (c: SimCounters) => number][] = [
      ['warp instrs', (c) => c.warpInstructions],
      ['gld sectors', (c) => c.globalLoadSectors],
      ['gst sectors', (c) => c.globalStoreSectors],
      ['smem accesses', (c) => c.sharedAccesses],
      ['bank confl.', (c) => c.sharedBankConflicts],
    ];
    for (const [k, f] of rows) {
      const x = f(sim.ours), y = f(sim.triton);
      console.log(k.padEnd(14) + String(x).padStart(10) + String(y).padStart(10) + (y ? (x / y).toFixed(2) : '-').padStart(8));
    }
  } else console.log('\n(sim device not built: dynamic figures skipped)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Kernel parameters as declared in PTX (Triton adds scratch pointers after the user's). */
function ptxParams(ptx: string, name: string): ParamInfo[] {
  const out: ParamInfo[] = [];
  let off = 0;
  for (const m of ptx.matchAll(new RegExp(`\\.param \\.(u64|u32|b32|f32)[^\\n]*?\\b(${name}_param_\\d+)`, 'g'))) {
    const size = m[1] === 'u64' ? 8 : 4;
    off = Math.ceil(off / size) * size;
    out.push({ name: m[2]!, type: size === 8 ? 'ptr<u8>' as never : 'i32', offset: off, size });
    off += size;
  }
  return out;
}
function simRun(ptxA: string, sharedA: number, ptxB: string, sharedB: number): { ours: SimCounters; triton: SimCounters; maxDiff: number } | undefined {
  let rt: NativeRuntimeDevice;
  try {
    rt = getDevice('sim') as NativeRuntimeDevice;
  } catch {
    return undefined;
  }
  const dev = rt.native;
  const n = SIM_SIZE;
  let seed = 7;
  const half = Uint16Array.from({ length: n * n }, () => ((seed = (seed * 1103515245 + 12345) >>> 0), 0x3800 + ((seed >>> 16) & 0x3ff)));
  const run = (ptx: string, shared: number): { c: Float32Array; counters: SimCounters } => {
    const params = ptxParams(ptx, 'mm_f16');
    const bufs = [dev.alloc(2 * n * n), dev.alloc(2 * n * n), dev.alloc(4 * n * n), dev.alloc(256), dev.alloc(256)];
    try {
      dev.upload(bufs[0]!, half);
      dev.upload(bufs[1]!, half);
      const args = params.map((p, i) => (i < 3 ? bufs[i] : p.size === 8 ? bufs[i - 3] : n));
      dev.launch({ ptx, metadata: { name: 'mm_f16', numWarps: 4, sharedBytes: shared, dynamicShared: /\.extern\s+\.shared/.test(ptx), params } } as never, args, [n / 64, n / 64]);
      dev.synchronize();
      const counters = dev.simCounters()!;
      return { c: dev.download(bufs[2]!, new Float32Array(n * n)) as Float32Array, counters };
    } finally {
      for (const b of bufs) dev.free(b);
    }
  };
  const a = run(ptxA, sharedA), b = run(ptxB, sharedB);
  let maxDiff = 0;
  a.c.forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - b.c[i]!))));
  return { ours: a.counters, triton: b.counters, maxDiff };
}
