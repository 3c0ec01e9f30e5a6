// `npm run bench:tc` (node dist/bench/tc_vs_triton.js): code quality of the tensor-core kernels
// (bench/kernels.ts TC_KERNELS, plus an fp8 matmul on sm_90a and sm_100a, and on sm_100a the TMA-ring
// matmul (tc_ring.ts), the microscaled mx_dot_scaled rows (tc_mx.ts) and flash attention at D = 128 (tc_fa3.ts)) against Triton 3.8 (.venv), same tile
// sizes, numWarps and numStages; both PTX assembled by the same ptxas for the target (sm_80, or
// sm_90a with Triton's GPUTarget('cuda', 90, 32), or sm_100a with cc 100). No GPU: static figures (registers, spills, shared
// memory, SASS instruction count, tensor-core instructions in the PTX) and, running both PTX on the
// sim with the same inputs (as an sm_90 for sm_90a, an sm_100 for sm_100a), dynamic ones (warp instructions, global
// sectors, bank conflicts). Each kernel's outputs from the two PTX are compared with each other and
// with an f64 JS reference first: a mismatch prints MISMATCH and the process exits 1.
// Options: --target sm_80|sm_90a|sm_100a (default sm_80), --stages N (every row at numStages N),
// --only SUBSTRING (rows whose label contains it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type CompileOptions, type CompileResult } from '../src/compile/compile.js';
import type { ParamSpec } from '../src/compiler/axis_info.js';
import { findPtxas } from '../src/codegen/ptxas.js';
import { getDevice } from '../src/runtime/device.js';
import { DeviceArray } from '../src/runtime/device_array.js';
import { loadModule } from '../src/runtime/native/foreign_module.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import type { SimCounters } from '../src/runtime/native/addon.js';
import '../src/runtime/index.js'; // registers the native devices (cuda, sim)
import { tesseraPipelines, withStages } from './stages.js';
import { tcCases, type TcArg, type TcCase, type TcProblem } from './tc_cases.js';
import { benchWs, type WsTools } from './tc_ws.js';
import { benchFa3, benchFlashD128 } from './tc_fa3.js';
import { benchRing } from './tc_ring.js';
import { benchMx } from './tc_mx.js';
import { bench2Cta } from './tc_2cta.js';
import { relErr } from './tc_figure_table.js';

/** The targets the comparison knows, with Triton's compute capability for each. */
export const TC_TARGETS = { sm_80: 80, sm_90a: 90, sm_100a: 100 } as const;
/** The GPU the sim pretends to be for each target (TESSERA_SIM_ARCH). */
const SIM_ARCH: Readonly<Record<keyof typeof TC_TARGETS, string>> = { sm_80: 'sm_80', sm_90a: 'sm_90', sm_100a: 'sm_100' };
export type TcTarget = keyof typeof TC_TARGETS;
const ROOT = (() => {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json'))) d = dirname(d);
  return d;
})();

// ---- tools -----------------------------------------------------------------------------------

/**
 * A SASS disassembler: cuobjdump (or nvdisasm) from $CUDA_HOME, /usr/local/cuda or PATH, else the
 * copies Triton's wheel ships in .venv (triton/backends/nvidia/bin). The CUDA image here has
 * ptxas and nvcc only, so the wheel's cuobjdump is what normally runs.
 */
function sassTool(): { path: string; kind: 'cuobjdump' | 'nvdisasm' } | undefined {
  const dirs = [process.env.CUDA_HOME && join(process.env.CUDA_HOME, 'bin'), '/usr/local/cuda/bin', ...(process.env.PATH ?? '').split(delimiter)].filter(Boolean) as string[];
  const lib = join(ROOT, '.venv', 'lib');
  if (existsSync(lib)) for (const py of readdirSync(lib)) dirs.push(join(lib, py, 'site-packages', 'triton', 'backends', 'nvidia', 'bin'));
  for (const kind of ['cuobjdump', 'nvdisasm'] as const) {
    for (const d of dirs) if (existsSync(join(d, kind))) return { path: join(d, kind), kind };
  }
  return undefined;
}

/** SASS instructions in a cubin, without the NOPs that pad the end of the function. */
function sassCount(tool: NonNullable<ReturnType<typeof sassTool>>, cubin: string): number {
  const r = spawnSync(tool.path, tool.kind === 'cuobjdump' ? ['-sass', cubin] : ['-c', cubin], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${tool.kind} failed on ${cubin}: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => /^\s+\/\*[0-9a-f]{4,}\*\/\s+\S/.test(l) && !/\/\*[0-9a-f]+\*\/\s+NOP\b/.test(l)).length;
}

interface Static { registers: number; spills: number; shared: number; sass?: number; mma: number; wgmma: number; tcgen05: number; tma: number; ldmatrix: number; cpAsync: number }

function staticFigures(ptx: string, shared: number, file: string, ptxas: string, sass: ReturnType<typeof sassTool>, target: TcTarget): Static {
  const p = `${file}.ptx`, o = `${file}.cubin`;
  writeFileSync(p, ptx);
  const r = spawnSync(ptxas, [`-arch=${target}`, '-v', p, '-o', o], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ptxas failed on ${p}:\n${r.stderr}`);
  const log = r.stderr + r.stdout;
  const num = (re: RegExp): number => Number(re.exec(log)?.[1] ?? 0);
  const lines = ptx.split('\n');
  const n = (re: RegExp): number => lines.filter((l) => re.test(l)).length;
  return {
    registers: num(/Used (\d+) registers/),
    spills: num(/(\d+) bytes spill stores/) + num(/(\d+) bytes spill loads/),
    shared,
    ...(sass ? { sass: sassCount(sass, o) } : {}),
    mma: n(/\bmma\.sync/), wgmma: n(/\bwgmma\.mma_async/), tcgen05: n(/\btcgen05\.mma\b/), tma: n(/\bcp\.async\.bulk\.tensor/),
    ldmatrix: n(/\bldmatrix/), cpAsync: n(/\bcp\.async\.(ca|cg)/),
  };
}

// ---- compiling both ----------------------------------------------------------------------------

/** Parameters Triton's launcher would specialize as divisible by 16 (16-byte aligned pointers, multiples of 16). */
function divisible(c: TcCase, p: TcProblem): string[] {
  return c.kernel.def.runtimeParams.filter((q) => {
    const v = p.args[q.name];
    return typeof v !== 'number' || (Number.isInteger(v) && v % 16 === 0);
  }).map((q) => q.name);
}

const NO_TRITON = 'Triton not installed: no .venv (bash scripts/setup-python.sh creates it with triton==3.8.0)';

interface TritonOut { version: string; ptx: Record<string, string>; shared: Record<string, number> }

function tritonCompile(rows: { c: TcCase; stages: number; div: string[] }[], target: TcTarget): TritonOut {
  const py = join(ROOT, '.venv', 'bin', 'python');
  if (!existsSync(py)) throw new Error(NO_TRITON);
  const req = {
    cc: TC_TARGETS[target],
    kernels: rows.map(({ c, stages, div }) => ({
      key: c.label.replace(/\W+/g, '_'), name: c.kernel.def.name, src: c.kernel.triton.src, signature: c.kernel.triton.signature,
      constexprs: c.kernel.constexprs, num_warps: c.numWarps, num_stages: stages, divisible: div,
    })),
  };
  const r = spawnSync(py, [join(ROOT, 'bench', 'tc_triton.py')], { input: JSON.stringify(req), encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`Triton failed:\n${r.stderr}`);
  const t = JSON.parse(r.stdout) as TritonOut;
  // Triton 3.8 writes `.version 9.3` for cc 100; ptxas 13.0 takes up to 9.0, which has every
  // instruction those kernels use
  for (const k of Object.keys(t.ptx)) t.ptx[k] = t.ptx[k]!.replace(/^\.version 9\.[1-9]\b/m, '.version 9.0');
  return t;
}

// ---- running both on the sim -------------------------------------------------------------------

interface SimRun { out: Float32Array; counters: SimCounters }

/** Launches `name` from `ptx` with the problem's arguments (extra trailing pointers, Triton's scratch, get 0). */
async function simRun(sim: NativeRuntimeDevice, ptx: string, name: string, sharedBytes: number, numWarps: number, c: TcCase, p: TcProblem, grid = p.grid): Promise<SimRun> {
  const fn = loadModule(ptx, { device: sim }).getFunction(name);
  const arrays: DeviceArray[] = [];
  const toArg = (v: TcArg): unknown => {
    if (typeof v === 'number') return v;
    const a = DeviceArray.from(v, v instanceof Float32Array ? 'f32' : v instanceof Uint8Array ? 'u8' /* fp8 codes */ : 'f16' /* half bits, f16 or bf16 */, { device: sim });
    arrays.push(a);
    return a;
  };
  const names = c.kernel.def.runtimeParams.map((q) => q.name);
  const user = names.map((n) => toArg(p.args[n]!));
  const args = fn.params.map((_, i) => (i < user.length ? user[i] : 0));
  try {
    await fn.launch({ grid: [...grid], block: numWarps * 32, sharedBytes, args });
    const counters = sim.native.simCounters();
    if (!counters) throw new Error('the sim device reported no counters');
    const out = arrays[names.filter((n) => typeof p.args[n] !== 'number').indexOf(p.out)]!;
    return { out: (await out.toArray()) as Float32Array, counters };
  } finally {
    for (const a of arrays) a.free();
  }
}

interface Dynamic { warpInstrs: number; gldSectors: number; gstSectors: number; smem: number; conflicts: number; iterInstrs: number; iterConflicts: number }

/** Full-grid counters, plus one program at s = 1 and s = 2: their difference per extra iteration is the main loop's cost. */
async function dynamicFigures(sim: NativeRuntimeDevice, ptx: string, name: string, shared: number, c: TcCase): Promise<{ d: Dynamic; out: Float32Array }> {
  const p = c.size(1);
  const full = await simRun(sim, ptx, name, shared, c.numWarps, c, p);
  const p2 = c.size(2);
  const one = await simRun(sim, ptx, name, shared, c.numWarps, c, p, [1, 1, 1]);
  const two = await simRun(sim, ptx, name, shared, c.numWarps, c, p2, [1, 1, 1]);
  const di = p2.iterations - p.iterations;
  const k = full.counters;
  return {
    out: full.out,
    d: {
      warpInstrs: k.warpInstructions, gldSectors: k.globalLoadSectors, gstSectors: k.globalStoreSectors, smem: k.sharedAccesses,
      conflicts: k.sharedBankConflicts,
      iterInstrs: (two.counters.warpInstructions - one.counters.warpInstructions) / di,
      iterConflicts: (two.counters.sharedBankConflicts - one.counters.sharedBankConflicts) / di,
    },
  };
}

// ---- report ------------------------------------------------------------------------------------

interface Row { c: TcCase; stages: number; pipelines: boolean; ours: Static & Dynamic; tri: Static & Dynamic; agree: number; vsRef: [number, number]; ok: boolean }

const fmt = (v: number | undefined): string => (v === undefined ? 'n/a' : Number.isInteger(v) ? String(v) : v.toFixed(1));
const ratio = (x: number | undefined, y: number | undefined): string => (x === undefined || y === undefined ? 'n/a' : y === 0 ? (x === 0 ? '-' : 'inf') : (x / y).toFixed(2));

/** Figure name, its getter, and the aim (as the issue states it) with its test. */
const FIGURES: [string, (f: Static & Dynamic) => number | undefined, string, (x: number, y: number) => boolean][] = [
  ['registers', (f) => f.registers, '<= 1.1x', (x, y) => x <= 1.1 * y],
  ['spills (bytes)', (f) => f.spills, '0', (x) => x === 0],
  ['SASS instrs', (f) => f.sass, '<= 1.1x', (x, y) => x <= 1.1 * y],
  ['shared bytes', (f) => f.shared, '<= 1.0x', (x, y) => x <= y],
  ['wgmma (PTX)', (f) => f.wgmma, '', () => true],
  ['tcgen05.mma (PTX)', (f) => f.tcgen05, '', () => true],
  ['TMA (PTX)', (f) => f.tma, '', () => true],
  ['mma.sync (PTX)', (f) => f.mma, '', () => true],
  ['ldmatrix (PTX)', (f) => f.ldmatrix, '', () => true],
  ['cp.async (PTX)', (f) => f.cpAsync, '', () => true],
  ['warp instrs', (f) => f.warpInstrs, '<= 1.1x', (x, y) => x <= 1.1 * y],
  ['  per loop iter', (f) => f.iterInstrs, '', () => true],
  ['gld sectors', (f) => f.gldSectors, '<= 1.1x', (x, y) => x <= 1.1 * y],
  ['gst sectors', (f) => f.gstSectors, '<= 1.1x', (x, y) => x <= 1.1 * y],
  ['smem accesses', (f) => f.smem, '', () => true],
  ['bank conflicts', (f) => f.conflicts, '', () => true],
  ['  per loop iter', (f) => f.iterConflicts, '0', (x) => x === 0],
];

function printRow(r: Row, out: (s: string) => void): void {
  const { c } = r;
  const cx = Object.entries(c.kernel.constexprs).map(([k, v]) => `${k}=${v}`).join(' ');
  const asked = (r.stages !== c.numStages ? ` (${c.numStages} asked)` : '') + (r.stages > 1 && !r.pipelines ? ' for Triton; Tessera does not pipeline (1)' : '');
  out(`\n${c.label}: ${cx}, ${c.numWarps} warps, numStages ${r.stages}${asked}\n`);
  out(`  outputs on the sim: tessera vs triton ${r.agree.toExponential(1)}, vs JS ${r.vsRef[0].toExponential(1)} / ${r.vsRef[1].toExponential(1)} (tol ${c.size(1).tol.toExponential(0)})${r.ok ? '' : '  MISMATCH'}\n`);
  out(`  ${'figure'.padEnd(16)}${'tessera'.padStart(10)}${'triton'.padStart(10)}${'ratio'.padStart(8)}  aim\n`);
  for (const [name, get, aim, test] of FIGURES) {
    const x = get(r.ours), y = get(r.tri);
    if (name.startsWith('tcgen05') && !x && !y) continue; // Blackwell rows only
    const miss = aim && x !== undefined && y !== undefined && !test(x, y) ? '  (missed)' : '';
    out(`  ${name.padEnd(16)}${fmt(x).padStart(10)}${fmt(y).padStart(10)}${ratio(x, y).padStart(8)}  ${aim}${miss}\n`);
  }
}

/** One line per kernel: the ratios the issue sets aims for (markdown, for docs/compiler.md). */
function printSummary(rows: Row[], out: (s: string) => void): void {
  out('\n| kernel | stages | wgmma/TMA/mma.sync T, Tr | regs T/Tr | spills | SASS T/Tr | smem B T/Tr | warp instrs T/Tr | instrs/iter T/Tr | gld sectors T/Tr | conflicts/iter T/Tr |\n');
  out('|---|---|---|---|---|---|---|---|---|---|---|\n');
  for (const r of rows) {
    const a = r.ours, b = r.tri;
    const pair = (x: number | undefined, y: number | undefined, rat = true): string => `${fmt(x)}/${fmt(y)}${rat ? ` (${ratio(x, y)})` : ''}`;
    const tc = (f: Static): string => `${f.wgmma || f.tcgen05}/${f.tma}/${f.mma}`;
    out(`| ${r.c.label} | ${r.stages} | ${tc(a)}, ${tc(b)} | ${pair(a.registers, b.registers)} | ${a.spills}/${b.spills} | ${pair(a.sass, b.sass)} | ${pair(a.shared, b.shared)} | ${pair(a.warpInstrs, b.warpInstrs)} | ${pair(a.iterInstrs, b.iterInstrs)} | ${pair(a.gldSectors, b.gldSectors)} | ${pair(a.iterConflicts, b.iterConflicts, false)} |\n`);
  }
}

export interface TcOptions {
  /** The target both compilers emit PTX for (default sm_80); sm_90a needs the sim running as an sm_90. */
  readonly target?: TcTarget;
  /** Every row at this numStages (both compilers). */
  readonly stages?: number;
  /** Only rows whose label contains this text. */
  readonly only?: string;
}

/** Prints the comparison; sets process.exitCode = 1 when a kernel's outputs disagree. */
export async function benchTc(out: (s: string) => void, opts: TcOptions = {}): Promise<void> {
  const forced = opts.stages;
  const only = opts.only;
  const target = opts.target ?? 'sm_80';
  if (!(target in TC_TARGETS)) throw new Error(`bench tc: --target must be one of ${Object.keys(TC_TARGETS).join(', ')}, got '${target}'`);
  const ptxas = findPtxas();
  if (!ptxas) return void out('bench tc skipped: ptxas not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)\n');
  if (!existsSync(join(ROOT, '.venv', 'bin', 'python'))) return void out(`bench tc skipped: ${NO_TRITON}\n`);
  const sass = sassTool();
  const pipelines = tesseraPipelines();
  // without a pipeliner every row runs at 1 stage and the explicit numStages-1 row would repeat one
  const cases = tcCases(target).filter((c) => (!only || c.label.includes(only)) && (pipelines || forced !== undefined || c.numStages !== 1));
  // Both compilers get the same numStages: what the row asks for when Tessera pipelines, else 1.
  const rows0 = cases.map((c) => {
    const stages = forced ?? (pipelines ? c.numStages : 1);
    return { c, stages, div: divisible(c, c.size(1)) };
  });
  let sim: NativeRuntimeDevice;
  try {
    sim = getDevice('sim') as NativeRuntimeDevice;
  } catch (e) {
    return void out(`bench tc skipped: no sim device (${(e as Error).message})\n`);
  }
  // the sim pretends to be one GPU per process (TESSERA_SIM_ARCH, read when it loads)
  const simArch = SIM_ARCH[target];
  if (sim.target !== target) {
    return void out(`bench tc skipped: the sim runs as a GPU for ${sim.target}; ${target} needs TESSERA_SIM_ARCH=${simArch} set before the sim loads\n`);
  }
  const tri = tritonCompile(rows0, target);
  out(`tensor-core kernels, Tessera (target ${target}) vs Triton ${tri.version} (GPUTarget('cuda', ${TC_TARGETS[target]}, 32)); both PTX through ptxas -arch ${target} (${ptxas})\n`);
  out('No GPU was used: every figure comes from ptxas and the sim. Registers, spills, SASS, shared memory and the\n');
  out(`tensor-core instruction counts (${target === 'sm_100a' ? 'tcgen05.mma' : 'wgmma.mma_async'}, TMA cp.async.bulk.tensor, mma.sync in the PTX) are static;\n`);
  out(`warp instructions, sectors and bank conflicts are counted by the sim (as an ${simArch}) running each PTX on the same inputs.\n`);
  out(`SASS: ${sass ? `${sass.kind} at ${sass.path} (instructions without the NOP padding)` : 'n/a: no cuobjdump or nvdisasm in $CUDA_HOME/bin, /usr/local/cuda/bin, PATH or the Triton wheel'}\n`);
  out(pipelines
    ? 'numStages: passed to both compilers as each row asks.\n'
    : 'numStages: this Tessera build has no software pipelining (compile() ignores numStages: the PTX for 1 and 3 is\n'
      + 'the same), so it is not passed and Triton is compiled with num_stages=1 too; rows say what they asked for.\n');
  out('"per loop iter": one program run with twice the k-steps (key blocks) minus one run with the base count, per extra iteration.\n');
  const rows: Row[] = [];
  // TC_KEEP=DIR keeps both PTX (and cubins) of every row there, for diffing the loops
  const keep = process.env.TC_KEEP;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'tessera-tc-'));
  if (keep) mkdirSync(keep, { recursive: true });
  try {
    for (const { c, stages, div } of rows0) {
      const key = c.label.replace(/\W+/g, '_');
      const spec = Object.fromEntries(div.map((n): [string, ParamSpec] => [n, { divisibleBy16: true }]));
      const ours: CompileResult = compile(c.kernel.def.trace(c.kernel.constexprs), withStages({ target, numWarps: c.numWarps, ptxas: false, specialization: spec }, stages));
      const tptx = tri.ptx[key]!, tshared = tri.shared[key]!;
      const name = c.kernel.def.name;
      const sOurs = staticFigures(ours.ptx, ours.metadata.sharedBytes, join(dir, `${key}.tessera`), ptxas, sass, target);
      const sTri = staticFigures(tptx, tshared, join(dir, `${key}.triton`), ptxas, sass, target);
      const a = await dynamicFigures(sim, ours.ptx, name, ours.metadata.dynamicShared ? ours.metadata.sharedBytes : 0, c);
      const b = await dynamicFigures(sim, tptx, name, tshared, c);
      const p = c.size(1);
      const ref = p.reference();
      const agree = relErr(a.out, b.out);
      const vsRef: [number, number] = [relErr(a.out, ref), relErr(b.out, ref)];
      const ok = agree <= p.tol && vsRef[0] <= p.tol && vsRef[1] <= p.tol;
      if (!ok) process.exitCode = 1;
      const row: Row = { c, stages, pipelines, ours: { ...sOurs, ...a.d }, tri: { ...sTri, ...b.d }, agree, vsRef, ok };
      rows.push(row);
      printRow(row, out);
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  out('\nsummary (T = Tessera, Tr = Triton; ratio in parentheses)\n');
  printSummary(rows, out);
  // tables of their own, each with its kernels beside Triton's, compiled by the same tools
  const tools = (dir: string): WsTools => ({
    dir, ptxas,
    figures: (ptx, shared, file) => staticFigures(ptx, shared, file, ptxas, sass, target),
    triton: (kernels) => {
      const py = join(ROOT, '.venv', 'bin', 'python');
      const r = spawnSync(py, [join(ROOT, 'bench', 'tc_triton.py')], { input: JSON.stringify({ cc: TC_TARGETS[target], kernels }), encoding: 'utf8', maxBuffer: 1 << 26 });
      return r.status !== 0 ? new Error(r.stderr) : (JSON.parse(r.stdout) as TritonOut);
    },
  });
  const table = async (name: string, on: TcTarget, run: (out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools) => void | Promise<void>): Promise<void> => {
    if (target !== on || (only && !name.includes(only))) return;
    const tableDir = mkdtempSync(join(tmpdir(), `tessera-tc-${name}-`));
    try {
      await run(out, sim, tools(tableDir));
    } finally {
      rmSync(tableDir, { recursive: true, force: true });
    }
  };
  await table('ring_matmul', 'sm_100a', benchRing); // the descriptor matmul on sm_100a's TMA ring (bench/tc_ring.ts)
  await table('matmul_2cta', 'sm_100a', bench2Cta); // a 256x256x64 tile on a CTA pair, tcgen05.mma.cta_group::2 (bench/tc_2cta.ts)
  await table('mx_dot_scaled', 'sm_100a', benchMx); // dotScaled (emulated) vs tl.dot_scaled (block-scaled tcgen05): bench/tc_mx.ts
  await table('flash_d128', 'sm_100a', benchFlashD128); // flash attention at D = 128 on tcgen05 (bench/tc_fa3.ts at sm_100a)
  await table('ws_matmul', 'sm_90a', benchWs); // the warp-specialized matmul (bench/tc_ws.ts)
  await table('fa3_attention', 'sm_90a', benchFa3); // FA3-style attention, warp-specialized with the ping-pong (bench/tc_fa3.ts)
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (flag: string): string | undefined => {
    const i = process.argv.indexOf(flag);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const stages = arg('--stages');
  const only = arg('--only');
  const target = arg('--target') as TcTarget | undefined;
  // the sim reads TESSERA_SIM_ARCH when it loads (at the first getDevice('sim')): sm_90a runs it as an sm_90
  if (target === 'sm_90a') process.env.TESSERA_SIM_ARCH ??= 'sm_90';
  if (target === 'sm_100a') process.env.TESSERA_SIM_ARCH ??= 'sm_100';
  benchTc((s) => process.stdout.write(s), { ...(stages !== undefined ? { stages: Number(stages) } : {}), ...(only !== undefined ? { only } : {}), ...(target !== undefined ? { target } : {}) }).catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
