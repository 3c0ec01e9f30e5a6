// The fuzzer's kernels as data: a Program is a small JSON op graph over [BLOCK] tiles that
// `buildKernel` turns into a Tessera kernel by calling the tile language (so tracing, promotion
// and broadcasting are exercised too). Being data, a failing Program can be shrunk and saved.
import {
  abs, and, atomicAdd, atomicAnd, atomicMax, atomicMin, atomicOr, atomicXor, ceil, constexpr, cos, cumprod, cumsum,
  div, eq, erf, exp, exp2, expandDims, floor, floordiv, forLoop, full, ge, gt, ifThenElse, le, load, log, log2, lt,
  max, maximum, min, minimum, mul, ne, neg, not, or, pow, programId, ptr, arange, rem, reshape, rsqrt, shl, shr,
  sigmoid, sin, sqrt, sqrtRn, store, sub, sum, tanh, broadcastTo, where, xor, add, defineKernel, dot,
  type KernelDef, type Tile,
} from '../../src/lang/index.js';
import type { DType } from '../../src/ir/types.js';

export const FLOATS = ['f32', 'f64', 'f16', 'bf16'] as const;
export const INTS = ['i32', 'u32', 'i8', 'u8', 'i16', 'i64'] as const;
export const isFloatT = (t: DType): boolean => (FLOATS as readonly string[]).includes(t);
export const isIntT = (t: DType): boolean => (INTS as readonly string[]).includes(t);

export const UNARY = { neg, abs, not, floor, ceil, sqrtRn, exp, exp2, log, log2, sqrt, rsqrt, sin, cos, tanh, sigmoid, erf } as const;
export const BINARY = { add, sub, mul, div, floordiv, rem, and, or, xor, shl, shr, minimum, maximum, pow } as const;
export const CMP = { eq, ne, lt, le, gt, ge } as const;
export const REDUCE = { sum, max, min } as const;
export const SCAN = { cumsum, cumprod } as const;
export const ATOMIC = { add: atomicAdd, max: atomicMax, min: atomicMin, and: atomicAnd, or: atomicOr, xor: atomicXor } as const;

export type UnaryName = keyof typeof UNARY;
export type BinaryName = keyof typeof BINARY;
export type CmpName = keyof typeof CMP;

/** Ops whose float results are approximations (compared within a tolerance, never reused). */
export const APPROX_UNARY: ReadonlySet<string> = new Set(['exp', 'exp2', 'log', 'log2', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh', 'sigmoid', 'erf']);

export type Node =
  | { readonly op: 'load'; readonly input: number; readonly other: number }
  | { readonly op: 'iota' }
  | { readonly op: 'const'; readonly value: number; readonly dtype: DType }
  | { readonly op: 'unary'; readonly fn: UnaryName; readonly a: number }
  | { readonly op: 'binary'; readonly fn: BinaryName; readonly a: number; readonly b: number }
  | { readonly op: 'cmp'; readonly fn: CmpName; readonly a: number; readonly b: number }
  | { readonly op: 'where'; readonly c: number; readonly a: number; readonly b: number }
  /** `mode`: a bitcast (same width), or a float downcast toward zero (`rounding: 'rtz'`). */
  | { readonly op: 'cast'; readonly a: number; readonly to: DType; readonly mode?: 'bitcast' | 'rtz' }
  /** Reduce each of `rows` rows of [rows, BLOCK/rows] and broadcast the result back over the row. */
  | { readonly op: 'reduce'; readonly fn: keyof typeof REDUCE; readonly a: number; readonly rows: number }
  | { readonly op: 'scan'; readonly fn: keyof typeof SCAN; readonly a: number; readonly rows: number; readonly reverse: boolean }
  /** acc = a; for iv in [0, trips): acc = fn(acc, b) + iv, cast back to acc's dtype. */
  | { readonly op: 'loop'; readonly fn: BinaryName; readonly a: number; readonly b: number }
  /** a and b as [S, S] tiles (S*S = BLOCK), multiplied with `dot` (tensor cores where they fit), back to [BLOCK]. */
  | { readonly op: 'dot'; readonly a: number; readonly b: number }
  /** Odd programs take `fnElse`, even ones `fnThen`, of (a, b), cast to a's dtype. */
  | { readonly op: 'if'; readonly fnThen: BinaryName; readonly fnElse: BinaryName; readonly a: number; readonly b: number };

export type Output =
  | { readonly kind: 'store'; readonly node: number }
  | { readonly kind: 'atomic'; readonly fn: keyof typeof ATOMIC; readonly node: number; readonly slots: number };

export interface Program {
  /** Seed of the input data. */
  readonly seed: number;
  readonly block: number;
  readonly grid: number;
  /** Runtime element count: lanes at or past n are masked off (loads give `other`, stores skip). */
  readonly n: number;
  readonly numWarps: number;
  /** Runtime trip count of every loop node. */
  readonly trips: number;
  readonly inputs: readonly DType[];
  readonly nodes: readonly Node[];
  readonly outputs: readonly Output[];
}

/** Node ids each node reads. */
export function operands(n: Node): number[] {
  switch (n.op) {
    case 'load': case 'iota': case 'const': return [];
    case 'unary': case 'cast': case 'reduce': case 'scan': return [n.a];
    case 'binary': case 'cmp': case 'loop': case 'if': case 'dot': return [n.a, n.b];
    case 'where': return [n.c, n.a, n.b];
  }
}

const inName = (i: number): string => `x${i}`;
const outName = (i: number): string => `o${i}`;

/** Emits every node (in order) as tiles of shape [BLOCK]; used by the kernel body and the dtype probe. */
export function emitNodes(p: Program, args: Record<string, Tile>, BLOCK: number): Tile[] {
  const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
  const mask = offs.lt(args['n']!);
  const v: Tile[] = [];
  const rows2d = (t: Tile, rows: number): Tile => reshape(t, [rows, BLOCK / rows]);
  const back = (t: Tile, rows: number): Tile => reshape(broadcastTo(expandDims(t, 1), [rows, BLOCK / rows]), [BLOCK]);
  for (const n of p.nodes) {
    switch (n.op) {
      case 'load': v.push(load(args[inName(n.input)]!.add(offs), { mask, other: p.inputs[n.input] === 'bool' ? n.other !== 0 : n.other })); break;
      case 'iota': v.push(offs); break;
      case 'const': v.push(full([BLOCK], n.dtype === 'bool' ? n.value !== 0 : n.value, n.dtype)); break;
      case 'unary': v.push(UNARY[n.fn](v[n.a]!)); break;
      case 'binary': v.push(BINARY[n.fn](v[n.a]!, v[n.b]!)); break;
      case 'cmp': v.push(CMP[n.fn](v[n.a]!, v[n.b]!)); break;
      case 'where': v.push(where(v[n.c]!, v[n.a]!, v[n.b]!)); break;
      case 'cast': v.push(v[n.a]!.to(n.to, n.mode === 'bitcast' ? { bitcast: true } : n.mode === 'rtz' ? { rounding: 'rtz' } : undefined)); break;
      case 'reduce': v.push(back(REDUCE[n.fn](rows2d(v[n.a]!, n.rows), 1), n.rows)); break;
      case 'scan': v.push(reshape(SCAN[n.fn](rows2d(v[n.a]!, n.rows), 1, { reverse: n.reverse }), [BLOCK])); break;
      case 'dot': {
        const S = Math.round(Math.sqrt(BLOCK));
        v.push(reshape(dot(reshape(v[n.a]!, [S, S]), reshape(v[n.b]!, [S, S])), [BLOCK]));
        break;
      }
      case 'loop': {
        const a = v[n.a]!, b = v[n.b]!;
        const [r] = forLoop(0, args['trips']!, 1, [a], (iv, acc) => [BINARY[n.fn](acc!, b).to(a.dtype as DType).add(iv).to(a.dtype as DType)]);
        v.push(r!);
        break;
      }
      case 'if': {
        const a = v[n.a]!, b = v[n.b]!;
        const [r] = ifThenElse(programId(0).rem(2).eq(0), () => [BINARY[n.fnThen](a, b).to(a.dtype as DType)], () => [BINARY[n.fnElse](a, b).to(a.dtype as DType)]);
        v.push(r!);
        break;
      }
    }
  }
  return v;
}

function params(p: Program, outTypes: readonly DType[]): Record<string, ReturnType<typeof ptr> | 'i32' | ReturnType<typeof constexpr>> {
  const ps: Record<string, ReturnType<typeof ptr> | 'i32' | ReturnType<typeof constexpr>> = {};
  p.inputs.forEach((t, i) => (ps[inName(i)] = ptr(t)));
  outTypes.forEach((t, i) => (ps[outName(i)] = ptr(t)));
  ps['n'] = 'i32';
  ps['trips'] = 'i32';
  ps['BLOCK'] = constexpr();
  return ps;
}

/** The dtype of every node, from a trace of the graph without outputs (throws on ill-typed graphs). */
export function nodeTypes(p: Program): DType[] {
  let types: DType[] = [];
  const probe = defineKernel({ name: 'fuzz_probe', params: params(p, []) }, (a) => {
    types = emitNodes(p, a as unknown as Record<string, Tile>, (a as unknown as { BLOCK: number }).BLOCK).map((t) => t.dtype as DType);
  });
  probe.trace({ BLOCK: p.block });
  return types;
}

/** The kernel of a Program: its params are x0.., o0.. (one per output, of the node's dtype), n, trips, BLOCK. */
export function buildKernel(p: Program, name = 'fuzz'): { def: KernelDef; outTypes: DType[] } {
  const types = nodeTypes(p);
  const outTypes = p.outputs.map((o) => types[o.node]!);
  const def = defineKernel({ name, params: params(p, outTypes) }, (a) => {
    const args = a as unknown as Record<string, Tile>;
    const BLOCK = (a as unknown as { BLOCK: number }).BLOCK;
    const v = emitNodes(p, args, BLOCK);
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(args['n']!);
    p.outputs.forEach((o, i) => {
      const out = args[outName(i)]!;
      if (o.kind === 'store') store(out.add(offs), v[o.node]!, { mask });
      else ATOMIC[o.fn](out.add(offs.rem(o.slots)), v[o.node]!, { mask });
    });
  });
  return { def, outTypes };
}

/** A one-line-per-node listing, for failure reports and saved regressions. */
export function describeProgram(p: Program): string {
  const lines = [`// block ${p.block}, grid ${p.grid}, n ${p.n}, numWarps ${p.numWarps}, trips ${p.trips}, data seed ${p.seed}`];
  p.inputs.forEach((t, i) => lines.push(`x${i}: ptr<${t}>`));
  p.nodes.forEach((n, i) => {
    const { op, ...rest } = n;
    lines.push(`v${i} = ${op}(${Object.entries(rest).map(([k, x]) => `${k}=${['a', 'b', 'c'].includes(k) ? `v${String(x)}` : String(x)}`).join(', ')})`);
  });
  p.outputs.forEach((o, i) => lines.push(o.kind === 'store' ? `store o${i} <- v${o.node}` : `atomic_${o.fn} o${i}[offs % ${o.slots}] <- v${o.node}`));
  return lines.join('\n');
}
