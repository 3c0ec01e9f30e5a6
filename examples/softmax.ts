// Row-wise softmax in both styles: one program per row, the whole row in one tile.
import { arange, array, BlockSpec, constexpr, exp, kernel, load, max, pallasCall, programId, ptr, store, sum, type Ref } from '../src/index.js';

/** Softmax of each row of an [rows, cols] matrix; BLOCK is cols rounded up to a power of two. */
export const softmaxKernel = kernel(
  { name: 'softmax', params: { x: ptr('f32'), out: ptr('f32'), cols: 'i32', BLOCK: constexpr() } },
  ({ x, out, cols, BLOCK }) => {
    const row = programId(0);
    const offs = arange(0, BLOCK);
    const mask = offs.lt(cols);
    const base = row.mul(cols);
    const v = load(x.add(base).add(offs), { mask, other: -Infinity });
    const e = exp(v.sub(max(v, 0)));
    store(out.add(base).add(offs), e.div(sum(e, 0)), { mask });
  },
);

const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

export async function softmax(x: Float32Array, rows: number, cols: number): Promise<Float32Array> {
  const out = new Float32Array(rows * cols);
  await softmaxKernel.run({ x, out, cols, BLOCK: pow2(cols) }, { grid: rows });
  return out;
}

/** Pallas style: a [null, BLOCK] BlockSpec gives each program one (masked) row. */
export function pallasSoftmax(rows: number, cols: number) {
  const spec = new BlockSpec([null, pow2(cols)], (i) => [i, 0]);
  return pallasCall((xr: Ref, o: Ref) => {
    const v = xr.load(undefined, { other: -Infinity });
    const e = exp(v.sub(max(v, 0)));
    o.store(e.div(sum(e, 0)));
  }, { outShape: { shape: [rows, cols], dtype: 'f32' }, grid: rows, inSpecs: [spec], outSpecs: spec, name: 'pallas_softmax' });
}

export async function softmaxPallas(x: Float32Array, rows: number, cols: number): Promise<Float32Array> {
  const out = await pallasSoftmax(rows, cols)(array(x, 'f32', [rows, cols]));
  return (out as { data: Float32Array }).data;
}

/** Plain-JS reference (f64 arithmetic). */
export function softmaxRef(x: Float32Array, rows: number, cols: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const row = x.subarray(r * cols, (r + 1) * cols);
    const m = Math.max(...row);
    let s = 0;
    for (let c = 0; c < cols; c++) s += Math.exp((row[c] as number) - m);
    for (let c = 0; c < cols; c++) out[r * cols + c] = Math.exp((row[c] as number) - m) / s;
  }
  return out;
}
