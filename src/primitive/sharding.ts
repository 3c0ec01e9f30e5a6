// Sharding rules in Shardy's syntax. A rule names a factor for each dimension of each operand
// and result; a factor shared by operand and result dims lets the partitioner shard them alike.
//   #sdy.op_sharding_rule<([i, j], [j])->([i, j], [i]) {i=8, j=16}>
// A factor found only among the operands is a `reduction` factor when the results are sums over
// it (a partitioner then adds an all-reduce), else it needs replication.
import type { ShapedArray } from './aval.js';
import { mlirString } from './mlir_text.js';

export interface ShardingRule {
  readonly operands: readonly (readonly string[])[];
  readonly results: readonly (readonly string[])[];
  readonly factorSizes: Readonly<Record<string, number>>;
  readonly reduction?: readonly string[];
  readonly needReplication?: readonly string[];
}

const FACTOR = /^[i-z]$/;

/** Checks that every dim has a factor whose size matches, and renders the attribute. */
export function shardingRuleText(r: ShardingRule, ins: readonly ShapedArray[], outs: readonly ShapedArray[]): string {
  const check = (lists: readonly (readonly string[])[], avals: readonly ShapedArray[], what: string): void => {
    if (lists.length !== avals.length) throw new Error(`sharding rule: ${lists.length} ${what} factor lists for ${avals.length} ${what}s`);
    lists.forEach((fs, i) => {
      if (fs.length !== avals[i]!.shape.length) throw new Error(`sharding rule: ${what} ${i} has rank ${avals[i]!.shape.length}, the rule names ${fs.length} factors`);
      fs.forEach((f, d) => {
        if (!FACTOR.test(f)) throw new Error(`sharding rule: factor '${f}' must be one letter from i to z (Shardy names factors i, j, k, ... in order)`);
        if (r.factorSizes[f] !== avals[i]!.shape[d]) throw new Error(`sharding rule: factor ${f} is ${r.factorSizes[f]}, but ${what} ${i} dim ${d} is ${avals[i]!.shape[d]}`);
      });
    });
  };
  check(r.operands, ins, 'operand');
  check(r.results, outs, 'result');
  const list = (ls: readonly (readonly string[])[]) => ls.map((fs) => `[${fs.join(', ')}]`).join(', ');
  const sizes = Object.keys(r.factorSizes).sort().map((f) => `${f}=${r.factorSizes[f]}`).join(', ');
  const extra = [
    r.reduction?.length ? ` reduction={${r.reduction.join(', ')}}` : '',
    r.needReplication?.length ? ` need_replication={${r.needReplication.join(', ')}}` : '',
  ].join('');
  return `#sdy.op_sharding_rule<(${list(r.operands)})->(${list(r.results)}) {${sizes}}${extra}>`;
}

/** A 1-D device mesh: `size` devices along the axis `axis`. */
export interface Mesh {
  readonly axis: string;
  readonly size: number;
}

/** Per dimension, the mesh axis it is split over (null: not split). */
export type DimSharding = readonly (string | null)[];

export const meshText = (m: Mesh): string => `sdy.mesh @mesh = <[${mlirString(m.axis)}=${m.size}]>`;
export const shardingText = (dims: DimSharding): string =>
  `#sdy.sharding<@mesh, [${dims.map((a) => (a === null ? '{}' : `{${mlirString(a)}}`)).join(', ')}]>`;
