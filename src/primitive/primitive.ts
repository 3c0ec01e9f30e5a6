// definePrimitive: one operation with its rules beside it (abstract evaluation, eager impl,
// StableHLO lowering, vjp, batching, sharding rule), as jax registers a primitive once.
// `bind` records the primitive on traced values (see program.ts); `apply` runs it eagerly.
import type { ShapedArray } from './aval.js';
import { defaultEagerContext, type EagerArray, type EagerContext } from './eager.js';
import { PrimitiveError } from './errors.js';
import type { LoweringContext } from './lowering.js';
import { currentBuilder, type Var } from './program.js';
import type { ShardingRule } from './sharding.js';

/** A value inside a traced program: the rules that build programs (vjp, batch) bind on these. */
export type Value = Var;

export interface VjpRule<P> {
  /** Forward: binds the primal computation, returns its outputs and what bwd needs. */
  fwd(ins: readonly Value[], params: P): { outs: Value[]; residuals: Value[] };
  /** Backward: input cotangents (null: the input gets none) from residuals and output cotangents. */
  bwd(residuals: readonly Value[], cts: readonly Value[], params: P): (Value | null)[];
}

/** Batching: `dims[i]` is input i's batch dim (null: not batched); returns outputs and theirs. */
export type BatchRule<P> = (ins: readonly Value[], dims: readonly (number | null)[], params: P) => { outs: Value[]; dims: (number | null)[] };

export interface PrimitiveRules<P> {
  readonly name: string;
  /** Output shapes and dtypes; throws a PrimitiveError naming what contradicts what. */
  abstractEval(ins: readonly ShapedArray[], params: P): ShapedArray[];
  /** Eager execution on arrays (the outputs are new arrays). */
  readonly impl?: (ins: readonly EagerArray[], params: P, ctx: EagerContext) => Promise<EagerArray[]>;
  /** Emits StableHLO ops for one application; returns the SSA names of the results. */
  lowering(ctx: LoweringContext, ins: readonly string[], params: P): string[];
  readonly vjp?: VjpRule<P>;
  readonly batch?: BatchRule<P>;
  /** How each dimension maps to factors, for a partitioner (see sharding.ts). */
  readonly shardingRule?: (ins: readonly ShapedArray[], outs: readonly ShapedArray[], params: P) => ShardingRule;
}

export interface Primitive<P> extends PrimitiveRules<P> {
  /** Records the primitive on traced values; returns its traced outputs. */
  bind(ins: readonly Value[], params: P): Value[];
  /** Runs the primitive eagerly (abstract evaluation first, so bad input fails before anything runs). */
  apply(ins: readonly EagerArray[], params: P, ctx?: EagerContext): Promise<EagerArray[]>;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

export function definePrimitive<P>(rules: PrimitiveRules<P>): Primitive<P> {
  if (typeof rules !== 'object' || rules === null || typeof rules.name !== 'string' || !NAME.test(rules.name)) {
    throw new PrimitiveError('E_ARG', String((rules as { name?: unknown })?.name), 'definePrimitive needs a name matching [A-Za-z_][A-Za-z0-9_.]*');
  }
  for (const k of ['abstractEval', 'lowering'] as const) {
    if (typeof rules[k] !== 'function') throw new PrimitiveError('E_ARG', rules.name, `definePrimitive needs a '${k}' function`);
  }
  const prim: Primitive<P> = {
    ...rules,
    bind(ins, params) {
      const b = currentBuilder(rules.name);
      return b.add(prim, ins, params);
    },
    async apply(ins, params, ctx) {
      if (!rules.impl) throw new PrimitiveError('E_RULE', rules.name, 'has no eager impl');
      rules.abstractEval(ins.map((a) => a.aval), params);
      return rules.impl(ins, params, ctx ?? defaultEagerContext());
    },
  };
  return Object.freeze(prim);
}
