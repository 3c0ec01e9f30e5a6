// Shared by the cache tests: a temp cache directory per test and a compile() that counts calls.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { compile, type CompileOptions, type CompileResult } from '../../src/compile/compile.js';
import type { Func } from '../../src/ir/ops.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tessera-cache-'));
  dirs.push(d);
  return d;
}

export interface Counting {
  (func: Func, options: CompileOptions): CompileResult;
  calls: number;
}

/** compile() that counts its calls. */
export function countingCompile(): Counting {
  const f = ((func: Func, options: CompileOptions) => {
    f.calls++;
    return compile(func, options);
  }) as Counting;
  f.calls = 0;
  return f;
}
