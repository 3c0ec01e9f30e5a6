// The trace context: one `Trace` per kernel being traced. It owns the IRBuilder, knows the
// kernel's name (for error messages), tracks which region scopes are open (so a tile created in a
// loop body cannot be used after the loop), and records which public op the user is inside.
//
// How a front end uses it (src/lang/kernel.ts and the Pallas front end do the same):
//   const trace = new Trace('my_kernel');
//   const func = runTrace(trace, () => trace.builder.func(name, params, constexprs, (args) => {
//     const tiles = args.map((v) => trace.wrap(v));   // IR values -> Tiles
//     userFn(...tiles);
//   }));
// Public ops are written as `api('opName', (t) => ...)`: it finds the current trace (or throws
// E_TRACE outside a kernel), captures the user's source line once per outermost public op and
// sets `builder.loc`, so every IR op carries the user's file:line:col and errors name the op.
// Ops emit IR with `t.emit(kind, operands, resultTypes, attrs)` (operands given as Tiles are
// checked to belong to this trace and to an open scope). Regions: `t.region(argTypes, fn)`.
// A callback written by the user (loop body, reduce combiner) runs through `t.user(fn)`, so its
// ops get their own source lines.
import { IRBuilder } from '../ir/builder.js';
import type { Block, Loc, Op, OpAttrs, OpKind, Value } from '../ir/ops.js';
import type { TileType } from '../ir/types.js';
import { KernelError } from './errors.js';
import { knownLoc, lazyLoc, LOC_FRAMES, userLoc } from './loc.js';
import { Tile } from './tile.js';

/** A region being built. Tiles remember their scope; a closed scope's tiles are out of reach. */
export interface Scope {
  open: boolean;
  readonly parent: Scope | undefined;
  /** 'if' for the branches of an ifThenElse (exitIf may run there: docs/language.md). */
  readonly kind?: 'if';
}

export class Trace {
  readonly builder = new IRBuilder();
  /** False once the trace has finished: its tiles can no longer be used. */
  active = true;
  scope: Scope = { open: true, parent: undefined };
  /** Outermost public op the user is inside, and its location. */
  opName: string | undefined;
  loc: Loc | undefined;
  depth = 0;

  constructor(readonly kernel: string) {}

  /** Raises a KernelError naming this kernel, the current op and the user's source line. */
  fail(code: string, detail: string, op?: string): never {
    const info: { kernel: string; op?: string; loc?: Loc } = { kernel: this.kernel };
    const name = op ?? this.opName;
    if (name !== undefined) info.op = name;
    const loc = knownLoc(this.loc) ?? userLoc();
    if (loc) info.loc = loc;
    throw new KernelError(code, detail, info);
  }

  /** Wraps an IR value created in the current scope as a Tile. */
  wrap(value: Value): Tile {
    return new Tile(value, this, this.scope);
  }

  /** Checks that `tile` may be used here: same trace, still-open scope. Returns its IR value. */
  use(tile: Tile): Value {
    if (tile.trace !== this) {
      this.fail('E_TRACE', `a tile from another trace (kernel '${tile.trace.kernel}') was used here; tiles cannot be shared between kernels or traces`);
    }
    if (!tile.scope.open) {
      this.fail('E_TRACE', `a tile created inside a loop or if body was used outside of it; return it from the body instead`);
    }
    return tile.value;
  }

  /** Emits one op; returns the op (results via `.results`). */
  emitOp<K extends OpKind>(kind: K, operands: (Tile | Value)[], resultTypes: TileType[], attrs: OpAttrs[K], regions: Block[] = []): Op<K> {
    const vals = operands.map((o) => (o instanceof Tile ? this.use(o) : o));
    return this.builder.op(kind, vals, resultTypes, attrs, regions);
  }

  /** Emits a one-result op and returns the result as a Tile. */
  emit<K extends OpKind>(kind: K, operands: (Tile | Value)[], resultType: TileType, attrs: OpAttrs[K], regions: Block[] = []): Tile {
    return this.wrap(this.emitOp(kind, operands, [resultType], attrs, regions).results[0]!);
  }

  /** Builds a region whose block args are given to `fn` as Tiles; the scope closes afterwards. */
  region(argTypes: TileType[], fn: (args: Tile[]) => void, kind?: 'if'): Block {
    const scope: Scope = { open: true, parent: this.scope, ...(kind ? { kind } : {}) };
    const saved = this.scope;
    this.scope = scope;
    try {
      return this.builder.region(argTypes, (args) => fn(args.map((a) => this.wrap(a))));
    } finally {
      scope.open = false;
      this.scope = saved;
    }
  }

  /** Runs a user callback (loop body, combiner) so that its ops get their own source lines. */
  user<T>(fn: () => T): T {
    const saved = { depth: this.depth, opName: this.opName, loc: this.loc, bloc: this.builder.loc };
    this.depth = 0;
    this.opName = undefined;
    this.loc = undefined;
    try {
      return fn();
    } finally {
      this.depth = saved.depth;
      this.opName = saved.opName;
      this.loc = saved.loc;
      this.builder.loc = saved.bloc;
    }
  }
}

const traces: Trace[] = [];

/** The trace being built, or undefined outside a kernel. */
export const activeTrace = (): Trace | undefined => traces[traces.length - 1];

/** Runs `fn` with `trace` as the current trace; the trace is closed afterwards. */
export function runTrace<T>(trace: Trace, fn: () => T): T {
  traces.push(trace);
  try {
    return fn();
  } finally {
    traces.pop();
    trace.active = false;
    trace.scope.open = false;
  }
}

/** Enters the public op `name`: finds the trace, captures the user's source line once. */
export function api<T>(name: string, fn: (t: Trace) => T): T {
  const t = activeTrace();
  if (!t) {
    const loc = userLoc();
    throw new KernelError('E_TRACE', `'${name}' can only be called inside a kernel being traced`, { op: name, ...(loc ? { loc } : {}) });
  }
  if (t.depth > 0) {
    t.depth++;
    try {
      return fn(t);
    } finally {
      t.depth--;
    }
  }
  // Capture the stack here (not in a helper) so the user's frame is as few frames up as possible.
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = LOC_FRAMES;
  const loc = lazyLoc(new Error());
  Error.stackTraceLimit = saved;
  t.depth = 1;
  t.opName = name;
  t.loc = loc;
  t.builder.loc = loc;
  try {
    return fn(t);
  } finally {
    t.depth = 0;
    t.opName = undefined;
    t.loc = undefined;
    t.builder.loc = undefined; // ops emitted outside any public op (e.g. `return`) get no loc
  }
}
