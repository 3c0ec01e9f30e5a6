// Program transformations built from the primitives' rules: vjp (reverse mode, each primitive's
// vjp rule pairing a forward with its backward through residuals) and vmap (each primitive's
// batching rule). Both return new Programs, which lower like any other.
import { shaped, type ShapedArray } from './aval.js';
import { moveToFront, transposeP, zerosP } from './basic.js';
import type { DeviceArray } from '../runtime/device_array.js';
import { avalOf, type EagerArray, type EagerContext, type EagerValue } from './eager.js';
import { PrimitiveError } from './errors.js';
import type { Value } from './primitive.js';
import { ProgramBuilder, trace, within, type Eqn, type Program, type Var } from './program.js';

/**
 * vjp(fn, avals): a Program taking (primals..., output cotangents...) and returning
 * (outputs..., input cotangents...). An input no output depends on gets zeros.
 */
export function vjp(fn: (...ins: Var[]) => Var | readonly Var[], avals: readonly ShapedArray[]): Program {
  const p = trace(fn, avals);
  const b = new ProgramBuilder();
  const primals = p.inputs.map((v) => b.fresh(v.aval));
  const cts = p.outputs.map((v) => b.fresh(v.aval));
  const env = new Map<Var, Value>();
  p.inputs.forEach((v, i) => env.set(v, primals[i]!));
  const saved: { e: Eqn; residuals: Value[] }[] = [];
  const outs = within(b, () => {
    for (const e of p.eqns) {
      const rule = e.prim.vjp;
      if (!rule) throw new PrimitiveError('E_RULE', e.prim.name, 'has no vjp rule');
      const r = rule.fwd(e.ins.map((v) => env.get(v)!), e.params);
      e.outs.forEach((v, i) => env.set(v, r.outs[i]!));
      saved.push({ e, residuals: r.residuals });
    }
    const ct = new Map<Var, Value>();
    const addCt = (v: Var, c: Value | null, who: string): void => {
      if (!c) return;
      if (ct.has(v)) throw new PrimitiveError('E_RULE', who, 'a value used twice needs its cotangents summed; vjp here supports each value used once');
      ct.set(v, c);
    };
    p.outputs.forEach((v, i) => addCt(v, cts[i]!, 'vjp'));
    for (const { e, residuals } of saved.reverse()) {
      const inCts = e.prim.vjp!.bwd(residuals, e.outs.map((v) => ct.get(v) ?? null) as Value[], e.params);
      e.ins.forEach((v, i) => addCt(v, inCts[i] ?? null, e.prim.name));
    }
    return [
      ...p.outputs.map((v) => env.get(v)!),
      ...p.inputs.map((v) => ct.get(v) ?? zerosP.bind([], { like: v.aval })[0]!),
    ];
  });
  return { inputs: [...primals, ...cts], eqns: b.eqns, outputs: outs };
}

/**
 * vmap(fn, avals, inAxes): fn traced on unbatched avals, applied to inputs with a batch dim at
 * inAxes[i] (null: not batched). Every output gets the batch dim at 0.
 */
export function vmap(fn: (...ins: Var[]) => Var | readonly Var[], avals: readonly ShapedArray[], inAxes: readonly (number | null)[], size: number): Program {
  if (!Number.isInteger(size) || size < 1) throw new PrimitiveError('E_ARG', 'vmap', `batch size must be an integer >= 1, got ${size}`);
  const p = trace(fn, avals);
  const b = new ProgramBuilder();
  const inputs = p.inputs.map((v, i) => {
    const ax = inAxes[i] ?? null;
    if (ax === null) return b.fresh(v.aval);
    if (!Number.isInteger(ax) || ax < 0 || ax > v.aval.shape.length) throw new PrimitiveError('E_ARG', 'vmap', `inAxes[${i}] = ${ax} is out of range for ${v.aval.shape.length} dims`);
    const sh = [...v.aval.shape];
    sh.splice(ax, 0, size);
    return b.fresh(shaped(sh, v.aval.dtype));
  });
  const env = new Map<Var, { v: Value; d: number | null }>();
  p.inputs.forEach((v, i) => env.set(v, { v: inputs[i]!, d: inAxes[i] ?? null }));
  const outputs = within(b, () => {
    for (const e of p.eqns) {
      const ins = e.ins.map((v) => env.get(v)!);
      if (ins.every((x) => x.d === null)) {
        const outs = e.prim.bind(ins.map((x) => x.v), e.params);
        e.outs.forEach((v, i) => env.set(v, { v: outs[i]!, d: null }));
        continue;
      }
      if (!e.prim.batch) throw new PrimitiveError('E_RULE', e.prim.name, 'has no batching rule');
      const r = e.prim.batch(ins.map((x) => x.v), ins.map((x) => x.d), e.params);
      e.outs.forEach((v, i) => env.set(v, { v: r.outs[i]!, d: r.dims[i] ?? null }));
    }
    return p.outputs.map((v, i) => {
      const { v: o, d } = env.get(v)!;
      if (d === null) throw new PrimitiveError('E_RULE', 'vmap', `output ${i} does not depend on a batched input`);
      return d === 0 ? o : transposeP.bind([o], { perm: moveToFront(o.aval.shape.length, d) })[0]!;
    });
  });
  return { inputs, eqns: b.eqns, outputs };
}

/**
 * Runs a program eagerly: each equation's primitive through apply, in order. Host or device
 * arrays (device ones stay on the device from equation to equation).
 */
export async function evalProgram(p: Program, ins: readonly DeviceArray[], ctx?: EagerContext): Promise<DeviceArray[]>;
export async function evalProgram(p: Program, ins: readonly EagerArray[], ctx?: EagerContext): Promise<EagerArray[]>;
export async function evalProgram(p: Program, ins: readonly EagerValue[], ctx?: EagerContext): Promise<EagerValue[]>;
export async function evalProgram(p: Program, ins: readonly EagerValue[], ctx?: EagerContext): Promise<EagerValue[]> {
  if (ins.length !== p.inputs.length) throw new PrimitiveError('E_ARG', 'evalProgram', `${ins.length} inputs for ${p.inputs.length}`);
  const env = new Map<Var, EagerValue>();
  p.inputs.forEach((v, i) => {
    const a = ins[i]!;
    const av = avalOf(a, 'evalProgram', `input ${i}`);
    if (av.dtype !== v.aval.dtype || av.shape.join() !== v.aval.shape.join()) {
      throw new PrimitiveError('E_SHAPE', 'evalProgram', `input ${i} is ${av.dtype}[${av.shape.join(', ')}], the program takes ${v.aval.dtype}[${v.aval.shape.join(', ')}]`);
    }
    env.set(v, a);
  });
  for (const e of p.eqns) {
    const outs = await e.prim.apply(e.ins.map((v) => env.get(v)!), e.params, ctx);
    e.outs.forEach((v, i) => env.set(v, outs[i]!));
  }
  return p.outputs.map((v) => env.get(v)!);
}
