// Host overhead per launch of an empty kernel with 8 parameters on the sim: a C loop calling
// cuLaunchKernel on the sim library (build/bin/launch_overhead_bench) and the addon's low-level
// path (driver.createLaunchPlan + plan.launch), in one run. No GPU: these are host costs on the
// sim, which also runs each (empty) block on the CPU, so the C loop is the floor, not zero.
// Hook: benchLaunch(out, extraRows) — other paths (kernel.run with device arrays) pass rows that
// are timed in the same run and printed against the same C baseline.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadAddon, packageRoot, simLibraryPath, type Driver } from '../src/runtime/native/addon.js';
import { needsRepoTool } from './availability.js';
import { EMPTY8_PTX } from './launch_overhead_ptx.js';

/** One timed path: `setup` gets the open sim driver and returns a function doing `n` launches + one wait. */
export interface LaunchRow {
  readonly name: string;
  setup(driver: Driver, ptx: string, kernelName: string): Promise<(n: number) => Promise<void>>;
}

const LAUNCHES = 20_000;
const ROUNDS = 5;

const lowLevel: LaunchRow = {
  name: 'low-level: plan.launch',
  async setup(drv, ptx, name) {
    const fn = drv.getFunction(drv.moduleLoadData(ptx), name);
    const plan = drv.createLaunchPlan(fn, [0, 8, 16, 24, 32, 40, 48, 56], 64);
    const stream = drv.streamCreate();
    return async (n) => {
      for (let i = 0; i < n; i++) plan.launch(1, 1, 1, 32, 1, 1, 0, stream);
      await drv.streamDone(stream);
    };
  },
};

function cLoop(lib: string, n: number): number {
  const exe = join(packageRoot(), 'build', 'bin', 'launch_overhead_bench');
  if (!existsSync(exe)) throw new Error(`bench: ${needsRepoTool('launch_overhead_bench')}`);
  return (JSON.parse(execFileSync(exe, [lib, String(n)], { encoding: 'utf8' })) as { usPerLaunch: number }).usPerLaunch;
}

export async function benchLaunch(out: (s: string) => void, extraRows: readonly LaunchRow[] = []): Promise<void> {
  const lib = simLibraryPath();
  out(`sim device (no GPU): host overhead per launch, empty kernel with 8 parameters, ${LAUNCHES} launches + one wait;\n` +
    `best of ${ROUNDS} interleaved rounds per path (the minimum: other load on the machine only adds time)\n`);
  const drv = loadAddon().open(lib);
  try {
    const rows = [lowLevel, ...extraRows];
    const runs = [];
    // every path is set up and warmed (JIT, device open, the completion path) before any is timed,
    // so the first one timed does not pay for what the others share
    for (const row of rows) runs.push(await row.setup(drv, EMPTY8_PTX, 'empty8'));
    for (const run of runs) await run(2000);
    let base = Infinity;
    const best = rows.map(() => Infinity);
    for (let round = 0; round < ROUNDS; round++) {
      base = Math.min(base, cLoop(lib, LAUNCHES));
      for (const [i, run] of runs.entries()) {
        const t0 = process.hrtime.bigint();
        await run(LAUNCHES);
        best[i] = Math.min(best[i]!, Number(process.hrtime.bigint() - t0) / 1e3 / LAUNCHES);
      }
    }
    out(`${'C loop: cuLaunchKernel'.padEnd(36)} ${base.toFixed(2).padStart(8)} µs/launch\n`);
    for (const [i, row] of rows.entries()) {
      const diff = best[i]! - base;
      out(`${row.name.padEnd(36)} ${best[i]!.toFixed(2).padStart(8)} µs/launch  (${diff >= 0 ? '+' : ''}${diff.toFixed(2)} µs vs the C loop)\n`);
    }
  } finally {
    drv.close();
  }
}
