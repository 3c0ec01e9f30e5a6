// `npm run bench` / `tessera bench [NAME ...]`: every benchmark, in order. Each prints its own
// figures and says when no GPU was used.
import { fileURLToPath } from 'node:url';
import { benchCompile } from './compile.js';
import { benchLaunch } from './launch.js';
import { foreignLaunchRow, kernelRunRow } from './launch_rows.js';
import { benchSim } from './sim.js';
import { benchKernelRun } from './kernel_run_overhead.js';
import { benchTc } from './tc_vs_triton.js';
import { benchGraph } from './graph_replay.js';
import { needsRepoTool, needsSim } from './availability.js';

export interface Benchmark {
  readonly name: string;
  readonly description: string;
  run(out: (s: string) => void): Promise<void>;
  /** Why it cannot run here (a missing native tool or device), or undefined. */
  unavailable?(): string | undefined;
}

export const BENCHMARKS: readonly Benchmark[] = [
  { name: 'compile', description: 'trace / passes / PTX / ptxas times per kernel, warm and cold, vs Triton', run: (out) => benchCompile(out) },
  { name: 'launch', description: 'host overhead per launch on the sim: C loop vs the addon\'s launch plan, the low-level API and kernel.run', run: (out) => benchLaunch(out, [foreignLaunchRow, kernelRunRow]), unavailable: () => needsRepoTool('launch_overhead_bench') ?? needsSim() },
  { name: 'sim', description: 'simulated thread-instructions per second of the sim device (reduction, matmul, each sanitizer), and Triton\'s wgmma and tcgen05 matmuls vs the mma.sync one in simulated FLOP/s per core (medians)', run: (out) => benchSim(out), unavailable: () => needsRepoTool('sim_bench') },
  { name: 'tc', description: 'tensor-core kernels vs Triton 3.8 for sm_80 (npm run bench:tc -- --target sm_90a for Hopper): registers, spills, SASS, shared memory; sim warp instructions, sectors, bank conflicts', run: (out) => benchTc(out) },
  { name: 'kernel-run', description: 'host overhead per kernel.run launch on device arrays vs host arrays (sim, empty 8-arg kernel)', run: (out) => benchKernelRun(out), unavailable: needsSim },
  { name: 'graph', description: 'host time of one graph.launch of 20 captured kernels vs 3 and 20 separate kernel.run calls (sim)', run: (out) => benchGraph(out), unavailable: needsSim },
];

/**
 * Runs the named benchmarks (all when `names` is empty); one that cannot run here is listed as
 * unavailable with the reason and the others run. Returns the unavailable ones' names.
 */
export async function runBenchmarks(names: readonly string[], out: (s: string) => void): Promise<string[]> {
  const picked = names.length ? BENCHMARKS.filter((b) => names.includes(b.name)) : BENCHMARKS;
  const unavailable: string[] = [];
  for (const b of picked) {
    const why = b.unavailable?.();
    if (why) {
      out(`== ${b.name}: unavailable: ${why}\n\n`);
      unavailable.push(b.name);
      continue;
    }
    out(`== ${b.name}: ${b.description}\n`);
    await b.run(out);
    out('\n');
  }
  return unavailable;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  runBenchmarks(process.argv.slice(2), (s) => process.stdout.write(s)).catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
