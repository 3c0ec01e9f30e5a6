// Structural hash of a function for the compile cache: sha256 of the printed form without
// source locations. The printed form renumbers values and holds the name, the parameters, the
// constexprs and every attribute, so two functions hash equal exactly when they print equal.
import { createHash } from 'node:crypto';
import type { Func } from './ops.js';
import { printFunc } from './print.js';

export function hashFunc(f: Func): string {
  return createHash('sha256').update(printFunc(f, { locs: false })).digest('hex');
}
