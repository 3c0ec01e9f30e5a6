// Lowering a traced program to a StableHLO module (text). Each equation's primitive emits its
// ops through a LoweringContext; the module's `main` takes the program's inputs and returns its
// outputs. With a mesh, inputs and outputs carry Shardy shardings and the module says how many
// partitions it is compiled for.
import type { ShapedArray } from './aval.js';
import { PrimitiveError } from './errors.js';
import { tensorType } from './mlir_text.js';
import type { Program, Var } from './program.js';
import { meshText, shardingText, type DimSharding, type Mesh } from './sharding.js';

/** Which targets a lowering calls: XLA's platform of the custom-call targets. */
export type Platform = 'cpu' | 'cuda';
/** Legacy custom calls (opaque descriptor bytes) or typed FFI (api_version 4, attributes). */
export type CallForm = 'legacy' | 'ffi';

export interface LowerOptions {
  readonly platform: Platform;
  readonly form?: CallForm;
  /** Module name (an identifier). Default 'tessera'. */
  readonly name?: string;
  /** Compile for this mesh; `inShardings`/`outShardings` say how each input/output is split. */
  readonly mesh?: Mesh;
  readonly inShardings?: readonly (DimSharding | null)[];
  readonly outShardings?: readonly (DimSharding | null)[];
  /**
   * How a sharded op is split: 'manual' (default) wraps it in sdy.manual_computation, one call
   * per shard; 'partitioner' leaves it to XLA's batch partitioner (targets registered with
   * jax.ffi.register_ffi_target_as_batch_partitionable; typed FFI only).
   */
  readonly sharding?: 'manual' | 'partitioner';
}

export interface LoweringContext {
  readonly platform: Platform;
  readonly form: CallForm;
  /** The mesh the module is compiled for; undefined inside a manual computation (local shapes). */
  readonly mesh: Mesh | undefined;
  readonly sharding: 'manual' | 'partitioner';
  /** Inside a manual computation: the mesh whose shards the ops see. */
  readonly manual?: Mesh;
  readonly avalsIn: readonly ShapedArray[];
  readonly avalsOut: readonly ShapedArray[];
  /**
   * Emits one op producing `results`: `text` is everything after `=` (or the whole op when there
   * are no results). Returns the results' SSA names.
   */
  op(results: readonly ShapedArray[], text: string): string[];
  /** Runs `body` with its ops collected instead of emitted; returns them (one op per entry). */
  region(body: () => void): string[];
  /** A channel id for a collective, unique in the module. */
  channel(): number;
  /** The same context for other operand/result avals (for ops a lowering nests). */
  with(avalsIn: readonly ShapedArray[], avalsOut: readonly ShapedArray[], manual?: Mesh): LoweringContext;
}

class Emitter {
  #n = 0;
  #channel = 0;
  #out: string[][] = [[]];
  get lines(): string[] {
    return this.#out[0]!;
  }
  region(body: () => void): string[] {
    this.#out.push([]);
    try {
      body();
      return this.#out[this.#out.length - 1]!;
    } finally {
      this.#out.pop();
    }
  }
  channel(): number {
    return ++this.#channel;
  }

  op(results: readonly ShapedArray[], text: string): string[] {
    if (results.length === 0) {
      this.#out[this.#out.length - 1]!.push(text);
      return [];
    }
    const name = `%${this.#n++}`;
    this.#out[this.#out.length - 1]!.push(`${results.length > 1 ? `${name}:${results.length}` : name} = ${text}`);
    return results.length > 1 ? results.map((_, i) => `${name}#${i}`) : [name];
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function lowerProgram(p: Program, opts: LowerOptions): string {
  const form = opts.form ?? 'legacy';
  if (opts.platform !== 'cpu' && opts.platform !== 'cuda') throw new PrimitiveError('E_ARG', 'lower', `platform must be 'cpu' or 'cuda', got ${String(opts.platform)}`);
  if (form !== 'legacy' && form !== 'ffi') throw new PrimitiveError('E_ARG', 'lower', `form must be 'legacy' or 'ffi', got ${String(form)}`);
  if (opts.sharding !== undefined && opts.sharding !== 'manual' && opts.sharding !== 'partitioner') {
    throw new PrimitiveError('E_ARG', 'lower', `sharding must be 'manual' or 'partitioner', got ${String(opts.sharding)}`);
  }
  const name = opts.name ?? 'tessera';
  if (!IDENT.test(name)) throw new PrimitiveError('E_ARG', 'lower', `module name must be an identifier, got '${name}'`);
  const mesh = opts.mesh;
  if (mesh && (!Number.isInteger(mesh.size) || mesh.size < 1 || typeof mesh.axis !== 'string' || !mesh.axis)) {
    throw new PrimitiveError('E_ARG', 'lower', `mesh must be { axis: string, size: integer >= 1 }, got ${JSON.stringify(mesh)}`);
  }
  const shard = (list: readonly (DimSharding | null)[] | undefined, vars: readonly Var[], what: string): string[] =>
    vars.map((v, i) => {
      const s = list?.[i];
      if (!s) return '';
      if (!mesh) throw new PrimitiveError('E_ARG', 'lower', `${what} ${i} has a sharding but no mesh was given`);
      if (s.length !== v.aval.shape.length || s.some((a) => a !== null && a !== mesh.axis)) {
        throw new PrimitiveError('E_ARG', 'lower', `${what} ${i} sharding ${JSON.stringify(s)} must name, per dim of ${tensorType(v.aval)}, '${mesh.axis}' or null`);
      }
      const axisDim = s.findIndex((a) => a !== null);
      if (axisDim >= 0 && v.aval.shape[axisDim]! % mesh.size !== 0) {
        throw new PrimitiveError('E_SHAPE', 'lower', `${what} ${i} dim ${axisDim} (${v.aval.shape[axisDim]}) does not divide into ${mesh.size} shards`);
      }
      return ` {sdy.sharding = ${shardingText(s)}}`;
    });

  const names = new Map<Var, string>();
  p.inputs.forEach((v, i) => names.set(v, `%arg${i}`));
  const em = new Emitter();
  const context = (avalsIn: readonly ShapedArray[], avalsOut: readonly ShapedArray[], m: Mesh | undefined, manual?: Mesh): LoweringContext => ({
    platform: opts.platform, form, mesh: m, sharding: opts.sharding ?? 'manual', ...(manual ? { manual } : {}), avalsIn, avalsOut,
    op: (results, text) => em.op(results, text),
    channel: () => em.channel(),
    region: (body) => em.region(body),
    with: (i, o, man) => context(i, o, man ? undefined : m, man),
  });
  for (const e of p.eqns) {
    const ctx = context(e.ins.map((v) => v.aval), e.outs.map((v) => v.aval), mesh);
    const outs = e.prim.lowering(ctx, e.ins.map((v) => names.get(v)!), e.params);
    if (outs.length !== e.outs.length) throw new PrimitiveError('E_RULE', e.prim.name, `lowering returned ${outs.length} values for ${e.outs.length} outputs`);
    e.outs.forEach((v, i) => names.set(v, outs[i]!));
  }
  const inAttrs = shard(opts.inShardings, p.inputs, 'input');
  const outAttrs = shard(opts.outShardings, p.outputs, 'output');
  const args = p.inputs.map((v, i) => `%arg${i}: ${tensorType(v.aval)}${inAttrs[i]}`).join(', ');
  const results = p.outputs.map((v, i) => `${tensorType(v.aval)}${outAttrs[i]}`).join(', ');
  const attrs = `mhlo.num_partitions = ${mesh?.size ?? 1} : i32, mhlo.num_replicas = 1 : i32`;
  return [
    `module @${name} attributes {${attrs}} {`,
    ...(mesh ? [`  ${meshText(mesh)}`] : []),
    `  func.func public @main(${args}) -> (${results}) {`,
    ...em.lines.flatMap((l) => l.split('\n')).map((l) => `    ${l}`),
    `    return ${p.outputs.map((v) => names.get(v)!).join(', ')} : ${p.outputs.map((v) => tensorType(v.aval)).join(', ')}`,
    '  }',
    '}',
    '',
  ].join('\n');
}
