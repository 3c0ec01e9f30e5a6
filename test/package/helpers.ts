// Helpers of the package tests: the repository root, an environment for child npm/node processes
// that carries nothing of the npm run this test may be part of, and a copy of the package's files.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const NODE = process.execPath;

/** process.env without npm's per-run variables (npm_*, INIT_CWD), plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeout = 600_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
}

/** The paths `npm pack` would put in the package (package.json's `files`), relative to ROOT. */
export function packedPaths(): string[] {
  const r = run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT, cleanEnv(), 120_000);
  if (r.status !== 0) throw new Error(`npm pack --dry-run failed:\n${r.stderr}`);
  return (JSON.parse(r.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
}

/**
 * Lays out the package's files (without dist/: the install script does not need them) in `dest`,
 * as npm would unpack them, with the repository's node_modules linked in (cmake-js, node-gyp,
 * node-addon-api). `dest` has no native test sources, so the install script runs in package mode.
 */
export function packageTree(dest: string): string {
  for (const p of packedPaths()) {
    if (p.startsWith('dist/')) continue;
    mkdirSync(dirname(join(dest, p)), { recursive: true });
    cpSync(join(ROOT, p), join(dest, p));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dest, 'node_modules'));
  return dest;
}
