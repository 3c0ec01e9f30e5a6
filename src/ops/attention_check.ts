// Checks shared by the attention ops (prefill, paged decode, appendKV, the cache).
import { OpsError } from './check.js';

/** Head dims the kernels take: powers of two from 16 to 256 (tiles are powers of two; dot needs K >= 16). */
export function checkHeadDim(op: string, arg: string, dh: number): void {
  if (!Number.isInteger(dh) || dh < 16 || dh > 256 || (dh & (dh - 1)) !== 0) {
    throw new OpsError('E_OPS_SHAPE', op, arg, `head dim ${dh} is not supported (a power of two from 16 to 256: 64 and 128 are the tuned ones)`);
  }
}
