// definePrimitive: one operation with its rules beside it (abstract evaluation, eager impl,
// StableHLO lowering, vjp, batching, sharding rule), as jax registers a primitive once.
// `bind` records the primitive on traced values (see program.ts); `apply` runs it eagerly.
import type { DeviceArray } from '../runtime/device_array.js';
import { sameAval, type ShapedArray } from './aval.js';
import { avalOf, defaultEagerContext, describeValue, eagerContextFor, isDeviceArray, type EagerArray, type EagerContext, type EagerValue } from './eager.js';
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

/** What an eagerCustomCall rule returns. */
export interface EagerCustomCall {
  readonly symbol: string;
  readonly opaque: Uint8Array;
  /** result index -> operand index. */
  readonly aliases?: ReadonlyMap<number, number>;
}

export interface PrimitiveRules<P> {
  readonly name: string;
  /** Output shapes and dtypes; throws a PrimitiveError naming what contradicts what. */
  abstractEval(ins: readonly ShapedArray[], params: P): ShapedArray[];
  /** Eager execution on host arrays (the outputs are new arrays). */
  readonly impl?: (ins: readonly EagerArray[], params: P, ctx: EagerContext) => Promise<EagerArray[]>;
  /**
   * Eager execution as a legacy-GPU custom call: the target and its opaque bytes for these inputs
   * (already checked by abstractEval), and which results alias which operands (result -> operand:
   * that result starts as a copy of the operand, and the target gets that one buffer for both).
   * `apply` runs it through the EagerContext on device arrays, and on host arrays when there is
   * no impl, with outputs of abstractEval's avals.
   */
  readonly eagerCustomCall?: (ins: readonly ShapedArray[], params: P) => EagerCustomCall;
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
  /**
   * Runs the primitive eagerly (abstract evaluation first, so bad input fails before anything
   * runs). Inputs are host arrays (EagerArray: the impl runs, else the eagerCustomCall) or device
   * arrays (DeviceArray, for primitives with an eagerCustomCall: outputs are then device arrays of
   * the same device). Without `ctx`, device arrays run on their device's context
   * (deviceEagerContext), host arrays on the default one.
   */
  apply(ins: readonly DeviceArray[], params: P, ctx?: EagerContext): Promise<DeviceArray[]>;
  apply(ins: readonly EagerArray[], params: P, ctx?: EagerContext): Promise<EagerArray[]>;
  apply(ins: readonly EagerValue[], params: P, ctx?: EagerContext): Promise<EagerValue[]>;
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
    apply: (async (ins: readonly EagerValue[], params: P, ctx?: EagerContext): Promise<EagerValue[]> => {
      if (!Array.isArray(ins)) throw new PrimitiveError('E_ARG', rules.name, 'apply takes an array of inputs');
      if (!rules.impl && !rules.eagerCustomCall) throw new PrimitiveError('E_RULE', rules.name, 'has no eager impl');
      const avals = ins.map((a, i) => avalOf(a, rules.name, `input ${i}`));
      const outs = rules.abstractEval(avals, params);
      const dev = ins.find(isDeviceArray);
      if (dev) {
        const other = ins.find((a) => isDeviceArray(a) && a.device !== dev.device);
        if (other) throw new PrimitiveError('E_DEVICE', rules.name, `inputs are on different devices: ${String(dev)} and ${describeValue(other!)}`);
      }
      const context = ctx ?? (dev ? eagerContextFor(dev.device) : defaultEagerContext());
      if (rules.eagerCustomCall && (dev || !rules.impl)) {
        const { symbol, opaque, aliases } = rules.eagerCustomCall(avals, params);
        const res = await context.customCall(symbol, ins, outs, opaque, aliases);
        // The context's side of the contract: abstractEval's avals, on the device when the inputs are.
        const bad = !Array.isArray(res) || res.length !== outs.length || res.some((r, i) => !sameAval(avalOf(r, rules.name, `output ${i}`), outs[i]!) || isDeviceArray(r) !== !!dev);
        if (bad) throw new PrimitiveError('E_RULE', rules.name, `the eager context returned ${res.length} outputs (${res.map(describeValue).join(', ')}) where ${outs.length} ${dev ? 'device' : 'host'} arrays were due`);
        return res;
      }
      if (dev) throw new PrimitiveError('E_UNAVAILABLE', rules.name, `runs eagerly on host arrays only (it has no eagerCustomCall rule), got ${String(dev)}; read it with toArray() first`);
      return rules.impl!(ins as EagerArray[], params, context);
    }) as Primitive<P>['apply'],
  };
  return Object.freeze(prim);
}
