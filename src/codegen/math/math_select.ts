// Math lowering: engineer M's sequences (src/codegen/math/math.ts); math_fallback.ts stays as the
// simple reference we started with.
import type { UnaryFn } from '../../ir/ops.js';
import type { PtxEmitter } from '../emitter.js';
import { emitUnaryMath } from './math.js';

export function unaryMath(e: PtxEmitter, fn: UnaryFn, dtype: 'f32' | 'f64', dst: string, src: string, precise: boolean): void {
  emitUnaryMath(e, fn, dtype, dst, src, precise);
}
