// embedding(table[V, D], ids[T]) -> [T, D]: a row gather, one program per (token, D-chunk). Ids
// given from the host (an Int32Array) are range-checked before anything runs; ids already on the
// device cannot be seen without a wait, so an out-of-range one gives a row of zeros there.
import type { DType } from '../ir/types.js';
import { arange, constexpr, load, programId, ptr, store } from '../lang/index.js';
import { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { pick, pow2 } from './tuning.js';
import { ELEMENTWISE_TUNING } from './swiglu.js';

export interface EmbeddingOptions extends OpOptions { readonly out?: DeviceArray }

const kernels = new Map<DType, Kernel>();

function embeddingKernel(dt: DType): Kernel {
  let k = kernels.get(dt);
  if (!k) {
    k = kernel({ name: `ops_embedding_${dt}`, params: { table: ptr(dt), ids: ptr('i32'), y: ptr(dt), V: 'i32', D: 'i32', BLOCK: constexpr() } }, ({ table, ids, y, V, D, BLOCK }) => {
      const t = programId(0);
      const offs = programId(1).mul(BLOCK).add(arange(0, BLOCK));
      const id = load(ids.add(t));
      const valid = id.ge(0).logicalAnd(id.lt(V));
      const mask = offs.lt(D);
      const row = load(table.add(id.to('i64').mul(D).add(offs)), { mask: mask.logicalAnd(valid), other: 0 });
      store(y.add(t.to('i64').mul(D).add(offs)), row, { mask });
    });
    kernels.set(dt, k);
  }
  return k;
}

/** The rows of `table` [V, D] at `ids` (i32 [T]: a DeviceArray, or an Int32Array checked on the host). */
export function embedding<D extends DType>(table: DeviceArray<D>, ids: DeviceArray | Int32Array, opts?: EmbeddingOptions): Future<DeviceArray<D>> {
  const op = 'embedding';
  const o = checkOptions(op, opts, ['out', 'stream']) as EmbeddingOptions;
  checkArray(op, 'table', table, 2, FLOATS);
  const [V, D] = table.shape as [number, number];
  let idsDev: DeviceArray;
  if (ids instanceof Int32Array) {
    const bad = ids.findIndex((v) => v < 0 || v >= V);
    if (bad >= 0) throw new OpsError('E_OPS_ARG', op, 'ids', `ids[${bad}] = ${ids[bad]} is out of range for a table of ${V} rows`);
    idsDev = DeviceArray.from(ids, 'i32', { device: table.device, ...(o.stream ? { stream: o.stream } : {}) });
  } else {
    idsDev = checkArray(op, 'ids', ids, 1, ['i32']);
  }
  const T = idsDev.shape[0]!;
  const device = sameDevice(op, { table, ids: idsDev, out: o.out });
  const y = outArray(op, o.out, [T, D], table.dtype, device) as DeviceArray<D>;
  if (T === 0 || D === 0) return launchNothing(y);
  const c = pick(ELEMENTWISE_TUNING, device, { n: D });
  const BLOCK = Math.min(c.constexprs.BLOCK, pow2(D));
  const f = launch(embeddingKernel(table.dtype), { table, ids: idsDev, y, V, D, BLOCK }, c, [T, Math.ceil(D / BLOCK)], device, o.stream, y);
  if (ids instanceof Int32Array) idsDev.free(); // deferred until the launch is done
  return f;
}
