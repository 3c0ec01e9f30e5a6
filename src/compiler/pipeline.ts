// Software pipelining (the `numStages` option): which loops and loads the codegen pipelines.
// A pipelined load is not lowered as ld.global into registers: the codegen issues its tile as
// cp.async copies straight into a ring of `numStages` shared-memory stages, numStages-1
// iterations ahead, and the tensor-core dot reads its stage with ldmatrix (codegen/pipeline/lower_pipeline.ts).
//
// The rule (docs/compiler.md, "Software pipelining"): in an innermost `for` with a constant
// positive step, a top-level load is pipelined when
//   - its value feeds only dots on tensor cores (mma layout), as operand a or b, in the same body;
//   - its pointee is 2 bytes (f16/bf16), or 1 byte (fp8, s8/u8) where every dot it feeds runs on
//     tcgen05 (sm_100a; ring_8bit_tcgen05.ts), its tile is 2-D and contiguous along dim 1 (or along dim
//     0 for a b operand, staged transposed), and AxisInfo proves runs of >= 2 elements aligned,
//     contiguous and uniformly masked (cp.async moves 4, 8 or 16 bytes);
//     (or: a native dot_scaled's 1-byte operand or ue8m0 scales alone read it: pipeline_scaled.ts);
//   - it is not volatile, and `other` is absent or the constant +0 (masked copies zero-fill);
//   - its address and mask are computed in the body from the induction variable and values
//     defined before the loop only (pure index math: no loop-carried value, no load); pointers
//     and offsets advanced by a loop-invariant amount arrive here already rewritten as closed
//     forms of the induction variable (the 'carried' IR pass, carried_induction.ts);
//   - the loop writes no global memory (no store, atomic or descriptor store, in any region of
//     the body): the copy of iteration i+D runs before the writes of iterations i..i+D, and
//     Tessera cannot prove a write misses what the load reads (loop_writers.ts).
// This pass decides what; the codegen decides where (the ring's geometry is the dot's staging).
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { byteSize, pointee, typeToString, type PtrType } from '../ir/types.js';
import type { AxisInfoMap } from './axis_info.js';
import { layoutToString, type BlockedLayout } from './layout.js';
import { mmaLayoutOf } from './layout_assign.js';
import { describeWriter, loopWriter } from './loop_writers.js';
import { oneByteDotWhyNot, oneByteStageWhyNot } from './ring_8bit_tcgen05.js';
import { scaledCopy, scaledRole } from './pipeline_scaled.js';

export interface PipelinedLoad {
  readonly load: Op<'load'>;
  /** The layout the copies are issued in (see copyLayout) and elements per copy. */
  readonly layout: BlockedLayout;
  readonly vec: number;
  /**
   * Contiguous along dim 0, not 1 (K^T in attention, a b loaded k-fastest): the copies run
   * along dim 0 and the tile is staged as its transpose, which the dot reads as it reads any b
   * whose layout runs along k (plain ldmatrix of [N, K] rows).
   */
  readonly transposed: boolean;
  /** A dot_scaled's ue8m0 scales, staged in tcgen05.cp chunks (pipeline_scaled.ts), not as rows. */
  readonly scales?: boolean;
}

export interface PipelinedLoop {
  readonly loop: Op<'for'>;
  readonly numStages: number;
  readonly step: number;
  readonly loads: readonly PipelinedLoad[];
  /** Body ops that compute the loads' addresses and masks, in body order (lowered once per prefetch). */
  readonly slice: readonly Op[];
  /** Body ops the loop body does not lower: the loads, and address math only they use. */
  readonly skip: ReadonlySet<Op>;
}

export interface PipelinePlan {
  readonly numStages: number;
  readonly loops: ReadonlyMap<Op, PipelinedLoop>;
  /** Layout and vector width of each pipelined load (layout assignment anchors them so). */
  readonly anchors: ReadonlyMap<Op, { readonly layout: BlockedLayout; readonly vec: number }>;
  /** Why a loop or a load was left alone, one line each (printed in the 'pipeline' stage). */
  readonly notes: readonly string[];
}

export const EMPTY_PIPELINE: PipelinePlan = { numStages: 1, loops: new Map(), anchors: new Map(), notes: [] };

/** Ops an address slice may contain: pure, cheap, no shared memory and no regions. */
const SLICE_OK = new Set(['const', 'arange', 'splat', 'broadcast', 'expand_dims', 'unary', 'binary', 'cmp', 'select', 'cast', 'addptr', 'hint', 'program_id', 'num_programs']);

interface Use { readonly op: Op; readonly index: number }

function usesOf(f: Func): Map<number, Use[]> {
  const m = new Map<number, Use[]>();
  const visit = (b: Block): void => {
    for (const op of b.ops) {
      op.operands.forEach((v, index) => {
        let l = m.get(v.id);
        if (!l) m.set(v.id, (l = []));
        l.push({ op, index });
      });
      op.regions.forEach(visit);
    }
  };
  visit(f.body);
  return m;
}

const hasLoop = (b: Block): boolean => b.ops.some((op) => op.kind === 'for' || op.kind === 'while' || op.regions.some(hasLoop));

/**
 * The layout cp.async copies are issued in: `vec` elements (one 4..16-byte chunk) per thread,
 * consecutive lanes along a row (order [1, 0]), as many as the row has chunks (up to 32). The
 * staged tile is swizzled (codegen/smem/smem_swizzle.ts): the 128 bytes 8 lanes write (or 16, or 32
 * lanes of smaller chunks) are one row of a 128-byte swizzle, or 2 or 4 whole rows of a 64- or
 * 32-byte one, which fill the 32 banks once (no bank conflicts); a warp reads whole rows of
 * global memory (full sectors). A thread's copies are then whole rows apart, which keeps their
 * swizzled addresses one register plus immediates (codegen/smem/swizzle_addr.ts).
 */
export function copyLayout(R: number, C: number, vec: number, numWarps: number): BlockedLayout {
  const chunks = Math.max(1, C / vec);
  const t1 = Math.min(chunks, 32);
  const t0 = 32 / t1;
  const w0 = Math.max(1, Math.min(numWarps, Math.floor(R / t0)));
  const w1 = Math.max(1, Math.min(numWarps / w0, Math.floor(chunks / t1)));
  return { kind: 'blocked', sizePerThread: [1, vec], threadsPerWarp: [t0, t1], warpsPerCTA: [(numWarps / w1), w1], order: [1, 0] };
}

/** The copy layout of a transposed load: copyLayout of the [C, R] transpose, permuted back. */
function transposedCopyLayout(R: number, C: number, vec: number, numWarps: number): BlockedLayout {
  const t = copyLayout(C, R, vec, numWarps);
  const sw = <T>(a: readonly T[]): T[] => [a[1]!, a[0]!];
  return { kind: 'blocked', sizePerThread: sw(t.sizePerThread), threadsPerWarp: sw(t.threadsPerWarp), warpsPerCTA: sw(t.warpsPerCTA), order: [0, 1] };
}

/** Elements per cp.async for `load` along `dim` (a power of two, 4..16 bytes), or why there is no such width. */
function copyVec(load: Op<'load'>, info: AxisInfoMap, dim: 0 | 1): number | string {
  const ptr = load.operands[0]!;
  const bytes = byteSize(pointee(ptr.type.elem as PtrType));
  const pi = info.get(ptr);
  if (pi.contiguity[dim]! < 2 || pi.contiguity[dim]! < pi.contiguity[1 - dim]!) return `not contiguous along dim ${dim} (the staged rows)`;
  let vec = Math.min(pi.contiguity[dim]!, Math.max(1, Math.floor(pi.divisibility[dim]! / bytes)), 16 / bytes, ptr.type.shape[dim]!);
  if (load.attrs.hasMask) vec = Math.min(vec, info.get(load.operands[1]!).constancy[dim]!);
  vec = 2 ** Math.floor(Math.log2(Math.max(1, vec)));
  return vec * bytes >= 4 ? vec : `AxisInfo proves no 4-byte aligned, uniformly masked runs along dim ${dim}`;
}

/** Why `load` cannot be pipelined in `body` (undefined: it can); fills `slice` with its address ops. */
function reject(load: Op<'load'>, body: Block, inBody: Map<number, Op>, uses: Map<number, Use[]>, info: AxisInfoMap, numWarps: number, tcgen05: boolean, slice: Set<Op>): string | undefined {
  const ptr = load.operands[0]!;
  const t = pointee(ptr.type.elem as PtrType);
  if (ptr.type.shape.length !== 2) return 'not a 2-D tile';
  const users = uses.get(load.results[0]!.id) ?? [];
  // a native dot_scaled's operands and scales (1-byte: pipeline_scaled.ts)
  const scaled = scaledRole(load, users, body.ops);
  if (typeof scaled === 'string') return scaled;
  const oneByte = !scaled && byteSize(t) === 1 && tcgen05;
  if (!scaled && byteSize(t) !== 2 && !oneByte) return `${t} is not a 2-byte dtype${byteSize(t) === 1 ? ' (1-byte tiles ride the ring for tcgen05 dots only, on sm_100a)' : ''}`;
  if (load.attrs.volatile) return 'volatile';
  if (!users.length) return 'unused';
  if (!scaled) for (const u of users) {
    if (u.op.kind !== 'dot' || u.index > 1 || !body.ops.includes(u.op)) return `used by ${u.op.kind} (operand ${u.index}), not only as a dot operand in the loop body`;
    if (!mmaLayoutOf(u.op, numWarps)) return 'feeds a dot that is not on tensor cores';
    const why = oneByte ? oneByteDotWhyNot(u.op, numWarps) : undefined;
    if (why) return why;
  }
  if (load.attrs.hasOther) {
    const c = info.get(load.operands[2]!).constant;
    if (c === undefined || !Object.is(c, 0)) return "masked with an `other` that is not the constant 0 (cp.async zero-fills)";
  }
  // the address slice: ops of the body the pointer and the mask depend on
  const iv = body.args[0]!;
  const carried = new Set(body.args.slice(1).map((a) => a.id));
  const own = new Set<Op>();
  const visit = (v: Value): string | undefined => {
    if (v.id === iv.id) return undefined;
    if (carried.has(v.id)) return 'its address or mask depends on a loop-carried value';
    const def = inBody.get(v.id);
    if (!def || own.has(def)) return undefined;
    if (!SLICE_OK.has(def.kind)) return `its address or mask depends on a ${def.kind} in the loop`;
    own.add(def);
    for (const o of def.operands) {
      const why = visit(o);
      if (why) return why;
    }
    return undefined;
  };
  for (const v of load.operands.slice(0, load.attrs.hasMask ? 2 : 1)) {
    const why = visit(v);
    if (why) return why;
  }
  own.forEach((o) => slice.add(o));
  return undefined;
}

/**
 * The TMA ring (sm_90a, codegen/pipeline/lower_tma_ring.ts) takes the descriptor loads that feed dots and
 * leaves a loop that writes memory alone (the same rule): say so in the stage, for each such load.
 */
function noteTmaLoads(body: Block, name: string, writer: Op, uses: Map<number, Use[]>, notes: string[]): void {
  for (const x of body.ops) {
    const elem = x.results[0]?.type.elem;
    if (x.kind !== 'desc_load' || (elem !== 'f16' && elem !== 'bf16')) continue; // the ring takes 16-bit tiles only
    const feedsDot = (v: Value): boolean => (uses.get(v.id) ?? []).some((u) => u.op.kind === 'dot' || (u.op.kind === 'reshape' && feedsDot(u.op.results[0]!)));
    if (feedsDot(x.results[0]!)) notes.push(`${name}: desc_load %${x.results[0]!.id} not on a TMA ring: ${describeWriter(writer)}`);
  }
}

/** The pipelining depth of `loop`: its `numStages` option, else the kernel's. */
export const loopStages = (loop: Op, kernel: number): number => (loop as Op<'for'>).attrs.numStages ?? kernel;

/** Plans the pipelining of every eligible loop of `f` (none where numStages < 2, or when dot is not 'mma'). */
export function planPipelines(f: Func, info: AxisInfoMap, o: { numWarps: number; numStages: number; dot: string; tcgen05?: boolean }): PipelinePlan {
  if (o.dot !== 'mma') return { ...EMPTY_PIPELINE, numStages: o.numStages };
  const uses = usesOf(f);
  const loops = new Map<Op, PipelinedLoop>();
  const anchors = new Map<Op, { layout: BlockedLayout; vec: number }>();
  const notes: string[] = [];
  const visit = (b: Block): void => {
    for (const op of b.ops) {
      op.regions.forEach(visit);
      if (op.kind !== 'for') continue;
      const loop = op as Op<'for'>;
      const S = loopStages(loop, o.numStages); // a loop's own numStages overrides the kernel's
      if (S < 2) continue;
      const body = loop.regions[0]!;
      const loads = body.ops.filter((x): x is Op<'load'> => x.kind === 'load');
      const name = `loop %${body.args[0]!.id}`;
      const writer = loopWriter(body);
      if (writer && !hasLoop(body)) noteTmaLoads(body, name, writer, uses, notes);
      if (!loads.length) continue;
      if (hasLoop(body)) {
        notes.push(`${name}: not innermost`);
        continue;
      }
      const step = info.get(loop.operands[2]!).constant;
      if (step === undefined || step <= 0 || !Number.isInteger(step)) {
        notes.push(`${name}: step is not a known positive constant`);
        continue;
      }
      const inBody = new Map<number, Op>();
      for (const x of body.ops) for (const r of x.results) inBody.set(r.id, x);
      const slice = new Set<Op>();
      const chosen: PipelinedLoad[] = [];
      for (const load of loads) {
        const own = new Set<Op>();
        const scaled = scaledRole(load, uses.get(load.results[0]!.id) ?? [], body.ops);
        const rejected = reject(load, body, inBody, uses, info, o.numWarps, !!o.tcgen05, own);
        if (!rejected && typeof scaled === 'object') {
          const sc = scaledCopy(scaled.role, load.operands[0]!.type.shape, (d) => copyVec(load, info, d));
          if (typeof sc === 'string' || writer) {
            notes.push(`${name}: load %${load.results[0]!.id} not pipelined: ${typeof sc === 'string' ? sc : describeWriter(writer!)}`);
            continue;
          }
          own.forEach((x) => slice.add(x));
          const [R, C] = load.operands[0]!.type.shape as [number, number];
          const layout = sc.transposed ? transposedCopyLayout(R, C, sc.vec, o.numWarps) : copyLayout(R, C, sc.vec, o.numWarps);
          chosen.push({ load, layout, vec: sc.vec, transposed: sc.transposed, ...(scaled.role === 'scales' ? { scales: true } : {}) });
          continue;
        }
        let why = rejected ?? copyVec(load, info, 1);
        // a b contiguous along k only (dim 0) is copied as its transpose
        const onlyB = (uses.get(load.results[0]!.id) ?? []).every((u) => u.index === 1);
        let transposed = false;
        if (typeof why === 'string' && why.startsWith('not contiguous along dim 1') && onlyB) {
          const t = copyVec(load, info, 0);
          if (typeof t === 'number') [why, transposed] = [t, true];
        }
        const elem = pointee(load.operands[0]!.type.elem as PtrType);
        if (typeof why === 'number' && byteSize(elem) === 1) why = oneByteStageWhyNot(load.operands[0]!.type.shape, transposed) ?? why;
        if (typeof why === 'number' && writer) why = describeWriter(writer); // a read-after-write hazard
        if (typeof why === 'string') {
          notes.push(`${name}: load %${load.results[0]!.id} not pipelined: ${why}`);
          continue;
        }
        own.forEach((x) => slice.add(x));
        const [R, C] = load.operands[0]!.type.shape as [number, number];
        const layout = transposed ? transposedCopyLayout(R, C, why, o.numWarps) : copyLayout(R, C, why, o.numWarps);
        chosen.push({ load, layout, vec: why, transposed });
      }
      if (!chosen.length) continue;
      // ops the body no longer needs: the loads, and slice ops whose every user is skipped
      const skip = new Set<Op>(chosen.map((c) => c.load));
      for (let i = body.ops.length - 1; i >= 0; i--) {
        const x = body.ops[i]!;
        if (!slice.has(x) || skip.has(x)) continue;
        if (x.results.every((r) => (uses.get(r.id) ?? []).every((u) => skip.has(u.op)))) skip.add(x);
      }
      for (const c of chosen) anchors.set(c.load, { layout: c.layout, vec: c.vec });
      loops.set(loop, { loop, numStages: S, step, loads: chosen, slice: body.ops.filter((x) => slice.has(x)), skip });
    }
  };
  visit(f.body);
  return { numStages: o.numStages, loops, anchors, notes };
}

/** The 'pipeline' stage text: each pipelined loop and load, and why others were left alone. */
export function printPipelinePlan(f: Func, p: PipelinePlan): string {
  const out = [`func @${f.name} pipeline (numStages=${p.numStages})`];
  for (const l of p.loops.values()) {
    out.push(`  loop %${l.loop.regions[0]!.args[0]!.id}: ${l.numStages} stages, step ${l.step}, ${l.slice.length} address ops, ${l.skip.size} ops moved out of the body`);
    for (const c of l.loads) {
      const r = c.load.results[0]!;
      out.push(`    load %${r.id}: ${typeToString(r.type)} cp.async ${c.vec * byteSize(r.type.elem)} bytes${c.load.attrs.hasMask ? ' zero-fill' : ''}${c.transposed ? ' staged transposed' : ''}${c.scales ? ' scale chunks' : ''} ${layoutToString(c.layout)}`);
    }
  }
  for (const n of p.notes) out.push(`  note: ${n}`);
  return `${out.join('\n')}\n`;
}
