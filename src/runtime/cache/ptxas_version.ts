// The ptxas version string that goes into a cache key when ptxas builds the cubin: a new CUDA
// toolkit makes new cubins. `ptxas --version` runs once per ptxas path per process.
import { spawnSync } from 'node:child_process';

const versions = new Map<string, string>();

export function ptxasVersion(path: string): string {
  let v = versions.get(path);
  if (v === undefined) {
    const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
    // The whole banner (release, V-number and build date); the path when it cannot run, so the
    // key still changes with the tool.
    v = r.status === 0 && r.stdout ? r.stdout.trim().split('\n').filter((l) => !l.startsWith('Copyright')).join(' | ') : `unknown (${path})`;
    versions.set(path, v);
  }
  return v;
}
