// dot with inputPrecision 'tf32x3' (Triton's 3xTF32): f32 accuracy, close to it, from three
// tf32 tensor-core products. Each f32 operand x splits exactly into big = x with its low 13
// mantissa bits cleared (a tf32 value) and small = x - big (exact in f32, |small| < 2^-10 |x|);
// then a·b ≈ big_a·big_b + big_a·small_b + small_a·big_b, the small terms summed first; small·small
// (< 2^-20 |a||b|) is dropped and each small is rounded to tf32 by its dot (2^-11 relative).
// Built from existing ops, so the interpreter and the compiled code compute the same algorithm.
import type { Tile } from './tile.js';
import { binaryIn, bitcastIn } from './semantic.js';
import type { Trace } from './trace.js';

/** (big, small) halves of an f32 tile: big exactly representable in tf32, big + small = x. */
function splitTf32(t: Trace, x: Tile): [Tile, Tile] {
  const big = bitcastIn(t, binaryIn(t, 'and', bitcastIn(t, x, 'u32'), 0xffffe000), 'f32');
  return [big, binaryIn(t, 'sub', x, big)];
}

/** acc + a·b by 3xTF32; a, b f32 [M,K] and [K,N], acc [M,N]. */
export function dotTf32x3(t: Trace, a: Tile, b: Tile, acc: Tile): Tile {
  const [aBig, aSmall] = splitTf32(t, a);
  const [bBig, bSmall] = splitTf32(t, b);
  const shape = acc.shape;
  const one = (x: Tile, y: Tile, c: Tile): Tile => t.emit('dot', [x, y, c], { elem: c.dtype, shape: [...shape] }, { inputPrecision: 'tf32' });
  return one(aBig, bBig, one(aBig, bSmall, one(aSmall, bBig, acc)));
}
