// Any Tessera kernel as a primitive: `kernel()` or `pallasCall` kernels become primitives whose
// lowering is the generic kernel-call target of native/xla_custom_call with a kernel-call
// descriptor (the PTX from compile(), cubin when ptxas ran, grid, block, shared memory, and which
// operand, result or constant each kernel parameter receives): a Pallas-style kernel written in
// TypeScript runs inside an XLA program. Eagerly, the kernel runs on a runtime device.
import type { Func } from '../ir/ops.js';
import { isPtr, numel, byteSize, pointee, type DType } from '../ir/types.js';
import { compile, type Target } from '../compile/compile.js';
import { packKernelCall, type KernelParamSpec } from '../descriptor/kernel_call.js';
import type { Kernel } from '../runtime/kernel.js';
import type { PallasCall } from '../runtime/pallas_call.js';
import { getDevice, type Device, type DeviceKind } from '../runtime/device.js';
import { describeAval, sameAval, shaped, type ShapedArray } from './aval.js';
import { API_VERSION, emitCustomCall } from './custom_call.js';
import { emptyLike, type EagerArray } from './eager.js';
import { PrimitiveError } from './errors.js';
import { definePrimitive, type Primitive } from './primitive.js';

/** Where one kernel parameter's value comes from. */
export type KernelArgSource = { readonly operand: number } | { readonly result: number } | { readonly value: number | bigint | boolean };

/** A kernel launch, fully resolved for one set of input shapes. */
export interface ResolvedLaunch {
  readonly func: Func;
  readonly outputs: readonly ShapedArray[];
  readonly grid: readonly [number, number, number];
  readonly numWarps: number;
  /** One per Func parameter, in order. */
  readonly args: readonly KernelArgSource[];
  /** result index -> operand index (the result is the operand's buffer). */
  readonly aliases: ReadonlyMap<number, number>;
}

export interface KernelPrimitiveOptions {
  /** PTX target of the embedded image (default sm_80; the cubin is for the same arch). */
  readonly target?: Target;
  /** Eager runs use this device (default: the runtime's choice). */
  readonly device?: DeviceKind | Device;
}

type Resolver = (ins: readonly ShapedArray[]) => ResolvedLaunch;

// Compute capability of a target: sm_90a is 90 (its PTX/cubin are arch-specific: they run on 9.0
// only, which the image selection of native/xla_custom_call does not know yet — issue 17).
export const targetArch = (t: Target): number => parseInt(t.slice(3), 10);
const arch = targetArch;

/** The primitive for a resolver; kernelPrimitive and pallasPrimitive build the resolver. */
export function launchPrimitive(name: string, resolve: Resolver, opts: KernelPrimitiveOptions = {}): Primitive<Record<string, never>> {
  const target = opts.target ?? 'sm_80';
  const check = (ins: readonly ShapedArray[]): ResolvedLaunch => {
    const r = resolve(ins);
    if (r.args.length !== r.func.params.length) throw new PrimitiveError('E_ARG', name, `${r.args.length} argument sources for ${r.func.params.length} kernel parameters`);
    r.args.forEach((a, i) => {
      const p = r.func.params[i]!;
      const bad = (m: string): never => { throw new PrimitiveError('E_ARG', name, `kernel parameter '${p.name}' (${p.type}): ${m}`); };
      if ('operand' in a || 'result' in a) {
        if (!isPtr(p.type)) bad('is a scalar; give it a value');
        const av = 'operand' in a ? ins[a.operand] : r.outputs[a.result];
        if (!av) bad(`names ${'operand' in a ? `operand ${a.operand}` : `result ${a.result}`}, which does not exist`);
        if (av!.dtype !== pointee(p.type as `ptr<${DType}>`)) bad(`receives ${describeAval(av!)}`);
      } else if (isPtr(p.type)) bad('is a pointer; map it to an operand or a result');
    });
    for (const [res, op] of r.aliases) {
      if (!ins[op] || !r.outputs[res] || !sameAval(ins[op]!, r.outputs[res]!)) throw new PrimitiveError('E_SHAPE', name, `result ${res} cannot alias operand ${op}`);
    }
    return r;
  };
  const compiled = new Map<string, { ptx: string; cubin?: Uint8Array; sharedBytes: number; dynamicShared: boolean; producerWarps: number }>();
  const compileFor = (r: ResolvedLaunch, key: string) => {
    let c = compiled.get(key);
    if (!c) {
      const res = compile(r.func, { target, numWarps: r.numWarps });
      c = { ptx: res.ptx, ...(res.cubin ? { cubin: res.cubin } : {}), sharedBytes: res.metadata.sharedBytes, dynamicShared: res.metadata.dynamicShared, producerWarps: res.metadata.producerWarps ?? 0 };
      compiled.set(key, c);
    }
    return c;
  };
  const descriptor = (ins: readonly ShapedArray[], r: ResolvedLaunch): Uint8Array => {
    const c = compileFor(r, JSON.stringify(ins));
    const bytes = (a: ShapedArray) => numel(a.shape) * byteSize(a.dtype);
    const params: KernelParamSpec[] = r.args.map((a, i) =>
      'operand' in a ? { kind: 'operand', index: a.operand }
        : 'result' in a ? { kind: 'result', index: a.result }
          : { kind: 'scalar', dtype: r.func.params[i]!.type as DType, value: a.value });
    return packKernelCall({
      entry: r.func.name,
      grid: r.grid,
      block: [(r.numWarps + c.producerWarps) * 32, 1, 1], // a warp-specialized kernel's producer warps too
      sharedBytes: c.dynamicShared ? c.sharedBytes : 0,
      operandBytes: ins.map(bytes),
      resultBytes: r.outputs.map(bytes),
      params,
      images: [{ kind: 'ptx', arch: arch(target), data: c.ptx }, ...(c.cubin ? [{ kind: 'cubin' as const, arch: arch(target), data: c.cubin }] : [])],
    });
  };
  return definePrimitive<Record<string, never>>({
    name,
    abstractEval: (ins) => [...check(ins).outputs],
    async impl(ins) {
      const r = check(ins.map((a) => a.aval));
      const outs: EagerArray[] = r.outputs.map((o, j) => {
        const src = r.aliases.get(j);
        return src === undefined ? emptyLike(o) : { aval: o, data: ins[src]!.data.slice() };
      });
      // Inputs are read through copies (nothing the caller owns changes); an aliased operand is
      // its result's buffer, as in the XLA program.
      const inCopies = ins.map((a) => a.data.slice());
      const aliasOf = new Map([...r.aliases].map(([res, op]) => [op, res]));
      const args = r.args.map((a) => {
        if ('value' in a) return a.value;
        if ('result' in a) return outs[a.result]!.data;
        const res = aliasOf.get(a.operand);
        return res === undefined ? inCopies[a.operand]! : outs[res]!.data;
      });
      await getDevice(opts.device).launch(r.func, args, { grid: r.grid, numWarps: r.numWarps });
      return outs;
    },
    // On device arrays (cuda, sim): the generic GPU target with the same descriptor as the
    // lowering, the kernel's buffers being the arrays themselves.
    eagerCustomCall(ins) {
      const r = check(ins);
      return { symbol: 'tessera_kernel_call', opaque: descriptor(ins, r), aliases: r.aliases };
    },
    lowering(ctx, operands) {
      const r = check(ctx.avalsIn);
      const opaque = descriptor(ctx.avalsIn, r);
      return emitCustomCall(ctx, {
        target: ctx.platform === 'cpu' ? 'tessera_kernel_call_cpu' : 'tessera_kernel_call',
        operands, results: r.outputs,
        apiVersion: ctx.platform === 'cpu' ? API_VERSION.statusReturningUnified : API_VERSION.statusReturning,
        backendConfig: opaque,
        outputOperandAliases: r.aliases,
      });
    },
  });
}

export interface KernelCallSpec<A> {
  /** Result shapes for these input shapes. */
  readonly outputs: (ins: readonly ShapedArray[]) => readonly ShapedArray[];
  /** Per kernel parameter name: an operand, a result, or a value computed from the shapes. Constexprs too. */
  readonly args: (ins: readonly ShapedArray[]) => Readonly<Record<string, KernelArgSource | number | boolean | string>>;
  readonly grid: (ins: readonly ShapedArray[]) => number | readonly number[];
  readonly numWarps?: number;
  readonly aliases?: Readonly<Record<number, number>>;
  readonly _a?: A;
}

const grid3 = (g: number | readonly number[]): [number, number, number] => {
  const d = typeof g === 'number' ? [g] : [...g];
  return [d[0] ?? 1, d[1] ?? 1, d[2] ?? 1];
};

/** A `kernel()` kernel as a primitive: `spec.args` maps its parameters (constexprs included). */
export function kernelPrimitive(k: Kernel, spec: KernelCallSpec<unknown>, opts: KernelPrimitiveOptions = {}): Primitive<Record<string, never>> {
  const name = `tessera.${k.name}`;
  return launchPrimitive(name, (ins) => {
    const a = spec.args(ins);
    for (const key of Object.keys(a)) if (!k.def.paramNames.includes(key)) throw new PrimitiveError('E_ARG', name, `args names '${key}', which is not a parameter (${k.def.paramNames.join(', ')})`);
    const constexprs: Record<string, number | boolean | string> = {};
    for (const c of k.def.constexprNames) {
      const v = a[c];
      if (typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'string') throw new PrimitiveError('E_ARG', name, `constexpr '${c}' needs a value in args`);
      constexprs[c] = v;
    }
    const args = k.def.runtimeParams.map((p) => {
      const v = a[p.name];
      if (v === undefined) throw new PrimitiveError('E_ARG', name, `args gives nothing for parameter '${p.name}'`);
      return typeof v === 'object' ? v : { value: v as number | boolean };
    });
    return {
      func: k.trace(constexprs), outputs: spec.outputs(ins), grid: grid3(spec.grid(ins)), numWarps: spec.numWarps ?? 4, args,
      aliases: new Map(Object.entries(spec.aliases ?? {}).map(([r, o]) => [Number(r), o])),
    };
  }, opts);
}

/** A pallasCall kernel as a primitive: operands are its inputs, results its outputs. */
export function pallasPrimitive(call: PallasCall, opts: KernelPrimitiveOptions = {}): Primitive<Record<string, never>> {
  const cfg = call.config;
  return launchPrimitive(`tessera.${cfg.name}`, (ins) => {
    const r = cfg.resolve(ins);
    const func = call.trace(...ins.map((a) => shaped(a.shape, a.dtype)));
    return {
      func, outputs: r.outputs.map((o) => shaped(o.shape, o.dtype)), grid: grid3(r.grid), numWarps: cfg.opts.numWarps ?? 4,
      args: [...ins.map((_, i) => ({ operand: i })), ...r.outputs.map((_, i) => ({ result: i }))],
      // pallasCall's { input: output } is the descriptor's result -> operand.
      aliases: new Map([...cfg.aliases].map(([i, o]) => [o, i])),
    };
  }, opts);
}
