// The public launch paths timed by the launch-overhead table (bench/launch.ts) beside the C loop:
// the low-level API on a foreign module (loadModule / fn.launch) and kernel.run, both with device
// arrays on the runtime's `sim` device, both on the same 8-parameter empty kernel shape.
import { constexpr, ptr } from '../src/lang/index.js';
import { DeviceArray, getDevice, kernel, loadModule, setDeviceAnnouncer, type Device } from '../src/runtime/index.js';
import type { LaunchRow } from './launch.js';

function simDevice(): Device {
  setDeviceAnnouncer(() => {});
  return getDevice('sim');
}

/** loadModule(EMPTY8_PTX).getFunction('empty8').launch(...): 4 device arrays and 4 integers, as the kernel.run row. */
export const foreignLaunchRow: LaunchRow = {
  name: 'low-level API: fn.launch',
  async setup(_drv, ptx, name) {
    const sim = simDevice();
    const fn = loadModule(ptx, { device: sim }).getFunction(name);
    const arrs = Array.from({ length: 4 }, () => DeviceArray.zeros([256], 'f32', { device: sim }));
    const opts = { grid: 1, block: 32, args: [...arrs, 256, 17, 3, 5] };
    return async (n) => {
      let last: PromiseLike<void> = Promise.resolve();
      for (let i = 0; i < n; i++) last = fn.launch(opts);
      await last;
    };
  },
};

const empty8 = kernel(
  {
    name: 'bench_empty8',
    params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), d: ptr('f32'), n: 'i32', m: 'i32', s: 'f32', t: 'f32', BLOCK: constexpr() },
  },
  () => {},
);

/** kernel.run with 4 device arrays and 4 scalars (numWarps 1: one warp, as the other rows). */
export const kernelRunRow: LaunchRow = {
  name: 'kernel.run, device arrays',
  async setup() {
    const sim = simDevice();
    const arrs = [0, 1, 2, 3].map(() => DeviceArray.zeros([256], 'f32', { device: sim }));
    const args = { a: arrs[0]!, b: arrs[1]!, c: arrs[2]!, d: arrs[3]!, n: 256, m: 17, s: 1.5, t: 2.5, BLOCK: 128 };
    const opts = { grid: 1, device: sim, numWarps: 1 } as const;
    return async (n) => {
      let last: PromiseLike<void> = Promise.resolve();
      for (let i = 0; i < n; i++) last = empty8.run(args, opts);
      await last;
    };
  },
};
