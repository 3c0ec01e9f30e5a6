// sort (and top-k): along the axis, elements ordered by key — floats by IEEE totalOrder, read
// from their bits so NaN payloads, signed zeros and infinities have one place each — then by
// ascending position. The first `k` of each row are kept (and, with `indices`, their positions).
import type { ElemType } from '../ir/types.js';
import { bitsOf, newArray, stridesOf, type Lanes } from './arrays.js';
import type { Rule } from './context.js';

/** A number (or bigint) per element whose ascending order is the key order (totalOrder for floats). */
function sortKey(t: ElemType, a: Lanes): (i: number) => number | bigint {
  if (t === 'f32') {
    const b = bitsOf(a as never) as unknown as Uint32Array;
    return (i) => { const v = b[i]!; return v >= 0x80000000 ? 0xffffffff - v : v + 0x80000000; };
  }
  if (t === 'f16' || t === 'bf16') return (i) => { const v = a[i] as number; return v >= 0x8000 ? 0xffff - v : v + 0x8000; };
  if (t === 'f64') {
    const b = new BigUint64Array((a as Float64Array).buffer, (a as Float64Array).byteOffset, a.length);
    return (i) => { const v = b[i]!; return v >= 1n << 63n ? (1n << 64n) - 1n - v : v + (1n << 63n); };
  }
  return (i) => a[i] as number | bigint; // integers: their value
}

export const sortRule: Rule<'sort'> = (op) => {
  const { axis, descending, k, indices } = op.attrs;
  const shape = op.operands[0]!.type.shape;
  const n = shape[axis]!;
  const st = stridesOf(shape)[axis]!;
  const outShape = shape.map((d, i) => (i === axis ? k : d));
  const ost = stridesOf(outShape)[axis]!;
  const rows = shape.reduce((a, d) => a * d, 1) / n;
  const inner = st; // elements after the axis, row-major
  const elem = op.operands[0]!.type.elem;
  const ids = op.results.map((r) => r.id);
  const src = op.operands[0]!.id;
  return (cx) => {
    const x = cx.env[src]!;
    const key = sortKey(elem, x as Lanes);
    const vals = newArray(elem, rows * k);
    const idx = new Int32Array(rows * k);
    const order = Array.from({ length: n }, (_, j) => j);
    for (let r = 0; r < rows; r++) {
      const base = Math.floor(r / inner) * n * inner + (r % inner);
      const obase = Math.floor(r / inner) * k * inner + (r % inner);
      const ks = order.map((j) => key(base + j * st));
      const perm = [...order].sort((p, q) => {
        const a = ks[p]!, b = ks[q]!;
        if (a !== b) return (a < b) !== descending ? -1 : 1;
        return p - q;
      });
      const s = bitsOf(x) as Lanes, d = bitsOf(vals) as Lanes;
      for (let j = 0; j < k; j++) {
        d[obase + j * ost] = s[base + perm[j]! * st];
        idx[obase + j * ost] = perm[j]!;
      }
    }
    cx.env[ids[0]!] = vals;
    if (indices) cx.env[ids[1]!] = idx;
  };
};
