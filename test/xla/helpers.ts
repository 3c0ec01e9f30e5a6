// Runs a Python script of test/xla/py with the project's .venv (jax/jaxlib 0.10.2, the real XLA
// runtime), JSON in on stdin and JSON out on the last stdout line. Fails with what to run when
// the environment or the library is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');
export const python = join(root, '.venv', 'bin', 'python');
export const xlaLibrary = join(root, 'build', 'lib', 'libtessera_xla.so');
export const simLibrary = join(root, 'build', 'lib', 'libtessera_sim.so');

export function runPython<T>(script: string, input: unknown, env: Record<string, string> = {}): T {
  if (!existsSync(python)) throw new Error(`no Python environment at ${python}: run \`npm run setup:python\` (jax/jaxlib 0.10.2)`);
  if (!existsSync(xlaLibrary)) throw new Error(`${xlaLibrary} is missing: run \`npm run build\` (needs the CUDA toolkit's headers)`);
  const r = spawnSync(python, [join(root, 'test', 'xla', 'py', script)], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...process.env, JAX_PLATFORMS: 'cpu', ...env },
    timeout: 120_000,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`${script} exited with ${r.status ?? r.signal}:\n${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
