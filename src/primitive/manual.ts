// Sharded lowering of a custom call by its sharding rule: the call is wrapped in
// `sdy.manual_computation` (what jax's shard_map emits), so each device runs it on its own
// shard. The rule's split factor goes on the mesh axis, every other factor is replicated, and the
// results that are sums over the split dim (`summed`) are all-reduced, as the seed's psum of
// grad_weight. (Shardy cannot say that in the rule itself when the same factor also maps a
// result dim, as x's batch dim maps grad_input's.) XLA's own batch partitioner cannot do this for RMSNorm: it splits
// every operand's leading dims, weight's included.
import { shaped, type ShapedArray } from './aval.js';
import { PrimitiveError } from './errors.js';
import type { LoweringContext } from './lowering.js';
import { MLIR_ELEMENT, tensorType } from './mlir_text.js';
import { shardingText, type DimSharding, type Mesh, type ShardingRule } from './sharding.js';

const bare = (dims: DimSharding): string => shardingText(dims).replace(/^#sdy\.sharding/, '');
const indent = (lines: readonly string[]): string => lines.flatMap((l) => l.split('\n')).map((l) => `  ${l}`).join('\n');
const resultTypes = (avals: readonly ShapedArray[]): string => (avals.length === 1 ? tensorType(avals[0]!) : `(${avals.map(tensorType).join(', ')})`);

/**
 * Emits the manual computation; `body` lowers the op on local shards (its context has the local
 * avals and no mesh). `rule` is the op's rule on the global avals; `split` the factor to shard.
 */
export function lowerManual(
  ctx: LoweringContext, prim: string, operands: readonly string[], rule: ShardingRule, split: string, summed: readonly number[],
  body: (inner: LoweringContext, args: readonly string[]) => string[],
): string[] {
  const mesh = ctx.mesh as Mesh;
  const dimsOf = (factors: readonly (readonly string[])[]): DimSharding[] => factors.map((fs) => fs.map((f) => (f === split ? mesh.axis : null)));
  const local = (avals: readonly ShapedArray[], dims: readonly DimSharding[], what: string): ShapedArray[] =>
    avals.map((a, i) => shaped(a.shape.map((n, d) => {
      if (dims[i]![d] === null) return n;
      if (n % mesh.size !== 0) throw new PrimitiveError('E_SHAPE', prim, `${what} ${i} dim ${d} (${n}) does not split into ${mesh.size} shards`);
      return n / mesh.size;
    }), a.dtype));
  const inDims = dimsOf(rule.operands);
  const outDims = dimsOf(rule.results);
  const localIns = local(ctx.avalsIn, inDims, 'operand');
  const localOuts = local(ctx.avalsOut, outDims, 'result');
  const inner = ctx.with(localIns, localOuts, mesh);
  const tag = ctx.channel();
  const args = localIns.map((_, i) => `%shard${tag}_${i}`);
  const ops = ctx.region(() => {
    const outs = body(inner, args).map((o, j) => {
      if (!summed.includes(j)) return o;
      const t = tensorType(localOuts[j]!);
      const s = `tensor<${MLIR_ELEMENT[localOuts[j]!.dtype]}>`;
      const ids = Array.from({ length: mesh.size }, (_, k) => k).join(', ');
      return inner.op([localOuts[j]!], [
        `"stablehlo.all_reduce"(${o}) <{channel_handle = #stablehlo.channel_handle<handle = ${ctx.channel()}, type = 1>, replica_groups = dense<[[${ids}]]> : tensor<1x${mesh.size}xi64>, use_global_device_ids}> ({`,
        `^bb0(%lhs: ${s}, %rhs: ${s}):`,
        `  %sum = stablehlo.add %lhs, %rhs : ${s}`,
        `  stablehlo.return %sum : ${s}`,
        `}) : (${t}) -> ${t}`,
      ].join('\n'))[0]!;
    });
    inner.op([], `sdy.return ${outs.join(', ')} : ${localOuts.map(tensorType).join(', ')}`);
  });
  return ctx.op(ctx.avalsOut, [
    `sdy.manual_computation(${operands.join(', ')}) in_shardings=[${inDims.map(bare).join(', ')}] out_shardings=[${outDims.map(bare).join(', ')}] manual_axes={"${mesh.axis}"} (${args.map((a, i) => `${a}: ${tensorType(localIns[i]!)}`).join(', ')}) {`,
    indent(ops),
    `} : (${ctx.avalsIn.map(tensorType).join(', ')}) -> ${resultTypes(ctx.avalsOut)}`,
  ].join('\n'));
}
