// The IR verifier. `verify(f)` checks every op against the rules of src/ir/ops.ts (operand and
// result counts, types and shapes, regions and terminators) and SSA form (each value defined
// once; each operand defined earlier in its block or in an enclosing block). The first problem
// found is thrown as an IRVerifyError (code 'E_IR_VERIFY') naming the op kind, the op's index
// path, the user's source location and what is wrong. The rules are one table, one entry per
// op kind, so a new op kind without rules does not compile.
import { checkAsm, parseAsmConstraints } from './inline_asm.js';
import { IRVerifyError } from './errors.js';
import { intRange } from './numeric.js';
import { badDescBlock } from './tensor_desc.js';
import type { Block, Func, Loc, Op, OpKind, Value } from './ops.js';
import { EVICTIONS, LOAD_CACHE_MODS, STORE_CACHE_MODS } from './ops.js';
import type { DType, ElemType, PtrType, TileType } from './types.js';
import { bitWidth, isBool, isDType, isFloat as isAnyFloat, isFp8, isMiniFloat, isInt, isPow2, isPtr, isRtzCast, numel, pointee, sameShape, sameType, typeToString } from './types.js';

const ts = typeToString;
const shapeStr = (s: readonly number[]): string => `[${s.join(', ')}]`;

class Fail extends Error {}

/** What a rule sees: the op, and helpers that throw a precise error for it. */
class Ctx<K extends OpKind = OpKind> {
  constructor(readonly op: Op<K>) {}
  get attrs(): Op<K>['attrs'] { return this.op.attrs; }
  fail(detail: string): never { throw new Fail(detail); }
  check(ok: boolean, detail: string | (() => string)): void {
    if (!ok) this.fail(typeof detail === 'string' ? detail : detail());
  }
  counts(operands: number, results: number, regions = 0): void {
    const o = this.op;
    // Plain ifs: messages are built only on failure (the verifier runs between every pass).
    if (o.operands.length !== operands) this.fail(`expected ${operands} operand(s), got ${o.operands.length}`);
    if (o.results.length !== results) this.fail(`expected ${results} result(s), got ${o.results.length}`);
    if (o.regions.length !== regions) this.fail(`expected ${regions} region(s), got ${o.regions.length}`);
  }
  operand(i: number): TileType { return this.op.operands[i]!.type; }
  result(i = 0): TileType { return this.op.results[i]!.type; }
  expectType(actual: TileType, expected: TileType, what: string): void {
    this.check(sameType(actual, expected), () => `${what} must be ${ts(expected)}, got ${ts(actual)}`);
  }
  scalar(t: TileType, what: string): void {
    this.check(t.shape.length === 0, () => `${what} must be a scalar, got ${ts(t)}`);
  }
  axis(axis: number, rank: number, what = 'axis'): void {
    if (!(Number.isInteger(axis) && axis >= 0 && axis < rank)) this.fail(`${what} ${axis} out of range for rank ${rank}`);
  }
  /** The region's yield must return exactly `types`. */
  yields(region: number, types: readonly TileType[]): void {
    const y = this.op.regions[region]?.ops.at(-1);
    if (!y || y.kind !== 'yield') return; // reported by the block check
    this.check(y.operands.length === types.length, `region ${region} yields ${y.operands.length} value(s), expected ${types.length}`);
    y.operands.forEach((v, i) => this.expectType(v.type, types[i]!, `region ${region} yield #${i}`));
  }
  regionArgs(region: number, types: readonly TileType[]): void {
    const args = this.op.regions[region]!.args;
    this.check(args.length === types.length, `region ${region} has ${args.length} arg(s), expected ${types.length}`);
    args.forEach((a, i) => this.expectType(a.type, types[i]!, `region ${region} arg #${i}`));
  }
}

type Rule<K extends OpKind> = (c: Ctx<K>) => void;

// fp8 is a storage type: it takes part in loads, stores, data movement and casts, never in arithmetic.
const isFloat = (e: ElemType): boolean => isAnyFloat(e) && !isMiniFloat(e);
const numeric = (e: ElemType): boolean => isInt(e) || isFloat(e);
/** The dtypes an fp8 value converts to and from directly (anything else goes through f32). */
const FP8_CAST_PEERS: ReadonlySet<ElemType> = new Set(['f32', 'f16', 'bf16', 'f8e4m3', 'f8e5m2', 'f8e8m0', 'f4e2m1']);
const FLOAT_UNARY = new Set(['exp', 'exp2', 'log', 'log2', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh', 'sigmoid', 'erf', 'erfc', 'floor', 'ceil']);
const BITWISE = new Set(['and', 'or', 'xor']);

/** desc_load / desc_store: base pointer, then i32 scalars (shape, strides, offsets), then the value. */
function descCommon(c: Ctx<'desc_load'> | Ctx<'desc_store'>, store: boolean): void {
  const block = c.attrs.block;
  const bad = badDescBlock(block);
  if (bad) c.fail(bad);
  const r = block.length;
  c.counts(1 + 3 * r + (store ? 1 : 0), store ? 0 : 1);
  const p = c.operand(0);
  c.check(isPtr(p.elem) && p.shape.length === 0, () => `operand #0 (base) must be a scalar pointer, got ${ts(p)}`);
  for (let i = 1; i <= 3 * r; i++) c.expectType(c.operand(i), { elem: 'i32', shape: [] }, `operand #${i} (${['shape', 'stride', 'offset'][Math.floor((i - 1) / r)]})`);
  const value = { elem: pointee(p.elem as PtrType), shape: block };
  if (store) c.expectType(c.operand(1 + 3 * r), value, 'stored value');
  else c.expectType(c.result(), value, 'result');
}

/** A same-type elementwise op: every operand and the result share one type. */
function sameTypes(c: Ctx, n: number): TileType {
  c.counts(n, 1);
  const t = c.operand(0);
  for (let i = 1; i < n; i++) c.expectType(c.operand(i), t, `operand #${i}`);
  c.expectType(c.result(), t, 'result');
  return t;
}

function checkConstValue(c: Ctx<'const'>, t: TileType): void {
  const v = c.attrs.value;
  const e = t.elem;
  c.check(!isPtr(e), 'constants of pointer type are not allowed');
  if (isBool(e)) c.check(typeof v === 'boolean', () => `bool constant must be true or false, got ${String(v)}`);
  else if (isAnyFloat(e)) c.check(typeof v === 'number', () => `${e} constant must be a number, got ${typeof v}`);
  else {
    c.check(typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)), () => `${e} constant must be an integer, got ${String(v)}`);
    const [lo, hi] = intRange(e as DType);
    const b = BigInt(v as number | bigint);
    c.check(b >= lo && b <= hi, () => `constant ${String(v)} out of range for ${e}`);
  }
}

/** reduce and scan: n operands of one shape; a combiner region over scalars. */
function combiner(c: Ctx<'reduce'> | Ctx<'scan'>, keepAxis: boolean): void {
  const op = c.op as Op;
  const n = op.operands.length;
  c.check(n >= 1, 'expected at least 1 operand');
  c.check(op.results.length === n, () => `expected ${n} result(s), got ${op.results.length}`);
  c.check(op.regions.length === 1, () => `expected 1 region, got ${op.regions.length}`);
  const shape = c.operand(0).shape;
  c.axis(c.attrs.axis, shape.length);
  const resShape = keepAxis ? shape : shape.filter((_, i) => i !== c.attrs.axis);
  op.operands.forEach((v, i) => c.check(sameShape(v.type.shape, shape), () => `operand #${i} has shape ${shapeStr(v.type.shape)}, expected ${shapeStr(shape)}`));
  op.results.forEach((r, i) => c.expectType(r.type, { elem: c.operand(i).elem, shape: resShape }, `result #${i}`));
  const scalars = op.operands.map((v) => ({ elem: v.type.elem, shape: [] }));
  c.regionArgs(0, [...scalars, ...scalars]);
  c.yields(0, scalars);
}

const RULES: { [K in OpKind]: Rule<K> } = {
  const: (c) => {
    c.counts(0, 1);
    checkConstValue(c, c.result());
  },
  program_id: (c) => {
    c.counts(0, 1);
    c.check([0, 1, 2].includes(c.attrs.axis), () => `axis must be 0, 1 or 2, got ${c.attrs.axis}`);
    c.expectType(c.result(), { elem: 'i32', shape: [] }, 'result');
  },
  num_programs: (c) => RULES.program_id(c as unknown as Ctx<'program_id'>),
  cluster_cta_rank: (c) => {
    c.counts(0, 1);
    c.expectType(c.result(), { elem: 'i32', shape: [] }, 'result');
  },
  arange: (c) => {
    c.counts(0, 1);
    const { start, end } = c.attrs;
    c.check(Number.isInteger(start) && Number.isInteger(end) && end > start, () => `arange needs integers start < end, got ${start}..${end}`);
    c.expectType(c.result(), { elem: 'i32', shape: [end - start] }, 'result');
  },
  splat: (c) => {
    c.counts(1, 1);
    c.scalar(c.operand(0), 'operand');
    c.check(c.result().elem === c.operand(0).elem, () => `result element type must be ${c.operand(0).elem}, got ${c.result().elem}`);
  },
  broadcast: (c) => {
    c.counts(1, 1);
    const from = c.operand(0).shape, to = c.attrs.shape;
    c.check(from.length === to.length, () => `broadcast keeps the rank: ${shapeStr(from)} -> ${shapeStr(to)}`);
    from.forEach((d, i) => c.check(d === to[i] || d === 1, `broadcast dim ${i} of size ${d} to ${to[i]}: only size-1 dims broadcast`));
    c.expectType(c.result(), { elem: c.operand(0).elem, shape: to }, 'result');
  },
  expand_dims: (c) => {
    c.counts(1, 1);
    const s = c.operand(0).shape;
    c.axis(c.attrs.axis, s.length + 1);
    c.expectType(c.result(), { elem: c.operand(0).elem, shape: [...s.slice(0, c.attrs.axis), 1, ...s.slice(c.attrs.axis)] }, 'result');
  },
  reshape: (c) => {
    c.counts(1, 1);
    const s = c.operand(0).shape;
    c.check(numel(s) === numel(c.attrs.shape), () => `reshape ${shapeStr(s)} -> ${shapeStr(c.attrs.shape)} changes the number of elements`);
    c.expectType(c.result(), { elem: c.operand(0).elem, shape: c.attrs.shape }, 'result');
  },
  trans: (c) => {
    c.counts(1, 1);
    const s = c.operand(0).shape, perm = c.attrs.perm;
    const ok = perm.length === s.length && [...perm].sort((a, b) => a - b).every((p, i) => p === i);
    c.check(ok, () => `perm ${shapeStr(perm)} is not a permutation of ${s.length} axes`);
    c.expectType(c.result(), { elem: c.operand(0).elem, shape: perm.map((p) => s[p]!) }, 'result');
  },
  join: (c) => {
    c.counts(2, 1);
    c.expectType(c.operand(1), c.operand(0), 'operand #1');
    c.expectType(c.result(), { elem: c.operand(0).elem, shape: [...c.operand(0).shape, 2] }, 'result');
  },
  inline_asm: (c) => {
    const op = c.op as Op;
    c.check(op.results.length >= 1, 'expected at least 1 result');
    const shape = op.results[0]!.type.shape;
    const all = [...op.operands, ...op.results];
    all.forEach((v, i) => c.check(sameShape(v.type.shape, shape), () => `value #${i} has shape ${shapeStr(v.type.shape)}, expected ${shapeStr(shape)}`));
    const cons = parseAsmConstraints(c.attrs.constraints);
    if (typeof cons === 'string') return c.fail(cons);
    const bad = checkAsm(c.attrs.asm, cons, op.results.map((r) => r.type.elem as DType), op.operands.map((v) => v.type.elem as DType), c.attrs.pack);
    if (bad) c.fail(bad);
  },
  split: (c) => {
    c.counts(1, 2);
    const s = c.operand(0).shape;
    c.check(s.at(-1) === 2, () => `operand's last dim must be 2, got ${shapeStr(s)}`);
    const half = { elem: c.operand(0).elem, shape: s.slice(0, -1) };
    c.expectType(c.result(0), half, 'result #0');
    c.expectType(c.result(1), half, 'result #1');
  },
  unary: (c) => {
    const t = sameTypes(c, 1);
    const fn = c.attrs.fn;
    if (fn === 'not') c.check(isInt(t.elem) || isBool(t.elem), () => `unary.not needs an integer or bool operand, got ${t.elem}`);
    else if (FLOAT_UNARY.has(fn)) c.check(isFloat(t.elem), () => `unary.${fn} needs a float operand, got ${t.elem}`);
    else c.check(numeric(t.elem), () => `unary.${fn} needs a numeric operand, got ${t.elem}`);
  },
  binary: (c) => {
    const t = sameTypes(c, 2);
    const fn = c.attrs.fn, e = t.elem;
    if (BITWISE.has(fn)) c.check(isInt(e) || isBool(e), () => `binary.${fn} needs integer or bool operands, got ${e}`);
    else if (fn === 'shl' || fn === 'shr' || fn === 'floordiv') c.check(isInt(e), () => `binary.${fn} needs integer operands, got ${e}`);
    else if (fn === 'umulhi') c.check(e === 'i32' || e === 'u32' || e === 'i64', () => `binary.umulhi needs i32, u32 or i64 operands, got ${e}`);
    else if (fn === 'pow') c.check(isFloat(e), () => `binary.pow needs float operands, got ${e}`);
    else c.check(numeric(e), () => `binary.${fn} needs numeric operands, got ${e}`);
  },
  cmp: (c) => {
    c.counts(2, 1);
    c.check(!isMiniFloat(c.operand(0).elem), () => `cmp on ${c.operand(0).elem} is not allowed (fp8 is a storage type: cast to f32 first)`);
    c.expectType(c.operand(1), c.operand(0), 'operand #1');
    c.expectType(c.result(), { elem: 'bool', shape: c.operand(0).shape }, 'result');
  },
  select: (c) => {
    c.counts(3, 1);
    c.expectType(c.operand(0), { elem: 'bool', shape: c.operand(1).shape }, 'condition');
    c.expectType(c.operand(2), c.operand(1), 'operand #2');
    c.expectType(c.result(), c.operand(1), 'result');
  },
  fma: (c) => {
    const t = sameTypes(c, 3);
    c.check(isFloat(t.elem), () => `fma needs float operands, got ${t.elem}`);
  },
  cast: (c) => {
    c.counts(1, 1);
    c.check(isDType(c.attrs.to), () => `cast target ${String(c.attrs.to)} is not a dtype`);
    c.check(!isPtr(c.operand(0).elem), () => `cast of a pointer (${ts(c.operand(0))}) is not allowed`);
    const from = c.operand(0).elem, to = c.attrs.to;
    c.check(!(isMiniFloat(from) || isMiniFloat(to)) || (FP8_CAST_PEERS.has(from) && FP8_CAST_PEERS.has(to)),
      () => `cast ${from} -> ${to} is not allowed: fp8, f8e8m0 and f4e2m1 convert only to and from f32, f16, bf16 and each other`);
    const r: unknown = c.attrs.rounding;
    c.check(r === undefined || (r === 'rtz' && isRtzCast(from, to)), () => `cast ${from} -> ${to}: rounding ${String(r)} is not allowed (only 'rtz', from a float to a narrower non-fp8 float)`);
    c.expectType(c.result(), { elem: c.attrs.to, shape: c.operand(0).shape }, 'result');
  },
  bitcast: (c) => {
    c.counts(1, 1);
    c.check(isDType(c.attrs.to), () => `bitcast target ${String(c.attrs.to)} is not a dtype`);
    const from = c.operand(0).elem;
    c.check(bitWidth(from) === bitWidth(c.attrs.to), () => `bitcast ${from} -> ${c.attrs.to} changes the width`);
    c.expectType(c.result(), { elem: c.attrs.to, shape: c.operand(0).shape }, 'result');
  },
  addptr: (c) => {
    c.counts(2, 1);
    const p = c.operand(0), off = c.operand(1);
    c.check(isPtr(p.elem), () => `operand #0 must be a pointer tile, got ${ts(p)}`);
    c.check(isInt(off.elem), () => `offset must be an integer tile, got ${ts(off)}`);
    c.check(sameShape(p.shape, off.shape), () => `pointer ${ts(p)} and offset ${ts(off)} must have the same shape`);
    c.expectType(c.result(), p, 'result');
  },
  load: (c) => {
    const { hasMask, hasOther } = c.attrs;
    c.check(!hasOther || hasMask, '`other` needs a mask');
    c.check(LOAD_CACHE_MODS.includes(c.attrs.cache), () => `load cache operator must be one of ${LOAD_CACHE_MODS.filter(Boolean).join(', ')}, got '${c.attrs.cache}'`);
    c.check(EVICTIONS.includes(c.attrs.eviction), () => `eviction must be one of ${EVICTIONS.filter(Boolean).join(', ')}, got '${c.attrs.eviction}'`);
    c.check(!c.attrs.volatile || (!c.attrs.cache && !c.attrs.eviction), 'a volatile load takes no cache operator or eviction hint');
    c.counts(1 + (hasMask ? 1 : 0) + (hasOther ? 1 : 0), 1);
    const p = c.operand(0);
    c.check(isPtr(p.elem), () => `operand #0 must be a pointer tile, got ${ts(p)}`);
    const value = { elem: pointee(p.elem as PtrType), shape: p.shape };
    if (hasMask) c.expectType(c.operand(1), { elem: 'bool', shape: p.shape }, 'mask');
    if (hasOther) c.expectType(c.operand(2), value, 'other');
    c.expectType(c.result(), value, 'result');
  },
  store: (c) => {
    c.counts(2 + (c.attrs.hasMask ? 1 : 0), 0);
    c.check(STORE_CACHE_MODS.includes(c.attrs.cache), () => `store cache operator must be one of ${STORE_CACHE_MODS.filter(Boolean).join(', ')}, got '${c.attrs.cache}'`);
    c.check(EVICTIONS.includes(c.attrs.eviction), () => `eviction must be one of ${EVICTIONS.filter(Boolean).join(', ')}, got '${c.attrs.eviction}'`);
    const p = c.operand(0);
    c.check(isPtr(p.elem), () => `operand #0 must be a pointer tile, got ${ts(p)}`);
    c.expectType(c.operand(1), { elem: pointee(p.elem as PtrType), shape: p.shape }, 'stored value');
    if (c.attrs.hasMask) c.expectType(c.operand(2), { elem: 'bool', shape: p.shape }, 'mask');
  },
  atomic_rmw: (c) => {
    c.counts(2 + (c.attrs.hasMask ? 1 : 0), 1);
    const p = c.operand(0);
    c.check(isPtr(p.elem), () => `operand #0 must be a pointer tile, got ${ts(p)}`);
    const value = { elem: pointee(p.elem as PtrType), shape: p.shape };
    c.check(!isMiniFloat(value.elem), () => `atomic_rmw on ${p.elem} is not allowed (fp8 is a storage type)`);
    c.expectType(c.operand(1), value, 'value');
    if (c.attrs.hasMask) c.expectType(c.operand(2), { elem: 'bool', shape: p.shape }, 'mask');
    c.expectType(c.result(), value, 'result');
    const e = value.elem, op = c.attrs.op;
    if (BITWISE.has(op)) c.check(isInt(e), () => `atomic_rmw.${op} needs an integer pointee, got ${e}`);
    else if (op !== 'xchg') c.check(numeric(e), () => `atomic_rmw.${op} needs a numeric pointee, got ${e}`);
  },
  atomic_cas: (c) => {
    c.counts(3, 1);
    const p = c.operand(0);
    c.check(isPtr(p.elem), () => `operand #0 must be a pointer tile, got ${ts(p)}`);
    c.check(!isMiniFloat(pointee(p.elem as PtrType)), () => `atomic_cas on ${p.elem} is not allowed (fp8 is a storage type)`);
    const value = { elem: pointee(p.elem as PtrType), shape: p.shape };
    c.expectType(c.operand(1), value, 'compare value');
    c.expectType(c.operand(2), value, 'new value');
    c.expectType(c.result(), value, 'result');
  },
  desc_load: (c) => {
    descCommon(c, false);
    const pad = c.attrs.padding;
    if (pad !== undefined) {
      c.check(pad === 'nan', () => `padding must be 'nan' or absent (zero), got ${String(pad)}`);
      c.check(isFloat(c.result().elem), () => `padding 'nan' needs a float pointee (f64, f32, f16, bf16), got ${c.result().elem}`);
    }
  },
  desc_store: (c) => descCommon(c, true),
  reduce: (c) => combiner(c, false),
  scan: (c) => combiner(c, true),
  sort: (c) => {
    c.counts(1, c.attrs.indices ? 2 : 1);
    const x = c.operand(0);
    c.check(x.shape.length >= 1, 'sort needs a tile with at least one dim');
    c.axis(c.attrs.axis, x.shape.length);
    c.check(numeric(x.elem) && !isBool(x.elem), () => `sort keys must be integers or floats, got ${x.elem}`);
    const len = x.shape[c.attrs.axis]!;
    const k = c.attrs.k;
    c.check(Number.isInteger(k) && isPow2(k) && k <= len, () => `k must be a power of two <= ${len}, got ${k}`);
    const out = x.shape.map((d, i) => (i === c.attrs.axis ? k : d));
    c.expectType(c.result(0), { elem: x.elem, shape: out }, 'result #0');
    if (c.attrs.indices) c.expectType(c.result(1), { elem: 'i32', shape: out }, 'result #1 (indices)');
  },
  gather: (c) => {
    c.counts(2, 1);
    const src = c.operand(0), index = c.operand(1);
    c.check(!isPtr(src.elem), 'gather of pointer tiles is not supported');
    c.check(isInt(index.elem), () => `index must be an integer tile, got ${ts(index)}`);
    c.check(src.shape.length >= 1 && index.shape.length === src.shape.length, () => `src and index must have one rank (at least 1), got ${ts(src)} and ${ts(index)}`);
    c.axis(c.attrs.axis, src.shape.length);
    src.shape.forEach((d, i) => c.check(i === c.attrs.axis || index.shape[i] === d, () => `index dim ${i} must match src's (${d}), got ${shapeStr(index.shape)}`));
    c.expectType(c.result(), { elem: src.elem, shape: index.shape }, 'result');
  },
  histogram: (c) => {
    c.counts(c.attrs.hasMask ? 2 : 1, 1);
    const x = c.operand(0);
    c.check(isInt(x.elem) && x.shape.length === 1, () => `histogram needs a 1-D integer tile, got ${ts(x)}`);
    c.check(isPow2(c.attrs.numBins), () => `numBins must be a power of two, got ${c.attrs.numBins}`);
    if (c.attrs.hasMask) c.expectType(c.operand(1), { elem: 'bool', shape: x.shape }, 'mask');
    c.expectType(c.result(), { elem: 'i32', shape: [c.attrs.numBins] }, 'result');
  },
  dot: (c) => {
    c.counts(3, 1);
    const a = c.operand(0), b = c.operand(1), acc = c.operand(2);
    const r = a.shape.length;
    // 2-D, or 3-D: a batch of B products, [B,M,K] x [B,K,N] + [B,M,N]
    c.check((r === 2 || r === 3) && b.shape.length === r && acc.shape.length === r, () => `dot needs 2-D (or 3-D batched) operands of one rank, got ${ts(a)}, ${ts(b)}, ${ts(acc)}`);
    const [m, k] = a.shape.slice(-2) as [number, number];
    const [k2, n] = b.shape.slice(-2) as [number, number];
    const batchOk = r === 2 || (b.shape[0] === a.shape[0] && acc.shape[0] === a.shape[0]);
    c.check(batchOk && k === k2 && acc.shape[r - 2] === m && acc.shape[r - 1] === n, () => `dot shapes must be [M,K] x [K,N] + [M,N], got ${shapeStr(a.shape)} x ${shapeStr(b.shape)} + ${shapeStr(acc.shape)}${r === 3 ? ' (batched: [B,M,K] x [B,K,N] + [B,M,N], one B)' : ''}`);
    if (isFp8(a.elem) || isFp8(b.elem)) {
      // fp8 dots: both inputs fp8 (same type or e4m3 x e5m2), f32 or f16 accumulator (the mma forms)
      c.check(isFp8(a.elem) && isFp8(b.elem), () => `dot of ${a.elem} and ${b.elem}: fp8 operands go with fp8 operands`);
      c.check(acc.elem === 'f32' || acc.elem === 'f16', () => `dot of fp8 operands accumulates in f32 or f16, got ${acc.elem}`);
    } else {
      c.check(a.elem === b.elem, () => `dot operands must have one element type, got ${a.elem} and ${b.elem}`);
      c.check(numeric(a.elem) && numeric(acc.elem), () => `dot needs numeric operands, got ${a.elem} and ${acc.elem}`);
    }
    c.expectType(c.result(), acc, 'result');
  },
  dot_scaled: (c) => {
    const { hasAScale, hasBScale } = c.attrs;
    c.counts(3 + (hasAScale ? 1 : 0) + (hasBScale ? 1 : 0), 1, 1);
    const types = c.op.operands.map((v) => v.type);
    const a = types[0]!, b = types[hasAScale ? 2 : 1]!, acc = types.at(-1)!;
    c.check(a.shape.length === 2 && b.shape.length === 2, () => `dot_scaled needs 2-D operands, got ${ts(a)} and ${ts(b)}`);
    c.check(acc.elem === 'f32' && acc.shape.length === 2 && acc.shape[0] === a.shape[0] && acc.shape[1] === b.shape[1],
      () => `dot_scaled accumulates in f32 [M,N] = [${a.shape[0]}, ${b.shape[1]}], got ${ts(acc)}`);
    c.expectType(c.result(), acc, 'result');
    c.regionArgs(0, types);
    c.yields(0, [acc]);
  },
  for: (c) => {
    const op = c.op;
    c.check(op.operands.length >= 3, 'expected lb, ub, step and the initial values');
    const n = op.operands.length - 3;
    c.check(op.results.length === n, () => `expected ${n} result(s), got ${op.results.length}`);
    c.check(op.regions.length === 1, () => `expected 1 region, got ${op.regions.length}`);
    const iv = c.operand(0);
    c.check((iv.elem === 'i32' || iv.elem === 'i64') && iv.shape.length === 0, () => `lb must be an i32 or i64 scalar, got ${ts(iv)}`);
    c.expectType(c.operand(1), iv, 'ub');
    c.expectType(c.operand(2), iv, 'step');
    const carried = op.operands.slice(3).map((v) => v.type);
    op.results.forEach((r, i) => c.expectType(r.type, carried[i]!, `result #${i}`));
    c.regionArgs(0, [iv, ...carried]);
    c.yields(0, carried);
  },
  if: (c) => {
    c.counts(1, c.op.results.length, 2);
    c.expectType(c.operand(0), { elem: 'bool', shape: [] }, 'condition');
    const types = c.op.results.map((r) => r.type);
    c.regionArgs(0, []);
    c.regionArgs(1, []);
    c.yields(0, types);
    c.yields(1, types);
  },
  while: (c) => {
    const n = c.op.operands.length;
    c.counts(n, n, 2);
    const carried = c.op.operands.map((v) => v.type);
    c.op.results.forEach((r, i) => c.expectType(r.type, carried[i]!, `result #${i}`));
    c.regionArgs(0, carried);
    c.regionArgs(1, carried);
    c.yields(0, [{ elem: 'bool', shape: [] }]);
    c.yields(1, carried);
  },
  yield: (c) => c.counts(c.op.operands.length, 0),
  exit_if: (c) => {
    c.counts(1, 0);
    c.expectType(c.operand(0), { elem: 'bool', shape: [] }, 'condition');
  },
  assume: (c) => {
    c.counts(1, 0);
    c.check(isBool(c.operand(0).elem), () => `assume needs a bool condition, got ${ts(c.operand(0))}`);
  },
  hint: (c) => {
    const t = sameTypes(c, 1);
    for (const key of ['multipleOf', 'maxContiguous'] as const) {
      const v = c.attrs[key];
      if (v === undefined) continue;
      c.check(v.length === Math.max(1, t.shape.length), () => `${key} has ${v.length} entries for a rank-${t.shape.length} tile (one per dim; one for a scalar)`);
      c.check(v.every((x) => Number.isInteger(x) && x >= 1), () => `${key} entries must be positive integers, got ${shapeStr(v)}`);
    }
  },
  print: (c) => {
    c.counts(c.op.operands.length, 0);
    for (const v of c.op.operands) c.check(!isMiniFloat(v.type.elem), () => `print of ${ts(v.type)} is not allowed (fp8 is a storage type: cast to f32 first)`);
  },
  assert: (c) => {
    c.counts(1, 0);
    c.check(isBool(c.operand(0).elem), () => `assert needs a bool condition, got ${ts(c.operand(0))}`);
  },
  return: (c) => c.counts(0, 0),
};

function checkType(t: TileType): string | undefined {
  const e = t.elem;
  if (!(isDType(e) || (typeof e === 'string' && isPtr(e) && isDType(pointee(e))))) return `unknown element type ${String(e)}`;
  if (!t.shape.every(isPow2)) return `shape ${shapeStr(t.shape)} has a dim that is not a power of two`;
  return undefined;
}

class Verifier {
  private readonly defined = new Set<number>();
  private readonly scopes: Set<number>[] = [];
  /** Kinds of the ops whose regions enclose the block being checked, outermost first. */
  private readonly enclosing: string[] = [];
  constructor(private readonly f: Func) {}

  private error(path: string, kind: string, loc: Loc | undefined, detail: string): never {
    throw new IRVerifyError(this.f.name, path, kind, loc, detail);
  }

  /** Defines `v` in the innermost scope; `where` describes the definer for messages. */
  private define(v: Value, fail: (d: string) => never): void {
    if (this.defined.has(v.id)) fail(`value id ${v.id} is defined twice`);
    const bad = checkType(v.type);
    if (bad) fail(bad);
    this.defined.add(v.id);
    this.scopes[this.scopes.length - 1]!.add(v.id);
  }

  private visible(v: Value): boolean {
    return this.scopes.some((s) => s.has(v.id));
  }

  run(): void {
    const f = this.f;
    const fail = (d: string): never => this.error('body', 'func', undefined, d);
    if (f.body.args.length !== f.params.length) fail(`${f.params.length} param(s) but ${f.body.args.length} body arg(s)`);
    f.params.forEach((p, i) => {
      const a = f.body.args[i]!;
      if (a.type.elem !== p.type || a.type.shape.length) fail(`body arg #${i} has type ${ts(a.type)}, param '${p.name}' is ${p.type}`);
    });
    this.block(f.body, 'return', '', fail);
  }

  private block(b: Block, terminator: 'yield' | 'return', path: string, fail: (d: string) => never): void {
    this.scopes.push(new Set());
    for (const a of b.args) this.define(a, fail);
    const last = b.ops.at(-1);
    if (!last || last.kind !== terminator) fail(`${path ? 'region' : 'function body'} must end with '${terminator}'`);
    const n = b.ops.length;
    for (let i = 0; i < n; i++) this.op(b.ops[i]!, path, i, i === n - 1, terminator);
    this.scopes.pop();
  }

  /** Checks op `idx` of the block at `parent` (its path is built only for an error message). */
  private op(op: Op, parent: string, idx: number, isLast: boolean, terminator: 'yield' | 'return'): void {
    const fail = (d: string): never => this.error(parent ? `${parent}/${idx}` : `${idx}`, op.kind, op.loc, d);
    const rule = RULES[op.kind] as Rule<OpKind> | undefined;
    if (!rule) fail(`unknown op kind '${String(op.kind)}'`);
    if (op.kind === 'exit_if' && this.enclosing.some((k) => k !== 'if')) fail(`'exit_if' is only allowed in the function body or in 'if' regions there, not inside a ${this.enclosing.find((k) => k !== 'if')}`);
    if ((op.kind === 'yield' || op.kind === 'return') && !(isLast && op.kind === terminator)) {
      fail(op.kind === terminator ? `'${op.kind}' must be the last op of its block` : `'${op.kind}' is not allowed here (expected '${terminator}')`);
    }
    op.operands.forEach((v, i) => {
      if (!this.visible(v)) fail(`operand #${i} (value id ${v.id}) is not defined before this op in this or an enclosing block`);
    });
    for (const v of op.operands) {
      const bad = checkType(v.type);
      if (bad) fail(bad);
    }
    try {
      rule!(new Ctx(op));
    } catch (e) {
      if (e instanceof Fail) fail(e.message);
      throw e;
    }
    if (op.regions.length) {
      const path = parent ? `${parent}/${idx}` : `${idx}`;
      this.enclosing.push(op.kind);
      op.regions.forEach((r, ri) => this.block(r, 'yield', `${path}/r${ri}`, (d) => this.error(`${path}/r${ri}`, op.kind, op.loc, d)));
      this.enclosing.pop();
    }
    for (const r of op.results) this.define(r, fail);
  }
}

/** Throws IRVerifyError ('E_IR_VERIFY') on the first broken rule; returns when `f` is valid. */
export function verify(f: Func): void {
  new Verifier(f).run();
}
