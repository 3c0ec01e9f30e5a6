// Vector add in both styles: a Triton-style pointer kernel and a Pallas-style pallasCall.
import { arange, array, BlockSpec, cdiv, constexpr, kernel, load, pallasCall, programId, ptr, store, type Ref } from '../src/index.js';

/** out[i] = x[i] + y[i] for i < n, BLOCK elements per program. */
export const addKernel = kernel(
  { name: 'add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, y, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    store(out.add(offs), load(x.add(offs), { mask }).add(load(y.add(offs), { mask })), { mask });
  },
);

export async function vectorAdd(x: Float32Array, y: Float32Array, BLOCK = 256): Promise<Float32Array> {
  const out = new Float32Array(x.length);
  await addKernel.run({ x, y, out, n: x.length, BLOCK }, { grid: cdiv(x.length, BLOCK) });
  return out;
}

/** The same with Refs and BlockSpecs; a ragged last block is masked automatically. */
export function pallasAdd(n: number, block = 256) {
  const spec = new BlockSpec([block], (i) => [i]);
  return pallasCall((x: Ref, y: Ref, o: Ref) => o.store(x.load().add(y.load())), {
    outShape: { shape: [n], dtype: 'f32' },
    grid: cdiv(n, block),
    inSpecs: [spec, spec],
    outSpecs: spec,
    name: 'pallas_add',
  });
}

export async function vectorAddPallas(x: Float32Array, y: Float32Array): Promise<Float32Array> {
  const out = await pallasAdd(x.length)(array(x, 'f32'), array(y, 'f32'));
  return (out as { data: Float32Array }).data;
}
