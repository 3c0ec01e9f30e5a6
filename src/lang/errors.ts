// The kernel language's errors: tracing errors with the kernel, op and user's source location.
// Their base, `TesseraError`, sits at the bottom of the stages (ir/errors.ts).
import type { Loc } from '../ir/ops.js';
import { TesseraError } from '../ir/errors.js';

/** Context attached to errors raised while tracing a kernel. */
export interface KernelErrorInfo {
  readonly kernel?: string;
  /** The public op or API the user called (e.g. 'store', 'defineKernel'). */
  readonly op?: string;
  /** The user's source location, when one could be found on the stack. */
  readonly loc?: Loc;
}

/**
 * An error in a kernel definition or trace. The message reads
 * `kernel 'add', op 'store': <what went wrong> (at file:line:col)`.
 * Codes: E_ARG (bad argument/spec), E_TYPE (dtype), E_SHAPE (shape/broadcast/pow2),
 * E_AXIS (bad axis), E_TRACE (misuse of tracing: outside a kernel, tile from another trace),
 * E_DESCRIPTOR (a tensor descriptor TMA could not take: see docs/language.md).
 */
export class KernelError extends TesseraError {
  readonly kernel?: string;
  readonly op?: string;
  readonly loc?: Loc;
  readonly detail: string;
  constructor(code: string, detail: string, info: KernelErrorInfo = {}) {
    super(code, formatMessage(detail, info));
    this.detail = detail;
    if (info.kernel !== undefined) this.kernel = info.kernel;
    if (info.op !== undefined) this.op = info.op;
    if (info.loc !== undefined) this.loc = info.loc;
  }
}

export const formatLoc = (loc: Loc): string => `${loc.file}:${loc.line}:${loc.col}`;

function formatMessage(detail: string, info: KernelErrorInfo): string {
  const where: string[] = [];
  if (info.kernel !== undefined) where.push(`kernel '${info.kernel}'`);
  if (info.op !== undefined) where.push(`op '${info.op}'`);
  const head = where.length ? `${where.join(', ')}: ` : '';
  const tail = info.loc ? ` (at ${formatLoc(info.loc)})` : '';
  return `${head}${detail}${tail}`;
}
