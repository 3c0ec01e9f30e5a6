// Option objects of the language's ops: a name an op does not know is an error naming both (a
// misspelt option silently ignored would change what a kernel computes without a word).
import { describe } from './semantic.js';
import type { Trace } from './trace.js';

/** `opts` as a record (undefined: none); anything but a plain object, or an unknown name, is E_ARG. */
export function checkOptionNames(t: Trace, op: string, opts: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) return t.fail('E_ARG', `${op}: options must be an object, got ${describe(opts)}`);
  for (const k of Object.keys(opts)) {
    if (!allowed.includes(k)) t.fail('E_ARG', `${op}: unknown option '${k}' (${op} takes: ${allowed.join(', ')})`);
  }
  return opts as Record<string, unknown>;
}
