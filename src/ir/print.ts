// Stable MLIR-like text for a tile IR function. Values are renumbered %0, %1, ... in order of
// definition, so the text does not depend on builder ids. Syntax (docs/ir.md has the full table):
//   func @name(x %0: ptr<f32>, n %1: i32) constexprs(BLOCK = 128) {
//     %4 = binary.add %2, %3 : f32[128]
//     %7, %8 = for %4 to %5 step %6 init(%2, %3) : f32[128], i32 {
//     ^(%9: i32, %10: f32[128], %11: i32):
//       yield %10, %11
//     }
//     return
//   }
// Attributes are printed sorted by name; `false`, `''` and absent ones are left out.
import type { Block, ConstValue, Func, Loc, Op, Value } from './ops.js';
import { typeToString } from './types.js';

export interface PrintOptions {
  /** Append ` loc(file:line:col)` to ops that carry a source location. */
  readonly locs?: boolean;
}

/** Text of a constant: integers in decimal, floats round-trip exact, nan/inf/-inf/-0 spelled out. */
export function formatConst(v: ConstValue): string {
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

/** Attributes whose strings are enum members: printed bare. Free text (messages) is quoted. */
const ENUM_ATTRS = new Set(['kind', 'to', 'cache', 'eviction', 'sem', 'scope', 'inputPrecision', 'op', 'fn', 'pred']);

function formatAttr(v: unknown, bare = false): string {
  if (Array.isArray(v)) return `[${v.map((x) => formatAttr(x)).join(', ')}]`;
  if (typeof v === 'string') return bare ? v : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return formatConst(v);
  return JSON.stringify(v);
}

/** The op's name as printed: ops with a function attribute carry it as a suffix (`binary.add`). */
export function opName(op: Op): string {
  const a = op.attrs as unknown as Record<string, unknown>;
  switch (op.kind) {
    case 'unary': case 'binary': return `${op.kind}.${String(a.fn)}`;
    case 'cmp': return `cmp.${String(a.pred)}`;
    case 'atomic_rmw': return `atomic_rmw.${String(a.op)}`;
    default: return op.kind;
  }
}

const NAME_ATTRS: Partial<Record<string, string>> = { unary: 'fn', binary: 'fn', cmp: 'pred', atomic_rmw: 'op', const: 'value' };

/** `{a = 1, b}` for the attributes not already in the op name; '' when there are none. */
export function formatAttrs(op: Op): string {
  const a = op.attrs as unknown as Record<string, unknown>;
  const skip = NAME_ATTRS[op.kind];
  const parts: string[] = [];
  for (const key of Object.keys(a).sort()) {
    const v = a[key];
    if (key === skip || v === undefined || v === false || v === '') continue;
    parts.push(v === true ? key : `${key} = ${formatAttr(v, ENUM_ATTRS.has(key))}`);
  }
  return parts.length ? `{${parts.join(', ')}}` : '';
}

const formatLoc = (loc: Loc): string => `loc(${loc.file}:${loc.line}:${loc.col})`;

class Printer {
  private readonly names = new Map<number, string>();
  private readonly lines: string[] = [];
  constructor(private readonly opts: PrintOptions) {}

  define(v: Value): string {
    const name = `%${this.names.size}`;
    this.names.set(v.id, name);
    return name;
  }

  /** A value used before (or without) its definition prints as `%?<id>` so bad IR stays printable. */
  use(v: Value): string {
    return this.names.get(v.id) ?? `%?${v.id}`;
  }

  func(f: Func): string {
    const params = f.params.map((p, i) => {
      const arg = f.body.args[i];
      return `${p.name} ${arg ? this.define(arg) : '%?'}: ${p.type}`;
    });
    const keys = Object.keys(f.constexprs).sort();
    const cx = keys.length ? ` constexprs(${keys.map((k) => `${k} = ${formatAttr(f.constexprs[k])}`).join(', ')})` : '';
    this.lines.push(`func @${f.name}(${params.join(', ')})${cx} {`);
    // Body args beyond the params (malformed IR) still get names.
    f.body.args.slice(f.params.length).forEach((a) => this.define(a));
    this.block(f.body, 1);
    this.lines.push('}');
    return this.lines.join('\n') + '\n';
  }

  block(b: Block, depth: number): void {
    for (const op of b.ops) this.op(op, depth);
  }

  op(op: Op, depth: number): void {
    const pad = '  '.repeat(depth);
    const names = op.operands.map((v) => this.use(v));
    // `for` spells its positional operands out: lb to ub step s init(carried...).
    const operands = op.kind === 'for' && names.length >= 3
      ? `${names[0]} to ${names[1]} step ${names[2]}${names.length > 3 ? ` init(${names.slice(3).join(', ')})` : ''}`
      : names.join(', ');
    const results = op.results.map((v) => this.define(v)).join(', ');
    let text = results ? `${results} = ${opName(op)}` : opName(op);
    if (op.kind === 'const') text += ` ${formatConst((op as Op<'const'>).attrs.value)}`;
    if (operands) text += ` ${operands}`;
    const attrs = formatAttrs(op);
    if (attrs) text += ` ${attrs}`;
    if (op.results.length) text += ` : ${op.results.map((v) => typeToString(v.type)).join(', ')}`;
    if (this.opts.locs && op.loc) text += ` ${formatLoc(op.loc)}`;
    if (!op.regions.length) {
      this.lines.push(pad + text);
      return;
    }
    this.lines.push(`${pad}${text} {`);
    op.regions.forEach((r, i) => {
      if (i > 0) this.lines.push(`${pad}} ${op.kind === 'if' && i === 1 ? 'else ' : op.kind === 'while' && i === 1 ? 'do ' : ''}{`);
      if (r.args.length) this.lines.push(`${pad}^(${r.args.map((a) => `${this.define(a)}: ${typeToString(a.type)}`).join(', ')}):`);
      this.block(r, depth + 1);
    });
    this.lines.push(`${pad}}`);
  }
}

/** Prints `f` as text (ends with a newline). */
export function printFunc(f: Func, opts: PrintOptions = {}): string {
  return new Printer(opts).func(f);
}
