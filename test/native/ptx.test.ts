// The hand-written PTX fixtures are valid PTX for sm_80 and sm_90 (ptxas must accept them), and the
// broken one is rejected: the end-to-end tests then test the addon, not typos in the fixtures.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BAD_PTX, OOB_PTX, SPIN_PTX, VADD_PTX } from './fixtures.js';

function findPtxas(): string {
  const dirs = [process.env.CUDA_HOME && join(process.env.CUDA_HOME, 'bin'), '/usr/local/cuda/bin', ...(process.env.PATH ?? '').split(':')];
  for (const d of dirs) if (d && existsSync(join(d, 'ptxas'))) return join(d, 'ptxas');
  throw new Error('ptxas not found (looked in CUDA_HOME/bin, /usr/local/cuda/bin and PATH)');
}

const dir = mkdtempSync(join(tmpdir(), 'tessera-native-ptx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function assemble(name: string, ptx: string, arch: string): void {
  const src = join(dir, `${name}.ptx`);
  writeFileSync(src, ptx);
  execFileSync(findPtxas(), [`-arch=${arch}`, src, '-o', join(dir, `${name}-${arch}.cubin`)], { stdio: 'pipe' });
}

describe.each(['sm_80', 'sm_90'])('fixtures under ptxas %s', (arch) => {
  it('accepts vadd, oob and spin', () => {
    assemble('vadd', VADD_PTX, arch);
    assemble('oob', OOB_PTX, arch);
    assemble('spin', SPIN_PTX, arch);
  });
  it('rejects the broken module', () => {
    expect(() => assemble('bad', BAD_PTX, arch)).toThrow(/frobnicate|syntax|Unknown|not/i);
  });
});
