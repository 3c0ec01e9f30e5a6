// Global memory: predicated (masked) loads with `other`, stores, atomics. Accesses are grouped
// into vectors of `plan.vec` consecutive registers (ld/st.global.v2/.v4, 16-bit pairs packed in
// b32 words) — the layout pass only picks a width it proved aligned and uniformly masked.
import type { CacheMod, Eviction, Op } from '../ir/ops.js';
import { bitWidth, byteSize, isMiniFloat, pointee, type DType, type PtrType } from '../ir/types.js';
import type { Lowering } from './context.js';
import { blockedOf, type Layout, type RegSlot } from '../compiler/layout.js';
import { movConst } from './lower_elementwise.js';
import { MEM_TYPE, regKind } from './ptx_types.js';
import { movFor, TARGET_SM } from './context.js';

type Rule = (cx: Lowering, op: Op) => void;

/**
 * The cache hints of one access: modifiers after `.global`, and the trailing cache-policy operand.
 * A cache operator alone is `.cop`; an eviction priority alone is `.L1::evict_*`. PTX has no ld/st
 * with both, so together the priority goes through an L2 cache policy, as Triton lowers
 * eviction_policy: `createpolicy.fractional.L2::evict_*` then `.cop.L2::cache_hint ..., policy`.
 */
function hints(cx: Lowering, cache: CacheMod, eviction: Eviction): { m: string; policy: string } {
  if (cache && eviction) {
    const policy = cx.reg('b64');
    cx.emit(`createpolicy.fractional.L2::${eviction}.b64 ${policy}, 1.0;`);
    return { m: `.${cache}.L2::cache_hint`, policy: `, ${policy}` };
  }
  if (cache) return { m: `.${cache}`, policy: '' };
  if (eviction) return { m: `.L1::${eviction}`, policy: '' };
  return { m: '', policy: '' };
}

/** Vector groups: slot indices that are consecutive along the fastest dim, `vec` at a time. */
function groups(n: number, vec: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < n; i += vec) out.push(Array.from({ length: Math.min(vec, n - i) }, (_, k) => i + k));
  return out;
}

/**
 * Vector groups of a value whose consecutive registers are not its vectors: a layout whose
 * register order runs along another dim first (the tcgen05 sector layout, compiler/
 * tcgen05_sector_layout.ts: registers alternate between two rows, a row's run of `vec` columns is
 * every other register). Each group is the registers at offsets o, o + 1, ... along `d`, o first.
 */
function groupsAlong(slots: readonly RegSlot[], vec: number, d: number): number[][] {
  const at = new Map(slots.map((s, i) => [s.off.join(','), i]));
  const out: number[][] = [];
  slots.forEach((s, i) => {
    if (s.off[d]! % vec !== 0) return;
    out.push(Array.from({ length: vec }, (_, k) => {
      const j = at.get(s.off.map((o, e) => (e === d ? o + k : o)).join(','));
      if (j === undefined) throw new Error(`internal: no register at +${k} along dim ${d} for a ${vec}-wide vector`);
      return j;
    }));
  });
  return out;
}

/** The vector groups of `n` registers in `l` (slots: their offsets): consecutive registers where they are runs. */
function vectorGroups(l: Layout, slots: readonly RegSlot[], n: number, vec: number): number[][] {
  const plain = groups(n, vec);
  const b = blockedOf(l);
  if (vec === 1 || !b || slots.length !== n) return plain;
  // a run: register k of the group is k elements on from its first along one dim
  const run = (g: number[]): boolean => {
    if (g.length < 2) return true;
    const a = slots[g[0]!]!.off;
    const d = slots[g[1]!]!.off.findIndex((x, e) => x !== a[e]);
    return g.every((i, k) => slots[i]!.off.every((x, e) => x === a[e]! + (e === d ? k : 0)));
  };
  if (plain.every(run)) return plain;
  const d = b.sizePerThread.findIndex((x) => x >= vec);
  return d < 0 ? plain : groupsAlong(slots, vec, d);
}

/** Memory form of a vector of `vec` elements of dtype `t`: [vector suffix, word type, elems per word]. */
function vecForm(t: DType, vec: number): { v: string; word: string; per: number } {
  const bytes = byteSize(t);
  const per = 4 / bytes;
  if (bytes < 4 && vec >= per) {
    const words = vec / per;
    return { v: words > 1 ? `.v${words}` : '', word: 'b32', per };
  }
  return { v: vec > 1 ? `.v${vec}` : '', word: MEM_TYPE[t], per: 1 };
}

/**
 * Packs the registers `rs` into one b32 word: two b16 registers (f16/bf16) directly; i16 and
 * 8-bit/bool values live in 32-bit registers and are inserted field by field.
 */
function pack(cx: Lowering, t: DType, w: string, rs: string[]): void {
  if (rs.length === 2 && regKind(t) === 'b16') return cx.emit(`mov.b32 ${w}, ${cx.wordOf(rs[0]!, rs[1]!) ?? `{${rs[0]}, ${rs[1]}}`};`);
  const bits = 32 / rs.length;
  const byte = (r: string): string => {
    if (isMiniFloat(t)) {
      // fp8 and the MX dtypes live in a 16-bit register
      const b = cx.reg('b32');
      cx.emit(`cvt.u32.u16 ${b}, ${r};`);
      return b;
    }
    if (t !== 'bool') return r;
    const b = cx.reg('b32');
    cx.emit(`selp.u32 ${b}, 1, 0, ${r};`);
    return b;
  };
  cx.emit(`and.b32 ${w}, ${byte(rs[0]!)}, ${2 ** bits - 1};`);
  for (let j = 1; j < rs.length; j++) cx.emit(`bfi.b32 ${w}, ${byte(rs[j]!)}, ${w}, ${bits * j}, ${bits};`);
}
/** Unpacks one b32 word into `rs` (the inverse of `pack`; i8/i16 sign-extend, u8 zero-extends). */
function unpack(cx: Lowering, t: DType, w: string, rs: string[]): void {
  if (rs.length === 2 && regKind(t) === 'b16') {
    cx.noteWord(rs[0]!, rs[1]!, w);
    return cx.emit(`mov.b32 {${rs[0]}, ${rs[1]}}, ${w};`);
  }
  const bits = 32 / rs.length;
  rs.forEach((r, j) => {
    if (t === 'bool') {
      const b = cx.reg('b32');
      cx.emit(`bfe.u32 ${b}, ${w}, ${bits * j}, ${bits};`);
      cx.emit(`setp.ne.u32 ${r}, ${b}, 0;`);
    } else if (isMiniFloat(t)) {
      const b = cx.reg('b32');
      cx.emit(`bfe.u32 ${b}, ${w}, ${bits * j}, ${bits};`);
      cx.emit(`cvt.u16.u32 ${r}, ${b};`);
    } else cx.emit(`bfe.${t === 'i8' || t === 'i16' ? 's32' : 'u32'} ${r}, ${w}, ${bits * j}, ${bits};`);
  });
  // four bytes staged for the mma again go back as this word (lower_mma.ts storeStaged)
  if (rs.length === 4 && t !== 'bool') cx.noteByteWord(rs, w);
}

const load: Rule = (cx, op) => {
  const a = (op as Op<'load'>).attrs;
  const r = op.results[0]!;
  const t = pointee(op.operands[0]!.type.elem as PtrType);
  const ptrs = cx.operand(op, 0);
  const mask = a.hasMask ? cx.operand(op, 1) : undefined;
  const other = a.hasOther ? cx.operand(op, 2) : undefined;
  const vec = cx.plan.vec.get(op) ?? 1;
  const n = cx.slots(r).length;
  const out = cx.newRegs(t, n);
  const vol = a.volatile ? '.volatile' : '';
  // (a volatile load has no hints: the language and the verifier reject them together)
  const { m, policy } = hints(cx, a.cache, a.eviction);
  for (const g of vectorGroups(cx.layoutOf(r), cx.slots(r), n, vec)) {
    const first = g[0]!;
    // masked-off lanes keep `other` (or zero)
    if (mask) {
      for (const i of g) {
        if (other) cx.emit(`${movFor(t)} ${out[i]}, ${other[other.length === 1 ? 0 : i]};`);
        else movConst(cx, t, out[i]!, 0);
      }
    }
    const pred = mask ? `@${mask[mask.length === 1 ? 0 : first]} ` : '';
    const addr = `[${ptrs[first]}]`;
    const f = vecForm(t, g.length);
    if (f.per > 1) {
      const words = Array.from({ length: g.length / f.per }, () => cx.reg('b32'));
      const part = (k: number): string[] => g.slice(k * f.per, (k + 1) * f.per).map((i) => out[i]!);
      if (mask && other) words.forEach((w, k) => pack(cx, t, w, part(k)));
      else if (mask) words.forEach((w) => cx.emit(`mov.b32 ${w}, 0;`));
      cx.emit(`${pred}ld${vol}.global${m}${f.v}.b32 ${words.length > 1 ? `{${words.join(', ')}}` : words[0]}, ${addr}${policy};`);
      words.forEach((w, k) => unpack(cx, t, w, part(k)));
      continue;
    }
    if (t === 'bool') {
      const w = cx.reg('b32');
      cx.emit(`mov.b32 ${w}, 0;`);
      cx.emit(`${pred}ld${vol}.global${m}.u8 ${w}, ${addr}${policy};`);
      if (mask) cx.emit(`@${mask[mask.length === 1 ? 0 : first]} setp.ne.u32 ${out[first]}, ${w}, 0;`);
      else cx.emit(`setp.ne.u32 ${out[first]}, ${w}, 0;`);
      continue;
    }
    {
      const dst = g.length > 1 ? `{${g.map((i) => out[i]).join(', ')}}` : out[first]!;
      cx.emit(`${pred}ld${vol}.global${m}${f.v}.${f.word} ${dst}, ${addr}${policy};`);
    }
  }
  cx.define(r, out);
};

const store: Rule = (cx, op) => {
  const a = (op as Op<'store'>).attrs;
  const t = pointee(op.operands[0]!.type.elem as PtrType);
  const ptr = op.operands[0]!;
  const ptrs = cx.operand(op, 0);
  const vals = cx.operand(op, 1);
  const mask = a.hasMask ? cx.operand(op, 2) : undefined;
  const vec = cx.plan.vec.get(op) ?? 1;
  const n = ptrs.length;
  const { m, policy } = hints(cx, a.cache, a.eviction);
  // one thread stores each element: a scalar store is done by thread 0, replicated copies of a
  // tile element (layouts larger than the tile) are predicated off
  const pl = cx.plan.expected.get(op)?.[0] ?? cx.layoutOf(ptr);
  const slots = cx.slots(ptr, pl);
  for (const g of vectorGroups(pl, slots, n, vec)) {
    const first = g[0]!;
    const only = cx.canonical(pl, ptr.type.shape, slots[first]!);
    let pred = mask ? mask[mask.length === 1 ? 0 : first] : undefined;
    if (only) {
      if (pred) {
        const p = cx.reg('pred');
        cx.emit(`and.pred ${p}, ${pred}, ${only};`);
        pred = p;
      } else pred = only;
    }
    const at = pred ? `@${pred} ` : '';
    const v = (i: number): string => vals[vals.length === 1 ? 0 : i]!;
    const f = vecForm(t, g.length);
    if (f.per > 1) {
      const words = Array.from({ length: g.length / f.per }, () => cx.reg('b32'));
      words.forEach((w, k) => pack(cx, t, w, g.slice(k * f.per, (k + 1) * f.per).map(v)));
      cx.emit(`${at}st.global${m}${f.v}.b32 [${ptrs[first]}], ${words.length > 1 ? `{${words.join(', ')}}` : words[0]}${policy};`);
      continue;
    }
    if (t === 'bool') {
      const w = cx.reg('b32');
      cx.emit(`selp.u32 ${w}, 1, 0, ${v(first)};`);
      cx.emit(`${at}st.global${m}.u8 [${ptrs[first]}], ${w}${policy};`);
      continue;
    }
    {
      const src = g.length > 1 ? `{${g.map(v).join(', ')}}` : v(first);
      cx.emit(`${at}st.global${m}${f.v}.${f.word} [${ptrs[first]}], ${src}${policy};`);
    }
  }
};

const ATOM_TYPE: Record<string, (t: DType) => string | undefined> = {
  add: (t) => ({ f32: 'f32', f64: 'f64', f16: 'noftz.f16', bf16: 'noftz.bf16', i32: 'u32', u32: 'u32', i64: 'u64' } as Record<string, string>)[t],
  max: (t) => ({ i32: 's32', u32: 'u32', i64: 's64' } as Record<string, string>)[t],
  min: (t) => ({ i32: 's32', u32: 'u32', i64: 's64' } as Record<string, string>)[t],
  and: (t) => ({ i32: 'b32', u32: 'b32', i64: 'b64' } as Record<string, string>)[t],
  or: (t) => ({ i32: 'b32', u32: 'b32', i64: 'b64' } as Record<string, string>)[t],
  xor: (t) => ({ i32: 'b32', u32: 'b32', i64: 'b64' } as Record<string, string>)[t],
  xchg: (t) => ({ i32: 'b32', u32: 'b32', i64: 'b64', f32: 'b32', f64: 'b64' } as Record<string, string>)[t],
};

/**
 * Atomics run once per element: replicated copies are predicated off; for a scalar, thread 0
 * performs it and the old value reaches every thread through shared memory.
 */
function atomic(cx: Lowering, op: Op, form: (d: string, addr: string, i: number) => string | string[], maskIdx: number | undefined): void {
  const r = op.results[0]!;
  const ptr = op.operands[0]!;
  const l = cx.layoutOf(ptr);
  const t = pointee(ptr.type.elem as PtrType);
  const ptrs = cx.operand(op, 0);
  const mask = maskIdx !== undefined ? cx.operand(op, maskIdx) : undefined;
  const out = cx.newRegs(t, ptrs.length);
  const slots = cx.slots(ptr, l);
  slots.forEach((s, i) => {
    const canon = cx.canonical(l, ptr.type.shape, s);
    let p = mask?.[mask.length === 1 ? 0 : i];
    if (canon) {
      if (p) {
        const q = cx.reg('pred');
        cx.emit(`and.pred ${q}, ${p}, ${canon};`);
        p = q;
      } else p = canon;
    }
    movConst(cx, t, out[i]!, 0);
    const code = form(out[i]!, `[${ptrs[i]}]`, i);
    if (typeof code === 'string') return cx.emit(`${p ? `@${p} ` : ''}${code}`);
    // a multi-instruction sequence (CAS loop) is branched around instead of predicated
    const skip = cx.e.label('atom_skip');
    if (p) cx.emit(`@!${p} bra ${skip};`);
    code.forEach((l) => (l.endsWith(':') ? cx.e.placeLabel(l.slice(0, -1)) : cx.emit(l)));
    cx.e.placeLabel(skip);
  });
  if (ptr.type.shape.length === 0) {
    const bytes = Math.max(4, bitWidth(t) / 8);
    cx.needShared(bytes);
    const w = `st.shared.b${bytes * 8}`;
    const base = cx.reg('b32');
    cx.emit(`mov.u32 ${base}, ${cx.smemBase()};`);
    cx.barrier();
    const p = cx.canonical(l, [], { off: [] });
    const k = regKind(t);
    if (k === 'b16') {
      cx.emit(`@${p} st.shared.b16 [${base}], ${out[0]};`);
      cx.barrier();
      cx.emit(`ld.shared.b16 ${out[0]}, [${base}];`);
    } else {
      cx.emit(`@${p} ${w} [${base}], ${out[0]};`);
      cx.barrier();
      cx.emit(`ld.shared.b${bytes * 8} ${out[0]}, [${base}];`);
    }
  }
  cx.define(r, out);
}

/**
 * bf16 atomic add before sm_90: a compare-and-swap loop on the 16-bit word (the add itself is
 * done in f32 and rounded, like every bf16 op).
 */
function bf16AddLoop(cx: Lowering, sem: string, scope: string, d: string, addr: string, v: string): string[] {
  const top = cx.e.label('bf16_cas');
  const a = cx.reg('f32');
  const b = cx.reg('f32');
  const n = cx.reg('b16');
  const prev = cx.reg('b16');
  const p = cx.reg('pred');
  return [
    `ld.global.b16 ${d}, ${addr};`,
    `${top}:`,
    `cvt.f32.bf16 ${a}, ${d};`,
    `cvt.f32.bf16 ${b}, ${v};`,
    `add.rn.f32 ${a}, ${a}, ${b};`,
    `cvt.rn.bf16.f32 ${n}, ${a};`,
    `atom.${sem}.${scope}.global.cas.b16 ${prev}, ${addr}, ${d}, ${n};`,
    `setp.ne.b16 ${p}, ${prev}, ${d};`,
    `mov.b16 ${d}, ${prev};`,
    `@${p} bra ${top};`,
  ];
}

/**
 * f32/f64 atomic max/min through integer atomics on the bits (as Triton does): for a value with
 * the sign bit clear, signed-integer order is float order; with it set, unsigned order is reversed
 * float order. NaNs with the sign bit clear win a max (propagate), as `maximum` does.
 */
function floatMinMax(cx: Lowering, isMax: boolean, bits: 32 | 64, sem: string, scope: string, d: string, addr: string, v: string): string[] {
  const vb = cx.reg(bits === 32 ? 'b32' : 'b64');
  const ob = cx.reg(bits === 32 ? 'b32' : 'b64');
  const neg = cx.reg('pred');
  const [pos, negOp] = isMax ? ['max', 'min'] : ['min', 'max'];
  return [
    `mov.b${bits} ${vb}, ${v};`,
    `setp.lt.s${bits} ${neg}, ${vb}, 0;`,
    `@!${neg} atom.${sem}.${scope}.global.${pos}.s${bits} ${ob}, ${addr}, ${vb};`,
    `@${neg} atom.${sem}.${scope}.global.${negOp}.u${bits} ${ob}, ${addr}, ${vb};`,
    `mov.b${bits} ${d}, ${ob};`,
  ];
}

const atomicRmw: Rule = (cx, op) => {
  const a = (op as Op<'atomic_rmw'>).attrs;
  const t = pointee(op.operands[0]!.type.elem as PtrType);
  const vals = cx.operand(op, 1);
  if ((a.op === 'max' || a.op === 'min') && (t === 'f32' || t === 'f64')) {
    const bits = t === 'f32' ? 32 : 64;
    return atomic(cx, op, (d, addr, i) => floatMinMax(cx, a.op === 'max', bits, a.sem, a.scope, d, addr, vals[vals.length === 1 ? 0 : i]!), a.hasMask ? 2 : undefined);
  }
  if (a.op === 'add' && t === 'bf16' && TARGET_SM[cx.target] < 90) {
    return atomic(cx, op, (d, addr, i) => bf16AddLoop(cx, a.sem, a.scope, d, addr, vals[vals.length === 1 ? 0 : i]!), a.hasMask ? 2 : undefined);
  }
  const ty = ATOM_TYPE[a.op]!(t);
  if (!ty) cx.fail(`atomic '${a.op}' is not supported for ${t}`);
  const name = a.op === 'xchg' ? 'exch' : a.op;
  atomic(cx, op, (d, addr, i) => `atom.${a.sem}.${a.scope}.global.${name}.${ty} ${d}, ${addr}, ${vals[vals.length === 1 ? 0 : i]};`, a.hasMask ? 2 : undefined);
};
const atomicCas: Rule = (cx, op) => {
  const a = (op as Op<'atomic_cas'>).attrs;
  const t = pointee(op.operands[0]!.type.elem as PtrType);
  const bits = bitWidth(t);
  if (bits !== 32 && bits !== 64 && bits !== 16) cx.fail(`atomic_cas is not supported for ${t}`);
  const cmp = cx.operand(op, 1);
  const val = cx.operand(op, 2);
  const pick = (rs: string[], i: number): string => rs[rs.length === 1 ? 0 : i]!;
  atomic(cx, op, (d, addr, i) => `atom.${a.sem}.${a.scope}.global.cas.b${bits} ${d}, ${addr}, ${pick(cmp, i)}, ${pick(val, i)};`, undefined);
};

export const MEMORY_RULES: Record<string, Rule> = { load, store, atomic_rmw: atomicRmw, atomic_cas: atomicCas };
