// What identifies the compiler in a cache key. Hashing the sources of src/compiler and
// src/codegen at run time is too heavy, so the key holds the package version plus
// COMPILER_VERSION, which is bumped BY HAND whenever a change to the compiler or codegen
// changes the PTX, cubin or metadata produced for some kernel (see docs/cache.md).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump on every change to src/compiler or src/codegen that changes any compile() output. */
export const COMPILER_VERSION = 29;

let version: string | undefined;

/** The `version` of the tessera package.json above this file (works from src/ and dist/src/). */
export function tesseraVersion(): string {
  if (version !== undefined) return version;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const j = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
        if (j.name === 'tessera') return (version = String(j.version ?? '0.0.0'));
      } catch {
        // not ours; keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) return (version = 'unknown');
    dir = up;
  }
}
