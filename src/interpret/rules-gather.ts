// gather (Triton's tl.gather): out[i] = src[i with dim `axis` replaced by index[i]]. An index
// outside the dim is an error naming the lane, as an out-of-bounds load is.
import { InterpretError } from './errors.js';
import { bitsOf, indexString, newArray, stridesOf, type Lanes } from './arrays.js';
import type { Rule } from './context.js';

export const gatherRule: Rule<'gather'> = (op, c) => {
  const { axis } = op.attrs;
  const [src, index] = op.operands as [typeof op.operands[0], typeof op.operands[0]];
  const sShape = src!.type.shape, oShape = index!.type.shape;
  const n = sShape[axis]!;
  const sst = stridesOf(sShape), ost = stridesOf(oShape);
  const total = oShape.reduce((a, d) => a * d, 1);
  // flat source index for each output lane, less the axis term
  const baseOf = new Int32Array(total);
  for (let i = 0; i < total; i++) {
    let b = 0;
    for (let d = 0; d < oShape.length; d++) if (d !== axis) b += (Math.floor(i / ost[d]!) % oShape[d]!) * sst[d]!;
    baseOf[i] = b;
  }
  const t = op.results[0]!.type.elem;
  const id = op.results[0]!.id;
  return (cx) => {
    const s = bitsOf(cx.env[src!.id]!) as Lanes;
    const ix = cx.env[index!.id]! as Lanes;
    const out = newArray(t, total);
    const o = bitsOf(out) as Lanes;
    for (let i = 0; i < total; i++) {
      const k = Number(ix[i]);
      if (!(k >= 0 && k < n)) {
        throw new InterpretError('E_INDEX', `op 'gather': index ${k} at lane ${i} [${indexString(oShape, i)}] is outside dim ${axis} of length ${n}`, { kernel: c.kernel, lane: i, pid: [...cx.pid], ...(op.loc ? { loc: op.loc } : {}) });
      }
      o[i] = s[baseOf[i]! + k * sst[axis]!];
    }
    cx.env[id] = out;
  };
};
