// canonicalize: constant folding and algebraic simplification, one forward walk.
// - unary/binary/cmp/cast of constants fold with exact dtype semantics (src/ir/numeric.ts); ops
//   whose GPU lowering is approximate (transcendentals, default float div/sqrt) are left alone.
// - shape ops (splat, broadcast, expand_dims, reshape, trans) of a constant become a constant;
//   identity shape ops disappear.
// - identities: x+0, x-0, x*1 (for floats only the exact ones: x + -0.0, x - 0.0, x*1), x*0 for
//   integers, select with a constant condition or equal arms, cast to the same dtype, addptr of 0.
// - `if` with a constant condition is replaced by the taken region; `for` that runs zero times
//   (constant bounds) is replaced by its initial values.
// Constants are normalized (f32 values rounded, i64 as bigint).
// A folded op keeps its result value (it becomes a `const` op), so no new value ids are needed.
import { evalBinary, evalCast, evalCmp, evalUnary, normalizeConst, toBigInt, toNumber } from '../ir/numeric.js';
import type { Block, ConstValue, Func, Op, OpKind, Value } from '../ir/ops.js';
import { Subst, withBody, withParts } from '../ir/rewrite.js';
import type { DType } from '../ir/types.js';
import { isFloat, isInt, isPtr, sameShape } from '../ir/types.js';

type Rewrite =
  | { readonly const: ConstValue }
  | { readonly replace: Value[] }
  | { readonly inline: Op[]; readonly values: Value[] };

interface Env {
  /** The splat value of `v` when `v` is defined by a `const` op. */
  constOf(v: Value): ConstValue | undefined;
}

type Folder<K extends OpKind> = (op: Op<K>, env: Env) => Rewrite | undefined;

const elemOf = (v: Value): DType | undefined => (isPtr(v.type.elem) ? undefined : (v.type.elem as DType));
const fold = (v: ConstValue | undefined): Rewrite | undefined => (v === undefined ? undefined : { const: v });
const replace = (v: Value): Rewrite => ({ replace: [v] });

/** Whether `c` is the constant `n` of dtype `d` (for floats, `n` is matched with its sign: -0 != 0). */
function isConst(c: ConstValue | undefined, d: DType, n: number): boolean {
  if (c === undefined || d === 'bool') return false;
  return isInt(d) ? toBigInt(c) === BigInt(n) : Object.is(toNumber(c), n);
}

/** Shape ops: a constant operand makes a constant result. */
const shapeOp = <K extends OpKind>(op: Op<K>, env: Env): Rewrite | undefined => fold(env.constOf(op.operands[0]!));

function foldBinary(op: Op<'binary'>, env: Env): Rewrite | undefined {
  const [x, y] = op.operands as [Value, Value];
  const d = elemOf(x);
  if (!d) return undefined;
  const a = env.constOf(x), b = env.constOf(y);
  const { fn, precise } = op.attrs;
  if (a !== undefined && b !== undefined) return fold(evalBinary(fn, d, a, b, precise));
  const int = isInt(d), float = isFloat(d);
  if (!int && !float) return undefined;
  switch (fn) {
    case 'add': {
      const zero = int ? 0 : -0; // x + 0.0 turns -0.0 into +0.0, so floats only drop -0.0
      if (isConst(b, d, zero)) return replace(x);
      if (isConst(a, d, zero)) return replace(y);
      return undefined;
    }
    case 'sub': return isConst(b, d, 0) ? replace(x) : undefined;
    case 'mul':
      if (isConst(b, d, 1)) return replace(x);
      if (isConst(a, d, 1)) return replace(y);
      // x*0 is 0 only for integers (float: NaN*0 and inf*0 are NaN, -x*0 is -0).
      if (int && (isConst(a, d, 0) || isConst(b, d, 0))) return fold(normalizeConst(d, 0));
      return undefined;
    default:
      return undefined;
  }
}

const FOLDERS: Partial<{ [K in OpKind]: Folder<K> }> = {
  splat: shapeOp,
  expand_dims: shapeOp,
  broadcast: (op, env) => (sameShape(op.operands[0]!.type.shape, op.attrs.shape) ? replace(op.operands[0]!) : shapeOp(op, env)),
  reshape: (op, env) => (sameShape(op.operands[0]!.type.shape, op.attrs.shape) ? replace(op.operands[0]!) : shapeOp(op, env)),
  trans: (op, env) => (op.attrs.perm.every((p, i) => p === i) ? replace(op.operands[0]!) : shapeOp(op, env)),
  unary: (op, env) => {
    const d = elemOf(op.operands[0]!), a = env.constOf(op.operands[0]!);
    return d && a !== undefined ? fold(evalUnary(op.attrs.fn, d, a, op.attrs.precise)) : undefined;
  },
  binary: foldBinary,
  cmp: (op, env) => {
    const d = elemOf(op.operands[0]!), a = env.constOf(op.operands[0]!), b = env.constOf(op.operands[1]!);
    return d && a !== undefined && b !== undefined ? fold(evalCmp(op.attrs.pred, d, a, b)) : undefined;
  },
  select: (op, env) => {
    const [c, x, y] = op.operands as [Value, Value, Value];
    const cv = env.constOf(c);
    if (cv !== undefined) return replace(cv ? x : y);
    return x.id === y.id ? replace(x) : undefined;
  },
  cast: (op, env) => {
    const x = op.operands[0]!, from = elemOf(x);
    if (!from) return undefined;
    if (from === op.attrs.to) return replace(x);
    const a = env.constOf(x);
    // evalCast rounds to nearest; a cast toward zero stays for the backends (and the interpreter)
    return a === undefined || op.attrs.rounding ? undefined : fold(evalCast(from, op.attrs.to, a));
  },
  addptr: (op, env) => {
    const off = op.operands[1]!, d = elemOf(off);
    return d && isConst(env.constOf(off), d, 0) ? replace(op.operands[0]!) : undefined;
  },
  if: (op, env) => {
    const c = env.constOf(op.operands[0]!);
    if (c === undefined) return undefined;
    const taken = op.regions[c ? 0 : 1]!;
    const yieldOp = taken.ops.at(-1)!;
    return { inline: taken.ops.slice(0, -1), values: yieldOp.operands };
  },
  for: (op, env) => {
    const [lb, ub, step] = op.operands.slice(0, 3).map((v) => env.constOf(v));
    if (lb === undefined || ub === undefined || step === undefined) return undefined;
    const runsZeroTimes = toBigInt(step) > 0n && toBigInt(lb) >= toBigInt(ub);
    return runsZeroTimes ? { replace: op.operands.slice(3) } : undefined;
  },
};

export function canonicalize(f: Func): Func {
  const consts = new Map<number, ConstValue>();
  const subst = new Subst();
  const env: Env = { constOf: (v) => consts.get(subst.get(v).id) };

  const block = (b: Block): Block => {
    const ops: Op[] = [];
    const pushConst = (op: Op, raw: ConstValue): void => {
      const result = op.results[0]!;
      const elem = elemOf(result);
      const value = elem ? normalizeConst(elem, raw) : raw;
      consts.set(result.id, value);
      ops.push({ kind: 'const', operands: [], results: [result], attrs: { value }, regions: [], ...(op.loc ? { loc: op.loc } : {}) });
    };
    for (const old of b.ops) {
      // Regions first: their uses are substituted and their ops folded before the op is.
      const op = withParts(old, old.operands.map((v) => subst.get(v)), old.regions.map(block));
      const folder = FOLDERS[op.kind] as Folder<OpKind> | undefined;
      const r = folder?.(op, env);
      if (op.kind === 'const') {
        // Constants are stored in canonical form: rounded to their float dtype, bigint for i64.
        pushConst(op, (op as Op<'const'>).attrs.value);
      } else if (!r) {
        ops.push(op);
      } else if ('const' in r) {
        pushConst(op, r.const);
      } else if ('replace' in r) {
        op.results.forEach((v, i) => subst.set(v, subst.get(r.replace[i]!)));
      } else {
        ops.push(...r.inline);
        op.results.forEach((v, i) => subst.set(v, subst.get(r.values[i]!)));
      }
    }
    return { args: b.args, ops };
  };
  return withBody(f, block(f.body));
}
