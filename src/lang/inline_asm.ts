// inlineAsmElementwise (Triton's inline_asm_elementwise): user PTX applied elementwise to
// broadcast arguments. The constraint string, dtypes, pack and `$n` references are checked here,
// at trace time, so a bad one is an error before anything compiles or runs.
import { checkAsm, parseAsmConstraints } from '../ir/inline_asm.js';
import type { DType } from '../ir/types.js';
import { checkOptionNames } from './options.js';
import { broadcastShapes, broadcastToIn, checkDType, describe, toTileIn, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api } from './trace.js';

export interface InlineAsmOptions {
  /** The result dtype, or one per output (then the call returns a list). */
  readonly dtype: DType | readonly DType[];
  /** True when the asm has no side effect (lets the compiler drop or merge it); default false. */
  readonly isPure?: boolean;
  /** Elements per asm invocation, packed into each operand register (1, 2 or 4); default 1. */
  readonly pack?: number;
}

/**
 * Runs `asm` (PTX; `$0..` are the outputs, then the arguments) once per `pack` elements of the
 * arguments broadcast to one shape. Constraints: "=r,r,..." with classes r (32-bit), h (16-bit),
 * l (64-bit), f (f32), d (f64); each register holds `pack` elements. Compiled devices only.
 */
export function inlineAsmElementwise(asm: string, constraints: string, args: readonly TileLike[], opts: InlineAsmOptions & { dtype: readonly DType[] }): Tile[];
export function inlineAsmElementwise(asm: string, constraints: string, args: readonly TileLike[], opts: InlineAsmOptions & { dtype: DType }): Tile;
export function inlineAsmElementwise(asm: string, constraints: string, args: readonly TileLike[], opts: InlineAsmOptions): Tile | Tile[] {
  return api('inlineAsmElementwise', (t) => {
    const o = checkOptionNames(t, 'inlineAsmElementwise', opts, ['dtype', 'isPure', 'pack']);
    if (typeof asm !== 'string' || asm.trim() === '') return t.fail('E_ARG', `inlineAsmElementwise: asm must be a non-empty string of PTX, got ${describe(asm)}`);
    if (typeof constraints !== 'string') return t.fail('E_ARG', `inlineAsmElementwise: constraints must be a string like "=r,r", got ${describe(constraints)}`);
    if (!Array.isArray(args)) return t.fail('E_ARG', `inlineAsmElementwise: args must be an array of tiles, got ${describe(args)}`);
    if (o.dtype === undefined) return t.fail('E_ARG', 'inlineAsmElementwise: the dtype option is required (one dtype, or a list for several outputs)');
    const many = Array.isArray(o.dtype);
    const outs = (many ? (o.dtype as unknown[]) : [o.dtype]).map((d, i) => checkDType(t, d, `inlineAsmElementwise dtype #${i}`));
    const pack = o.pack ?? 1;
    if (typeof pack !== 'number') return t.fail('E_ARG', `inlineAsmElementwise: pack must be 1, 2 or 4, got ${describe(pack)}`);
    const isPure = o.isPure ?? false;
    if (typeof isPure !== 'boolean') return t.fail('E_ARG', `inlineAsmElementwise: isPure must be a boolean, got ${describe(isPure)}`);
    const tiles = args.map((a, i) => toTileIn(t, a, `inlineAsmElementwise argument #${i}`));
    const cons = parseAsmConstraints(constraints);
    if (typeof cons === 'string') return t.fail('E_ARG', `inlineAsmElementwise: ${cons}`);
    const bad = checkAsm(asm, cons, outs, tiles.map((x) => x.dtype as DType), pack);
    if (bad) return t.fail('E_ARG', `inlineAsmElementwise: ${bad}`);
    const shape = tiles.reduce<number[]>((s, x) => broadcastShapes(t, s, x.shape, 'inlineAsmElementwise'), []);
    const ins = tiles.map((x) => broadcastToIn(t, x, shape, 'inlineAsmElementwise'));
    const op = t.emitOp('inline_asm', ins, outs.map((elem) => ({ elem, shape })), { asm, constraints, pack, isPure });
    const res = op.results.map((r) => t.wrap(r));
    return many ? res : res[0]!;
  });
}
