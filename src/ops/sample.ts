// sample(logits[B, V], { temperature, topK, topP, seed, offset }) -> i32[B]: one token per row.
// temperature 0 is greedy (argmax, ties to the lower index).
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { checkArray, checkNumber, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { argmaxKernel } from './argmax.js';
import { rowConfig } from './rows.js';

export interface SampleOptions extends OpOptions {
  /** 0 (default): greedy. */
  readonly temperature?: number;
  readonly topK?: number;
  readonly topP?: number;
  readonly seed?: number;
  readonly offset?: number;
  /** The result array, i32 [B]. */
  readonly out?: DeviceArray;
}

/** One token index per row of logits [B, V]. */
export function sample(logits: DeviceArray, opts?: SampleOptions): Future<DeviceArray<'i32'>> {
  const op = 'sample';
  const o = checkOptions(op, opts, ['temperature', 'topK', 'topP', 'seed', 'offset', 'out', 'stream']) as SampleOptions;
  checkArray(op, 'logits', logits, 2, FLOATS);
  const [B, V] = logits.shape as [number, number];
  if (V === 0) throw new OpsError('E_OPS_SHAPE', op, 'logits', 'has no columns (nothing to sample from)');
  const temperature = o.temperature === undefined ? 0 : checkNumber(op, 'temperature', o.temperature, (n) => n >= 0, 'a finite number >= 0');
  const device = sameDevice(op, { logits, out: o.out });
  const y = outArray(op, o.out, [B], 'i32', device) as DeviceArray<'i32'>;
  if (B === 0) return launchNothing(y);
  if (temperature === 0) {
    const { BLOCK, numWarps } = rowConfig(device, V);
    return launch(argmaxKernel(logits.dtype), { x: logits, out: y, V, BLOCK }, { numWarps }, B, device, o.stream, y);
  }
  throw new OpsError('E_OPS_ARG', op, 'temperature', 'sampling at a temperature > 0 is not implemented yet');
}
