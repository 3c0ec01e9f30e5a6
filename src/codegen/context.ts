// State of one lowering: value -> registers, layouts, thread coordinates, shared memory.
// Every tile value is a list of registers (one per element the thread holds, in the order of
// `regSlots`); a scalar is one register held by every thread.
import type { DeviceSite } from './print_sites.js';
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { walkOps } from '../ir/walk.js';
import type { ElemType } from '../ir/types.js';
import { CompileError } from '../compiler/errors.js';
import type { LayoutPlan } from '../compiler/layout_assign.js';
import {
  blockedOf, ctaTile, laneRep, layoutKey, parentShape, regSlots, SCALAR, threadShifts, wraps,
  type BlockedLayout, type Layout, type RegSlot,
} from '../compiler/layout.js';
import type { AxisInfoMap } from '../compiler/axis_info.js';
import { PtxBuilder, type RegKind } from './emitter.js';
import { operandLayout, rematAfterLoop } from './remat.js';
import { regBits, regKind } from './ptx_types.js';

/**
 * PTX targets. sm_80: Ampere (mma.sync, ldmatrix, cp.async). sm_89: Ada (adds the fp8 `cvt`
 * forms). sm_90: Hopper through the portable mma.sync path. sm_90a: Hopper's arch-specific
 * target (`.target sm_90a`: wgmma dots where they fit, TMA for tensor descriptors).
 */
export type Target = 'sm_80' | 'sm_89' | 'sm_90' | 'sm_90a' | 'sm_100' | 'sm_100a';
/** Compute capability (major*10+minor) of each target. */
export const TARGET_SM: Readonly<Record<Target, number>> = { sm_80: 80, sm_89: 89, sm_90: 90, sm_90a: 90, sm_100: 100, sm_100a: 100 };
/** Whether PTX for this target has the fp8 conversions (`cvt.rn.satfinite.e4m3x2.f32`, ...): sm_89+. */
export const hasFp8Cvt = (t: Target): boolean => TARGET_SM[t] >= 89;

/** A shared-memory address: register plus constant byte offset. */
export interface SmemAddr {
  readonly reg: string;
  readonly imm: number;
}
export const addrStr = (a: SmemAddr): string => (a.imm > 0 ? `[${a.reg}+${a.imm}]` : a.imm < 0 ? `[${a.reg}+${a.imm}]` : `[${a.reg}]`);

export class Lowering {
  readonly e = new PtxBuilder();
  private readonly vals = new Map<number, string[]>();
  private readonly conv = new Map<string, string[]>();
  private bases = new Map<string, string[]>();
  /** Values whose registers nothing else shares (a loop's private copies of its carried values). */
  private readonly owned = new Map<number, Block>();
  private useCounts?: Map<number, number>;
  /** `lo,hi` -> the b32 register they were unpacked from (both written by the same op, once). */
  private readonly words = new Map<string, string>();
  private threadRegs?: { tid: string; lane: string; warp: string };
  private smemSym?: string;
  /** Largest shared-memory scratch any op needs, in bytes. */
  sharedBytes = 0;
  /** The kernel's print and assert sites, for the host (print_sites.ts). */
  readonly deviceSites: DeviceSite[] = [];
  /** The per-thread count of print/assert ops executed (lower_print.ts), once one exists. */
  printSeq?: string;
  /** The op being lowered (for error messages). */
  current?: Op;
  /** Lowers one op (set by the renderer; used to inline regions). */
  lowerOp: (op: Op) => void = () => {
    throw new Error('lowerOp not set');
  };

  constructor(
    readonly func: Func,
    readonly plan: LayoutPlan,
    readonly info: AxisInfoMap,
    readonly target: Target,
    /** Converts an operand to a layout (set by the renderer; goes through shared memory). */
    readonly convertFn: (cx: Lowering, v: Value, from: Layout, to: Layout) => string[],
  ) {}

  get numWarps(): number {
    return this.plan.numWarps;
  }
  fail(detail: string, op: Op | undefined = this.current): never {
    throw new CompileError(this.func.name, detail, op?.kind, op?.loc);
  }

  layoutOf(v: Value): Layout {
    return v.type.shape.length === 0 ? SCALAR : this.plan.layouts.get(v.id) ?? this.fail(`no layout for value %${v.id}`);
  }
  slots(v: Value, l: Layout = this.layoutOf(v)): RegSlot[] {
    return regSlots(l, v.type.shape);
  }
  define(v: Value, regs: string[]): void {
    this.vals.set(v.id, regs);
  }
  /** Lowers `ops` again (already lowered once): later uses read the new registers; conversions of the old are dropped. */
  relower(ops: readonly Op[]): void {
    const ids = new Set(ops.flatMap((op) => op.results.map((r) => `${r.id}`)));
    for (const k of this.conv.keys()) if (ids.has(k.slice(0, k.indexOf('|')))) this.conv.delete(k);
    for (const op of ops) this.lowerOp(op);
  }
  /**
   * Runs `fn`, then gives `vs` back the registers they had before (or none): for lowering ops a
   * second time with other inputs (a pipelined load's address slice, for a later iteration) in
   * the middle of a block whose own values must stay as they were.
   */
  preserving<T>(vs: readonly Value[], fn: () => T): T {
    const saved = vs.map((v) => this.vals.get(v.id));
    const conv = new Map(this.conv);
    // conversions of the old registers must not be reused for the new ones
    const ids = new Set(vs.map((v) => `${v.id}`));
    for (const k of conv.keys()) if (ids.has(k.slice(0, k.indexOf('|')))) this.conv.delete(k);
    try {
      return fn();
    } finally {
      this.conv.clear();
      conv.forEach((v, k) => this.conv.set(k, v));
      vs.forEach((v, i) => {
        const r = saved[i];
        if (r) this.vals.set(v.id, r);
        else this.vals.delete(v.id);
      });
    }
  }
  /** Whether `v` has been lowered already. */
  has(v: Value): boolean {
    return this.vals.has(v.id);
  }
  regs(v: Value): string[] {
    const r = this.vals.get(v.id);
    if (!r) this.fail(`value %${v.id} used before it was lowered`);
    return r;
  }
  /**
   * Marks `v`, an argument of `block`, as owning its registers: nothing else reads them except
   * through `v` (a loop's private copies of its carried values, rewritten at the back edge).
   */
  own(v: Value, block: Block): void {
    this.owned.set(v.id, block);
  }
  /**
   * Whether `op` may overwrite the registers of its operand `i` (in the layout the plan expects,
   * converted or not): the operand owns its registers, `op` is its only use, and `op` sits
   * directly in the operand's block (so it runs once per definition, not in an inner loop).
   */
  mayClobber(op: Op, i: number): boolean {
    const v = op.operands[i]!;
    if (!this.owned.get(v.id)?.ops.includes(op)) return false;
    if (!this.useCounts) {
      const n = new Map<number, number>();
      walkOps(this.func.body, (o) => o.operands.forEach((u) => n.set(u.id, (n.get(u.id) ?? 0) + 1)));
      this.useCounts = n;
    }
    return this.useCounts.get(v.id) === 1;
  }
  /**
   * The registers an `n`-slot result of `op` may be written into in place: operand `i`'s own
   * (mayClobber, read unconverted, one a slot, not a splat). The result then owns them (its one
   * consumer in the block may overwrite them again), so a loop-carried value updated by a chain
   * of per-element ops is yielded in its own registers and the back edge copies nothing
   * (lower_elementwise.ts `binary`). Undefined where they may not be.
   */
  clobberOperand(op: Op, i: number, n: number): string[] | undefined {
    const v = op.operands[i]!;
    if (!this.mayClobber(op, i)) return undefined;
    const regs = this.operand(op, i);
    if (regs !== this.regs(v) || regs.length !== n || op.results.length !== 1) return undefined;
    this.owned.set(op.results[0]!.id, this.owned.get(v.id)!);
    return regs;
  }
  /** Records that the four byte registers `b` (lowest byte first) were unpacked from `word`. */
  noteByteWord(b: readonly string[], word: string): void {
    this.words.set(b.join(','), word);
  }
  /** The 32-bit register the byte registers `b` were unpacked from, in order, if any (as wordOf). */
  byteWordOf(b: readonly string[]): string | undefined {
    return b.length === 4 ? this.words.get(b.join(',')) : undefined;
  }
  /** Records that 16-bit registers `lo`, `hi` were unpacked from the 32-bit `word`. */
  noteWord(lo: string, hi: string, word: string): void {
    this.words.set(`${lo},${hi}`, word);
  }
  /**
   * The 32-bit register `lo`, `hi` were unpacked from, if any: packing them again can reuse it.
   * Valid wherever the halves are: the word is written by the same op, and by nothing else.
   */
  wordOf(lo: string, hi: string): string | undefined {
    return this.words.get(`${lo},${hi}`);
  }
  /** Registers of `v` in layout `want` (converting once per value and layout). */
  regsIn(v: Value, want: Layout | undefined): string[] {
    const have = this.layoutOf(v);
    if (!want || v.type.shape.length === 0 || layoutKey(have) === layoutKey(want)) return this.regs(v);
    const key = `${v.id}|${layoutKey(want)}`;
    let r = this.conv.get(key);
    if (!r) {
      r = this.convertFn(this, v, have, want);
      this.conv.set(key, r);
    }
    return r;
  }
  /** Operand `i` of `op` in the layout the plan expects. */
  operand(op: Op, i: number): string[] {
    return this.regsIn(op.operands[i]!, this.plan.expected.get(op)?.[i]);
  }
  /** Runs `fn` so that conversions made inside it are forgotten after (they may not have run). */
  scope<T>(fn: () => T): T {
    const saved = new Map(this.conv);
    try {
      return fn();
    } finally {
      this.conv.clear();
      saved.forEach((v, k) => this.conv.set(k, v));
    }
  }

  newRegs(t: ElemType, n: number): string[] {
    const k = regKind(t);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.e.reg(k));
    return out;
  }
  reg(k: RegKind): string {
    return this.e.reg(k);
  }
  emit(line: string): void {
    this.e.emit(line);
  }

  thread(): { tid: string; lane: string; warp: string } {
    if (!this.threadRegs) {
      const tid = this.e.reg('b32');
      const lane = this.e.reg('b32');
      const warp = this.e.reg('b32');
      this.e.emitPrologue(`mov.u32 ${tid}, %tid.x;`);
      this.e.emitPrologue(`and.b32 ${lane}, ${tid}, 31;`);
      this.e.emitPrologue(`shr.u32 ${warp}, ${tid}, 5;`);
      this.threadRegs = { tid, lane, warp };
    }
    return this.threadRegs;
  }

  /**
   * Lowers `fn` as the thread `regs` of the kernel's layouts, its prologue lines emitted in place:
   * the warp-specialized cp.async producer issues the copies of consumer threads (ws_cpasync.ts).
   * The thread's bases (and anything else `fn` would put in the prologue) are computed in `fn`'s code.
   */
  asThread<T>(regs: { tid: string; lane: string; warp: string }, fn: () => T): T {
    const saved = { t: this.threadRegs, b: this.bases, p: this.e.emitPrologue };
    this.threadRegs = regs;
    this.bases = new Map();
    this.e.emitPrologue = (line: string): void => this.e.emit(line);
    try {
      return fn();
    } finally {
      this.threadRegs = saved.t;
      this.bases = saved.b;
      this.e.emitPrologue = saved.p;
    }
  }

  /** Per-dim base coordinate of this thread in blocked layout `b` (computed once, in the prologue). */
  base(b: BlockedLayout): string[] {
    const key = layoutKey(b);
    let out = this.bases.get(key);
    if (out) return out;
    const { lane, warp } = this.thread();
    const sh = threadShifts(b);
    out = b.order.map(() => '');
    for (let d = 0; d < b.order.length; d++) {
      const r = this.e.reg('b32');
      const t = this.e.reg('b32');
      const P = (s: string): void => this.e.emitPrologue(s);
      P(`bfe.u32 ${r}, ${lane}, ${sh.lane[d]}, ${Math.log2(b.threadsPerWarp[d]!)};`);
      P(`bfe.u32 ${t}, ${warp}, ${sh.warp[d]}, ${Math.log2(b.warpsPerCTA[d]!)};`);
      P(`mad.lo.u32 ${r}, ${t}, ${b.threadsPerWarp[d]! * laneRep(b, d)}, ${r};`);
      P(`mul.lo.u32 ${r}, ${r}, ${b.sizePerThread[d]};`);
      out[d] = r;
    }
    this.bases.set(key, out);
    return out;
  }

  /**
   * Coordinate of slot `s` along parent dim `d` as register + immediate; when the dim wraps
   * (replication) the coordinate is materialized with the wrap applied.
   */
  coord(l: Layout, shape: readonly number[], s: RegSlot, d: number): SmemAddr {
    const b = blockedOf(l)!;
    const ps = parentShape(l, shape);
    const base = this.base(b)[d]!;
    if (!wraps(b, ps, d)) return { reg: base, imm: s.off[d]! };
    const r = this.e.reg('b32');
    this.emit(`add.s32 ${r}, ${base}, ${s.off[d]};`);
    this.emit(`and.b32 ${r}, ${r}, ${ps[d]! - 1};`);
    return { reg: r, imm: 0 };
  }
  coordReg(l: Layout, shape: readonly number[], s: RegSlot, d: number): string {
    const c = this.coord(l, shape, s, d);
    if (!c.imm) return c.reg;
    const r = this.e.reg('b32');
    this.emit(`add.s32 ${r}, ${c.reg}, ${c.imm};`);
    return r;
  }

  /**
   * Row-major linear index of every slot of a tile (shape in the tile's own rank; `strides` per
   * tile dim), scaled by `scale` bytes: one base register per call plus immediates where possible.
   */
  linearAddrs(l: Layout, shape: readonly number[], scale: number, strides: readonly number[] = rowMajorStrides(shape), baseBytes = 0): SmemAddr[] {
    const slots = regSlots(l, shape);
    if (l.kind === 'scalar') {
      const r = this.e.reg('b32');
      this.emit(`mov.u32 ${r}, ${this.smemBase()};`);
      return slots.map(() => ({ reg: r, imm: baseBytes }));
    }
    const b = blockedOf(l)!;
    const ps = parentShape(l, shape);
    const pstr = l.kind === 'slice' ? [...strides.slice(0, l.dim), 0, ...strides.slice(l.dim)] : [...strides];
    const anyWrap = ps.some((_, d) => wraps(b, ps, d) && pstr[d] !== 0);
    const base = this.e.reg('b32');
    this.emit(`mov.u32 ${base}, ${this.smemBase()};`);
    const bases = this.base(b);
    if (!anyWrap) {
      for (let d = 0; d < ps.length; d++) if (pstr[d]) this.emit(`mad.lo.u32 ${base}, ${bases[d]}, ${pstr[d]! * scale}, ${base};`);
      return slots.map((s) => ({ reg: base, imm: baseBytes + s.off.reduce((a, o, d) => a + o * pstr[d]! * scale, 0) }));
    }
    return slots.map((s) => {
      const r = this.e.reg('b32');
      this.emit(`mov.u32 ${r}, ${base};`);
      for (let d = 0; d < ps.length; d++) {
        if (!pstr[d]) continue;
        const c = this.coord(l, shape, s, d);
        const cr = c.imm ? this.coordReg(l, shape, s, d) : c.reg;
        this.emit(`mad.lo.u32 ${r}, ${cr}, ${pstr[d]! * scale}, ${r};`);
      }
      return { reg: r, imm: baseBytes };
    });
  }

  /** Predicate: this slot is the first copy of its element (replicated copies are skipped). */
  canonical(l: Layout, shape: readonly number[], s: RegSlot): string | undefined {
    if (l.kind === 'scalar') {
      const p = this.e.reg('pred');
      this.emit(`setp.eq.u32 ${p}, ${this.thread().tid}, 0;`);
      return p;
    }
    const b = blockedOf(l)!;
    const ps = parentShape(l, shape);
    const cta = ctaTile(b);
    let acc: string | undefined;
    for (let d = 0; d < ps.length; d++) {
      if (cta[d]! <= ps[d]!) continue;
      const p = this.e.reg('pred');
      this.emit(`setp.lt.u32 ${p}, ${this.base(b)[d]}, ${ps[d]! - s.off[d]!};`);
      if (acc) this.emit(`and.pred ${acc}, ${acc}, ${p};`);
      else acc = p;
    }
    return acc;
  }

  /** Module-scope declarations (vprintf, format strings). */
  readonly moduleDecls: string[] = [];
  /** The lowest PTX ISA version (x10, e.g. 84) the instructions emitted so far need; 0: the target's own. */
  ptxVersionFloor = 0;
  /** Notes that an emitted instruction needs PTX ISA `v` (ptxas refuses it below: fp8 mma.sync 8.4, ...). */
  requirePtxVersion(v: number): void {
    this.ptxVersionFloor = Math.max(this.ptxVersionFloor, Math.round(v * 10));
  }
  private strings = 0;
  private local?: { local: string; generic: string; bytes: number };
  /** A global constant string; returns its symbol. */
  addString(text: string): string {
    if (!this.moduleDecls.some((d) => d.includes(' vprintf'))) {
      this.moduleDecls.push('.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);');
    }
    const sym = `$tessera_str_${this.strings++}`;
    const bytes = [...Buffer.from(text, 'utf8'), 0];
    this.moduleDecls.push(`.global .align 1 .b8 ${sym}[${bytes.length}] = {${bytes.join(', ')}};`);
    return sym;
  }
  /** The thread's local scratch (for vprintf argument packs): local and generic addresses. */
  localBuffer(bytes: number): { local: string; generic: string } {
    if (!this.local) {
      const local = this.e.reg('b64');
      const generic = this.e.reg('b64');
      this.e.emitPrologue(`mov.u64 ${local}, tessera_local;`);
      this.e.emitPrologue(`cvta.local.u64 ${generic}, ${local};`);
      this.local = { local, generic, bytes: 0 };
    }
    this.local.bytes = Math.max(this.local.bytes, bytes);
    return this.local;
  }
  get localBytes(): number {
    return this.local?.bytes ?? 0;
  }

  /** Bytes at the start of shared memory kept out of the scratch (the pipeliner's ring). */
  private reserved = 0;

  private scratchReg?: string;
  /**
   * Keeps the first `bytes` of shared memory for one owner; call before anything is lowered. The
   * scratch after it starts 1024-aligned, as swizzled tiles staged there need (smem_swizzle.ts).
   */
  reserveShared(bytes: number): void {
    this.reserved = Math.ceil(bytes / 1024) * 1024;
    this.sharedBytes = Math.max(this.sharedBytes, this.reserved);
  }
  /** Symbol of the whole shared buffer (offset 0, where a reserved region starts). */
  smemSymbol(): string {
    this.smemSym ??= 'tessera_smem';
    return this.smemSym;
  }
  /**
   * Base of the shared scratch buffer, as an operand for `mov.u32`: the symbol, or a register
   * holding the address past the reserved region; `need` bytes must fit.
   */
  smemBase(need = 0): string {
    const sym = this.smemSymbol();
    if (this.pinnedEnd) return this.pastPinned(need);
    // outside the loops whose ring is reserved, the scratch may use the ring's bytes too
    if (!this.reserved || !this.ringLive) {
      this.sharedBytes = Math.max(this.sharedBytes, need);
      return sym;
    }
    this.sharedBytes = Math.max(this.sharedBytes, this.reserved + need);
    if (!this.scratchReg) {
      this.scratchReg = this.e.reg('b32');
      this.e.emitPrologue(`mov.u32 ${this.scratchReg}, ${sym};`);
      this.e.emitPrologue(`add.u32 ${this.scratchReg}, ${this.scratchReg}, ${this.reserved};`);
    }
    return this.scratchReg;
  }
  /** Scratch bytes the kernel has already (past the reserved region where it is live): using no more costs nothing. */
  get scratchRoom(): number {
    return Math.max(0, this.sharedBytes - Math.max(this.pinnedEnd, this.ringLive ? this.reserved : 0));
  }
  /** End of the bytes a hoisted operand holds while its loop runs (tcgen05_a_hoist.ts); 0: none. */
  private pinnedEnd = 0;
  private pinnedRegs = new Map<number, string>();
  /** The scratch past the pinned bytes: a register holding its address. */
  private pastPinned(need: number): string {
    this.sharedBytes = Math.max(this.sharedBytes, this.pinnedEnd + need);
    let r = this.pinnedRegs.get(this.pinnedEnd);
    if (!r) {
      r = this.e.reg('b32');
      this.e.emitPrologue(`mov.u32 ${r}, ${this.smemSymbol()};`);
      this.e.emitPrologue(`add.u32 ${r}, ${r}, ${this.pinnedEnd};`);
      this.pinnedRegs.set(this.pinnedEnd, r);
    }
    return r;
  }
  /**
   * Holds `bytes` of shared memory, at or past byte `floor` and past the scratch's start, while
   * `fn` runs (a loop whose body reads an operand staged once before it): the scratch starts after
   * them meanwhile. Returns the held bytes' offset from the buffer's start (1024-aligned).
   */
  withPinned<T>(bytes: number, floor: number, fn: (offset: number) => T): T {
    const was = this.pinnedEnd;
    const at = Math.ceil(Math.max(floor, was, this.ringLive ? this.reserved : 0) / 1024) * 1024;
    this.pinnedEnd = Math.ceil((at + bytes) / 1024) * 1024;
    this.sharedBytes = Math.max(this.sharedBytes, this.pinnedEnd);
    try {
      return fn(at);
    } finally {
      this.pinnedEnd = was;
    }
  }
  private ringLive = 0;
  /**
   * Lowers `fn` with the reserved region live (a pipelined loop whose body uses the scratch):
   * the scratch starts after it. Elsewhere the scratch starts at 0 and may overlap the ring,
   * which is idle there (every scratch user and every ring prologue starts with a barrier, and
   * a ring's copies have all landed when its loop ends).
   */
  withRingLive<T>(fn: () => T): T {
    this.ringLive++;
    try {
      return fn();
    } finally {
      this.ringLive--;
    }
  }
  /**
   * The reserved region live from here until leaveRingLive (a warp-specialized loop's ring: its
   * producer fills it from the kernel's start, while the code before the loop runs).
   */
  enterRingLive(): void {
    this.ringLive++;
  }
  leaveRingLive(): void {
    this.ringLive--;
  }
  needShared(bytes: number): void {
    this.smemBase(bytes);
  }
  /**
   * Threads of the CTA that run the kernel's code: undefined, all of them; in a warp-specialized
   * kernel (lower_warp_specialize.ts) the consumer warps only, which meet at named barrier 1
   * (the producer warps never reach it).
   */
  barrierThreads?: number;
  barrier(): void {
    this.emit(this.barrierThreads === undefined ? 'bar.sync 0;' : `bar.sync 1, ${this.barrierThreads};`);
  }
  get usesShared(): boolean {
    return this.smemSym !== undefined;
  }

  /**
   * Lowers `op` again with its result in layout `to` (operands converted to `to` as needed);
   * returns the new registers and leaves the original lowering of the result in place.
   */
  recompute(op: Op, to: Layout): string[] {
    const r = op.results[0]!;
    const layouts = this.plan.layouts;
    const expected = this.plan.expected;
    const savedL = layouts.get(r.id);
    const savedE = expected.get(op);
    const savedV = this.vals.get(r.id);
    layouts.set(r.id, to);
    expected.set(op, op.operands.map((o) => (o.type.shape.length ? operandLayout(op, o, to) : undefined)));
    try {
      this.lowerOp(op);
      return this.regs(r);
    } finally {
      if (savedL) layouts.set(r.id, savedL);
      if (savedE) expected.set(op, savedE);
      else expected.delete(op);
      if (savedV) this.vals.set(r.id, savedV);
      else this.vals.delete(r.id);
    }
  }

  /** Copies `src` into fresh registers of the same kinds (for loop-carried values). */
  copy(t: ElemType, src: string[]): string[] {
    const out = this.newRegs(t, src.length);
    out.forEach((d, i) => this.emit(`${movFor(t)} ${d}, ${src[i]};`));
    return out;
  }

  /** Lowers a region with its args bound to `args`; returns the registers its `yield` passes. */
  region(b: Block, args: string[][], lowerOp: (op: Op) => void, yieldLayouts?: (Layout | undefined)[]): string[][] {
    b.args.forEach((a, i) => this.define(a, args[i]!));
    let out: string[][] = [];
    for (const op of b.ops) {
      if (op.kind === 'yield') {
        out = op.operands.map((v, i) => this.regsIn(v, yieldLayouts?.[i] ?? this.plan.expected.get(op)?.[i]));
        continue;
      }
      lowerOp(op);
      if (op.kind === 'for') rematAfterLoop(this, b.ops, b.ops.indexOf(op));
    }
    return out;
  }
}

export const rowMajorStrides = (shape: readonly number[]): number[] => {
  const s = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1]! * shape[i + 1]!;
  return s;
};
export function movFor(t: ElemType): string {
  const k = regKind(t);
  if (k === 'pred') return 'mov.pred';
  return `mov.b${regBits(k)}`;
}
