// Compiles a Func into closures once (cached per Func). One rule per op kind, in an exhaustive
// table: a new op kind in src/ir/ops.ts is a compile error here until it gets a rule.
import type { Block, Func, Op, OpKind } from '../ir/ops.js';
import type { CompiledBlock, Compiler, Rule, Step } from './context.js';
import { unsupported } from './errors.js';
import {
  arangeRule, binaryRule, bitcastRule, castRule, cmpRule, constRule, fmaRule, hintRule, numProgramsRule, clusterCtaRankRule,
  programIdRule, selectRule, splatRule, unaryRule,
} from './rules-elementwise.js';
import { addptrRule, atomicCasRule, atomicRmwRule, loadRule, storeRule } from './rules-memory.js';
import { descLoadRule, descStoreRule } from './rules-descriptor.js';
import { dotRule, reduceRule, scanRule } from './rules-reduce.js';
import { dotScaledRule } from './rules-dot-scaled.js';
import { sortRule } from './rules-sort.js';
import { gatherRule } from './rules-gather.js';
import { histogramRule } from './rules-histogram.js';
import { broadcastRule, expandDimsRule, joinRule, reshapeRule, splitRule, transRule } from './rules-shape.js';
import { inlineAsmRule } from './rules-inline-asm.js';
import { assertRule, forRule, ifRule, printRule, returnRule, yieldRule } from './rules-control.js';
import { whileRule } from './rules-while.js';
import { assumeRule, exitIfRule } from './rules-exit.js';

const RULES: { [K in OpKind]: Rule<K> } = {
  const: constRule,
  program_id: programIdRule,
  num_programs: numProgramsRule,
  cluster_cta_rank: clusterCtaRankRule,
  arange: arangeRule,
  splat: splatRule,
  broadcast: broadcastRule,
  expand_dims: expandDimsRule,
  reshape: reshapeRule,
  trans: transRule,
  join: joinRule,
  split: splitRule,
  unary: unaryRule,
  binary: binaryRule,
  cmp: cmpRule,
  select: selectRule,
  fma: fmaRule,
  cast: castRule,
  bitcast: bitcastRule,
  addptr: addptrRule,
  load: loadRule,
  store: storeRule,
  atomic_rmw: atomicRmwRule,
  atomic_cas: atomicCasRule,
  desc_load: descLoadRule,
  desc_store: descStoreRule,
  reduce: reduceRule,
  scan: scanRule,
  sort: sortRule,
  gather: gatherRule,
  histogram: histogramRule,
  dot: dotRule,
  dot_scaled: dotScaledRule,
  inline_asm: inlineAsmRule,
  for: forRule,
  if: ifRule,
  while: whileRule,
  exit_if: exitIfRule,
  assume: assumeRule,
  yield: yieldRule,
  hint: hintRule,
  print: printRule,
  assert: assertRule,
  return: returnRule,
};

/** Ops whose every result lane depends only on the same lane of the operands. */
const LANEWISE = new Set<OpKind>(['const', 'unary', 'binary', 'cmp', 'select', 'fma', 'cast', 'bitcast', 'hint', 'yield']);

export interface CompiledFunc {
  readonly body: CompiledBlock;
  /** Size of the environment: one slot per IR value id. */
  readonly slots: number;
}

class ClosureCompiler implements Compiler {
  private readonly blocks = new Map<Block, CompiledBlock>();
  maxId = 0;
  constructor(readonly kernel: string) {}

  compileBlock(block: Block): CompiledBlock {
    const done = this.blocks.get(block);
    if (done) return done;
    for (const a of block.args) this.maxId = Math.max(this.maxId, a.id);
    const steps: Step[] = [];
    let outs: number[] = [];
    for (const op of block.ops) {
      for (const r of op.results) this.maxId = Math.max(this.maxId, r.id);
      if (op.kind === 'yield' || op.kind === 'return') {
        outs = op.operands.map((v) => v.id);
        continue;
      }
      const rule = RULES[op.kind] as Rule<OpKind> | undefined;
      if (!rule) throw unsupported(this.kernel, op, 'unknown op kind');
      steps.push(rule(op as Op<OpKind>, this));
    }
    const lanewise = block.ops.every((op) => LANEWISE.has(op.kind));
    const args = block.args.map((a) => a.id);
    const compiled: CompiledBlock = {
      block,
      lanewise,
      run(cx, vals) {
        const env = cx.env;
        for (let i = 0; i < args.length; i++) env[args[i]!] = vals[i]!;
        for (let i = 0; i < steps.length; i++) steps[i]!(cx);
        return outs.map((id) => env[id]!);
      },
    };
    this.blocks.set(block, compiled);
    return compiled;
  }
}

const cache = new WeakMap<Func, CompiledFunc>();

export function compileFunc(func: Func): CompiledFunc {
  let c = cache.get(func);
  if (!c) {
    const compiler = new ClosureCompiler(func.name);
    const body = compiler.compileBlock(func.body);
    c = { body, slots: compiler.maxId + 1 };
    cache.set(func, c);
  }
  return c;
}
