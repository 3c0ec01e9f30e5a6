// The few array primitives the transformations need: reshape and transpose (to move a batch
// dim), zeros (a cotangent nobody produced). Each has its rules beside it.
import { numel } from '../ir/types.js';
import { describeAval, shaped } from './aval.js';
import { emptyLike, type EagerArray } from './eager.js';
import { PrimitiveError } from './errors.js';
import { MLIR_ELEMENT, tensorType } from './mlir_text.js';
import { definePrimitive, type Primitive } from './primitive.js';

export const reshapeP: Primitive<{ readonly shape: readonly number[] }> = definePrimitive<{ readonly shape: readonly number[] }>({
  name: 'reshape',
  abstractEval([x], { shape }) {
    if (!x || numel(shape) !== numel(x.shape)) throw new PrimitiveError('E_SHAPE', 'reshape', `cannot reshape ${x ? describeAval(x) : 'nothing'} to [${shape.join(', ')}]`);
    return [shaped(shape, x.dtype)];
  },
  impl: async ([x], { shape }) => [{ aval: shaped(shape, x!.aval.dtype), data: x!.data.slice() }],
  lowering: (ctx, [x]) => ctx.op(ctx.avalsOut, `stablehlo.reshape ${x} : (${tensorType(ctx.avalsIn[0]!)}) -> ${tensorType(ctx.avalsOut[0]!)}`),
  batch: ([x], [d], { shape }) => {
    const moved = d === 0 ? x! : transposeP.bind([x!], { perm: moveToFront(x!.aval.shape.length, d!) })[0]!;
    return { outs: reshapeP.bind([moved], { shape: [moved.aval.shape[0]!, ...shape] }), dims: [0] };
  },
});

/** The permutation that moves dim `d` of a rank-r array to the front. */
export const moveToFront = (r: number, d: number): number[] => [d, ...Array.from({ length: r }, (_, i) => i).filter((i) => i !== d)];

export const transposeP = definePrimitive<{ readonly perm: readonly number[] }>({
  name: 'transpose',
  abstractEval([x], { perm }) {
    if (!x || perm.length !== x.shape.length || [...perm].sort((a, b) => a - b).some((v, i) => v !== i)) {
      throw new PrimitiveError('E_ARG', 'transpose', `[${perm.join(', ')}] is not a permutation of the dims of ${x ? describeAval(x) : 'nothing'}`);
    }
    return [shaped(perm.map((p) => x.shape[p]!), x.dtype)];
  },
  async impl([x], { perm }) {
    const out = emptyLike(shaped(perm.map((p) => x!.aval.shape[p]!), x!.aval.dtype));
    const sh = x!.aval.shape;
    const strides = sh.map((_, i) => numel(sh.slice(i + 1)));
    const idx = new Array<number>(sh.length).fill(0);
    const src = x!.data as unknown as { [i: number]: number | bigint };
    const dst = out.data as unknown as { [i: number]: number | bigint };
    for (let k = 0; k < out.data.length; k++) {
      dst[k] = src[perm.reduce((at, p, i) => at + idx[i]! * strides[p]!, 0)]!;
      for (let i = idx.length - 1; i >= 0; i--) {
        if (++idx[i]! < out.aval.shape[i]!) break;
        idx[i] = 0;
      }
    }
    return [out];
  },
  lowering: (ctx, [x], { perm }) =>
    ctx.op(ctx.avalsOut, `stablehlo.transpose ${x}, dims = [${perm.join(', ')}] : (${tensorType(ctx.avalsIn[0]!)}) -> ${tensorType(ctx.avalsOut[0]!)}`),
});

export const zerosP = definePrimitive<{ readonly like: { readonly shape: readonly number[]; readonly dtype: EagerArray['aval']['dtype'] } }>({
  name: 'zeros',
  abstractEval: (_ins, { like }) => [shaped(like.shape, like.dtype)],
  impl: async (_ins, { like }) => [emptyLike(like)],
  lowering(ctx, _ins, { like }) {
    const zero = like.dtype === 'bool' ? 'false' : MLIR_ELEMENT[like.dtype].includes('f') ? '0.000000e+00' : '0';
    return ctx.op(ctx.avalsOut, `stablehlo.constant dense<${zero}> : ${tensorType(like)}`);
  },
});
