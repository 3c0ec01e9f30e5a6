// Host overhead per launch of `kernel.run` on device arrays: an empty kernel with 8 arguments
// (4 pointers, 4 scalars) on the sim, launched back to back. What is timed is the host side (the
// time to queue N launches); the sim runs them on its own thread. Printed beside the same
// kernel with host typed arrays (copied in and out each call, awaited each call) measured in
// the same run. `kernelRunOverhead` is the hook the launch-overhead table uses for its row.
import { constexpr, ptr } from '../src/lang/index.js';
import { DeviceArray, getDevice, kernel, setDeviceAnnouncer } from '../src/runtime/index.js';

const empty = kernel(
  {
    name: 'bench_empty8',
    params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), d: ptr('f32'), n: 'i32', m: 'i32', s: 'f32', t: 'f32', BLOCK: constexpr() },
  },
  () => {},
);

export interface OverheadFigures {
  /** Microseconds of host time per `kernel.run` with device arrays (queueing only). */
  readonly deviceArraysUs: number;
  /** Microseconds per `kernel.run` with host typed arrays, awaited each call (the old path). */
  readonly hostArraysUs: number;
  readonly launches: number;
}

/** Measures both paths on `device` (default: sim). */
export async function kernelRunOverhead(device: 'sim' | 'cuda' = 'sim', launches = 4000): Promise<OverheadFigures> {
  setDeviceAnnouncer(() => {});
  const dev = getDevice(device);
  const arrs = [0, 1, 2, 3].map(() => DeviceArray.zeros([256], 'f32', { device }));
  const args = { a: arrs[0]!, b: arrs[1]!, c: arrs[2]!, d: arrs[3]!, n: 256, m: 17, s: 1.5, t: 2.5, BLOCK: 128 };
  const opts = { grid: 1, device, numWarps: 1 } as const;
  // Warm: compile, plan, JIT.
  for (let i = 0; i < 200; i++) void empty.run(args, opts);
  await dev.synchronize!();
  let last: PromiseLike<void> = Promise.resolve();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < launches; i++) last = empty.run(args, opts);
  const t1 = process.hrtime.bigint();
  await last;
  const hostArgs = { ...args, a: new Float32Array(256), b: new Float32Array(256), c: new Float32Array(256), d: new Float32Array(256) };
  const few = Math.max(50, Math.floor(launches / 20));
  for (let i = 0; i < 20; i++) await empty.run(hostArgs, opts);
  const t2 = process.hrtime.bigint();
  for (let i = 0; i < few; i++) await empty.run(hostArgs, opts);
  const t3 = process.hrtime.bigint();
  for (const a of arrs) a.free();
  return { deviceArraysUs: Number(t1 - t0) / 1e3 / launches, hostArraysUs: Number(t3 - t2) / 1e3 / few, launches };
}

export async function benchKernelRun(out: (s: string) => void): Promise<void> {
  const f = await kernelRunOverhead('sim');
  out('(sim device: no GPU; host-side figures)\n');
  out(`kernel.run, device arrays, 8 args, queued:   ${f.deviceArraysUs.toFixed(2)} us/launch (${f.launches} launches)\n`);
  out(`kernel.run, host typed arrays, awaited:      ${f.hostArraysUs.toFixed(2)} us/launch\n`);
  out(`ratio host-array path / device-array path:  ${(f.hostArraysUs / f.deviceArraysUs).toFixed(1)}x\n`);
}
