// Simulated thread-instructions per second of the `sim` device (build/bin/sim_bench) on a
// reduction and a matmul, with the sanitizers off and on. A figure about the simulator on this
// CPU, not about any GPU.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface SimBenchResult {
  readonly name: string;
  /** 'off', or the sanitizers on: 'racecheck', 'synccheck', 'initcheck', 'all three'. */
  readonly checkers: string;
  readonly seconds: number;
  readonly threadInstructions: number;
  readonly threadInstrPerSecPerCore: number;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function benchSim(out: (s: string) => void): Promise<void> {
  const exe = join(root, 'build', 'bin', 'sim_bench');
  if (!existsSync(exe)) throw new Error(`sim benchmark not built (${exe}); run npm install`);
  const r = JSON.parse(execFileSync(exe, ['--json'], { encoding: 'utf8' })) as { device: string; workerThreads: number; results: SimBenchResult[] };
  out(`device: ${r.device}, ${r.workerThreads} worker threads — no GPU used; these are simulator speeds\n`);
  for (const x of r.results) {
    const off = r.results.find((y) => y.name === x.name && y.checkers === 'off');
    const slow = off && x.checkers !== 'off' ? `  ${(x.seconds / off.seconds).toFixed(2)}x the time with checkers off` : '';
    out(`${x.name.padEnd(48)} ${x.checkers.padEnd(10)} ${(x.threadInstrPerSecPerCore / 1e6).toFixed(1).padStart(7)} M thread-instr/s/core  (${x.threadInstructions} instr in ${x.seconds.toFixed(3)} s)${slow}\n`);
  }
  out('sanitizers (docs/sim.md): the aim is under 5x the time with all three on\n');
  out('target (issue 3): 200 M thread-instr/s/core\n');
}
