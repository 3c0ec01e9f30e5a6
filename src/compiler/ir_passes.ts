// The IR-level pass pipeline, as a script: the passes run in the order listed, and the IR is
// verified before the first pass and after the last; a failure is traced to the pass that broke the IR.
import type { Func } from '../ir/ops.js';
import { verify } from '../ir/verify.js';
import { canonicalize } from './canonicalize.js';
import { closeCarriedInductions } from './carried_induction.js';
import { cse } from './cse.js';
import { dce } from './dce.js';
import { licm } from './licm.js';

export type IRPass = (f: Func) => Func;

/** [stage name, pass]. Stage names are unique so each stage's IR can be stored by name. */
export const IR_PASSES: readonly (readonly [string, IRPass])[] = [
  ['canonicalize', canonicalize], // fold constants, drop identities, so CSE sees canonical forms
  ['cse', cse],                   // merge equal pure ops (tracing repeats index math a lot)
  ['dce', dce],                   // drop what folding and merging left unused
  ['licm', licm],                 // hoist invariant pure ops out of device loops
  ['carried', closeCarriedInductions], // pointers walked by a dot loop read as iv closed forms (pipelinable)
  ['canonicalize2', canonicalize], // hoisting may expose new folds (e.g. invariant if conditions)
  ['cse2', cse],                  // hoisted copies from different loops can now merge
  ['dce2', dce],
];

export interface IRPassOptions {
  /** Called with the input (stage 'input') and with the IR after each stage. */
  readonly dump?: (stage: string, f: Func) => void;
  /** The pipeline to run (IR_PASSES unless given; tests use their own). */
  readonly passes?: readonly (readonly [string, IRPass])[];
}

export function runIRPasses(f: Func, opts: IRPassOptions = {}): Func {
  verify(f);
  // Verifying after every pass was a large share of compile time. Passes never mutate their
  // input, so run them all and verify the result once; if anything fails, run again from the
  // input verifying after each pass, which throws the same error naming the first bad pass
  // (and dumps the stages before it, as before).
  const passes = opts.passes ?? IR_PASSES;
  const out: Func[] = [];
  let cur = f;
  try {
    for (const [, pass] of passes) out.push((cur = pass(cur)));
    verify(cur);
  } catch (e) {
    runChecked(f, passes, opts.dump);
    throw e;
  }
  if (opts.dump) {
    opts.dump('input', f);
    passes.forEach(([stage], i) => opts.dump!(stage, out[i]!));
  }
  return cur;
}

/** The passes with the IR verified after each one (a pass that breaks the IR is named). */
function runChecked(f: Func, passes: readonly (readonly [string, IRPass])[], dump?: (stage: string, f: Func) => void): Func {
  dump?.('input', f);
  let cur = f;
  for (const [stage, pass] of passes) {
    cur = pass(cur);
    try {
      verify(cur);
    } catch (e) {
      if (e instanceof Error) e.message = `after IR pass '${stage}': ${e.message}`;
      throw e;
    }
    dump?.(stage, cur);
  }
  return cur;
}
