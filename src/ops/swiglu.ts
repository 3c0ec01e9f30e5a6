// swiglu(gate, up) = silu(gate) * up, elementwise over [R, F] (Llama's MLP between its gate/up and
// down projections): f32 math, rounded once to the inputs' dtype.
import type { DType } from '../ir/types.js';
import { arange, constexpr, load, programId, ptr, sigmoid, store } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { pick, type TuningTable } from './tuning.js';

export interface SwigluOptions extends OpOptions { readonly out?: DeviceArray }

/** Elements per program. */
export const ELEMENTWISE_TUNING: TuningTable<{ BLOCK: number }, { n: number }> = {
  sm_80: [{ constexprs: { BLOCK: 256 }, numWarps: 2, fits: (p) => p.n <= 4096 }, { constexprs: { BLOCK: 1024 }, numWarps: 4 }],
  sm_90a: [{ constexprs: { BLOCK: 256 }, numWarps: 2, fits: (p) => p.n <= 4096 }, { constexprs: { BLOCK: 2048 }, numWarps: 8 }],
};

const kernels = new Map<DType, Kernel>();

function swigluKernel(dt: DType): Kernel {
  let k = kernels.get(dt);
  if (!k) {
    k = kernel({ name: `ops_swiglu_${dt}`, params: { g: ptr(dt), u: ptr(dt), y: ptr(dt), n: 'i32', BLOCK: constexpr() } }, ({ g, u, y, n, BLOCK }) => {
      const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
      const mask = offs.lt(n);
      const gv = load(g.add(offs), { mask, other: 0 }).to('f32');
      const uv = load(u.add(offs), { mask, other: 0 }).to('f32');
      store(y.add(offs), gv.mul(sigmoid(gv)).mul(uv).to(dt), { mask });
    });
    kernels.set(dt, k);
  }
  return k;
}

/** silu(gate) * up for gate, up [R, F] of one dtype. */
export function swiglu<D extends DType>(gate: DeviceArray<D>, up: DeviceArray<D>, opts?: SwigluOptions): Future<DeviceArray<D>> {
  const op = 'swiglu';
  const o = checkOptions(op, opts, ['out', 'stream']) as SwigluOptions;
  checkArray(op, 'gate', gate, 2, FLOATS);
  checkArray(op, 'up', up, 2, [gate.dtype], gate.shape);
  const device = sameDevice(op, { gate, up, out: o.out });
  const y = outArray(op, o.out, gate.shape, gate.dtype, device) as DeviceArray<D>;
  const n = gate.size;
  if (n >= 2 ** 31) throw new OpsError('E_OPS_SHAPE', op, 'gate', `${n} elements: more than an i32 index reaches`);
  if (n === 0) return launchNothing(y);
  const c = pick(ELEMENTWISE_TUNING, device, { n });
  return launch(swigluKernel(gate.dtype), { g: gate, u: up, y, n, ...c.constexprs }, c, Math.ceil(n / c.constexprs.BLOCK), device, o.stream, y);
}
