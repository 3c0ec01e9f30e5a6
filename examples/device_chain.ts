// Data that stays on the device: two kernels chained on DeviceArrays, with no host copy in
// between (the README's example). `run` queues each launch and returns a future at once.
import { cdiv, DeviceArray } from '../src/index.js';
import { addKernel } from './vector_add.js';

/** z = (x + y) + y, computed on the device; only z comes back. */
export async function addTwice(x: Float32Array, y: Float32Array, BLOCK = 256): Promise<Float32Array> {
  const n = x.length, grid = cdiv(n, BLOCK);
  const dx = DeviceArray.from(x, 'f32'), dy = DeviceArray.from(y, 'f32');
  const t = DeviceArray.empty([n], 'f32'), z = DeviceArray.empty([n], 'f32');
  void addKernel.run({ x: dx, y: dy, out: t, n, BLOCK }, { grid }); // t = x + y   (queued)
  void addKernel.run({ x: t, y: dy, out: z, n, BLOCK }, { grid }); // z = t + y   (queued behind it)
  const result = await z.toArray(); // waits for both, without blocking the event loop
  for (const a of [dx, dy, t, z]) a.free(); // safe even with work in flight
  return result;
}
