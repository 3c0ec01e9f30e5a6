// add(a, b) = a + b elementwise, any shape (the residual adds of a transformer layer): f32 math,
// rounded once to the inputs' dtype, as torch adds two f16/bf16 tensors. `out` may be `a` itself
// (x += y in place): each program reads its elements before it writes them.
import type { DType } from '../ir/types.js';
import { arange, constexpr, load, programId, ptr, store } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { ELEMENTWISE_TUNING } from './swiglu.js';
import { pick } from './tuning.js';

export interface AddOptions extends OpOptions { readonly out?: DeviceArray }

const kernels = new Map<DType, Kernel>();

function addKernel(dt: DType): Kernel {
  let k = kernels.get(dt);
  if (!k) {
    k = kernel({ name: `ops_add_${dt}`, params: { a: ptr(dt), b: ptr(dt), y: ptr(dt), n: 'i32', BLOCK: constexpr() } }, ({ a, b, y, n, BLOCK }) => {
      const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
      const mask = offs.lt(n);
      const av = load(a.add(offs), { mask, other: 0 }).to('f32');
      const bv = load(b.add(offs), { mask, other: 0 }).to('f32');
      store(y.add(offs), av.add(bv).to(dt), { mask });
    });
    kernels.set(dt, k);
  }
  return k;
}

/** a + b for a, b of one shape and dtype; `{ out: a }` adds in place. */
export function add<D extends DType>(a: DeviceArray<D>, b: DeviceArray<D>, opts?: AddOptions): Future<DeviceArray<D>> {
  const op = 'add';
  const o = checkOptions(op, opts, ['out', 'stream']) as AddOptions;
  checkArray(op, 'a', a, a?.shape?.length ?? 0, FLOATS);
  checkArray(op, 'b', b, a.shape.length, [a.dtype], a.shape);
  const device = sameDevice(op, { a, b, out: o.out });
  const y = outArray(op, o.out, a.shape, a.dtype, device) as DeviceArray<D>;
  const n = a.size;
  if (n >= 2 ** 31) throw new OpsError('E_OPS_SHAPE', op, 'a', `${n} elements: more than an i32 index reaches`);
  if (n === 0) return launchNothing(y);
  const c = pick(ELEMENTWISE_TUNING, device, { n });
  return launch(addKernel(a.dtype), { a, b, y, n, ...c.constexprs }, c, Math.ceil(n / c.constexprs.BLOCK), device, o.stream, y);
}
