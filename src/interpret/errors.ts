// Errors raised while interpreting a kernel. Codes: E_OOB (bad memory access), E_ASSERT (a
// deviceAssert failed), E_INTERPRET (an op the interpreter cannot run, or bad launch input).
import type { Loc, Op } from '../ir/ops.js';
import { TesseraError } from '../ir/errors.js';
import { indexString } from './arrays.js';

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

/**
 * A failed deviceAssert (code E_ASSERT), as the interpreter raises it and as the native devices
 * report it (runtime/native/device_prints.ts): the same message, program id, lane and source line.
 * On the real driver the program and lane are not known to the host (`pid`/`lane` absent).
 */
export class DeviceAssertError extends InterpretError {
  readonly assertMessage: string;
  constructor(detail: string, message: string, info: InterpretErrorInfo, cause?: unknown) {
    super('E_ASSERT', detail, info);
    this.assertMessage = message;
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}

/** The interpreter's wording of a failed deviceAssert at (pid, lane) of a tile of `shape`. */
export function assertDetail(pid: readonly number[], lane: number, shape: readonly number[], message: string): string {
  const idx = shape.length ? ` [${indexString(shape, lane)}]` : '';
  return `assertion failed in program (${pid.join(', ')}), lane ${lane}${idx}: ${message}`;
}

export const locString = (loc: Loc): string => `${loc.file}:${loc.line}:${loc.col}`;

/** A compile-time refusal: the op cannot run on these types. */
export function unsupported(kernel: string, op: Op, detail: string): InterpretError {
  return new InterpretError('E_INTERPRET', `op '${op.kind}': ${detail}`, { kernel, ...(op.loc ? { loc: op.loc } : {}) });
}
