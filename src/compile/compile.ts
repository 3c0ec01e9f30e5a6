// compile(func, options): the pipeline from tile IR to PTX (and a cubin when ptxas is there),
// as a script of named stages. Every stage's text is kept in `stages` and, when
// TESSERA_DUMP_DIR is set, written to $TESSERA_DUMP_DIR/<kernel>/<n>-<stage>.txt.
import type { DeviceSite } from '../codegen/print_sites.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Func, Op } from '../ir/ops.js';
import { printFunc } from '../ir/print.js';
import { renderPtx, type ParamInfo } from '../codegen/render.js';
import { findPtxas, runPtxas } from '../codegen/ptxas.js';
import { DEFAULT_DOT } from '../codegen/tensor_cores/lower_dot.js';
import { analyzeAxisInfo, type Specialization } from '../compiler/axis_info.js';
import { printAxisInfo, printLayouts } from '../compiler/annotate.js';
import { CompileError, PtxasError } from '../compiler/errors.js';
import { runIRPasses } from '../compiler/ir_passes.js';
import { inlineDotScaled, scaledPlan } from '../compiler/inline_dot_scaled.js';
import { hasDot, nativeScaledWhyNot } from '../compiler/tcgen05_scaled.js';
import { splitBatchedDots } from '../compiler/batched_dot.js';
import { assignLayouts } from '../compiler/layout_assign.js';
import { planPipelines, printPipelinePlan } from '../compiler/pipeline.js';
import { PIPELINE_SABOTAGE, type PipelineSabotage } from '../codegen/pipeline/lower_pipeline.js';
import { WGMMA_SABOTAGE, type WgmmaSabotage } from '../codegen/tensor_cores/lower_wgmma.js';
import { descElem, tmaDataType, TMA_SABOTAGE, type TensorMapSpec, type TmaSabotage } from '../codegen/async/tensor_map.js';
import { MAX_NUM_STAGES as MAX_STAGES } from '../ir/ops.js';
import { clusterDimsError, MULTICAST_SABOTAGE, type MulticastSabotage } from '../codegen/async/tma_multicast.js';
import { TWO_CTA_SABOTAGE, type TwoCtaSabotage } from '../codegen/pipeline/tcgen05_pair.js';
import { descriptorPlan, expandDescriptors, whyNotLaunchMap } from '../compiler/expand_descriptors.js';

export type Target = 'sm_80' | 'sm_89' | 'sm_90' | 'sm_90a' | 'sm_100' | 'sm_100a';
/**
 * sm_89 adds the fp8 cvt forms; sm_90a is `.target sm_90a` with wgmma dots and TMA; sm_100 is
 * Blackwell through sm_90's portable code; sm_100a dots on tcgen05 with tensor memory (docs/compiler.md).
 */
export const TARGETS: readonly Target[] = ['sm_80', 'sm_89', 'sm_90', 'sm_90a', 'sm_100', 'sm_100a'];

export interface CompileOptions {
  readonly target: Target;
  readonly numWarps?: number;
  readonly specialization?: Specialization;
  /** true: ptxas must run (error if missing); false: never; undefined: run when found. */
  readonly ptxas?: boolean;
  /** Dot lowering by name (see codegen/tensor_cores/lower_dot.ts): 'mma' (default: tensor cores where they fit) or 'fma'. */
  readonly dot?: string;
  /** Skip the IR passes (canonicalize/CSE/DCE/LICM); for tests of the back half alone. */
  readonly skipIRPasses?: boolean;
  /**
   * Software-pipelining depth: loads feeding tensor-core dots in a loop are copied with cp.async
   * numStages-1 iterations ahead (compiler/pipeline.ts). An integer >= 1; 1 turns it off.
   * Default DEFAULT_NUM_STAGES[target] (3, as Triton on sm_80/sm_90).
   */
  readonly numStages?: number;
  /** @internal Breaks the pipeline on purpose, so tests can show the sim catches it. */
  readonly pipelineSabotage?: PipelineSabotage;
  /** @internal Breaks the wgmma synchronization on purpose (sm_90a), so tests can show the sim catches it. */
  readonly wgmmaSabotage?: WgmmaSabotage;
  /**
   * Tensor descriptors through TMA on sm_90a (default true there; other targets never use it):
   * false lowers them to masked loads and stores, as on sm_80.
   */
  readonly tma?: boolean;
  /** @internal Breaks the TMA lowering on purpose (tests show the sim catches it). */
  readonly tmaSabotage?: TmaSabotage;
  /**
   * The thread block cluster shape the kernel will be launched with ([x, y, z]; the `clusterDims`
   * run option). On sm_90a, TMA ring tiles that every CTA of a cluster loads alike are multicast
   * (codegen/async/tma_multicast.ts); the kernel must then be launched with exactly these dims.
   */
  readonly clusterDims?: readonly [number, number, number];
  /** @internal Breaks the multicast ring on purpose (tests show the sim catches it). */
  readonly multicastSabotage?: MulticastSabotage;
  /**
   * sm_100a (Triton's `two_ctas`): the K loop's tcgen05 dot on 128-row tiles runs on the CTA pairs
   * of a [2, 1, 1] cluster (programs 2p, 2p+1 along M, same N tile) as one 256-row
   * `tcgen05.mma.cta_group::2` per k-step, each CTA loading half of B (codegen/pipeline/tcgen05_pair.ts).
   * Needs clusterDims [2, 1, 1]; where the kernel does not fit it keeps cta_group::1 and the
   * 'pipeline' stage says why.
   */
  readonly twoCta?: boolean;
  /** @internal Breaks the 2-CTA ring on purpose (tests show the sim catches it). */
  readonly twoCtaSabotage?: TwoCtaSabotage;
  /**
   * sm_100a: `dotScaled` on the block-scaled tcgen05 kinds where they fit (default true;
   * compiler/tcgen05_scaled.ts); false: the exact emulation, as on the other targets.
   */
  readonly blockScaled?: boolean;
  /**
   * @internal false: a native dot_scaled on the cp.async ring waits for its MMAs in each iteration
   * (the form before they stayed in flight; tests compare the two kernels bit for bit).
   */
  readonly scaledInflight?: boolean;
}

/** Why options `twoCta` / `twoCtaSabotage` are wrong, if they are. */
export function twoCtaError(o: CompileOptions): string | undefined {
  if (o.twoCta !== undefined && typeof o.twoCta !== 'boolean') return `option 'twoCta' must be a boolean, got ${JSON.stringify(o.twoCta)}`;
  if (o.twoCtaSabotage !== undefined && !TWO_CTA_SABOTAGE.includes(o.twoCtaSabotage)) return `option 'twoCtaSabotage' must be one of ${TWO_CTA_SABOTAGE.join(', ')}`;
  if (!o.twoCta) return o.twoCtaSabotage ? "option 'twoCtaSabotage' needs twoCta: true" : undefined;
  if (o.target !== 'sm_100a') return `option 'twoCta' (tcgen05.mma.cta_group::2) needs target sm_100a, got ${o.target}`;
  const d = o.clusterDims;
  if (!d || d[0] !== 2 || d[1] !== 1 || d[2] !== 1) return `option 'twoCta' needs clusterDims [2, 1, 1] (the CTA pair along M), got ${d ? `[${d.join(', ')}]` : 'none'}`;
  return undefined;
}

/** numStages when the option is absent, per target (Triton's default for Ampere and Hopper). */
export const DEFAULT_NUM_STAGES: Readonly<Record<Target, number>> = { sm_80: 3, sm_89: 3, sm_90: 3, sm_90a: 3, sm_100: 3, sm_100a: 3 };
/** Deepest pipeline accepted (a ring of more stages only costs shared memory); per loop too. */
export const MAX_NUM_STAGES = MAX_STAGES;

/** The numStages `o` asks for, checked: an integer in 1..MAX_NUM_STAGES. */
export function numStagesOf(name: string, o: { readonly target: Target; readonly numStages?: number }): number {
  const s = o.numStages ?? DEFAULT_NUM_STAGES[o.target] ?? 1;
  if (!Number.isInteger(s) || s < 1 || s > MAX_NUM_STAGES) throw new CompileError(name, `option 'numStages' must be an integer in 1..${MAX_NUM_STAGES}, got ${String(s)}`);
  return s;
}

export interface CompileMetadata {
  readonly name: string;
  /** Warps of the kernel's code (a warp-specialized kernel's consumers). */
  readonly numWarps: number;
  /** Warps launched beside numWarps (the producer warpgroup of warp specialization): the block is 32*(numWarps+producerWarps) threads. */
  readonly producerWarps?: number;
  /** The numStages the kernel was compiled with (1: pipelining was off). */
  readonly numStages: number;
  readonly target: Target;
  /** Shared memory the kernel needs; dynamic when `dynamicShared` (launch with this many bytes). */
  readonly sharedBytes: number;
  readonly dynamicShared: boolean;
  readonly params: ParamInfo[];
  /** The CUtensorMap parameters the launcher encodes from the arguments (sm_90a TMA), after `params`. */
  readonly tensorMaps?: TensorMapSpec[];
  /** The print and assert sites, when the kernel has any: how the runtime decodes the device's lines. */
  readonly prints?: DeviceSite[];
  readonly registers?: number;
  readonly spills?: number;
  readonly ptxasLog?: string;
}
export interface Stage {
  readonly name: string;
  readonly text: string;
}
export interface CompileResult {
  readonly ptx: string;
  readonly cubin?: Uint8Array;
  readonly metadata: CompileMetadata;
  readonly stages: Stage[];
}

function checkOptions(f: Func, o: CompileOptions): number {
  if (!TARGETS.includes(o.target)) throw new CompileError(f.name, `option 'target' must be one of ${TARGETS.join(', ')}, got ${String(o.target)}`);
  const w = o.numWarps ?? 4;
  if (!Number.isInteger(w) || w < 1 || w > 32 || (w & (w - 1)) !== 0) throw new CompileError(f.name, `option 'numWarps' must be a power of two in 1..32, got ${String(w)}`);
  const spec = o.specialization;
  if (spec && !Array.isArray(spec)) {
    for (const k of Object.keys(spec)) if (!f.params.some((p) => p.name === k)) throw new CompileError(f.name, `specialization names unknown parameter '${k}'`);
  }
  numStagesOf(f.name, o);
  if (o.tmaSabotage !== undefined && !TMA_SABOTAGE.includes(o.tmaSabotage)) throw new CompileError(f.name, `option 'tmaSabotage' must be one of ${TMA_SABOTAGE.join(', ')}`);
  if (o.pipelineSabotage !== undefined && !PIPELINE_SABOTAGE.includes(o.pipelineSabotage)) throw new CompileError(f.name, `option 'pipelineSabotage' must be one of ${PIPELINE_SABOTAGE.join(', ')}`);
  if (o.scaledInflight !== undefined && typeof o.scaledInflight !== 'boolean') throw new CompileError(f.name, `option 'scaledInflight' must be a boolean, got ${JSON.stringify(o.scaledInflight)}`);
  if (o.wgmmaSabotage !== undefined && !WGMMA_SABOTAGE.includes(o.wgmmaSabotage)) throw new CompileError(f.name, `option 'wgmmaSabotage' must be one of ${WGMMA_SABOTAGE.join(', ')}`);
  const cluster = o.clusterDims === undefined ? undefined : clusterDimsError(o.clusterDims);
  if (cluster) throw new CompileError(f.name, cluster);
  if (o.multicastSabotage !== undefined && !MULTICAST_SABOTAGE.includes(o.multicastSabotage)) throw new CompileError(f.name, `option 'multicastSabotage' must be one of ${MULTICAST_SABOTAGE.join(', ')}`);
  const pairWhy = twoCtaError(o);
  if (pairWhy) throw new CompileError(f.name, pairWhy);
  return w;
}

/** Anything that traces to a Func (a `defineKernel(...)` result). */
export interface Traceable {
  trace(constexprs: Record<string, number | boolean | string>): Func;
}

/**
 * Compiles a traced Func, or a kernel definition traced with `options.constexprs` first.
 */
export function compile(kernel: Func | Traceable, options: CompileOptions & { readonly constexprs?: Record<string, number | boolean | string> }): CompileResult {
  const func = 'trace' in kernel && typeof kernel.trace === 'function' ? kernel.trace(options.constexprs ?? {}) : (kernel as Func);
  const numWarps = checkOptions(func, options);
  const stages: Stage[] = [];
  const stage = (name: string, text: string): void => void stages.push({ name, text });
  // IR stages are printed on first read of `text` (printing every stage was a large share of
  // compile time and most callers never look); Funcs are immutable, so the text is the same.
  const irStage = (name: string, g: Func): void => {
    let text: string | undefined;
    stages.push({ name, get text() { return (text ??= printFunc(g, { locs: true })); } });
  };

  // Tensor descriptors the target does not move with TMA become masked loads and stores.
  const whyNot = (op: Op): string | undefined =>
    options.target !== 'sm_90a' && options.target !== 'sm_100a' ? `no TMA on ${options.target}`
    : options.tma === false ? 'option tma: false'
    : tmaDataType(descElem(op)) === undefined ? `TMA has no ${descElem(op)} type`
    : whyNotLaunchMap(func, op);
  const descs = descriptorPlan(func, whyNot);
  if (descs) stage('descriptors', descs);
  // batched (3-D) dots become B 2-D dots for every lowering (compiler/batched_dot.ts)
  // and dot_scaled becomes its emulation (compiler/inline_dot_scaled.ts)
  // (sm_100a keeps those a block-scaled tcgen05 kind computes: compiler/tcgen05_scaled.ts)
  const withDot = hasDot(func.body);
  const scaled = scaledPlan(func, options.target === 'sm_100a' && options.dot !== 'fma' && options.blockScaled !== false ? (op) => nativeScaledWhyNot(op, numWarps, withDot) : undefined);
  if (scaled.text) stage('dot_scaled', scaled.text);
  let f = splitBatchedDots(inlineDotScaled(expandDescriptors(func, (op) => whyNot(op) === undefined), scaled.keep));
  if (options.skipIRPasses) irStage('input', f);
  else f = runIRPasses(f, { dump: irStage });
  const info = analyzeAxisInfo(f, options.specialization);       // divisibility/contiguity/constancy
  stage('axisinfo', printAxisInfo(f, info));
  const numStages = numStagesOf(f.name, options);
  const pipe = planPipelines(f, info, { numWarps, numStages, dot: options.dot ?? DEFAULT_DOT, tcgen05: options.target === 'sm_100a' }); // loops to pipeline
  const pipelineAt = stages.length;
  stage('pipeline', printPipelinePlan(f, pipe));
  const plan = assignLayouts(f, info, numWarps, options.dot ?? DEFAULT_DOT, pipe.anchors, options.target === 'sm_90a', options.target === 'sm_100a'); // layouts, vector widths
  stage('layouts', printLayouts(f, plan));
  const r = renderPtx(f, plan, info, {
    target: options.target, pipeline: pipe, numStages,
    ...(options.specialization ? { specialization: options.specialization } : {}), ...(options.dot ? { dot: options.dot } : {}),
    ...(options.pipelineSabotage ? { pipelineSabotage: options.pipelineSabotage } : {}),
    ...(options.scaledInflight === false ? { scaledInflight: false as const } : {}),
    ...(options.wgmmaSabotage ? { wgmmaSabotage: options.wgmmaSabotage } : {}),
    ...(options.tmaSabotage ? { tmaSabotage: options.tmaSabotage } : {}),
    ...(options.clusterDims ? { clusterDims: options.clusterDims } : {}),
    ...(options.multicastSabotage ? { multicastSabotage: options.multicastSabotage } : {}),
    ...(options.twoCta ? { twoCta: true } : {}), ...(options.twoCtaSabotage ? { twoCtaSabotage: options.twoCtaSabotage } : {}),
  });
  // the codegen decides warp specialization (it needs the layouts): its lines join the pipeline stage
  if (r.warpSpecialize) stages[pipelineAt] = { name: 'pipeline', text: stages[pipelineAt]!.text + r.warpSpecialize.map((l) => `  ${l}\n`).join('') };
  stage('ptx', r.ptx);

  let cubin: Uint8Array | undefined;
  let extra: Partial<CompileMetadata> = {};
  const ptxasPath = options.ptxas === false ? undefined : findPtxas();
  if (options.ptxas === true && !ptxasPath) throw new PtxasError('ptxas not found: looked in PATH, $CUDA_HOME/bin and /usr/local/cuda/bin');
  if (ptxasPath) {
    const a = runPtxas(r.ptx, options.target, ptxasPath);
    cubin = a.cubin;
    extra = { registers: a.registers, spills: a.spillStores + a.spillLoads, ptxasLog: a.log };
    stage('ptxas', a.log);
  }
  const result: CompileResult = {
    ptx: r.ptx,
    ...(cubin ? { cubin } : {}),
    metadata: { name: f.name, numWarps, ...(r.producerWarps ? { producerWarps: r.producerWarps } : {}), numStages, target: options.target, sharedBytes: r.sharedBytes, dynamicShared: r.dynamicShared, params: r.params, ...(r.tensorMaps.length ? { tensorMaps: r.tensorMaps } : {}), ...(r.prints.length ? { prints: r.prints } : {}), ...extra },
    stages,
  };
  dump(f.name, options.target, stages);
  return result;
}

function dump(name: string, target: string, stages: Stage[]): void {
  const dir = process.env.TESSERA_DUMP_DIR;
  if (!dir) return;
  const d = join(dir, `${name}.${target}`);
  mkdirSync(d, { recursive: true });
  stages.forEach((s, i) => writeFileSync(join(d, `${String(i).padStart(2, '0')}-${s.name}.${s.name === 'ptx' ? 'ptx' : 'txt'}`), s.text));
}
