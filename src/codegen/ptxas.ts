// Finding and running ptxas: PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin. `ptxas -v`
// output is parsed for registers, spills and shared memory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PtxasError } from '../compiler/errors.js';

/** Path of ptxas, or undefined when none is installed where we look. */
export function findPtxas(env: NodeJS.ProcessEnv = process.env, fallbacks: readonly string[] = ['/usr/local/cuda/bin']): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean)];
  if (env.CUDA_HOME) dirs.push(join(env.CUDA_HOME, 'bin'));
  dirs.push(...fallbacks);
  for (const d of dirs) {
    const p = join(d, 'ptxas');
    if (existsSync(p)) return p;
  }
  return undefined;
}

export interface PtxasResult {
  readonly cubin: Uint8Array;
  readonly registers: number;
  readonly spillStores: number;
  readonly spillLoads: number;
  readonly sharedBytes: number;
  readonly stackBytes: number;
  readonly log: string;
}

/** Parses the `ptxas -v` info lines for one entry. */
export function parsePtxasLog(log: string): Omit<PtxasResult, 'cubin' | 'log'> {
  const num = (re: RegExp): number => Number(re.exec(log)?.[1] ?? 0);
  return {
    registers: num(/Used (\d+) registers/),
    spillStores: num(/(\d+) bytes spill stores/),
    spillLoads: num(/(\d+) bytes spill loads/),
    sharedBytes: num(/(\d+) bytes smem/),
    stackBytes: num(/(\d+) bytes stack frame/),
  };
}

/** Assembles `ptx` for `arch` (e.g. 'sm_90'). Throws PtxasError with ptxas's log on failure. */
export function runPtxas(ptx: string, arch: string, ptxasPath: string | null = findPtxas() ?? null): PtxasResult {
  if (!ptxasPath) {
    throw new PtxasError('ptxas not found: looked in PATH, $CUDA_HOME/bin and /usr/local/cuda/bin (install the CUDA toolkit or set CUDA_HOME)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'tessera-ptxas-'));
  try {
    const src = join(dir, 'kernel.ptx');
    const out = join(dir, 'kernel.cubin');
    writeFileSync(src, ptx);
    const r = spawnSync(ptxasPath, [`-arch=${arch}`, '-v', src, '-o', out], { encoding: 'utf8' });
    const log = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    if (r.error) throw new PtxasError(`could not run ${ptxasPath}: ${r.error.message}`);
    if (r.status !== 0) throw new PtxasError(`ptxas rejected the PTX for ${arch}`, log);
    return { cubin: new Uint8Array(readFileSync(out)), log, ...parsePtxasLog(log) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
