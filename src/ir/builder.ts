// Builds tile IR. Front ends call `op(...)`; regions are built with `region(args, fn)`.
// The builder does no type inference: callers pass result types (the semantic layer in src/lang
// decides them) and the verifier checks them.
import type { Block, Func, Loc, Op, OpAttrs, OpKind, Param, Value } from './ops.js';
import type { TileType } from './types.js';

export class IRBuilder {
  private nextId = 0;
  private readonly stack: Block[] = [];
  /** Location attached to the ops created next (set by the tracer from the user's stack). */
  loc: Loc | undefined;

  newValue(type: TileType): Value {
    return { id: this.nextId++, type };
  }

  get block(): Block {
    const b = this.stack[this.stack.length - 1];
    if (!b) throw new Error('IRBuilder: no open block');
    return b;
  }

  /** Appends an op to the current block and returns it. */
  op<K extends OpKind>(kind: K, operands: Value[], resultTypes: TileType[], attrs: OpAttrs[K], regions: Block[] = []): Op<K> {
    const results = resultTypes.map((t) => this.newValue(t));
    const op: Op<K> = { kind, operands, results, attrs, regions, ...(this.loc ? { loc: this.loc } : {}) };
    this.block.ops.push(op);
    return op;
  }

  /** Creates a block with args of the given types, runs `fn` inside it and returns the block. */
  region(argTypes: TileType[], fn: (args: Value[]) => void): Block {
    const block: Block = { args: argTypes.map((t) => this.newValue(t)), ops: [] };
    this.stack.push(block);
    try {
      fn(block.args);
    } finally {
      this.stack.pop();
    }
    return block;
  }

  /** Builds a whole function; `fn` receives the parameter values and must not add a terminator. */
  func(name: string, params: Param[], constexprs: Func['constexprs'], fn: (args: Value[]) => void): Func {
    const body = this.region(params.map((p) => ({ elem: p.type, shape: [] })), (args) => {
      fn(args);
      this.op('return', [], [], {});
    });
    return { name, params, body, constexprs };
  }
}
