// Shared types of the closure compiler: a func is compiled once into closures (`Step`s) over an
// environment array indexed by IR value id; running a program is calling the steps in order.
import type { Block, Op, OpKind } from '../ir/ops.js';
import type { ElemArray } from '../ir/dtype_arrays.js';
import type { HostMemory } from './memory.js';

export interface RunCtx {
  /** env[value.id] holds the value's lanes; values are never mutated once written. */
  readonly env: ElemArray[];
  /** Program id and grid size, (x, y, z). */
  pid: [number, number, number];
  readonly grid: [number, number, number];
  /** CTAs per thread block cluster, (x, y, z) ([1, 1, 1] without clusters). */
  readonly cluster: [number, number, number];
  readonly mem: HostMemory;
  readonly print: (line: string) => void;
}

export type Step = (cx: RunCtx) => void;

export interface CompiledBlock {
  readonly block: Block;
  /** Only lane-wise ops inside: it can run on many lanes at once (see reduce/scan). */
  readonly lanewise: boolean;
  /** Binds args, runs the ops and returns the terminator's operands. */
  run(cx: RunCtx, args: readonly ElemArray[]): ElemArray[];
}

export interface Compiler {
  readonly kernel: string;
  compileBlock(block: Block): CompiledBlock;
}

export type Rule<K extends OpKind> = (op: Op<K>, c: Compiler) => Step;
