// Errors of the native devices. `code` is the driver's error name for CUDA failures
// ('CUDA_ERROR_INVALID_VALUE', ...) or one of the addon's own codes:
//   E_NO_DRIVER  the driver library cannot be loaded (dlopen failed; message has dlerror's text)
//   E_NO_SYMBOL  the library lacks an entry point        E_NO_ADDON  the .node file is missing
//   E_ARG        wrong argument type                     E_RANGE     size/offset/value out of range
//   E_FREED      handle already freed/unloaded/destroyed E_CLOSED    driver was closed
//   E_BUSY       resource in use by async work           E_PARAM     kernel arguments don't match
import { TesseraError } from '../../ir/errors.js';

export class NativeDeviceError extends TesseraError {
  /** The driver entry point that failed, for CUDA errors. */
  readonly call?: string;
  /** The numeric CUresult, for CUDA errors. */
  readonly cuResult?: number;
  constructor(code: string, message: string, options?: { cause?: unknown; call?: string; cuResult?: number }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.call !== undefined) this.call = options.call;
    if (options?.cuResult !== undefined) this.cuResult = options.cuResult;
  }
}

interface AddonError { code?: unknown; message?: unknown; call?: unknown; cuResult?: unknown }

/** Re-throws an addon error as a NativeDeviceError with the same code. */
export function rethrow(e: unknown, context?: string): never {
  if (e instanceof NativeDeviceError) throw e;
  const a = (e ?? {}) as AddonError;
  if (typeof a.code === 'string' && typeof a.message === 'string') {
    const opts: { cause: unknown; call?: string; cuResult?: number } = { cause: e };
    if (typeof a.call === 'string') opts.call = a.call;
    if (typeof a.cuResult === 'number') opts.cuResult = a.cuResult;
    throw new NativeDeviceError(a.code, context ? `${context}: ${a.message}` : a.message, opts);
  }
  throw e;
}

/** Runs an addon call, converting its errors. */
export function native<T>(fn: () => T, context?: string): T {
  try {
    return fn();
  } catch (e) {
    rethrow(e, context);
  }
}

/** Awaits an addon promise, converting its errors. */
export async function nativeAsync<T>(p: () => Promise<T>, context?: string): Promise<T> {
  try {
    return await p();
  } catch (e) {
    rethrow(e, context);
  }
}
