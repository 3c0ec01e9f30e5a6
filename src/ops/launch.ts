// Queues an op's kernels on the arrays' device and hands back one Future of the op's result,
// settled when every launch the op queued is done (rejected with the first failure).
import type { Device, Stream } from '../runtime/device.js';
import { Future } from '../runtime/future.js';
import type { Kernel, RunArgs } from '../runtime/kernel.js';

export interface LaunchConfig { readonly numWarps: number; readonly numStages?: number }

/** Runs `k` once; the future resolves to `result` when it is done. */
export function launch<T>(k: Kernel, args: RunArgs, cfg: LaunchConfig, grid: number | readonly number[], device: Device, stream: Stream | undefined, result: T): Future<T> {
  return settleAll([run(k, args, cfg, grid, device, stream)], result);
}

/** Queues one launch (no waiting): for ops that chain several kernels. */
export function run(k: Kernel, args: RunArgs, cfg: LaunchConfig, grid: number | readonly number[], device: Device, stream: Stream | undefined): Future<void> {
  return k.run(args as never, {
    grid, device, numWarps: cfg.numWarps,
    ...(cfg.numStages !== undefined ? { numStages: cfg.numStages } : {}),
    ...(stream !== undefined ? { stream } : {}),
  });
}

/** A future of `result` once every one of `runs` is done. */
export function settleAll<T>(runs: readonly Future<void>[], result: T): Future<T> {
  return Future.from(Promise.all(runs).then(() => result));
}

/** An empty problem: nothing to launch. */
export function launchNothing<T>(result: T): Future<T> {
  const f = new Future<T>();
  f.resolve(result);
  return f;
}
