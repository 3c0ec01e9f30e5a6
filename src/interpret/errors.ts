// Errors raised while interpreting a kernel. Codes: E_OOB (bad memory access), E_ASSERT (a
// deviceAssert failed), E_INTERPRET (an op the interpreter cannot run, or bad launch input).
import type { Loc, Op } from '../ir/ops.js';
import { TesseraError } from '../ir/errors.js';

export interface InterpretErrorInfo {
  readonly kernel: string;
  readonly loc?: Loc;
  /** Program id (x, y, z) that failed. */
  readonly pid?: readonly number[];
  /** Flat lane index within the op's tile. */
  readonly lane?: number;
  readonly address?: number;
}

export class InterpretError extends TesseraError {
  readonly kernel: string;
  readonly loc?: Loc;
  readonly pid?: readonly number[];
  readonly lane?: number;
  readonly address?: number;
  constructor(code: string, detail: string, info: InterpretErrorInfo) {
    super(code, `kernel '${info.kernel}': ${detail}${info.loc ? ` (at ${locString(info.loc)})` : ''}`);
    this.kernel = info.kernel;
    if (info.loc) this.loc = info.loc;
    if (info.pid) this.pid = info.pid;
    if (info.lane !== undefined) this.lane = info.lane;
    if (info.address !== undefined) this.address = info.address;
  }
}

export const locString = (loc: Loc): string => `${loc.file}:${loc.line}:${loc.col}`;

/** A compile-time refusal: the op cannot run on these types. */
export function unsupported(kernel: string, op: Op, detail: string): InterpretError {
  return new InterpretError('E_INTERPRET', `op '${op.kind}': ${detail}`, { kernel, ...(op.loc ? { loc: op.loc } : {}) });
}
