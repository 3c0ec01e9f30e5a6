// defineKernel: a Triton-style kernel definition. `trace(constexprs)` runs the JS function once
// with symbolic tiles for the runtime params (constexprs arrive as plain JS values) and returns
// the IR Func. The runtime (src/runtime) wraps a KernelDef into the user-facing `kernel(...)`.
import type { Func, Param } from '../ir/ops.js';
import type { DType, ElemType } from '../ir/types.js';
import { DTYPES, isDType, isMiniFloat, isInt, isPtr, ptrOf } from '../ir/types.js';
import { KernelError } from './errors.js';
import { userLoc } from './loc.js';
import { describe } from './semantic.js';
import type { Tile } from './tile.js';
import { makeTensorDescriptor, type TensorDescriptor } from './descriptor.js';
import { runTrace, Trace } from './trace.js';

export interface PtrSpec<D extends DType = DType> { readonly kind: 'ptr'; readonly dtype: D; readonly doNotSpecialize?: boolean }
/** A runtime scalar written as an object, to carry flags: `scalar('i32', { doNotSpecialize: true })`. */
export interface ScalarSpec<D extends DType = DType> { readonly kind: 'scalar'; readonly dtype: D; readonly doNotSpecialize?: boolean }
export interface ConstexprSpec<T extends ConstexprValue = ConstexprValue> { readonly kind: 'constexpr'; readonly _t?: T }
export type ConstexprValue = number | boolean | string;
/**
 * A tensor descriptor made on the host (Triton's host-side `TensorDescriptor`): the kernel gets a
 * TensorDescriptor (desc.load / desc.store); `run` takes `{ base, shape, strides }`. blockShape
 * entries are numbers or names of constexpr parameters.
 */
export interface TensorDescSpec<D extends DType = DType> { readonly kind: 'tensorDesc'; readonly dtype: D; readonly blockShape: readonly (number | string)[] }
export type KernelParamSpec = PtrSpec | DType | ScalarSpec | ConstexprSpec | TensorDescSpec;

/** Per-parameter flags. */
export interface ParamFlags {
  /**
   * Never specialize this parameter on its value (Triton's `do_not_specialize`): an integer is not
   * marked "equals 1" or "divisible by 16", a pointer not "16-byte aligned", so a value that
   * changes every call reuses one compiled variant instead of one per class.
   */
  readonly doNotSpecialize?: boolean;
}

const checkFlags = (op: string, flags: unknown): ParamFlags => {
  if (flags === undefined) return {};
  if (typeof flags !== 'object' || flags === null) {
    throw new KernelError('E_ARG', `${op}: flags must be an object like { doNotSpecialize: true }, got ${describe(flags)}`, withLoc({ op }));
  }
  for (const [k, v] of Object.entries(flags)) {
    if (k !== 'doNotSpecialize') throw new KernelError('E_ARG', `${op}: unknown flag '${k}' (flags: doNotSpecialize)`, withLoc({ op }));
    if (typeof v !== 'boolean') throw new KernelError('E_ARG', `${op}: flag 'doNotSpecialize' must be a boolean, got ${describe(v)}`, withLoc({ op }));
  }
  return flags as ParamFlags;
};

/** A pointer parameter to global memory holding `dtype` elements. */
export const ptr = <D extends DType>(dtype: D, flags?: ParamFlags): PtrSpec<D> => {
  if (!isDType(dtype)) {
    throw new KernelError('E_ARG', `ptr() needs an element dtype (${DTYPES.join(' ')}), got ${describe(dtype)}`, withLoc({ op: 'ptr' }));
  }
  const f = checkFlags('ptr', flags);
  return f.doNotSpecialize ? { kind: 'ptr', dtype, doNotSpecialize: true } : { kind: 'ptr', dtype };
};

const FP8_SCALAR = (d: DType): string =>
  `${d} scalar parameters are not supported (${d} is a storage type): pass an f32 scalar and cast it with .to('${d}'), or pass a ptr('${d}')`;

/** A runtime scalar parameter with flags; `scalar('i32')` is the same as writing `'i32'`. */
export const scalar = <D extends DType>(dtype: D, flags?: ParamFlags): ScalarSpec<D> => {
  if (!isDType(dtype)) {
    throw new KernelError('E_ARG', `scalar() needs a dtype (${DTYPES.join(' ')}), got ${describe(dtype)}`, withLoc({ op: 'scalar' }));
  }
  if (isMiniFloat(dtype)) throw new KernelError('E_TYPE', FP8_SCALAR(dtype), withLoc({ op: 'scalar' }));
  const f = checkFlags('scalar', flags);
  return f.doNotSpecialize ? { kind: 'scalar', dtype, doNotSpecialize: true } : { kind: 'scalar', dtype };
};
/** A host-side tensor descriptor parameter of `dtype` elements and the given block shape. */
export const tensorDesc = <D extends DType>(dtype: D, blockShape: readonly (number | string)[]): TensorDescSpec<D> => {
  if (!isDType(dtype) || dtype === 'bool') {
    throw new KernelError('E_DESCRIPTOR', `tensorDesc() needs an element dtype other than bool, got ${describe(dtype)}`, withLoc({ op: 'tensorDesc' }));
  }
  if (!Array.isArray(blockShape) || blockShape.length < 1 || blockShape.length > 5 || blockShape.some((b) => typeof b !== 'number' && typeof b !== 'string')) {
    throw new KernelError('E_DESCRIPTOR', `tensorDesc() needs a block shape of 1 to 5 numbers or constexpr names, got ${describe(blockShape)}`, withLoc({ op: 'tensorDesc' }));
  }
  return { kind: 'tensorDesc', dtype, blockShape: [...blockShape] };
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

export type ParamValue<S> = S extends ConstexprSpec<infer T> ? T : S extends TensorDescSpec ? TensorDescriptor : Tile;
export type KernelArgs<P extends Record<string, KernelParamSpec>> = { [K in keyof P]: ParamValue<P[K]> };
export type ConstexprArgs<P extends Record<string, KernelParamSpec>> = { [K in keyof P as P[K] extends ConstexprSpec ? K : never]: ParamValue<P[K]> };

export interface KernelSpec<P extends Record<string, KernelParamSpec>> {
  readonly name: string;
  readonly params: P;
  /**
   * Runtime parameters (integers or pointers) never specialized on their value, as Triton's
   * `do_not_specialize`; the same as `doNotSpecialize: true` on each one's ptr()/scalar().
   */
  readonly doNotSpecialize?: readonly (keyof P & string)[];
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
  /** Never specialized on its value (KernelSpec.doNotSpecialize or the param's flag). */
  readonly doNotSpecialize: boolean;
  /** Part of a host-side tensor descriptor parameter: its base, or the shape / stride of one dim. */
  readonly desc?: { readonly param: string; readonly role: 'base' | 'shape' | 'stride'; readonly dim: number };
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
  for (const k of Object.keys(spec)) {
    if (!['name', 'params', 'doNotSpecialize'].includes(k)) fail(`defineKernel: unknown spec field '${k}' (defineKernel takes: name, params, doNotSpecialize)`, typeof name === 'string' ? name : undefined);
  }
  if (typeof name !== 'string' || !IDENT.test(name)) fail(`kernel name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got ${describe(name)}`);
  if (typeof spec.params !== 'object' || spec.params === null || Array.isArray(spec.params)) fail(`params must be an object of parameter specs, got ${describe(spec.params)}`, name);
  if (typeof fn !== 'function') fail(`the kernel body must be a function, got ${describe(fn)}`, name);
  const paramNames = Object.keys(spec.params);
  const dns: unknown = (spec as { doNotSpecialize?: unknown }).doNotSpecialize;
  if (dns !== undefined && (!Array.isArray(dns) || dns.some((n) => typeof n !== 'string'))) {
    fail(`doNotSpecialize must be a list of parameter names, got ${describe(dns)}`, name);
  }
  const unspecialized = new Set<string>(dns as string[] | undefined);
  for (const n of unspecialized) if (!paramNames.includes(n)) fail(`doNotSpecialize names '${n}', which is not a parameter (parameters: ${paramNames.join(', ')})`, name);
  const runtimeParams: RuntimeParam[] = [];
  const constexprNames: string[] = [];
  const addRuntime = (p: string, type: ElemType, flag: boolean | undefined, desc?: RuntimeParam['desc']): void => {
    const dn = flag === true || unspecialized.has(p);
    // Only integers and pointers are ever specialized; asking for it elsewhere is a mistake.
    if (dn && !isPtr(type) && !isInt(type as DType)) fail(`doNotSpecialize: parameter '${p}' is ${type}; only integer and pointer parameters are specialized`, name);
    runtimeParams.push({ name: p, type, doNotSpecialize: dn, ...(desc ? { desc } : {}) });
  };
  const descs: [string, TensorDescSpec][] = [];
  for (const p of paramNames) {
    if (!IDENT.test(p)) fail(`parameter name '${p}' is not an identifier`, name);
    const s: unknown = spec.params[p];
    if (typeof s === 'string') {
      if (!isDType(s)) fail(`parameter '${p}' has unknown type '${s}' (scalars: ${DTYPES.filter((d) => !isMiniFloat(d)).join(' ')}; pointers: ptr('f32'); compile-time: constexpr())`, name);
      if (isMiniFloat(s as DType)) throw new KernelError('E_TYPE', `parameter '${p}': ${FP8_SCALAR(s as DType)}`, withLoc({ kernel: name, op: 'defineKernel' }));
      addRuntime(p, s as DType, undefined);
    } else if (typeof s === 'object' && s !== null && (s as PtrSpec).kind === 'ptr' && isDType((s as PtrSpec).dtype)) {
      addRuntime(p, ptrOf((s as PtrSpec).dtype), (s as PtrSpec).doNotSpecialize);
    } else if (typeof s === 'object' && s !== null && (s as ScalarSpec).kind === 'scalar' && isDType((s as ScalarSpec).dtype)) {
      const d = (s as ScalarSpec).dtype;
      if (isMiniFloat(d)) throw new KernelError('E_TYPE', `parameter '${p}': ${FP8_SCALAR(d)}`, withLoc({ kernel: name, op: 'defineKernel' }));
      addRuntime(p, d, (s as ScalarSpec).doNotSpecialize);
    } else if (typeof s === 'object' && s !== null && (s as TensorDescSpec).kind === 'tensorDesc' && isDType((s as TensorDescSpec).dtype)) {
      // the descriptor travels as its base pointer, then one i32 per dim of shape and per outer stride
      const d = s as TensorDescSpec;
      const rank = d.blockShape.length;
      addRuntime(p, ptrOf(d.dtype), undefined, { param: p, role: 'base', dim: 0 });
      for (let k = 0; k < rank; k++) addRuntime(`${p}_shape${k}`, 'i32', undefined, { param: p, role: 'shape', dim: k });
      for (let k = 0; k + 1 < rank; k++) addRuntime(`${p}_stride${k}`, 'i32', undefined, { param: p, role: 'stride', dim: k });
      descs.push([p, d]);
    } else if (typeof s === 'object' && s !== null && (s as ConstexprSpec).kind === 'constexpr') {
      if (unspecialized.has(p)) fail(`doNotSpecialize names '${p}', a constexpr: every constexpr value is its own compile`, name);
      constexprNames.push(p);
    } else {
      fail(`parameter '${p}' has an invalid spec ${describe(s)}; use ptr('f32'), a scalar dtype like 'i32', scalar('i32', flags), tensorDesc('f16', [BM, BK]) or constexpr()`, name);
    }
  }
  for (const r of runtimeParams) if (r.desc && r.desc.role !== 'base' && paramNames.includes(r.name)) fail(`parameter '${r.name}' collides with a part of tensor descriptor '${r.desc.param}'`, name);
  for (const [p, d] of descs) {
    for (const b of d.blockShape) if (typeof b === 'string' && !constexprNames.includes(b)) fail(`tensor descriptor '${p}': block dim '${b}' is not a constexpr parameter`, name);
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
      if (rp!.doNotSpecialize && Object.values(facts as object).some((v) => v)) bad(`specialization names '${p}', which is doNotSpecialize`);
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
        for (const [p, d] of descs) {
          const part = (role: 'shape' | 'stride'): Tile[] => runtimeParams.filter((r) => r.desc?.param === p && r.desc.role === role).map((r) => kargs[r.name] as Tile);
          const block = d.blockShape.map((b) => (typeof b === 'string' ? values[b] : b));
          if (block.some((b) => typeof b !== 'number')) t.fail('E_DESCRIPTOR', `tensor descriptor '${p}': block dims must be numbers, got [${block.join(', ')}]`, 'tensorDesc');
          kargs[p] = makeTensorDescriptor(kargs[p] as Tile, part('shape'), [...part('stride'), 1], block as number[]);
          for (const r of runtimeParams) if (r.desc?.param === p && r.desc.role !== 'base') delete kargs[r.name];
        }
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
