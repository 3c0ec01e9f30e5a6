// histogram: bins as u32 counters in shared memory — zeroed by all threads, a barrier, one
// atom.shared.add per element (replicated copies skipped; masked-off and out-of-range values
// skipped), a barrier, then each thread reads the bins its output layout gives it.
import type { Op } from '../ir/ops.js';
import { regKind } from './ptx_types.js';
import type { Lowering } from './context.js';

type Rule = (cx: Lowering, op: Op) => void;

const histogram: Rule = (cx, op) => {
  const { numBins, hasMask } = (op as Op<'histogram'>).attrs;
  const x = op.operands[0]!;
  const inL = cx.plan.expected.get(op)?.[0] ?? cx.layoutOf(x);
  const xs = cx.operand(op, 0);
  const ms = hasMask ? cx.operand(op, 1) : [];
  const wide = regKind(x.type.elem) === 'b64';
  cx.needShared(numBins * 4);
  const base = cx.reg('b32');
  cx.emit(`mov.u32 ${base}, ${cx.smemBase()};`);
  const { tid } = cx.thread();
  const threads = cx.plan.numWarps * 32;
  cx.barrier();
  for (let k = 0; k < numBins; k += threads) {
    const i = cx.reg('b32');
    const p = cx.reg('pred');
    const a = cx.reg('b32');
    cx.emit(`add.u32 ${i}, ${tid}, ${k};`);
    cx.emit(`setp.lt.u32 ${p}, ${i}, ${numBins};`);
    cx.emit(`mad.lo.u32 ${a}, ${i}, 4, ${base};`);
    cx.emit(`@${p} st.shared.u32 [${a}], 0;`);
  }
  cx.barrier();
  cx.slots(x, inL).forEach((s, i) => {
    const v = xs[xs.length === 1 ? 0 : i]!;
    const p = cx.reg('pred');
    // unsigned compare: negative values are huge, so out of range
    cx.emit(`setp.lt.u${wide ? 64 : 32} ${p}, ${v}, ${numBins};`);
    if (hasMask) cx.emit(`and.pred ${p}, ${p}, ${ms[ms.length === 1 ? 0 : i]};`);
    const canon = cx.canonical(inL, x.type.shape, s);
    if (canon) cx.emit(`and.pred ${p}, ${p}, ${canon};`);
    const bin = cx.reg('b32');
    if (wide) cx.emit(`cvt.u32.u64 ${bin}, ${v};`);
    else cx.emit(`mov.b32 ${bin}, ${v};`);
    const a = cx.reg('b32');
    cx.emit(`mad.lo.u32 ${a}, ${bin}, 4, ${base};`);
    cx.emit(`@${p} red.shared.add.u32 [${a}], 1;`);
  });
  cx.barrier();
  const res = op.results[0]!;
  const outL = cx.layoutOf(res);
  const out = cx.slots(res, outL).map((s) => {
    const c = cx.coordReg(outL, res.type.shape, s, 0);
    const a = cx.reg('b32');
    cx.emit(`mad.lo.u32 ${a}, ${c}, 4, ${base};`);
    const r = cx.reg('b32');
    cx.emit(`ld.shared.u32 ${r}, [${a}];`);
    return r;
  });
  cx.define(res, out);
};

export const HISTOGRAM_RULES: Record<string, Rule> = { histogram };
