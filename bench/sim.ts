// Simulated thread-instructions per second of the `sim` device (build/bin/sim_bench) on a
// reduction and a matmul, with the sanitizers off and on, and simulated FLOP/s per core of Triton's
// f16 matmul on wgmma (sm_90a) and on mma.sync (sm_80), both from the foreign corpus, 256 x 256 x
// 256 (the sim reports sm_90, which runs both). The two matmuls' launches are interleaved and each
// row is the median of REPS launches, so their ratio, printed last, is taken under the same load.
// Triton's cc 100 matmul on tcgen05 needs the sim to report sm_100 (an sm_90a module runs only on
// sm_90), so it runs in a second process beside the same mma.sync kernel, and tcgen05 is compared
// with wgmma through that shared baseline: (tcgen05 / mma.sync) / (wgmma / mma.sync).
// Figures about the simulator on this CPU, not about any GPU.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needsRepoTool, repoTool } from './availability.js';

interface SimBenchResult {
  readonly name: string;
  /** 'off', or the sanitizers on: 'racecheck', 'synccheck', 'initcheck', 'all three'. */
  readonly checkers: string;
  readonly seconds: number;
  readonly threadInstructions: number;
  readonly threadInstrPerSecPerCore: number;
  readonly flopPerSecPerCore: number;
  /** matmul rows: the median of this many interleaved launches (else 0: the fastest of a few). */
  readonly reps: number;
}

const REPS = 9;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function benchSim(out: (s: string) => void): Promise<void> {
  const exe = repoTool('sim_bench');
  if (!existsSync(exe)) throw new Error(`bench: ${needsRepoTool('sim_bench')}`);
  const corpus = join(root, 'test', 'corpus', 'kernels');
  const rows: string[] = [];
  // name, corpus case, grid for 256 x 256 (the kernel's block tiles), block, dynamic shared bytes
  const matmuls: [string, string, number, number, number][] = [
    ['matmul f16 wgmma (Triton cc 90, 256^3)', 'tt90_matmul_f16_w8', 4, 256, 65536],
    ['matmul f16 mma.sync (Triton cc 80, 256^3)', 'tt_matmul_f16_w8_s4', 16, 256, 16384],
  ];
  for (const [name, dir, grid, block, shared] of matmuls) {
    const ptx = join(corpus, dir, 'kernel.ptx');
    if (existsSync(ptx)) rows.push('--matmul', name, ptx, String(grid), String(block), String(shared), '256', '256', '256');
  }
  const run = (arch: string, args: string[]) => JSON.parse(execFileSync(exe, ['--json', '--reps', String(REPS), ...args], { encoding: 'utf8', env: { ...process.env, TESSERA_SIM_ARCH: arch } })) as {
    device: string; workerThreads: number; results: SimBenchResult[];
  };
  const r = run('sm_90', rows);
  out(`device: ${r.device}, ${r.workerThreads} worker threads — no GPU used; these are simulator speeds\n`);
  for (const x of r.results) {
    const off = r.results.find((y) => y.name === x.name && y.checkers === 'off');
    const slow = off && x.checkers !== 'off' ? `  ${(x.seconds / off.seconds).toFixed(2)}x the time with checkers off` : '';
    const flops = x.flopPerSecPerCore > 0 ? `  ${(x.flopPerSecPerCore / 1e6).toFixed(1).padStart(7)} M FLOP/s/core (simulated)` : '';
    out(`${x.name.padEnd(48)} ${x.checkers.padEnd(10)} ${(x.threadInstrPerSecPerCore / 1e6).toFixed(1).padStart(7)} M thread-instr/s/core  (${x.threadInstructions} instr in ${x.seconds.toFixed(3)} s)${slow}${flops}\n`);
  }
  const [wg, mma] = matmuls.map(([name]) => r.results.find((x) => x.name === name));
  if (wg && mma) {
    out(`wgmma / mma.sync simulated FLOP/s per core: ${(wg.flopPerSecPerCore / mma.flopPerSecPerCore).toFixed(2)}x ` +
      `(medians of ${wg.reps} interleaved launches each; the aim, issue 16: not below 1)\n`);
    const tcName = 'matmul f16 tcgen05 (Triton cc 100, 256^3)';
    const tcPtx = join(corpus, 'tt100_matmul_f16_pipelined', 'kernel.ptx');  // 128x128x64 tiles, 4 warps, 3 stages
    const mmaPtx = join(corpus, 'tt_matmul_f16_w8_s4', 'kernel.ptx');
    if (existsSync(tcPtx) && existsSync(mmaPtx)) {
      const b = run('sm_100', ['--matmuls-only', '--matmul', tcName, tcPtx, '4', '128', '65552', '256', '256', '256',
        '--matmul', mma.name, mmaPtx, '16', '256', '16384', '256', '256', '256']);
      const tc = b.results.find((x) => x.name === tcName);
      const mma100 = b.results.find((x) => x.name === mma.name);
      if (tc && mma100) {
        out(`${tcName.padEnd(48)} ${'off'.padEnd(10)} ${(tc.threadInstrPerSecPerCore / 1e6).toFixed(1).padStart(7)} M thread-instr/s/core  (${tc.threadInstructions} instr in ${tc.seconds.toFixed(3)} s)  ${(tc.flopPerSecPerCore / 1e6).toFixed(1).padStart(7)} M FLOP/s/core (simulated, sim as sm_100)\n`);
        const ratio = (tc.flopPerSecPerCore / mma100.flopPerSecPerCore) / (wg.flopPerSecPerCore / mma.flopPerSecPerCore);
        out(`tcgen05 / wgmma simulated FLOP/s per core: ${ratio.toFixed(2)}x (each against the mma.sync kernel launched ` +
          `in its own process, medians of ${tc.reps}; the aim, issue 29: not below 1)\n`);
      }
    }
  }
  out('sanitizers (docs/sim.md): the aim is under 5x the time with all three on\n');
  out('target (issue 3): 200 M thread-instr/s/core\n');
}
