// Per-target tuning tables. Each op keeps a small table of launch configs (constexprs, warps,
// pipeline stages) per target; `pick` takes the first entry whose `fits` accepts the problem, so
// a table is ordered from the most specialised (large tiles for large problems) to the catch-all.
// The tables are the configs we know to assemble and run on each target; autotuning them on a
// GPU (runtime/bench autotune) is how an entry earns its place, not something done per call.
import type { Device } from '../runtime/device.js';

/** The tables ops keep: Ampere-class (sm_80, sm_89) and Hopper (sm_90a). */
export type OpsTarget = 'sm_80' | 'sm_90a';

export interface OpsConfig<C extends Record<string, number>, P> {
  readonly constexprs: C;
  readonly numWarps: number;
  readonly numStages?: number;
  /** Whether this config suits the problem (absent: always). */
  readonly fits?: (p: P) => boolean;
}

export type TuningTable<C extends Record<string, number>, P> = Readonly<Record<OpsTarget, readonly OpsConfig<C, P>[]>>;

/**
 * The table a device uses: sm_90a for a native device compiling for Hopper, sm_80 for every
 * other native target; the interpreter (which ignores warps and stages) uses the sm_80 table.
 */
export function opsTarget(device: Device): OpsTarget {
  const t = (device as { target?: string }).target;
  return t === 'sm_90a' || t === 'sm_90' ? 'sm_90a' : 'sm_80';
}

/** The first config of the device's table that fits `p` (tables end with a catch-all). */
export function pick<C extends Record<string, number>, P>(table: TuningTable<C, P>, device: Device, p: P): OpsConfig<C, P> {
  const list = table[opsTarget(device)];
  const c = list.find((e) => e.fits === undefined || e.fits(p));
  if (!c) throw new Error(`internal: no tuning config fits (${opsTarget(device)})`);
  return c;
}

/** The next power of two >= n (>= 1). */
export const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));
