// Errors raised by the compiler back half (passes, codegen, ptxas). Codes are stable:
// E_COMPILE (bad input or unsupported op/dtype, naming the kernel and op), E_PTXAS (ptxas
// missing or rejecting the PTX; carries the log).
import { TesseraError } from '../ir/errors.js';
import type { Loc } from '../ir/ops.js';

export class CompileError extends TesseraError {
  readonly kernel: string;
  readonly opKind?: string;
  readonly loc?: Loc;
  constructor(kernel: string, detail: string, opKind?: string, loc?: Loc) {
    const at = loc ? ` (at ${loc.file}:${loc.line}:${loc.col})` : '';
    const op = opKind ? `, op '${opKind}'` : '';
    super('E_COMPILE', `compile: kernel '${kernel}'${op}: ${detail}${at}`);
    this.kernel = kernel;
    if (opKind !== undefined) this.opKind = opKind;
    if (loc !== undefined) this.loc = loc;
  }
}

export class PtxasError extends TesseraError {
  readonly log: string;
  constructor(message: string, log = '') {
    super('E_PTXAS', log ? `${message}\n${log}` : message);
    this.log = log;
  }
}
