// The verifier's error: a TesseraError with code 'E_IR_VERIFY' that names the function, the op
// (kind and index path), the user's source location when the op has one, and what is wrong.
import { TesseraError } from '../lang/errors.js';
import type { Loc } from './ops.js';

export class IRVerifyError extends TesseraError {
  readonly func: string;
  /** Index path of the op, e.g. `4/r0/2` (op 4 of the body, its region 0, op 2 there). */
  readonly path: string;
  readonly opKind: string;
  readonly loc?: Loc;
  readonly detail: string;
  constructor(func: string, path: string, opKind: string, loc: Loc | undefined, detail: string) {
    const at = loc ? ` at ${loc.file}:${loc.line}:${loc.col}` : '';
    super('E_IR_VERIFY', `IR verify: func '${func}', op ${path} '${opKind}'${at}: ${detail}`);
    this.func = func;
    this.path = path;
    this.opKind = opKind;
    if (loc) this.loc = loc;
    this.detail = detail;
  }
}
