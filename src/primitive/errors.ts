// Errors of the primitive layer: a stable code, the primitive's name and what was wrong.
import { TesseraError } from '../ir/errors.js';

/**
 * Codes: E_ARG (bad argument or params), E_SHAPE / E_TYPE (abstract evaluation rejected the
 * inputs), E_RULE (a rule the primitive does not have, e.g. no vjp), E_TRACE (a traced value used
 * outside its trace), E_UNAVAILABLE (the eager path's native pieces are missing).
 */
export class PrimitiveError extends TesseraError {
  constructor(code: string, readonly primitive: string, detail: string, options?: { cause?: unknown }) {
    super(code, `primitive '${primitive}': ${detail}`, options);
  }
}
