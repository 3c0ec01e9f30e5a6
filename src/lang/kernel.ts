// defineKernel: a Triton-style kernel definition. `trace(constexprs)` runs the JS function once
// with symbolic tiles for the runtime params (constexprs arrive as plain JS values) and returns
// the IR Func. The runtime (src/runtime) wraps a KernelDef into the user-facing `kernel(...)`.
import type { Func, Param } from '../ir/ops.js';
import type { DType, ElemType } from '../ir/types.js';
import { isDType, isInt, ptrOf } from '../ir/types.js';
import { KernelError } from './errors.js';
import { userLoc } from './loc.js';
import { describe } from './semantic.js';
import type { Tile } from './tile.js';
import { runTrace, Trace } from './trace.js';

export interface PtrSpec<D extends DType = DType> { readonly kind: 'ptr'; readonly dtype: D }
export interface ConstexprSpec<T extends ConstexprValue = ConstexprValue> { readonly kind: 'constexpr'; readonly _t?: T }
export type ConstexprValue = number | boolean | string;
export type KernelParamSpec = PtrSpec | DType | ConstexprSpec;

/** A pointer parameter to global memory holding `dtype` elements. */
export const ptr = <D extends DType>(dtype: D): PtrSpec<D> => {
  if (!isDType(dtype)) {
    throw new KernelError('E_ARG', `ptr() needs an element dtype (f64 f32 f16 bf16 i64 i32 i16 i8 u32 u8 bool), got ${describe(dtype)}`, withLoc({ op: 'ptr' }));
  }
  return { kind: 'ptr', dtype };
};
/**
 * A compile-time parameter: the kernel function receives the JS value; each value traces anew.
 * Typed as a number; write `constexpr<boolean>()` or `constexpr<string>()` for other kinds.
 */
export function constexpr(): ConstexprSpec<number>;
export function constexpr<T extends ConstexprValue>(): ConstexprSpec<T>;
export function constexpr(): ConstexprSpec {
  return { kind: 'constexpr' };
}

export type ParamValue<S> = S extends ConstexprSpec<infer T> ? T : Tile;
export type KernelArgs<P extends Record<string, KernelParamSpec>> = { [K in keyof P]: ParamValue<P[K]> };
export type ConstexprArgs<P extends Record<string, KernelParamSpec>> = { [K in keyof P as P[K] extends ConstexprSpec ? K : never]: ParamValue<P[K]> };

export interface KernelSpec<P extends Record<string, KernelParamSpec>> {
  readonly name: string;
  readonly params: P;
}

/**
 * What the runtime knows about argument values (Triton's specialization), per runtime param by
 * name: the same shape as the compiler's `specialization` option (src/compiler/axis_info.ts).
 * At trace time `equalsOne` (integer params) folds the param's uses to the constant 1;
 * `divisibleBy16` is only checked here: compile() seeds its alignment facts from it. The params
 * stay in the Func's signature either way.
 */
export type TraceSpecialization = Readonly<Record<string, { readonly divisibleBy16?: boolean; readonly equalsOne?: boolean }>>;

export interface RuntimeParam {
  readonly name: string;
  readonly type: ElemType;
}

export interface KernelDef<P extends Record<string, KernelParamSpec> = Record<string, KernelParamSpec>> {
  readonly name: string;
  readonly params: P;
  readonly paramNames: readonly string[];
  /** Non-constexpr params in declaration order: the Func's params. */
  readonly runtimeParams: readonly RuntimeParam[];
  readonly constexprNames: readonly string[];
  trace(constexprs?: Partial<ConstexprArgs<P>> & Record<string, ConstexprValue>, opts?: { specialization?: TraceSpecialization }): Func;
}

function withLoc(info: { kernel?: string; op?: string }): { kernel?: string; op?: string; loc?: import('../ir/ops.js').Loc } {
  const loc = userLoc();
  return loc ? { ...info, loc } : info;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function defineKernel<P extends Record<string, KernelParamSpec>>(spec: KernelSpec<P>, fn: (args: KernelArgs<P>) => void): KernelDef<P> {
  const fail = (detail: string, kernel?: string): never => {
    throw new KernelError('E_ARG', detail, withLoc({ op: 'defineKernel', ...(kernel !== undefined ? { kernel } : {}) }));
  };
  if (typeof spec !== 'object' || spec === null) fail(`defineKernel needs a spec { name, params }, got ${describe(spec)}`);
  const name = spec.name;
  if (typeof name !== 'string' || !IDENT.test(name)) fail(`kernel name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got ${describe(name)}`);
  if (typeof spec.params !== 'object' || spec.params === null || Array.isArray(spec.params)) fail(`params must be an object of parameter specs, got ${describe(spec.params)}`, name);
  if (typeof fn !== 'function') fail(`the kernel body must be a function, got ${describe(fn)}`, name);
  const paramNames = Object.keys(spec.params);
  const runtimeParams: RuntimeParam[] = [];
  const constexprNames: string[] = [];
  for (const p of paramNames) {
    if (!IDENT.test(p)) fail(`parameter name '${p}' is not an identifier`, name);
    const s: unknown = spec.params[p];
    if (typeof s === 'string') {
      if (!isDType(s)) fail(`parameter '${p}' has unknown type '${s}' (scalars: f64 f32 f16 bf16 i64 i32 i16 i8 u32 u8 bool; pointers: ptr('f32'); compile-time: constexpr())`, name);
      runtimeParams.push({ name: p, type: s as DType });
    } else if (typeof s === 'object' && s !== null && (s as PtrSpec).kind === 'ptr' && isDType((s as PtrSpec).dtype)) {
      runtimeParams.push({ name: p, type: ptrOf((s as PtrSpec).dtype) });
    } else if (typeof s === 'object' && s !== null && (s as ConstexprSpec).kind === 'constexpr') {
      constexprNames.push(p);
    } else {
      fail(`parameter '${p}' has an invalid spec ${describe(s)}; use ptr('f32'), a scalar dtype like 'i32', or constexpr()`, name);
    }
  }

  function trace(constexprs: Record<string, unknown> = {}, opts: { specialization?: TraceSpecialization } = {}): Func {
    const bad = (detail: string): never => {
      throw new KernelError('E_ARG', detail, withLoc({ kernel: name, op: 'trace' }));
    };
    if (typeof constexprs !== 'object' || constexprs === null) bad(`constexprs must be an object, got ${describe(constexprs)}`);
    for (const k of Object.keys(constexprs)) {
      if (!constexprNames.includes(k)) {
        bad(paramNames.includes(k) ? `parameter '${k}' is not a constexpr; pass it at run time` : `unknown constexpr '${k}' (constexprs: ${constexprNames.join(', ') || 'none'})`);
      }
    }
    const values: Record<string, ConstexprValue> = {};
    for (const k of constexprNames) {
      const v = constexprs[k];
      if (v === undefined) bad(`missing value for constexpr parameter '${k}'`);
      if (typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'string') bad(`constexpr '${k}' must be a number, boolean or string, got ${describe(v)}`);
      values[k] = v as ConstexprValue;
    }
    const spz = opts.specialization ?? {};
    if (typeof spz !== 'object' || spz === null || Array.isArray(spz)) bad(`specialization must be an object keyed by parameter name, got ${describe(spz)}`);
    const ones = new Set<string>();
    for (const [p, facts] of Object.entries(spz)) {
      const rp = runtimeParams.find((r) => r.name === p);
      if (!rp) bad(`specialization names '${p}', which is not a runtime parameter`);
      if (typeof facts !== 'object' || facts === null) bad(`specialization for '${p}' must be an object like { divisibleBy16: true }, got ${describe(facts)}`);
      for (const k of Object.keys(facts)) if (k !== 'divisibleBy16' && k !== 'equalsOne') bad(`unknown specialization fact '${k}' for '${p}'`);
      if (facts.equalsOne) {
        if (!isInt(rp!.type)) bad(`specialization equalsOne needs an integer parameter; '${p}' is ${rp!.type}`);
        ones.add(p);
      }
    }
    const t = new Trace(name);
    const params: Param[] = runtimeParams.map((r) => ({ name: r.name, type: r.type }));
    return runTrace(t, () =>
      t.builder.func(name, params, { ...values }, (args) => {
        const kargs: Record<string, unknown> = { ...values };
        runtimeParams.forEach((r, i) => {
          kargs[r.name] = ones.has(r.name) ? t.emit('const', [], args[i]!.type, { value: 1 }) : t.wrap(args[i]!);
        });
        const ret: unknown = t.user(() => fn(kargs as KernelArgs<P>));
        if (ret !== undefined) {
          const isPromise = typeof ret === 'object' && ret !== null && typeof (ret as { then?: unknown }).then === 'function';
          t.fail('E_TRACE', isPromise ? 'the kernel function must be synchronous (it returned a Promise)' : 'a kernel function returns nothing; write results with store()', 'defineKernel');
        }
      }),
    );
  }

  return { name, params: spec.params, paramNames, runtimeParams, constexprNames, trace: trace as KernelDef<P>['trace'] };
}
