// Runs one src/lang kernel on the interpreter and, compiled for sm_80 and for sm_90a, on the sim
// (the test file sets TESSERA_SIM_ARCH=sm_90 before the sim opens, so both targets run); every
// compile also passes the ptxas gate (sm_80 and sm_90). Each run gets fresh copies of the args.
import { HostArray } from '../../src/runtime/array.js';
import type { Kernel, RunArgs } from '../../src/runtime/kernel.js';
import type { ConstexprValue } from '../../src/lang/index.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import type { Target } from '../../src/compile/compile.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { runOn, runSimCompiled } from './helpers.js';

export const SIM_TARGETS = ['sm_80', 'sm_90a'] as const satisfies readonly Target[];
export type Where = 'interpret' | (typeof SIM_TARGETS)[number];

const copy = (v: unknown): unknown => (ArrayBuffer.isView(v) ? (v as unknown as { slice(): unknown }).slice() : v);

/** `name` -> the array it ended as, per place it ran. */
export async function runEverywhere(k: Kernel, args: RunArgs, grid: number, numWarps = 4): Promise<Record<Where, Record<string, unknown>>> {
  const interp = Object.fromEntries(Object.entries(args).map(([n, v]) => [n, copy(v)])) as RunArgs;
  await runOn('interpret', k, interp, grid, { numWarps });
  const out = { interpret: interp } as Record<Where, Record<string, unknown>>;
  const cx: Record<string, ConstexprValue> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as ConstexprValue;
  const f = k.trace(cx);
  const names = k.def.runtimeParams.map((p) => p.name);
  const positional = names.map((n) => {
    const v = args[n];
    return copy(v instanceof HostArray ? v.data : v) as LaunchArg;
  });
  for (const target of SIM_TARGETS) {
    // specialized as the runtime specializes a launch (aligned pointers: vectorized accesses)
    const res = runSimCompiled(f, positional, grid, { target, numWarps, specialization: launchSpecialization(f, positional) });
    out[target] = Object.fromEntries(names.map((n, i) => [n, res[i]]));
  }
  return out;
}
