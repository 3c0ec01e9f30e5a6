// Ops that create tiles: program ids, ranges, constants.
import type { DType } from '../ir/types.js';
import { isPow2 } from '../ir/types.js';
import { checkDType, checkShape, constantIn, describe, isScalar, type Scalar } from './semantic.js';
import { literalDType } from './promote.js';
import type { Tile } from './tile.js';
import { api, type Trace } from './trace.js';

export function checkGridAxis(t: Trace, axis: unknown): 0 | 1 | 2 {
  if (axis !== 0 && axis !== 1 && axis !== 2) return t.fail('E_AXIS', `grid axis must be 0, 1 or 2, got ${describe(axis)}`);
  return axis;
}

/** Index of this program along a grid axis (i32 scalar). */
export const programId = (axis: 0 | 1 | 2 = 0): Tile =>
  api('programId', (t) => t.emit('program_id', [], { elem: 'i32', shape: [] }, { axis: checkGridAxis(t, axis) }));

/** Number of programs along a grid axis (i32 scalar). */
export const numPrograms = (axis: 0 | 1 | 2 = 0): Tile =>
  api('numPrograms', (t) => t.emit('num_programs', [], { elem: 'i32', shape: [] }, { axis: checkGridAxis(t, axis) }));

/**
 * This program's rank within its thread block cluster (sm_90 `%cluster_ctarank`: x fastest), an
 * i32 scalar; 0 when the launch has no `clusterDims`. See docs/language.md, "Clusters".
 */
export const clusterCtaRank = (): Tile => api('clusterCtaRank', (t) => t.emit('cluster_cta_rank', [], { elem: 'i32', shape: [] }, {}));

/** i32 tile [start, start+1, ..., end-1]; end - start must be a power of two. */
export const arange = (start: number, end: number): Tile =>
  api('arange', (t) => {
    if (!Number.isInteger(start) || !Number.isInteger(end)) {
      return t.fail('E_ARG', `arange bounds must be JS integers known at trace time, got ${describe(start)} and ${describe(end)}`);
    }
    if (start < -(2 ** 31) || end > 2 ** 31) return t.fail('E_ARG', `arange bounds must fit in i32, got ${start}..${end}`);
    const n = end - start;
    if (!isPow2(n)) return t.fail('E_SHAPE', `arange(${start}, ${end}) has ${n} elements; the length must be a power of two`);
    return t.emit('arange', [], { elem: 'i32', shape: [n] }, { start, end });
  });

/** A tile of `shape` filled with `value` (dtype defaults to the literal's: i32, f32 or bool). */
export const full = (shape: readonly number[], value: Scalar, dtype?: DType): Tile =>
  api('full', (t) => {
    if (!isScalar(value)) return t.fail('E_ARG', `fill value must be a JS number/boolean, got ${describe(value)}`);
    const d = dtype === undefined ? literalDType(value) : checkDType(t, dtype, 'dtype');
    return constantIn(t, value, { elem: d, shape: checkShape(t, shape, 'shape') }, 'fill value');
  });

export const zeros = (shape: readonly number[], dtype: DType = 'f32'): Tile => api('zeros', () => full(shape, 0, dtype));
