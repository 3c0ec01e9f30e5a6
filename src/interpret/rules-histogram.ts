// histogram (Triton's tl.histogram): bin b counts the elements equal to b; masked-off elements
// and values outside [0, numBins) are not counted.
import type { Lanes } from './arrays.js';
import type { Rule } from './context.js';

export const histogramRule: Rule<'histogram'> = (op) => {
  const { numBins, hasMask } = op.attrs;
  const x = op.operands[0]!.id;
  const m = hasMask ? op.operands[1]!.id : -1;
  const id = op.results[0]!.id;
  return (cx) => {
    const xs = cx.env[x]! as Lanes;
    const ms = m >= 0 ? (cx.env[m]! as Lanes) : undefined;
    const out = new Int32Array(numBins);
    for (let i = 0; i < xs.length; i++) {
      if (ms && !ms[i]) continue;
      const v = Number(xs[i]);
      if (v >= 0 && v < numBins) out[v]!++;
    }
    cx.env[id] = out;
  };
};
