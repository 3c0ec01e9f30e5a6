// Random well-typed Programs. Each node is proposed at random and kept only when the graph still
// traces (the tile language is the judge of typing, so promotion rules need no copy here).
// Approximate float ops (transcendentals, float sum/cumsum/cumprod) read only loads or constants,
// whose values are bounded, and are never read by other nodes: their error is then bounded and
// stated (check.ts), while everything else must match the interpreter bit for bit.
import { bitWidth, isRtzCast, type DType } from '../../src/ir/types.js';
import {
  APPROX_UNARY, ATOMIC, BINARY, CMP, FLOATS, INTS, isFloatT, isIntT, nodeTypes, UNARY,
  type Node, type Output, type Program,
} from './program.js';

/** xorshift32: small, fast, and the same sequence everywhere. */
export function rng(seed: number): () => number {
  // mix the seed first (murmur3's finalizer) so that nearby seeds give unrelated streams
  let s = seed >>> 0;
  s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) >>> 0;
  s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
  s = (s ^ (s >>> 16)) >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const DTYPES: readonly DType[] = [...FLOATS, ...INTS, 'bool'];

/** Whether node `i` is an approximate float result (a leaf: only outputs may read it). */
export function isApprox(p: Pick<Program, 'nodes'>, types: readonly DType[], i: number): boolean {
  const n = p.nodes[i]!;
  if (!isFloatT(types[i]!)) return false;
  if (n.op === 'unary') return APPROX_UNARY.has(n.fn);
  // f32 `div` is div.full.f32 (2 ulp), as Triton's `/`; `divRn` would be exact.
  if (n.op === 'binary') return n.fn === 'pow' || (n.fn === 'div' && types[i] === 'f32');
  if (n.op === 'reduce') return n.fn === 'sum';
  if (n.op === 'scan' || n.op === 'dot') return true;
  return false;
}

const bounded = (n: Node): boolean => n.op === 'load' || n.op === 'const';

export function generate(seed: number): Program {
  const r = rng(seed);
  const block = 2 ** (1 + Math.floor(r() * 8)); // 2..256
  const grid = 1 + Math.floor(r() * 3);
  const n = Math.max(1, Math.floor(r() * block * grid) + (r() < 0.4 ? block * grid : 0));
  const inputs: DType[] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => (r() < 0.05 ? 'bool' : pick(r, DTYPES.filter((t) => t !== 'bool'))));
  const base: Program = {
    seed: Math.floor(r() * 2 ** 31), block, grid, n: Math.min(n, block * grid), numWarps: pick(r, [1, 2, 4, 8]),
    trips: Math.floor(r() * 4), inputs, nodes: [], outputs: [],
  };
  const nodes: Node[] = inputs.map((t, i) => ({ op: 'load', input: i, other: pick(r, t === 'u8' || t === 'u32' || t === 'bool' ? [0, 1] : [0, 1, -1]) }));
  let types = nodeTypes({ ...base, nodes });
  const target = 2 + Math.floor(r() * 10);
  for (let tries = 0; nodes.length < inputs.length + target && tries < 60; tries++) {
    const usable = nodes.map((_, i) => i).filter((i) => !isApprox({ nodes }, types, i));
    const any = (): number => pick(r, usable);
    const rows = (): number => 2 ** Math.floor(r() * (Math.log2(block) + 1));
    const op = pick(r, ['unary', 'binary', 'binary', 'binary', 'cmp', 'where', 'cast', 'cast', 'reduce', 'scan', 'loop', 'if', 'const', 'iota', 'dot']);
    let cand: Node;
    switch (op) {
      case 'unary': {
        const fn = pick(r, Object.keys(UNARY) as (keyof typeof UNARY)[]);
        const a = APPROX_UNARY.has(fn) ? pick(r, usable.filter((i) => bounded(nodes[i]!))) : any();
        if (a === undefined) continue;
        cand = { op, fn, a };
        break;
      }
      case 'binary': {
        const fn = pick(r, Object.keys(BINARY) as (keyof typeof BINARY)[]);
        const src = fn === 'pow' ? usable.filter((i) => bounded(nodes[i]!)) : usable;
        if (src.length === 0) continue;
        cand = { op, fn, a: pick(r, src), b: pick(r, src) };
        break;
      }
      case 'cmp': cand = { op, fn: pick(r, Object.keys(CMP) as (keyof typeof CMP)[]), a: any(), b: any() }; break;
      case 'where': {
        const conds = usable.filter((i) => types[i] === 'bool');
        if (conds.length === 0) continue;
        cand = { op, c: pick(r, conds), a: any(), b: any() };
        break;
      }
      case 'cast': {
        const a = any(), m = r();
        // bitcasts read loads only: which NaN arithmetic gives is open, and a bitcast would show it
        // (a bitcast or rtz cast the language refuses for these dtypes fails to trace: dropped)
        const ta = types[a]!;
        const same = DTYPES.filter((t) => t !== ta && t !== 'bool' && ta !== 'bool' && bitWidth(t) === bitWidth(ta));
        const narrower = DTYPES.filter((t) => isRtzCast(ta, t));
        if (m < 0.2 && nodes[a]!.op === 'load' && same.length > 0) cand = { op, a, to: pick(r, same), mode: 'bitcast' };
        else if (m < 0.35 && narrower.length > 0) cand = { op, a, to: pick(r, narrower), mode: 'rtz' };
        else cand = { op, a, to: pick(r, DTYPES) };
        break;
      }
      case 'reduce': {
        const fn = pick(r, ['sum', 'max', 'min'] as const);
        const src = fn === 'sum' ? usable.filter((i) => !isFloatT(types[i]!) || bounded(nodes[i]!)) : usable;
        if (src.length === 0) continue;
        cand = { op, fn, a: pick(r, src), rows: rows() };
        break;
      }
      case 'scan': {
        const fn = pick(r, ['cumsum', 'cumprod'] as const);
        const src = usable.filter((i) => !isFloatT(types[i]!) || (fn === 'cumsum' && bounded(nodes[i]!)));
        if (src.length === 0) continue;
        cand = { op, fn, a: pick(r, src), rows: rows(), reverse: r() < 0.3 };
        break;
      }
      case 'dot': {
        // square tiles only (BLOCK = S*S); float operands bounded as for sums (the order of the
        // products' sum differs between the interpreter and the tensor cores)
        if (![4, 16, 64, 256].includes(block)) continue;
        const src = usable.filter((i) => types[i] !== 'bool' && (!isFloatT(types[i]!) || bounded(nodes[i]!)));
        if (src.length === 0) continue;
        const a = pick(r, src);
        const same = src.filter((i) => types[i] === types[a]);
        const b = r() < 0.8 ? pick(r, same) : pick(r, src);
        // a float dot (either operand float) reads only loads and constants: its bound (check.ts) is
        // computed from their values
        if ((isFloatT(types[a]!) || isFloatT(types[b]!)) && !(bounded(nodes[a]!) && bounded(nodes[b]!))) continue;
        cand = { op, a, b };
        break;
      }
      case 'loop': {
        const src = usable.filter((i) => types[i] !== 'bool');
        if (src.length === 0) continue;
        cand = { op, fn: pick(r, ['add', 'sub', 'mul', 'xor', 'maximum', 'minimum'] as const), a: pick(r, src), b: pick(r, src) };
        break;
      }
      case 'if': {
        const fns = ['add', 'sub', 'mul', 'minimum', 'maximum', 'and', 'xor'] as const;
        cand = { op, fnThen: pick(r, fns), fnElse: pick(r, fns), a: any(), b: any() };
        break;
      }
      case 'const': {
        const dtype = pick(r, DTYPES);
        const value = isFloatT(dtype) ? pick(r, [0, -0, 1, -1.5, 3.25, 1e-3]) : dtype === 'bool' ? pick(r, [0, 1]) : pick(r, [0, 1, -1, 7, 100, -128]);
        cand = { op, value, dtype };
        break;
      }
      default: cand = { op: 'iota' };
    }
    try {
      types = nodeTypes({ ...base, nodes: [...nodes, cand] });
      nodes.push(cand);
    } catch {
      // ill-typed (e.g. a bitwise op on floats): propose another node
    }
  }
  const outputs: Output[] = [];
  const wanted = 1 + Math.floor(r() * 3);
  const leaves = nodes.map((_, i) => i).filter((i) => i >= inputs.length);
  for (let k = 0; k < wanted && leaves.length > 0; k++) {
    const node = r() < 0.7 ? leaves[leaves.length - 1 - Math.floor(r() * Math.min(3, leaves.length))]! : pick(r, leaves);
    const t = types[node]!;
    // Float atomic max/min order NaNs by their sign bit, and arithmetic may return a NaN of either
    // sign (docs/semantics.md), so float atomics get only loaded values, whose bits are known.
    const atomicOk = (t === 'i32' || t === 'u32' || t === 'i64' || ((t === 'f32' || t === 'f64') && nodes[node]!.op === 'load'))
      && !isApprox({ nodes }, types, node);
    if (atomicOk && r() < 0.25) {
      const fns = (isIntT(t) ? Object.keys(ATOMIC) : ['max', 'min']) as (keyof typeof ATOMIC)[];
      outputs.push({ kind: 'atomic', fn: pick(r, fns), node, slots: pick(r, [1, 3, 16]) });
    } else outputs.push({ kind: 'store', node });
  }
  if (outputs.length === 0) outputs.push({ kind: 'store', node: nodes.length - 1 });
  return { ...base, nodes, outputs };
}
