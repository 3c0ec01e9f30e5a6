// `npm run bench:compile`: compile-time figures for the benchmark kernels (bench/kernels.ts), no GPU.
// Per kernel: trace (JS -> tile IR), IR passes, PTX emission (AxisInfo, layouts, lowering), ptxas
// for sm_80 — warm (median of N in this process) and the first kernel of a cold process (a child
// `node` that imports the stack and compiles one kernel). When .venv has Triton 3.8
// (scripts/setup-python.sh), the same kernels go through triton.compile for sm_80 and ratios print.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Func } from '../src/ir/ops.js';
import type { ParamSpec } from '../src/compiler/axis_info.js';
import { compile } from '../src/compile/compile.js';
import { runIRPasses } from '../src/compiler/ir_passes.js';
import { findPtxas, runPtxas } from '../src/codegen/ptxas.js';
import { BENCH_KERNELS, type BenchKernel } from './kernels.js';
import { tesseraPipelines, withStages } from './stages.js';

const TARGET = 'sm_80';
const NUM_WARPS = 4;
const numWarpsOf = (k: BenchKernel): number => k.options?.numWarps ?? NUM_WARPS;
const specOf = (k: BenchKernel): Record<string, ParamSpec> => Object.fromEntries((k.divisible ?? []).map((n) => [n, { divisibleBy16: true }]));
/** Target for trace -> PTX of one kernel in a warm process (issue 4). */
const AIM_MS = 5;

export interface StageTimes {
  trace: number;
  passes: number;
  ptx: number;
  ptxas: number;
}

/**
 * One compile of `k`, stage by stage, in milliseconds (ptxas is 0 when it is not installed). The
 * "ptx" stage is compile() on the passed IR (axis info, layouts, any pipelining, PTX emission)
 * with the kernel's numWarps, numStages (where supported) and specialization.
 */
export function timeCompile(k: BenchKernel, ptxas = findPtxas()): StageTimes & { ptxBytes: number } {
  const t0 = performance.now();
  const traced: Func = k.def.trace(k.constexprs);
  const t1 = performance.now();
  const f = runIRPasses(traced);
  const t2 = performance.now();
  const { ptx } = compile(f, withStages({ target: TARGET, numWarps: numWarpsOf(k), ptxas: false, skipIRPasses: true, specialization: specOf(k) }, k.options?.numStages));
  const t3 = performance.now();
  if (ptxas) runPtxas(ptx, TARGET, ptxas);
  const t4 = performance.now();
  return { trace: t1 - t0, passes: t2 - t1, ptx: t3 - t2, ptxas: ptxas ? t4 - t3 : 0, ptxBytes: ptx.length };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function warm(k: BenchKernel, runs: number): StageTimes {
  timeCompile(k);
  const samples = Array.from({ length: runs }, () => timeCompile(k));
  return {
    trace: median(samples.map((s) => s.trace)),
    passes: median(samples.map((s) => s.passes)),
    ptx: median(samples.map((s) => s.ptx)),
    ptxas: median(samples.map((s) => s.ptxas)),
  };
}

interface ColdResult extends StageTimes {
  importMs: number;
}

/** Child-process mode: import the stack, compile one kernel, print the times as JSON. */
async function coldChild(name: string): Promise<void> {
  // performance.now() counts from process start: node startup plus loading the whole stack.
  const { BENCH_KERNELS: kernels } = await import('./kernels.js');
  const importMs = performance.now();
  const k = kernels.find((x) => x.def.name === name);
  if (!k) throw new Error(`no bench kernel '${name}'`);
  process.stdout.write(JSON.stringify({ importMs, ...timeCompile(k) }));
}

/** The built copy of this file, when the bench runs from dist (a cold child needs plain JS). */
function builtSelf(): string | undefined {
  const self = fileURLToPath(import.meta.url);
  return self.endsWith('.js') && existsSync(self) ? self : undefined;
}

function cold(name: string): ColdResult | string {
  const self = builtSelf();
  if (!self) return 'needs the built bench (npm run build; npm run bench:compile)';
  const r = spawnSync(process.execPath, [self, '--cold', name], { encoding: 'utf8' });
  if (r.status !== 0) return `child failed: ${(r.stderr || r.stdout).split('\n')[0]}`;
  return JSON.parse(r.stdout) as ColdResult;
}

interface TritonTimes {
  init: number;
  passes: number;
  ptx: number;
  ptxas: number;
  total: number;
}
interface TritonReport {
  version: string;
  import_ms: number;
  kernels: Record<string, { warm: TritonTimes; first: TritonTimes }>;
}

function packageRoot(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json'))) {
    const up = dirname(d);
    if (up === d) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    d = up;
  }
  return d;
}

function triton(runs: number): TritonReport | string {
  const root = packageRoot();
  const py = join(root, '.venv', 'bin', 'python');
  if (!existsSync(py)) return 'not installed (scripts/setup-python.sh creates .venv with triton==3.8.0)';
  const script = join(root, 'bench', 'triton_compile.py');
  const input = JSON.stringify({
    runs,
    kernels: BENCH_KERNELS.map((k) => ({
      name: k.def.name, src: k.triton.src, signature: k.triton.signature, constexprs: k.constexprs,
      num_warps: numWarpsOf(k), num_stages: k.options?.numStages ?? 3, divisible: k.divisible ?? [],
    })),
  });
  const r = spawnSync(py, [script], { input, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) return `failed: ${(r.stderr || '').trim().split('\n').slice(-1)[0]}`;
  return JSON.parse(r.stdout) as TritonReport;
}

const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)).padStart(7);
const total = (t: StageTimes): number => t.trace + t.passes + t.ptx + t.ptxas;

export async function benchCompile(out: (s: string) => void, opts: { runs?: number } = {}): Promise<void> {
  const runs = opts.runs ?? 9;
  const ptxas = findPtxas();
  out(`compile benchmark: ${BENCH_KERNELS.length} kernels, target ${TARGET}, ${NUM_WARPS} warps unless a kernel says otherwise\n`);
  out('No GPU was used: these are compile-time figures on the CPU (trace -> PTX, then ptxas).\n');
  out(`numStages (the tensor-core kernels ask for 3): ${tesseraPipelines() ? 'passed to Tessera and Triton' : 'this Tessera build does not pipeline (option not passed); Triton pipelines'}\n`);
  out(`ptxas: ${ptxas ?? 'not found (ptxas column is 0)'}\n\n`);
  out(`warm (median of ${runs}, ms)   trace  passes     ptx   ptxas | to PTX   total\n`);
  const warmTimes = new Map<string, StageTimes>();
  for (const k of BENCH_KERNELS) {
    const w = warm(k, runs);
    warmTimes.set(k.def.name, w);
    const toPtx = w.trace + w.passes + w.ptx;
    out(`  ${k.def.name.padEnd(26)}${ms(w.trace)} ${ms(w.passes)} ${ms(w.ptx)} ${ms(w.ptxas)} | ${ms(toPtx)} ${ms(total(w))}${toPtx > AIM_MS ? '  (over the 5 ms aim)' : ''}\n`);
  }
  out('\nfirst kernel of a cold process (ms; startup = node start + loading the compiler stack)\n');
  for (const k of BENCH_KERNELS) {
    const c = cold(k.def.name);
    if (typeof c === 'string') {
      out(`  cold: ${c}\n`);
      break;
    }
    out(`  ${k.def.name.padEnd(16)} startup ${ms(c.importMs)}  trace ${ms(c.trace)}  passes ${ms(c.passes)}  ptx ${ms(c.ptx)}  ptxas ${ms(c.ptxas)}\n`);
  }
  const t = triton(runs);
  if (typeof t === 'string') {
    out(`\nTriton: ${t}\n`);
    return;
  }
  out(`\nTriton ${t.version} (triton.compile, GPUTarget('cuda', 80, 32), warm median of ${runs}, ms);\n`);
  out('ratio = Triton / Tessera (above 1: Tessera is faster)\n');
  // the rows print a 16-wide name, then fields of 8, 9, 9, 8 and 9; 'AST->TTIR' borrows a column of the name
  out(`  ${'kernel'.padEnd(15)}${['AST->TTIR', 'passes', 'LLIR+PTX', 'cubin', 'total'].map((h, i) => h.padStart([9, 9, 9, 8, 9][i]!)).join('')} | to-PTX ratio  total ratio\n`);
  for (const k of BENCH_KERNELS) {
    const tk = t.kernels[k.def.name];
    const w = warmTimes.get(k.def.name)!;
    if (!tk) continue;
    const tw = tk.warm;
    const toPtx = (tw.init + tw.passes + tw.ptx) / (w.trace + w.passes + w.ptx);
    const all = tw.total / total(w);
    out(`  ${k.def.name.padEnd(16)} ${ms(tw.init)}  ${ms(tw.passes)}  ${ms(tw.ptx)} ${ms(tw.ptxas)}  ${ms(tw.total)} | ${toPtx.toFixed(1).padStart(12)} ${all.toFixed(1).padStart(12)}\n`);
  }
  const first = Object.values(t.kernels)[0];
  if (first) out(`  Triton cold process: import ${ms(t.import_ms)} ms, first compile ${ms(first.first.total)} ms\n`);
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const i = process.argv.indexOf('--cold');
  const run = i >= 0 ? coldChild(process.argv[i + 1] ?? '') : benchCompile((s) => process.stdout.write(s));
  run.catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
