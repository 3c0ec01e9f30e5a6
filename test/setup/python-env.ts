// vitest globalSetup: the Python environment the XLA tests run jax/jaxlib in, with triton 3.8 for
// the bench:tc table tests (the peer compiler) and torch + transformers for the Llama example's test (.venv, made by scripts/setup-python.sh --triton:
// offline, `pip --retries 0` against the machine's package index) is created here when it is missing, so that `npm install && npm test` is a clone's whole set-up.
// When it cannot be made, one line says why and the tests that need it fail with their own message.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

/** True when .venv has a python with jax, jaxlib, triton, torch and transformers installed. */
export function pythonEnvReady(dir = root): boolean {
  const lib = join(dir, '.venv', 'lib');
  if (!existsSync(join(dir, '.venv', 'bin', 'python')) || !existsSync(lib)) return false;
  return readdirSync(lib).some((py) => ['jax', 'jaxlib', 'triton', 'torch', 'transformers'].every((m) => existsSync(join(lib, py, 'site-packages', m, '__init__.py'))));
}

export default function setup(): void {
  if (pythonEnvReady()) return;
  console.log('tessera: no .venv with jax/jaxlib/triton/torch/transformers: creating it (scripts/setup-python.sh --triton)');
  const r = spawnSync('bash', [join(root, 'scripts', 'setup-python.sh'), '--triton'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0 || !pythonEnvReady()) {
    console.warn(`tessera: scripts/setup-python.sh ${r.status !== 0 ? `exited with ${r.status ?? r.signal}` : 'ran but .venv lacks jax, jaxlib, triton, torch or transformers'}: the XLA, bench:tc and examples/llm tests will fail until it works`);
  }
}
