// dot: 2-D matrix product with an accumulator; 3-D operands are a batch of them (Triton's tl.dot on
// [B,M,K] x [B,K,N] -> [B,M,N]).
import type { DType } from '../ir/types.js';
import { isBool, isFloat, isFp8, isInt, isMxDType, isPtr, sameShape } from '../ir/types.js';
import { dotTf32x3 } from './dot_tf32x3.js';
import { promoteInts } from './promote.js';
import { broadcastToIn, castIn, checkDType, constantIn, describe, toTileIn, type TileLike } from './semantic.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

/**
 * Options of `dot`. Inputs: any numeric dtypes (promoted to one), or two fp8 tiles — the same
 * format or f8e4m3 with f8e5m2, not promoted — into an f32 or f16 accumulator.
 */
export interface DotOptions {
  /** Accumulator [M, N] ([B, M, N] for a batched dot); its dtype is the result dtype. */
  acc?: TileLike;
  /** Result dtype when there is no `acc` (default: f32 for float inputs, i32 for integer inputs). */
  outDtype?: DType;
  /**
   * f32 inputs only: 'tf32' (the default, as in Triton) rounds each input to tf32 (10 mantissa
   * bits, to nearest with ties away from zero) so the dot can run on tensor cores; 'ieee' keeps
   * the exact f32 inputs (FMA); 'tf32x3' (Triton's 3xTF32) sums three tf32 tensor-core products
   * of the operands' tf32 halves (src/lang/dot_tf32x3.ts), near-f32 accuracy. Other input dtypes
   * ignore it.
   */
  inputPrecision?: 'ieee' | 'tf32' | 'tf32x3';
}

/** Common input dtype of a and b: wider float wins; f16 with bf16 -> f32; ints by integer promotion. */
function inputDType(t: Trace, a: DType, b: DType): DType {
  if (a === b) return a;
  if (isFloat(a) || isFloat(b)) {
    const rank = (d: DType) => (d === 'f64' ? 3 : d === 'f32' ? 2 : isFloat(d) ? 1 : 0);
    if (rank(a) === 1 && rank(b) === 1) return 'f32';
    return rank(a) >= rank(b) ? a : b;
  }
  return promoteInts(a, b);
}

export const dot = (a: Tile, b: Tile, opts: DotOptions = {}): Tile =>
  api('dot', (t) => {
    if (typeof opts !== 'object' || opts === null) return t.fail('E_ARG', `options must be an object, got ${describe(opts)}`);
    for (const k of Object.keys(opts)) if (!['acc', 'outDtype', 'inputPrecision'].includes(k)) t.fail('E_ARG', `unknown option '${k}' (allowed: acc, outDtype, inputPrecision)`);
    const at = toTileIn(t, a, 'a'), bt = toTileIn(t, b, 'b');
    for (const [name, x] of [['a', at], ['b', bt]] as const) {
      if (x.rank !== 2 && x.rank !== 3) t.fail('E_SHAPE', `dot needs 2-D tiles (or 3-D for a batched dot); ${name} has shape [${x.shape.join(', ')}]`);
      if (isPtr(x.dtype) || isBool(x.dtype)) t.fail('E_TYPE', `dot does not take ${x.dtype} tiles (${name})`);
    }
    if (at.rank !== bt.rank) t.fail('E_SHAPE', `dot operands must both be 2-D or both 3-D (batched); a has shape [${at.shape.join(', ')}], b has [${bt.shape.join(', ')}]`);
    // batched: [B, M, K] x [B, K, N]; `batch` is [B] or [] and prefixes every shape below
    const batch = at.rank === 3 ? [at.shape[0]!] : [];
    if (at.rank === 3 && bt.shape[0] !== at.shape[0]) t.fail('E_SHAPE', `batched dot: a is [${at.shape.join(', ')}] and b is [${bt.shape.join(', ')}]; their batch dims (dim 0) must be equal`);
    // fp8 dots: both inputs fp8 (the same type or e4m3 x e5m2, as the mma instructions take them),
    // never promoted, accumulating in f32 or f16 (docs/semantics.md)
    for (const d of [at.dtype, bt.dtype] as DType[]) {
      if (isMxDType(d)) t.fail('E_TYPE', `dot does not take ${d} operands (a storage type): use dotScaled for MX operands, or cast with .to('bf16') first`);
    }
    const fp8 = isFp8(at.dtype as DType) || isFp8(bt.dtype as DType);
    if (fp8 && !(isFp8(at.dtype as DType) && isFp8(bt.dtype as DType))) {
      t.fail('E_TYPE', `dot of ${at.dtype} and ${bt.dtype}: an fp8 dot takes two fp8 operands (f8e4m3 or f8e5m2); cast the other operand to fp8, or both with .to('f16')`);
    }
    const [m, k] = at.shape.slice(-2) as [number, number];
    const [k2, n] = bt.shape.slice(-2) as [number, number];
    if (k !== k2) {
      return batch.length
        ? t.fail('E_SHAPE', `batched dot shape mismatch: a is [${at.shape.join(', ')}] and b is [${bt.shape.join(', ')}]; a's dim 2 must equal b's dim 1`)
        : t.fail('E_SHAPE', `dot shape mismatch: a is [${m}, ${k}] and b is [${k2}, ${n}]; a's dim 1 must equal b's dim 0`);
    }
    const outShape = [...batch, m, n];
    const inT = fp8 ? (at.dtype as DType) : inputDType(t, at.dtype as DType, bt.dtype as DType);
    const prec = opts.inputPrecision ?? (inT === 'f32' ? 'tf32' : 'ieee');
    if (prec !== 'ieee' && prec !== 'tf32' && prec !== 'tf32x3') return t.fail('E_ARG', `inputPrecision must be 'ieee', 'tf32' or 'tf32x3', got ${describe(prec)}`);
    let acc: Tile;
    if (opts.acc !== undefined) {
      const ac = toTileIn(t, opts.acc, 'acc');
      if (opts.outDtype !== undefined && checkDType(t, opts.outDtype, 'outDtype') !== ac.dtype) {
        return t.fail('E_TYPE', `outDtype ${opts.outDtype} differs from the accumulator's dtype ${ac.dtype}`);
      }
      if (ac.rank === outShape.length && !sameShape(ac.shape, outShape)) return t.fail('E_SHAPE', `dot accumulator has shape [${ac.shape.join(', ')}], expected [${outShape.join(', ')}]`);
      acc = broadcastToIn(t, ac, outShape, 'dot accumulator');
    } else {
      const out = opts.outDtype !== undefined ? checkDType(t, opts.outDtype, 'outDtype') : isInt(inT) ? 'i32' : inT === 'f64' ? 'f64' : 'f32';
      acc = constantIn(t, 0, { elem: out, shape: outShape });
    }
    if (isBool(acc.dtype) || isPtr(acc.dtype)) return t.fail('E_TYPE', `dot accumulator cannot be ${acc.dtype}`);
    if (isFloat(inT) !== isFloat(acc.dtype)) return t.fail('E_TYPE', `dot of ${inT} inputs cannot accumulate in ${acc.dtype}`);
    if (fp8) {
      if (acc.dtype !== 'f32' && acc.dtype !== 'f16') return t.fail('E_TYPE', `dot of ${at.dtype} x ${bt.dtype} accumulates in f32 or f16, not ${acc.dtype}`);
      return t.emit('dot', [at, bt, acc], { elem: acc.dtype, shape: outShape }, { inputPrecision: 'ieee' });
    }
    if (prec === 'tf32x3') {
      if (inT === 'f32') return dotTf32x3(t, castIn(t, at, inT), castIn(t, bt, inT), acc);
      return t.emit('dot', [castIn(t, at, inT), castIn(t, bt, inT), acc], { elem: acc.dtype, shape: outShape }, { inputPrecision: 'ieee' });
    }
    return t.emit('dot', [castIn(t, at, inT), castIn(t, bt, inT), acc], { elem: acc.dtype, shape: outShape }, { inputPrecision: prec });
  });
