// bench(fn): Triton's do_bench. A few runs estimate one call's time; warm-up and repetition counts
// follow from the time budgets; every timed run starts after an L2 flush. Returns figures, never prints.
import { getDevice, type Device, type DeviceKind } from '../device.js';
import { TesseraError } from '../../ir/errors.js';
import { timerFor, type Clock, type Timer } from './timer.js';

export interface BenchOptions {
  /** Milliseconds of warm-up (default 25). */
  readonly warmup?: number;
  /** Milliseconds of timed repetitions (default 100). */
  readonly rep?: number;
  /** Bounds on the timed repetitions (defaults 1 and 1000). */
  readonly minReps?: number;
  readonly maxReps?: number;
  /** Flush the L2 before each timed run (default true). */
  readonly flushL2?: boolean;
  readonly device?: DeviceKind | Device;
  /** A timer to reuse (autotune shares one); else one is made for the device and closed after. */
  readonly timer?: Timer;
}

export interface BenchResult {
  /** Milliseconds. */
  readonly min: number;
  readonly p20: number;
  readonly p50: number;
  readonly p80: number;
  readonly mean: number;
  readonly max: number;
  readonly reps: number;
  readonly warmupRuns: number;
  readonly kind: DeviceKind;
  /** Which device timed it (its description line). */
  readonly device: string;
  readonly clock: Clock;
  /** true only for CUDA events on a real GPU. */
  readonly isGpuTime: boolean;
  readonly label: string;
  readonly times: readonly number[];
}

/** The q-quantile of sorted `xs` with linear interpolation (as numpy's default). */
export function quantile(xs: readonly number[], q: number): number {
  const pos = (xs.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return xs[lo]! + (xs[hi]! - xs[lo]!) * (pos - lo);
}

function checkMs(name: string, v: unknown, min: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    throw new TesseraError('E_ARG', `bench: option '${name}' must be a number >= ${min}, got ${String(v)}`);
  }
  return v;
}

export async function bench(fn: () => unknown, options: BenchOptions = {}): Promise<BenchResult> {
  if (typeof fn !== 'function') throw new TesseraError('E_ARG', `bench: the first argument must be a function, got ${typeof fn}`);
  const warmup = checkMs('warmup', options.warmup ?? 25, 0);
  const rep = checkMs('rep', options.rep ?? 100, 0);
  const minReps = Math.floor(checkMs('minReps', options.minReps ?? 1, 1));
  const maxReps = Math.floor(checkMs('maxReps', options.maxReps ?? 1000, minReps));
  const flush = options.flushL2 ?? true;
  const timer = options.timer ?? timerFor(getDevice(options.device));
  // fn's own return value goes to the timer: a runtime Future means its work is already queued,
  // so the end event can follow it on the stream without waiting (see Timer.time)
  const call = (): unknown => fn();
  try {
    // Estimate one call (Triton times 5 back to back).
    await call();
    let est = 0;
    for (let i = 0; i < 5; i++) {
      if (flush) timer.flushL2();
      est += await timer.time(call);
    }
    est = Math.max(est / 5, 1e-6);
    const warmupRuns = Math.max(1, Math.round(warmup / est));
    const reps = Math.min(maxReps, Math.max(minReps, Math.round(rep / est)));
    for (let i = 0; i < warmupRuns; i++) await call();
    const times: number[] = [];
    for (let i = 0; i < reps; i++) {
      if (flush) timer.flushL2();
      times.push(await timer.time(call));
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      min: sorted[0]!, p20: quantile(sorted, 0.2), p50: quantile(sorted, 0.5), p80: quantile(sorted, 0.8),
      mean: times.reduce((a, b) => a + b, 0) / times.length, max: sorted[sorted.length - 1]!,
      reps, warmupRuns, kind: timer.kind, device: timer.device, clock: timer.clock, isGpuTime: timer.isGpuTime,
      label: timer.label, times,
    };
  } finally {
    if (!options.timer) timer.close();
  }
}
