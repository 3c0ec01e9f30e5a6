// AxisInfo: per value and per dim, what is provable about the integer/pointer elements.
//  divisibility: the first element of every contiguous run is a multiple of this (pointers: bytes)
//  contiguity:   runs of this many elements along the dim increase by exactly 1
//  constancy:    runs of this many elements along the dim are equal
// Seeded by the specialization (pointer/int params divisible by 16, ints equal to 1) and `hint`
// ops; the coalescing/vectorization decision in layout assignment reads it.
import type { Block, Func, Op, Value } from '../ir/ops.js';
import { byteSize, isPtr, pointee, type ElemType, type PtrType } from '../ir/types.js';

export interface AxisInfo {
  readonly divisibility: number[];
  readonly contiguity: number[];
  readonly constancy: number[];
  /** Known constant (every element equal to it). */
  readonly constant?: number;
}

export interface ParamSpec {
  readonly divisibleBy16?: boolean;
  readonly equalsOne?: boolean;
}
/** Per runtime param, by name or by position. */
export type Specialization = Readonly<Record<string, ParamSpec>> | readonly (ParamSpec | undefined)[];

export function paramSpec(spec: Specialization | undefined, name: string, index: number): ParamSpec {
  if (!spec) return {};
  if (Array.isArray(spec)) return (spec as readonly (ParamSpec | undefined)[])[index] ?? {};
  return (spec as Readonly<Record<string, ParamSpec>>)[name] ?? {};
}

export const MAX_DIV = 2 ** 30;
const gcd = (a: number, b: number): number => {
  while (b) [a, b] = [b, a % b];
  return a;
};
const gcds = (...xs: number[]): number => xs.reduce((a, b) => gcd(a, b));
/** Largest power of two dividing |v| (capped; 0 is divisible by everything). */
export function pow2Divisor(v: number): number {
  if (!Number.isInteger(v)) return 1;
  if (v === 0) return MAX_DIV;
  let d = 1;
  let x = Math.abs(v);
  while (x % 2 === 0 && d < MAX_DIV) {
    x /= 2;
    d *= 2;
  }
  return d;
}

const dims = (v: Value): number[] => (v.type.shape.length ? [...v.type.shape] : [1]);
function unknown(v: Value): AxisInfo {
  const n = dims(v).length;
  return { divisibility: Array(n).fill(1), contiguity: Array(n).fill(1), constancy: Array(n).fill(1) };
}
function constantInfo(v: Value, c: number): AxisInfo {
  const ds = dims(v);
  const div = isPtr(v.type.elem) ? pow2Divisor(c * byteSize(pointee(v.type.elem as PtrType))) : pow2Divisor(c);
  return { divisibility: ds.map(() => div), contiguity: ds.map(() => 1), constancy: ds, constant: c };
}
const elemBytes = (t: ElemType): number => (isPtr(t) ? byteSize(pointee(t)) : 1);

export class AxisInfoMap {
  private readonly m = new Map<number, AxisInfo>();
  get(v: Value): AxisInfo {
    return this.m.get(v.id) ?? unknown(v);
  }
  set(v: Value, a: AxisInfo): void {
    this.m.set(v.id, a);
  }
  has(v: Value): boolean {
    return this.m.has(v.id);
  }
}

/** Runs the analysis over `f`. */
export function analyzeAxisInfo(f: Func, spec?: Specialization): AxisInfoMap {
  const info = new AxisInfoMap();
  f.params.forEach((p, i) => {
    const arg = f.body.args[i]!;
    const s = paramSpec(spec, p.name, i);
    if (s.equalsOne && !isPtr(p.type)) info.set(arg, constantInfo(arg, 1));
    else info.set(arg, { divisibility: [s.divisibleBy16 ? 16 : 1], contiguity: [1], constancy: [1] });
  });
  const facts = assumedDivisors(f);
  for (const [id, d] of facts) {
    const arg = f.body.args.find((v) => v.id === id);
    if (arg) info.set(arg, withDivisor(info.get(arg), d));
  }
  visitBlock(f.body, info, facts);
  return info;
}

/**
 * Divisors promised by `assume(x.rem(c).eq(0))` (c a constant) in the function body, by value id.
 * Only top-level assumes before any exit_if (or an if holding one) count: those run whenever the program reaches any
 * later op, and x is one SSA value, so the fact holds at every use of x (a false assume is
 * undefined behaviour; the interpreter reports it as E_ASSUME).
 */
function assumedDivisors(f: Func): Map<number, number> {
  const def = new Map<number, Op>();
  const facts = new Map<number, number>();
  for (const op of f.body.ops) {
    if (op.kind === 'exit_if' || (op.kind === 'if' && op.regions.some(hasExit))) break;
    for (const r of op.results) def.set(r.id, op);
    if (op.kind !== 'assume') continue;
    const cmp = def.get(op.operands[0]!.id);
    if (!cmp || cmp.kind !== 'cmp' || (cmp as Op<'cmp'>).attrs.pred !== 'eq') continue;
    const constOf = (id: number): number | undefined => {
      const d = def.get(id);
      return d?.kind === 'const' ? Number((d as Op<'const'>).attrs.value) : undefined;
    };
    const [a, b] = cmp.operands as [Value, Value];
    const rem = constOf(b.id) === 0 ? def.get(a.id) : constOf(a.id) === 0 ? def.get(b.id) : undefined;
    if (!rem || rem.kind !== 'binary' || (rem as Op<'binary'>).attrs.fn !== 'rem') continue;
    const c = constOf(rem.operands[1]!.id);
    if (c === undefined || !Number.isInteger(c) || c === 0) continue;
    const x = rem.operands[0]!;
    facts.set(x.id, Math.max(facts.get(x.id) ?? 1, pow2Divisor(c)));
  }
  return facts;
}

const withDivisor = (a: AxisInfo, d: number): AxisInfo => ({ ...a, divisibility: a.divisibility.map((x) => Math.max(x, Math.min(d, MAX_DIV))) });

function visitBlock(b: Block, info: AxisInfoMap, facts: ReadonlyMap<number, number> = new Map()): void {
  for (const op of b.ops) {
    if (op.kind === 'for') {
      const [lb, , step] = op.operands;
      const region = op.regions[0]!;
      const ivDiv = gcd(info.get(lb!).divisibility[0]!, info.get(step!).divisibility[0]!);
      info.set(region.args[0]!, { divisibility: [ivDiv], contiguity: [1], constancy: [1] });
    }
    op.regions.forEach((r) => visitBlock(r, info, facts));
    const res = rule(op, info);
    op.results.forEach((r, i) => {
      const a = clamp(r, res[i] ?? unknown(r));
      const d = facts.get(r.id);
      info.set(r, d ? clamp(r, withDivisor(a, d)) : a);
    });
  }
}

/** Contiguity/constancy never exceed the dim; a dim of size 1 is trivially constant. */
function clamp(v: Value, a: AxisInfo): AxisInfo {
  const ds = dims(v);
  const fit = (xs: number[], fill: (d: number) => number): number[] => ds.map((d, i) => Math.max(1, Math.min(d, xs[i] ?? fill(d))));
  return {
    divisibility: ds.map((_, i) => Math.max(1, Math.min(MAX_DIV, a.divisibility[i] ?? 1))),
    contiguity: fit(a.contiguity, () => 1),
    constancy: fit(a.constancy, () => 1).map((c, i) => (ds[i] === 1 ? 1 : c)),
    ...(a.constant !== undefined ? { constant: a.constant } : {}),
  };
}

function zip(a: AxisInfo, b: AxisInfo, f: (x: { d: number; c: number; k: number }, y: { d: number; c: number; k: number }) => [number, number, number]): AxisInfo {
  const n = Math.max(a.divisibility.length, b.divisibility.length);
  const out: AxisInfo = { divisibility: [], contiguity: [], constancy: [] };
  for (let i = 0; i < n; i++) {
    const x = { d: a.divisibility[i] ?? 1, c: a.contiguity[i] ?? 1, k: a.constancy[i] ?? 1 };
    const y = { d: b.divisibility[i] ?? 1, c: b.contiguity[i] ?? 1, k: b.constancy[i] ?? 1 };
    const [d, c, k] = f(x, y);
    out.divisibility.push(d);
    out.contiguity.push(c);
    out.constancy.push(k);
  }
  return out;
}

function rule(op: Op, info: AxisInfoMap): AxisInfo[] {
  const r0 = op.results[0];
  const a = op.operands[0] ? info.get(op.operands[0]) : undefined;
  const b = op.operands[1] ? info.get(op.operands[1]) : undefined;
  switch (op.kind) {
    case 'const': {
      const v = (op as Op<'const'>).attrs.value;
      const n = typeof v === 'boolean' ? Number(v) : Number(v);
      return [constantInfo(r0!, n)];
    }
    case 'arange': {
      const { start, end } = (op as Op<'arange'>).attrs;
      return [{ divisibility: [pow2Divisor(start)], contiguity: [end - start], constancy: [1] }];
    }
    case 'splat': {
      const ds = dims(r0!);
      return [{ divisibility: ds.map(() => a!.divisibility[0]!), contiguity: ds.map(() => 1), constancy: ds, ...constOf(a!) }];
    }
    case 'broadcast': {
      const from = op.operands[0]!.type.shape;
      const to = r0!.type.shape;
      return [{
        divisibility: to.map((_, i) => a!.divisibility[i] ?? 1),
        contiguity: to.map((d, i) => (from[i] === d ? a!.contiguity[i]! : 1)),
        constancy: to.map((d, i) => (from[i] === d ? a!.constancy[i]! : d)),
        ...constOf(a!),
      }];
    }
    case 'expand_dims': {
      const ax = (op as Op<'expand_dims'>).attrs.axis;
      const scalarIn = op.operands[0]!.type.shape.length === 0;
      const ins = <T>(xs: T[], v: T): T[] => (scalarIn ? [v] : [...xs.slice(0, ax), v, ...xs.slice(ax)]);
      // along the new size-1 dim every element is its own group: only what divides all of them
      const all = scalarIn ? a!.divisibility[0]! : Math.min(...a!.divisibility.map((d, i) => (a!.contiguity[i]! > 1 ? 1 : d)));
      return [{ divisibility: ins(a!.divisibility, all), contiguity: ins(a!.contiguity, 1), constancy: ins(a!.constancy, 1), ...constOf(a!) }];
    }
    case 'trans': {
      const perm = (op as Op<'trans'>).attrs.perm;
      return [{ divisibility: perm.map((p) => a!.divisibility[p]!), contiguity: perm.map((p) => a!.contiguity[p]!), constancy: perm.map((p) => a!.constancy[p]!) }];
    }
    case 'hint': {
      const { multipleOf, maxContiguous } = (op as Op<'hint'>).attrs;
      const scale = elemBytes(op.operands[0]!.type.elem);
      return [{
        divisibility: multipleOf ? multipleOf.map((m) => m * scale) : a!.divisibility,
        contiguity: maxContiguous ?? a!.contiguity,
        constancy: a!.constancy,
      }];
    }
    case 'addptr': {
      const s = elemBytes(op.operands[0]!.type.elem);
      return [zip(a!, b!, (p, o) => [gcd(p.d, o.d * s), Math.max(gcd(p.c, o.k), gcd(p.k, o.c)), gcd(p.k, o.k)])];
    }
    case 'cast':
      return [{ ...a!, ...constOf(a!) }];
    case 'binary':
      return [binaryRule((op as Op<'binary'>).attrs.fn, a!, b!, op)];
    case 'cmp': {
      const pred = (op as Op<'cmp'>).attrs.pred;
      return [zip(a!, b!, (x, y) => {
        let k = gcd(x.k, y.k);
        // a contiguous aligned run compared against an aligned constant splits on aligned blocks
        if ((pred === 'lt' || pred === 'ge') && y.c === 1 && y.k > 1) k = Math.max(k, gcds(x.c, x.d, y.d, y.k));
        if ((pred === 'gt' || pred === 'le') && x.c === 1 && x.k > 1) k = Math.max(k, gcds(y.c, y.d, x.d, x.k));
        return [1, 1, k];
      })];
    }
    case 'select': {
      const c = info.get(op.operands[2]!);
      const cond = a!;
      const t = zip(b!, c, (x, y) => [gcd(x.d, y.d), 1, gcd(x.k, y.k)]);
      return [zip(cond, t, (x, y) => [y.d, 1, gcd(x.k, y.k)])];
    }
    case 'unary': {
      const fn = (op as Op<'unary'>).attrs.fn;
      if (fn === 'neg' || fn === 'not' || fn === 'abs') return [zip(a!, a!, (x) => [fn === 'not' ? 1 : x.d, 1, x.k])];
      return [zip(a!, a!, (x) => [1, 1, x.k])];
    }
    case 'reduce': {
      const ax = (op as Op<'reduce'>).attrs.axis;
      const drop = (xs: number[]): number[] => xs.filter((_, i) => i !== ax);
      return op.results.map((r) => (r.type.shape.length ? { divisibility: drop(a!.divisibility).map(() => 1), contiguity: drop(a!.contiguity).map(() => 1), constancy: drop(a!.constancy) } : unknown(r)));
    }
    default:
      return op.results.map(unknown);
  }
}

const constOf = (a: AxisInfo): { constant?: number } => (a.constant !== undefined ? { constant: a.constant } : {});

function binaryRule(fn: string, a: AxisInfo, b: AxisInfo, op: Op): AxisInfo {
  const cst = (x: AxisInfo, y: AxisInfo, f: (p: number, q: number) => number): { constant?: number } =>
    x.constant !== undefined && y.constant !== undefined ? { constant: f(x.constant, y.constant) } : {};
  switch (fn) {
    case 'add':
    case 'sub': {
      const r = zip(a, b, (x, y) => [gcd(x.d, y.d), fn === 'add' ? Math.max(gcd(x.c, y.k), gcd(x.k, y.c)) : gcd(x.c, y.k), gcd(x.k, y.k)]);
      return { ...r, ...cst(a, b, fn === 'add' ? (p, q) => p + q : (p, q) => p - q) };
    }
    case 'mul': {
      const r = zip(a, b, (x, y) => [Math.min(MAX_DIV, x.d * y.d), b.constant === 1 ? x.c : a.constant === 1 ? y.c : 1, gcd(x.k, y.k)]);
      return { ...r, ...cst(a, b, (p, q) => p * q) };
    }
    case 'shl': {
      const s = b.constant;
      const r = zip(a, b, (x, y) => [s !== undefined && s >= 0 && s < 31 ? Math.min(MAX_DIV, x.d * 2 ** s) : 1, s === 0 ? x.c : 1, gcd(x.k, y.k)]);
      return r;
    }
    case 'div':
    case 'floordiv':
    case 'shr': {
      // signed truncating division: an aligned run crossing zero is not constant (-4..-1 / 4 = -1, 0, 0, 0)
      if (fn === 'div' && /^i/.test(op.results[0]!.type.elem)) return zip(a, b, (x, y) => [1, 1, gcd(x.k, y.k)]);
      // a contiguous run divided by an aligned constant stays constant over aligned blocks
      const q = fn === 'shr' ? (b.constant !== undefined ? 2 ** b.constant : undefined) : b.constant;
      // elements each a multiple of d (no contiguous runs: d holds for every one, not a run's
      // first) divided exactly by a constant q that divides d are multiples of d / q (K // 2 of a K % 16 == 0)
      const exact = (x: { d: number; c: number }): number => (q === 1 ? x.d : q !== undefined && q > 0 && Number.isInteger(q) && isIntOp(op) && x.c === 1 && x.d % q === 0 ? x.d / q : 1);
      return zip(a, b, (x, y) => [exact(x), q === 1 ? x.c : 1, Math.max(gcd(x.k, y.k), q !== undefined && q > 0 && isIntOp(op) ? gcds(x.c, x.d, pow2Divisor(q)) : 1)]);
    }
    case 'rem':
      return zip(a, b, (x, y) => [1, b.constant !== undefined && isIntOp(op) ? gcds(x.c, y.d) : 1, gcd(x.k, y.k)]);
    default:
      return zip(a, b, (x, y) => [1, 1, gcd(x.k, y.k)]);
  }
}
const isIntOp = (op: Op): boolean => /^[iu]/.test(op.results[0]!.type.elem);

export function axisInfoToString(a: AxisInfo): string {
  return `{div=[${a.divisibility}] contig=[${a.contiguity}] const=[${a.constancy}]${a.constant !== undefined ? ` value=${a.constant}` : ''}}`;
}

const hasExit = (b: Block): boolean => b.ops.some((o) => o.kind === 'exit_if' || o.regions.some(hasExit));
