// A traced program of primitives (jax's jaxpr): input variables, equations in order, outputs.
// `trace(fn, avals)` runs fn once on symbolic Vars; every `prim.bind` inside appends an equation
// after abstract evaluation, so shape and dtype errors surface while tracing.
import { checkAval, type ShapedArray } from './aval.js';
import { PrimitiveError } from './errors.js';
import type { Primitive } from './primitive.js';

export class Var {
  constructor(readonly id: number, readonly aval: ShapedArray, readonly owner: ProgramBuilder) {}
  toString(): string {
    return `v${this.id}:${this.aval.dtype}[${this.aval.shape.join(',')}]`;
  }
}

export interface Eqn {
  readonly prim: Primitive<unknown>;
  readonly params: unknown;
  readonly ins: readonly Var[];
  readonly outs: readonly Var[];
}

export interface Program {
  readonly inputs: readonly Var[];
  readonly eqns: readonly Eqn[];
  readonly outputs: readonly Var[];
}

export class ProgramBuilder {
  #next = 0;
  readonly eqns: Eqn[] = [];

  fresh(aval: ShapedArray): Var {
    return new Var(this.#next++, aval, this);
  }

  add<P>(prim: Primitive<P>, ins: readonly Var[], params: P): Var[] {
    ins.forEach((v, i) => {
      if (!(v instanceof Var)) throw new PrimitiveError('E_ARG', prim.name, `input ${i} is not a traced value (got ${String(v)}); bind primitives inside trace()`);
      if (v.owner !== this) throw new PrimitiveError('E_TRACE', prim.name, `input ${i} belongs to another trace`);
    });
    const outs = prim.abstractEval(ins.map((v) => v.aval), params).map((a) => this.fresh(a));
    this.eqns.push({ prim: prim as Primitive<unknown>, params, ins: [...ins], outs });
    return outs;
  }
}

const stack: ProgramBuilder[] = [];

/** The builder primitives bind into; an error outside trace(). */
export function currentBuilder(prim: string): ProgramBuilder {
  const b = stack[stack.length - 1];
  if (!b) throw new PrimitiveError('E_TRACE', prim, 'bind() was called outside trace(); use apply() for eager execution');
  return b;
}

/** Runs `body` with `b` as the current builder. */
export function within<T>(b: ProgramBuilder, body: () => T): T {
  stack.push(b);
  try {
    return body();
  } finally {
    stack.pop();
  }
}

/** Traces `fn` on inputs of the given shapes and dtypes. fn returns one Var or a list. */
export function trace(fn: (...ins: Var[]) => Var | readonly Var[], avals: readonly ShapedArray[]): Program {
  const b = new ProgramBuilder();
  const inputs = avals.map((a, i) => b.fresh(checkAval(a, 'trace', `input ${i}`)));
  const out = within(b, () => fn(...inputs));
  const outputs = Array.isArray(out) ? [...(out as readonly Var[])] : [out as Var];
  outputs.forEach((v, i) => {
    if (!(v instanceof Var) || v.owner !== b) throw new PrimitiveError('E_TRACE', 'trace', `output ${i} is not a value of this trace`);
  });
  return { inputs, eqns: b.eqns, outputs };
}

/** Re-plays `p`'s equations into the current builder on `ins`; returns its outputs there. */
export function inline(p: Program, ins: readonly Var[]): Var[] {
  const env = new Map<Var, Var>();
  p.inputs.forEach((v, i) => env.set(v, ins[i]!));
  for (const e of p.eqns) {
    const outs = e.prim.bind(e.ins.map((v) => env.get(v)!), e.params);
    e.outs.forEach((v, i) => env.set(v, outs[i]!));
  }
  return p.outputs.map((v) => env.get(v)!);
}
