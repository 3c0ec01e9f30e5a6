// Shape ops: broadcast, expand_dims, reshape/view, trans, join, split. Index maps are computed
// once at compile time; running is a gather.
import { numel } from '../ir/types.js';
import { bitsOf, gather, newArray, stridesOf, type Lanes } from './arrays.js';
import type { Rule } from './context.js';
import { unsupported } from './errors.js';

/** For each flat output index, the flat input index. */
function indexMap(outShape: readonly number[], srcIndex: (multi: number[]) => number): Int32Array {
  const n = numel(outShape);
  const map = new Int32Array(n);
  const multi = new Array<number>(outShape.length).fill(0);
  for (let i = 0; i < n; i++) {
    map[i] = srcIndex(multi);
    for (let d = outShape.length - 1; d >= 0; d--) {
      if (++multi[d]! < outShape[d]!) break;
      multi[d] = 0;
    }
  }
  return map;
}

export const broadcastRule: Rule<'broadcast'> = (op, c) => {
  const src = op.operands[0]!;
  const inShape = src.type.shape;
  const outShape = op.attrs.shape;
  if (inShape.length !== outShape.length || inShape.some((d, i) => d !== 1 && d !== outShape[i])) {
    throw unsupported(c.kernel, op, `cannot broadcast [${inShape.join(', ')}] to [${outShape.join(', ')}]`);
  }
  const st = stridesOf(inShape);
  const map = indexMap(outShape, (m) => m.reduce((acc, v, d) => acc + (inShape[d] === 1 ? 0 : v * st[d]!), 0));
  const t = op.results[0]!.type.elem;
  const id = op.results[0]!.id;
  return (cx) => { cx.env[id] = gather(t, cx.env[src.id]!, map.length, (i) => map[i]!); };
};

/** Same lanes, new static shape (row-major order is unchanged). */
const sameLanes: Rule<'expand_dims' | 'reshape'> = (op) => {
  const src = op.operands[0]!.id;
  const id = op.results[0]!.id;
  return (cx) => { cx.env[id] = cx.env[src]!; };
};
export const expandDimsRule: Rule<'expand_dims'> = sameLanes;
// `view` (allowReorder) may reorder elements; the interpreter keeps row-major order.
export const reshapeRule: Rule<'reshape'> = sameLanes;

export const transRule: Rule<'trans'> = (op, c) => {
  const src = op.operands[0]!;
  const perm = op.attrs.perm;
  const inShape = src.type.shape;
  if (perm.length !== inShape.length || [...perm].sort().some((p, i) => p !== i)) {
    throw unsupported(c.kernel, op, `bad permutation [${perm.join(', ')}]`);
  }
  const outShape = perm.map((p) => inShape[p]!);
  const st = stridesOf(inShape);
  const map = indexMap(outShape, (m) => m.reduce((acc, v, d) => acc + v * st[perm[d]!]!, 0));
  const t = op.results[0]!.type.elem;
  const id = op.results[0]!.id;
  return (cx) => { cx.env[id] = gather(t, cx.env[src.id]!, map.length, (i) => map[i]!); };
};

export const joinRule: Rule<'join'> = (op) => {
  const [a, b] = op.operands.map((v) => v.id) as [number, number];
  const t = op.results[0]!.type.elem;
  const id = op.results[0]!.id;
  return (cx) => {
    const x = cx.env[a]!;
    const y = cx.env[b]!;
    const n = x.length;
    const out = newArray(t, n * 2);
    const o: Lanes = bitsOf(out);
    const xs: Lanes = bitsOf(x);
    const ys: Lanes = bitsOf(y);
    // Interleave: [..., 0] from a, [..., 1] from b.
    for (let i = 0; i < n; i++) {
      o[2 * i] = xs[i];
      o[2 * i + 1] = ys[i];
    }
    cx.env[id] = out;
  };
};

export const splitRule: Rule<'split'> = (op) => {
  const src = op.operands[0]!.id;
  const t = op.results[0]!.type.elem;
  const [lo, hi] = op.results.map((v) => v.id) as [number, number];
  return (cx) => {
    const x = cx.env[src]!;
    const n = x.length >> 1;
    cx.env[lo] = gather(t, x, n, (i) => 2 * i);
    cx.env[hi] = gather(t, x, n, (i) => 2 * i + 1);
  };
};
