// Control flow and debugging ops: for, if, yield/return (terminators), print, assert.
import { isPtr, type DType, type ElemType } from '../ir/types.js';
import { bf16Value, f16Value, toBF16, toF16 } from '../ir/half.js';
import { indexString, newArray, type Lanes } from './arrays.js';
import type { Rule } from './context.js';
import { DeviceAssertError, InterpretError, assertDetail, unsupported } from './errors.js';
import { BYTES, type ElemArray } from '../ir/dtype_arrays.js';

export const forRule: Rule<'for'> = (op, c) => {
  const [lb, ub, st, ...inits] = op.operands.map((v) => v.id) as [number, number, number, ...number[]];
  const body = op.regions[0];
  if (!body || body.args.length !== inits.length + 1) {
    throw unsupported(c.kernel, op, `loop body must take the induction variable and ${inits.length} carried values`);
  }
  const cb = c.compileBlock(body);
  const ivType = body.args[0]!.type.elem;
  const outIds = op.results.map((v) => v.id);
  const big = ivType === 'i64';
  return (cx) => {
    const lo = cx.env[lb]![0]!;
    const hi = cx.env[ub]![0]!;
    const step = cx.env[st]![0]!;
    if (step === 0 || step === 0n) {
      throw new InterpretError('E_INTERPRET', `for loop with step 0 in program (${cx.pid.join(', ')})`, {
        kernel: c.kernel, ...(op.loc ? { loc: op.loc } : {}), pid: [...cx.pid],
      });
    }
    let carried = inits.map((id) => cx.env[id]!);
    // The induction variable does not wrap: the trip count is ceil((ub - lb) / step).
    if (big) {
      const s = BigInt(step), u = BigInt(hi);
      for (let iv = BigInt(lo); s > 0n ? iv < u : iv > u; iv += s) carried = cb.run(cx, [BigInt64Array.of(iv), ...carried]);
    } else {
      const s = Number(step), u = Number(hi);
      for (let iv = Number(lo); s > 0 ? iv < u : iv > u; iv += s) {
        const ivArr: Lanes = newArray(ivType, 1);
        ivArr[0] = iv;
        carried = cb.run(cx, [ivArr as ElemArray, ...carried]);
      }
    }
    outIds.forEach((id, j) => { cx.env[id] = carried[j]!; });
  };
};

export const ifRule: Rule<'if'> = (op, c) => {
  const cond = op.operands[0]!.id;
  const [thenB, elseB] = op.regions;
  if (!thenB) throw unsupported(c.kernel, op, 'missing then region');
  const thenC = c.compileBlock(thenB);
  const elseC = elseB ? c.compileBlock(elseB) : undefined;
  const outIds = op.results.map((v) => v.id);
  if (!elseC && outIds.length) throw unsupported(c.kernel, op, 'an if with results needs an else region');
  return (cx) => {
    const taken = cx.env[cond]![0] ? thenC : elseC;
    if (!taken) return;
    const res = taken.run(cx, []);
    outIds.forEach((id, j) => { cx.env[id] = res[j]!; });
  };
};

/** Terminators do nothing when run: the block runner reads their operands. */
export const yieldRule: Rule<'yield'> = () => () => {};
export const returnRule: Rule<'return'> = () => () => {};

/** Shortest decimal that reads back as the same value of dtype `t` (also the native devices' print format). */
export function formatFloat(v: number, t: DType): string {
  if (t === 'f64' || !Number.isFinite(v)) return String(v);
  const round = t === 'f32' ? Math.fround : t === 'f16' ? toF16 : toBF16;
  for (let p = 1; p < 17; p++) {
    const s = Number(v.toPrecision(p));
    if (round(s) === v) return String(s);
  }
  return String(v);
}

function formatter(t: ElemType, hex: boolean): (x: number | bigint) => string {
  if (isPtr(t)) return (x) => `0x${x.toString(16)}`;
  const d = t as DType;
  if (hex) {
    const digits = BYTES[d] * 2;
    const mask = (1n << BigInt(digits * 4)) - 1n;
    const bits = d === 'f32' ? (x: number | bigint) => { const f = new Float32Array([Number(x)]); return BigInt(new Uint32Array(f.buffer)[0]!); }
      : d === 'f64' ? (x: number | bigint) => { const f = new Float64Array([Number(x)]); return new BigInt64Array(f.buffer)[0]!; }
      : (x: number | bigint) => BigInt(x);
    return (x) => `0x${(bits(x) & mask).toString(16).padStart(digits, '0')}`;
  }
  if (d === 'f16') return (x) => formatFloat(f16Value(Number(x)), 'f16');
  if (d === 'bf16') return (x) => formatFloat(bf16Value(Number(x)), 'bf16');
  if (d === 'f32' || d === 'f64') return (x) => formatFloat(Number(x), d);
  if (d === 'bool') return (x) => (x ? 'true' : 'false');
  return (x) => String(x);
}

export const printRule: Rule<'print'> = (op) => {
  const { prefix, hex } = op.attrs;
  const ids = op.operands.map((v) => v.id);
  const fmts = op.operands.map((v) => formatter(v.type.elem, hex));
  const shape = op.operands.find((v) => v.type.shape.length)?.type.shape ?? [];
  return (cx) => {
    const head = `pid (${cx.pid.join(', ')})`;
    const vals = ids.map((id) => cx.env[id]! as Lanes);
    const n = Math.max(1, ...vals.map((v) => v.length));
    if (!vals.length) {
      cx.print(`${head} ${prefix}`);
      return;
    }
    for (let i = 0; i < n; i++) {
      const text = vals.map((v, j) => fmts[j]!(v.length === 1 ? v[0] : v[i])).join(', ');
      cx.print(shape.length ? `${head} idx (${indexString(shape, i)}) ${prefix}${text}` : `${head} ${prefix}${text}`);
    }
  };
};

export const assertRule: Rule<'assert'> = (op, c) => {
  const cond = op.operands[0]!.id;
  const shape = op.operands[0]!.type.shape;
  const { message } = op.attrs;
  return (cx) => {
    const v = cx.env[cond]! as Lanes;
    for (let i = 0; i < v.length; i++) {
      if (v[i]) continue;
      throw new DeviceAssertError(assertDetail(cx.pid, i, shape, message), message, {
        kernel: c.kernel, ...(op.loc ? { loc: op.loc } : {}), pid: [...cx.pid], lane: i,
      });
    }
  };
};
