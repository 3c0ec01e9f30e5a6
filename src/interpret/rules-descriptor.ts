// Tensor descriptor loads and stores (desc_load / desc_store, src/ir/tensor_desc.ts), the reference
// semantics: element i of the block is at global index offset + i in every dim; an element inside
// the tensor's shape is read (or written) at base + sum(index_d * stride_d) elements, one outside
// reads as zero (TMA's out-of-bounds fill) and is never written. In-bounds accesses are checked as
// any load's (a descriptor that points past its buffer is E_OOB, not a silent zero).
import type { Op } from '../ir/ops.js';
import { descOperands } from '../ir/tensor_desc.js';
import { isPtr, numel, pointee, type DType } from '../ir/types.js';
import { BYTES } from '../ir/dtype_arrays.js';
import { bitsOf, newArray, splatTo, type Lanes } from './arrays.js';
import type { Rule, RunCtx } from './context.js';
import { unsupported } from './errors.js';
import { Cursor, moveDtype } from './rules-memory.js';

const scalarOf = (cx: RunCtx, id: number): number => Number((cx.env[id] as Lanes)[0]);

/** Per element of the block: its address, or -1 when it lies outside the tensor. */
function addresses(cx: RunCtx, op: Op<'desc_load'> | Op<'desc_store'>, size: number): Float64Array {
  const d = descOperands(op);
  const block = op.attrs.block;
  const base = scalarOf(cx, d.base.id);
  const shape = d.shape.map((v) => scalarOf(cx, v.id));
  const strides = d.strides.map((v) => scalarOf(cx, v.id));
  const offs = d.offsets.map((v) => scalarOf(cx, v.id));
  const n = numel(block);
  const out = new Float64Array(n);
  const idx = new Array<number>(block.length).fill(0);
  for (let i = 0; i < n; i++) {
    let elem = 0;
    let inside = true;
    for (let k = 0; k < block.length; k++) {
      const g = offs[k]! + idx[k]!;
      if (g < 0 || g >= shape[k]!) inside = false;
      elem += g * strides[k]!;
    }
    out[i] = inside ? base + elem * size : -1;
    for (let k = block.length - 1; k >= 0; k--) {
      if (++idx[k]! < block[k]!) break;
      idx[k] = 0;
    }
  }
  return out;
}

function dtypeOf(op: Op, kernel: string) {
  const e = op.operands[0]!.type.elem;
  if (!isPtr(e)) throw unsupported(kernel, op, `expected a pointer base, got ${e}`);
  return pointee(e);
}

/** The bits of a quiet NaN of f32 or f64 as the array of that dtype holds them (via bitsOf). */
function nanBits(d: DType): number {
  const a = newArray(d, 1);
  (a as Float32Array)[0] = NaN;
  return Number(bitsOf(a)[0]);
}

export const descLoadRule: Rule<'desc_load'> = (op, c) => {
  const d = dtypeOf(op, c.kernel);
  const size = BYTES[d];
  const id = op.results[0]!.id;
  const n = numel(op.attrs.block);
  // out of bounds: zero, or NaN (`padding: 'nan'`, float pointees: their canonical quiet NaN bits)
  const fill = op.attrs.padding !== 'nan' ? 0 : d === 'f16' ? 0x7e00 : d === 'bf16' ? 0x7fc0 : nanBits(d);
  return (cx) => {
    const addrs = addresses(cx, op, size);
    const out = newArray(d, n);
    const o: Lanes = bitsOf(out);
    if (op.attrs.padding === 'nan') for (let i = 0; i < n; i++) o[i] = fill;
    const cur = new Cursor(cx, c, op, 'descriptor load', size, moveDtype(d));
    for (let i = 0; i < n; i++) {
      if (addrs[i]! < 0) continue; // out of bounds: zero
      const k = cur.index(addrs[i]!, i);
      o[i] = d === 'bool' ? (cur.view[k] !== 0 ? 1 : 0) : cur.view[k];
    }
    cx.env[id] = out;
  };
};

export const descStoreRule: Rule<'desc_store'> = (op, c) => {
  const d = dtypeOf(op, c.kernel);
  const size = BYTES[d];
  const valId = descOperands(op).value!.id;
  const n = numel(op.attrs.block);
  return (cx) => {
    const addrs = addresses(cx, op, size);
    const vals: Lanes = bitsOf(splatTo(cx.env[valId]!, n));
    const check = new Cursor(cx, c, op, 'descriptor store', size, moveDtype(d));
    for (let i = 0; i < n; i++) if (addrs[i]! >= 0) check.index(addrs[i]!, i); // all checked before any write
    const cur = new Cursor(cx, c, op, 'descriptor store', size, moveDtype(d));
    for (let i = 0; i < n; i++) {
      if (addrs[i]! < 0) continue;
      const k = cur.index(addrs[i]!, i); // before reading cur.view: index() moves the cursor
      cur.view[k] = vals[i];
    }
  };
};
