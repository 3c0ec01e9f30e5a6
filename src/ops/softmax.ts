// softmax over the last dim of x[R, C]: one program per row, three passes over BLOCK-column chunks
// (row max, sum of exp(x - max), write exp(x - max) / sum), all in f32, rounded once to x's dtype.
// Rows longer than a tile (a 128k vocabulary) work the same as short ones.
import type { DType } from '../ir/types.js';
import { arange, constexpr, exp, forLoop, full, load, max, maximum, programId, ptr, store, sum, where, zeros } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkOptions, FLOATS, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { rowConfig } from './rows.js';

export interface SoftmaxOptions extends OpOptions { readonly out?: DeviceArray }

const kernels = new Map<DType, Kernel>();

function softmaxKernel(dt: DType): Kernel {
  let k = kernels.get(dt);
  if (!k) {
    k = kernel({ name: `ops_softmax_${dt}`, params: { x: ptr(dt), y: ptr(dt), C: 'i32', BLOCK: constexpr() } }, ({ x, y, C, BLOCK }) => {
      const base = programId(0).to('i64').mul(C);
      const cols = arange(0, BLOCK);
      const [mv] = forLoop(0, C, BLOCK, [full([BLOCK], -Infinity, 'f32')], (c0, m) => {
        const offs = c0.add(cols);
        return [maximum(m!, load(x.add(base).add(offs), { mask: offs.lt(C), other: -Infinity }).to('f32'))];
      });
      const rowMax = max(mv!, 0);
      const [sv] = forLoop(0, C, BLOCK, [zeros([BLOCK], 'f32')], (c0, s) => {
        const offs = c0.add(cols), mask = offs.lt(C);
        const v = load(x.add(base).add(offs), { mask, other: -Infinity }).to('f32');
        return [s!.add(where(mask, exp(v.sub(rowMax)), 0))];
      });
      const total = sum(sv!, 0);
      forLoop(0, C, BLOCK, [], (c0) => {
        const offs = c0.add(cols), mask = offs.lt(C);
        const v = load(x.add(base).add(offs), { mask, other: 0 }).to('f32');
        store(y.add(base).add(offs), exp(v.sub(rowMax)).div(total).to(dt), { mask });
        return [];
      });
    });
    kernels.set(dt, k);
  }
  return k;
}

/** y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)). */
export function softmax<D extends DType>(x: DeviceArray<D>, opts?: SoftmaxOptions): Future<DeviceArray<D>> {
  const op = 'softmax';
  const o = checkOptions(op, opts, ['out', 'stream']) as SoftmaxOptions;
  checkArray(op, 'x', x, 2, FLOATS);
  const [R, C] = x.shape as [number, number];
  const device = sameDevice(op, { x, out: o.out });
  const y = outArray(op, o.out, [R, C], x.dtype, device) as DeviceArray<D>;
  if (R === 0 || C === 0) return launchNothing(y);
  const { BLOCK, numWarps } = rowConfig(device, C);
  return launch(softmaxKernel(x.dtype), { x, y, C, BLOCK }, { numWarps }, R, device, o.stream, y);
}
