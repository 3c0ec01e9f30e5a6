// The PTX renderer: module header, `.entry` with typed params, `.reqntid`, shared memory, then
// one render loop over the ops with a rule table (one rule per op kind; an op or dtype a rule
// does not handle is an error naming it). `.loc` lines map instructions back to the user's
// TypeScript source.
import { inlineAsm } from './lower_inline_asm.js';
import type { Func, Op, OpKind, Value } from '../ir/ops.js';
import { isPtr, type ElemType } from '../ir/types.js';
import type { AxisInfoMap } from '../compiler/axis_info.js';
import { paramSpec, type Specialization } from '../compiler/axis_info.js';
import { CompileError } from '../compiler/errors.js';
import type { LayoutPlan } from '../compiler/layout_assign.js';
import { Lowering, type Target } from './context.js';
import { CONTROL_RULES } from './lower_control.js';
import { lowerWhile } from './lower_while.js';
import { lowerAssume, lowerExitIf } from './lower_exit.js';
import { DEFAULT_DOT, DOT_LOWERINGS } from './tensor_cores/lower_dot.js';
import { tcgen05DotScaled } from './tensor_cores/lower_tcgen05_scaled.js';
import { ELEMENTWISE_RULES, normalize } from './lower_elementwise.js';
import { MEMORY_RULES } from './lower_memory.js';
import { REDUCE_RULES } from './lower_reduce.js';
import { SCAN_RULES } from './lower_scan.js';
import { SORT_RULES } from './lower_sort.js';
import { GATHER_RULES } from './lower_gather.js';
import { HISTOGRAM_RULES } from './lower_histogram.js';
import { SHARED_RULES } from './lower_shared.js';
import { SWIZZLE_ALIGN } from './smem/smem_swizzle.js';
import { defsOf, makeConvert, rematAfterLoop } from './remat.js';
import { legalize } from './legalize.js';
import { lowerAssert, lowerPrint } from './lower_print.js';
import type { DeviceSite } from './print_sites.js';
import { withPipeline, type PipelineSabotage } from './pipeline/lower_pipeline.js';
import type { PipelinePlan } from '../compiler/pipeline.js';
import { dropDeadCode } from './dead_code.js';
import { setWgmmaSabotage, type WgmmaSabotage } from './tensor_cores/lower_wgmma.js';
import { planTmaRings, withTmaRing } from './pipeline/lower_tma_ring.js';
import { withTcgen05Ring } from './pipeline/tcgen05_ring.js';
import { planTwoCta, type TwoCtaSabotage } from './pipeline/tcgen05_pair.js';
import { pairWsPlan } from './pipeline/ws_tcgen05_pair.js';
import { planWarpSpecialize, PRODUCER_WARPS, withWarpSpecialize } from './pipeline/lower_warp_specialize.js';
import { withTmem } from './tensor_cores/tmem_alloc.js';
import { withResidentAcc } from './tensor_cores/tcgen05_resident.js';
import { globalBarriers } from './global_order.js';
import { setTmaSabotage, TMA_BARRIER_SYMBOL, TMA_RULES, tmaBarrierCount } from './async/lower_tma.js';
import { tensorMaps, type TensorMapSpec, type TmaSabotage } from './async/tensor_map.js';
import { setCluster, type ClusterDims, type MulticastSabotage } from './async/tma_multicast.js';

type Rule = (cx: Lowering, op: Op) => void;

/** PTX ISA version: accepted by ptxas 13 for sm_80, sm_90 and sm_90a (sm_90 needs >= 7.8, sm_90a 8.0). */
export const PTX_VERSION = '8.0';
/**
 * Per target: sm_89's fp8 `cvt` forms need PTX ISA 8.1 (ptxas says so); sm_100/sm_100a (and
 * tcgen05) need 8.6; the others keep 8.0.
 */
export const PTX_VERSION_FOR: Readonly<Record<Target, string>> = { sm_80: PTX_VERSION, sm_89: '8.1', sm_90: PTX_VERSION, sm_90a: PTX_VERSION, sm_100: '8.6', sm_100a: '8.6' };
/** The module's `.version`: the target's, raised to what its instructions need (Lowering.requirePtxVersion). */
export const ptxVersion = (t: Target, floor: number): string =>
  (Math.max(Math.round(Number(PTX_VERSION_FOR[t]) * 10), floor) / 10).toFixed(1);
/** Static shared memory above this goes into dynamic (`.extern .shared`) memory. */
export const STATIC_SHARED_MAX = 48 * 1024;

const unsupported = (what: string): Rule => (cx) => cx.fail(`${what} is not supported by the PTX backend yet`);

/** One rule per op kind: the compiler checks this table is exhaustive. */
export function ruleTable(dot: string): Record<OpKind, Rule> {
  const dotRule = DOT_LOWERINGS[dot];
  if (!dotRule) throw new CompileError('?', `unknown dot lowering '${dot}' (have: ${Object.keys(DOT_LOWERINGS).join(', ')})`);
  const e = ELEMENTWISE_RULES;
  const m = MEMORY_RULES;
  return {
    const: e.const!, program_id: e.program_id!, num_programs: e.num_programs!, cluster_cta_rank: e.cluster_cta_rank!, arange: e.arange!, splat: e.splat!,
    broadcast: e.broadcast!, expand_dims: e.expand_dims!, unary: e.unary!, binary: e.binary!, cmp: e.cmp!,
    select: e.select!, fma: e.fma!, cast: e.cast!, bitcast: e.bitcast!, addptr: e.addptr!, hint: e.hint!,
    reshape: SHARED_RULES.reshape!, trans: SHARED_RULES.trans!, join: SHARED_RULES.join!, split: SHARED_RULES.split!,
    load: m.load!, store: m.store!, atomic_rmw: m.atomic_rmw!, atomic_cas: m.atomic_cas!,
    desc_load: TMA_RULES.desc_load, desc_store: TMA_RULES.desc_store,
    inline_asm: inlineAsm,
    reduce: REDUCE_RULES.reduce!, scan: SCAN_RULES.scan!, sort: SORT_RULES.sort!, gather: GATHER_RULES.gather!, histogram: HISTOGRAM_RULES.histogram!, dot: dotRule,
    for: CONTROL_RULES.for!, if: CONTROL_RULES.if!, while: lowerWhile, exit_if: lowerExitIf, assume: lowerAssume,
    dot_scaled: tcgen05DotScaled, // kept only where a block-scaled tcgen05 kind computes it (compiler/inline_dot_scaled.ts)
    yield: unsupported('a yield outside a region'),
    print: lowerPrint,
    assert: lowerAssert,
    return: (cx) => cx.emit('ret;'),
  };
}

export interface ParamInfo {
  readonly name: string;
  readonly type: ElemType;
  readonly offset: number;
  readonly size: number;
}

/** Kernel parameter ABI: pointers and 64-bit scalars 8 bytes, 16-bit floats 2, other scalars 4. */
export function paramLayout(f: Func): ParamInfo[] {
  let off = 0;
  return f.params.map((p) => {
    const size = isPtr(p.type) || p.type === 'i64' || p.type === 'f64' ? 8 : p.type === 'f16' || p.type === 'bf16' ? 2 : 4;
    off = Math.ceil(off / size) * size;
    const info = { name: p.name, type: p.type, offset: off, size };
    off += size;
    return info;
  });
}
const PARAM_DECL = (t: ElemType): string =>
  isPtr(t) || t === 'i64' ? '.u64' : t === 'f64' ? '.f64' : t === 'f32' ? '.f32' : t === 'f16' || t === 'bf16' ? '.b16' : '.u32';

export interface RenderOptions {
  readonly target: Target;
  readonly specialization?: Specialization;
  readonly dot?: string;
  /** Loops to software-pipeline (compiler/pipeline.ts); none when absent. */
  readonly pipeline?: PipelinePlan;
  /** @internal Breaks the pipeline on purpose (tests). */
  readonly pipelineSabotage?: PipelineSabotage;
  /** @internal false: a native dot_scaled on the cp.async ring waits for its MMAs each iteration (tests). */
  readonly scaledInflight?: false;
  /** @internal Breaks the wgmma synchronization on purpose (tests). */
  readonly wgmmaSabotage?: WgmmaSabotage;
  /** @internal Breaks the TMA lowering on purpose (tests). */
  readonly tmaSabotage?: TmaSabotage;
  /** Software-pipelining depth for the TMA rings of sm_90a (lower_tma_ring.ts); 1 or absent: none. */
  readonly numStages?: number;
  /** The launch's cluster shape: TMA ring tiles shared in a cluster are multicast (async/tma_multicast.ts). */
  readonly clusterDims?: ClusterDims;
  /** @internal Breaks the multicast ring on purpose (tests). */
  readonly multicastSabotage?: MulticastSabotage;
  /** sm_100a: the tcgen05 ring's dot on a CTA pair, .cta_group::2 (pipeline/tcgen05_pair.ts). */
  readonly twoCta?: boolean;
  /** @internal Breaks the pair ring on purpose (tests). */
  readonly twoCtaSabotage?: TwoCtaSabotage;
}
export interface RenderResult {
  readonly ptx: string;
  readonly sharedBytes: number;
  readonly dynamicShared: boolean;
  readonly params: ParamInfo[];
  /** Hidden CUtensorMap parameters (after `params`) the launcher encodes (sm_90a TMA). */
  readonly tensorMaps: TensorMapSpec[];
  /** The print and assert sites (print_sites.ts), in site order. */
  readonly prints: DeviceSite[];
  /** Warps launched beside numWarps: the producer warpgroup of a warp-specialized loop. */
  readonly producerWarps?: number;
  /** What became of each loop that asked for warp specialization (for the 'pipeline' stage). */
  readonly warpSpecialize?: readonly string[];
}

export function renderPtx(f: Func, plan: LayoutPlan, info: AxisInfoMap, opts: RenderOptions): RenderResult {
  legalize(f, plan);
  const cx = new Lowering(f, plan, info, opts.target, makeConvert(defsOf(f)));
  const rules = ruleTable(opts.dot ?? DEFAULT_DOT);
  setWgmmaSabotage(cx, opts.wgmmaSabotage);
  setTmaSabotage(cx, opts.tmaSabotage);
  if (opts.target === 'sm_90a') setCluster(cx, opts.clusterDims, opts.multicastSabotage);
  const cpAsync = (op: Op): boolean => opts.pipeline?.loops.has(op) ?? false;
  // a warp-specialized loop owns its ring for the whole kernel: no other ring may share the kernel
  // (its own cp.async ring, when its pointer loads are the producer's, is not another: ws_cpasync.ts)
  const planned = planWarpSpecialize(cx, opts.numStages ?? 1, (loop) =>
    [...(opts.pipeline?.loops.keys() ?? [])].some((o) => o !== loop) || [...planTmaRings(cx, opts.numStages ?? 1, cpAsync).keys()].some((o) => o !== loop), opts.pipeline);
  // before anything is lowered: the kernel's .cta_group decides the TMEM allocation's too; before
  // the rings are laid out: a pair's B takes half its slot in each stage (ring_half_slot.ts), the
  // warp-specialized ring's too (ws_tcgen05_pair.ts)
  const pairNote = opts.twoCta ? planTwoCta(cx, opts.numStages ?? 1, (op) => cpAsync(op) || op === planned.loop?.ring.loop, planned.loop, opts.twoCtaSabotage) : undefined;
  const wsPlan = pairWsPlan(cx, planned, opts.numStages ?? 1);
  const wsCp = wsPlan.loop?.cp ? wsPlan.loop.ring.loop : undefined;
  withPipeline(rules, cx, wsCp && opts.pipeline ? { ...opts.pipeline, loops: new Map([...opts.pipeline.loops].filter(([o]) => o !== wsCp)) } : opts.pipeline, opts.pipelineSabotage, opts.scaledInflight !== false);
  const ws = withWarpSpecialize(rules, cx, wsPlan);
  withTmaRing(rules, cx, opts.numStages ?? 1, (op) => cpAsync(op) || op === wsPlan.loop?.ring.loop);
  withTcgen05Ring(rules, cx, opts.numStages ?? 1, (op) => cpAsync(op) || op === wsPlan.loop?.ring.loop);
  withTmem(rules, cx);
  withResidentAcc(rules, cx);
  const files = new Map<string, number>();
  let lastLoc = '';
  const ordered = globalBarriers(f, plan);
  cx.lowerOp = (op: Op): void => {
    const saved = cx.current;
    cx.current = op;
    if (op.loc) {
      let fi = files.get(op.loc.file);
      if (fi === undefined) files.set(op.loc.file, (fi = files.size + 1));
      const l = `.loc ${fi} ${op.loc.line} ${op.loc.col}`;
      if (l !== lastLoc) {
        cx.e.emit(l);
        lastLoc = l;
      }
    }
    if (ordered.has(op)) {
      cx.emit('// global memory order: earlier accesses of other threads first (global_order.ts)');
      cx.barrier();
    }
    try {
      rules[op.kind](cx, op);
    } catch (e) {
      if (e instanceof CompileError) throw e;
      throw new CompileError(f.name, (e as Error).message, op.kind, op.loc);
    } finally {
      cx.current = saved;
    }
  };

  const params = paramLayout(f);
  const maps = tensorMaps(cx);
  const pname = (i: number): string => `${f.name}_param_${i}`;
  f.params.forEach((p, i) => loadParam(cx, f, i, f.body.args[i]!, pname(i), opts.specialization));
  f.body.ops.forEach((op, i) => {
    cx.lowerOp(op);
    if (op.kind === 'for') rematAfterLoop(cx, f.body.ops, i);
  });
  ws?.producer(); // after the consumers' code (lower_warp_specialize.ts)
  const wsEntry = ws?.entry() ?? [];

  // a warp-specialized kernel adds its producer warpgroup to the numWarps consumer warps
  const producerWarps = ws ? PRODUCER_WARPS : 0;
  const nthreads = 32 * (plan.numWarps + producerWarps);
  // One shared buffer holds everything: the scratch (1024-aligned at its start, as swizzled tiles
  // need), then the TMA mbarriers. A second .shared variable next to an `.extern` one would leave
  // where the dynamic buffer starts to the driver (a real GPU ignores its 1024 alignment; the sim
  // honours it but does not grow the window), so boxes near the end would leave shared memory.
  const barriers = tmaBarrierCount(cx);
  if (barriers) cx.smemSymbol();
  // The scratch's end is rounded to 16 (an mbarrier needs 8-byte alignment; 16 keeps kernels
  // without barriers as they were). The barriers come last, 8 bytes each (mbarrier.init's .b64
  // object), and nothing follows them, so the buffer ends at the last one, as Triton's does: every
  // buffer in the scratch keeps the alignment its own allocation gave it (1024 for swizzled tiles,
  // context.ts), none is derived from this total.
  const scratch = Math.ceil(cx.sharedBytes / 16) * 16;
  const shared = scratch + 8 * barriers;
  // over the static limit (the barriers counted): dynamic, which the launcher opts in to past 48 KB
  const dynamicShared = shared > STATIC_SHARED_MAX;
  const out: string[] = [
    '//',
    `// Generated by tessera for ${opts.target}: kernel '${f.name}', ${plan.numWarps} warps`,
    '//',
    `.version ${ptxVersion(opts.target, cx.ptxVersionFloor)}`,
    `.target ${opts.target}`,
    '.address_size 64',
    '',
  ];
  for (const [file, i] of files) out.push(`.file ${i} ${JSON.stringify(file)}`);
  if (cx.usesShared && dynamicShared) out.push(`.extern .shared .align ${SWIZZLE_ALIGN} .b8 tessera_smem[];`);
  out.push(...cx.moduleDecls);
  out.push('', `.visible .entry ${f.name}(`);
  const tmaps = maps.place(params.reduce((end, p) => Math.max(end, p.offset + p.size), 0));
  out.push([
    ...f.params.map((p, i) => `\t.param ${PARAM_DECL(p.type)} ${pname(i)}`),
    ...tmaps.map((m) => `\t.param .align 64 .b8 ${m.name}[128]`),
  ].join(',\n'));
  out.push(')', `.reqntid ${nthreads}, 1, 1`, ...(ws ? [`.maxnreg ${wsPlan.loop!.maxnreg}`] : []), '{');
  out.push(...cx.e.declarations());
  if (cx.usesShared && !dynamicShared) out.push(`\t.shared .align ${SWIZZLE_ALIGN} .b8 tessera_smem[${Math.max(16, shared)}];`);
  if (cx.localBytes) out.push(`\t.local .align 8 .b8 tessera_local[${Math.ceil(cx.localBytes / 8) * 8}];`);
  const body = [...cx.e.prologue, ...wsEntry, ...cx.e.lines];
  if (barriers) placeBarriers(body, cx.smemSymbol(), scratch);
  dropDeadCode(body);
  out.push(...body, '}', '');
  return {
    ptx: out.join('\n'), sharedBytes: cx.usesShared ? Math.max(16, shared) : 0, dynamicShared, params, tensorMaps: tmaps, prints: cx.deviceSites,
    ...(producerWarps ? { producerWarps } : {}), ...(wsPlan.notes.length || pairNote ? { warpSpecialize: [...wsPlan.notes, ...(pairNote ? [pairNote] : [])] } : {}),
  };
}

/**
 * Points the mbarrier symbol of lower_tma.ts at its place in the shared buffer, `scratch` bytes past
 * `smem`; an offset written after the symbol (`tessera_mbar+16`) is folded into one (a PTX address
 * operand is a symbol plus one constant).
 */
function placeBarriers(body: string[], smem: string, scratch: number): void {
  const sym = new RegExp(`\\b${TMA_BARRIER_SYMBOL}\\b(?:\\+(\\d+))?`, 'g');
  for (let i = 0; i < body.length; i++) {
    if (body[i]!.includes(TMA_BARRIER_SYMBOL)) body[i] = body[i]!.replace(sym, (_, off?: string) => `${smem}+${scratch + Number(off ?? 0)}`);
  }
}

function loadParam(cx: Lowering, f: Func, i: number, v: Value, sym: string, spec?: Specialization): void {
  const t = f.params[i]!.type;
  const s = paramSpec(spec, f.params[i]!.name, i);
  if (s.equalsOne && !isPtr(t) && t !== 'bool') {
    // specialization: the runtime promised this integer is 1
    const r = cx.newRegs(t, 1)[0]!;
    if (t === 'f32' || t === 'f64') cx.e.emitPrologue(`mov.${t} ${r}, ${t === 'f32' ? '0f3F800000' : '0d3FF0000000000000'};`);
    else if (t === 'f16' || t === 'bf16') cx.e.emitPrologue(`mov.b16 ${r}, ${t === 'f16' ? '0x3C00' : '0x3F80'};`);
    else cx.e.emitPrologue(`mov.b${t === 'i64' ? 64 : 32} ${r}, 1;`);
    return cx.define(v, [r]);
  }
  const r = cx.newRegs(t, 1)[0]!;
  if (isPtr(t)) {
    cx.e.emitPrologue(`ld.param.u64 ${r}, [${sym}];`);
    cx.e.emitPrologue(`cvta.to.global.u64 ${r}, ${r};`);
  } else if (t === 'bool') {
    const w = cx.reg('b32');
    cx.e.emitPrologue(`ld.param.u32 ${w}, [${sym}];`);
    cx.e.emitPrologue(`setp.ne.u32 ${r}, ${w}, 0;`);
  } else {
    cx.e.emitPrologue(`ld.param${PARAM_DECL(t)} ${r}, [${sym}];`);
    if (t === 'i8' || t === 'u8' || t === 'i16') {
      const saved = cx.e.lines.length;
      normalize(cx, t, r);
      cx.e.prologue.push(...cx.e.lines.splice(saved));
    }
  }
  cx.define(v, [r]);
}
