// Public error classes. Every error Tessera throws at a user derives from `TesseraError` and
// carries a stable `code` (tests and callers match on the code, never on the message text).
// It sits here, at the bottom of the stages, so every folder can subclass it.
import type { Loc } from './ops.js';

export class TesseraError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

// The verifier's error: a TesseraError with code 'E_IR_VERIFY' that names the function, the op
// (kind and index path), the user's source location when the op has one, and what is wrong.

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
