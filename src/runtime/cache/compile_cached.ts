// compileCached(func, options): compile() behind the persistent cache. The key is computed and
// the options checked first; a hit (memory, then disk) returns without compiling; a miss compiles
// and stores the result. `deps.compile` replaces compile() (tests count calls with it).
import { compile, type CompileOptions, type CompileResult } from '../../compile/compile.js';
import { findPtxas } from '../../codegen/ptxas.js';
import type { Func } from '../../ir/ops.js';
import { printFunc } from '../../ir/print.js';
import { CompileCache } from './compile_cache.js';
import { keyOf, keyParts, type KeyParts } from './key.js';
import { ptxasVersion } from './ptxas_version.js';

export type CompileFn = (func: Func, options: CompileOptions) => CompileResult;

export interface CompileCachedDeps {
  /** Default: the process-wide cache (defaultCompileCache()). */
  readonly cache?: CompileCache;
  /** Default: compile() from src/compile/compile.ts. */
  readonly compile?: CompileFn;
}

let shared: CompileCache | undefined;

/** The process-wide cache, created on first use from the environment at that moment. */
export function defaultCompileCache(): CompileCache {
  return (shared ??= new CompileCache());
}

/** Which ptxas compile() will run for these options: its version banner, or undefined for none. */
function ptxasFor(options: CompileOptions): string | undefined {
  if (options.ptxas === false) return undefined;
  const path = findPtxas();
  return path ? ptxasVersion(path) : undefined;
}

/** The key parts and key compileCached would use (for tools and tests). */
export function compileCacheKey(func: Func, options: CompileOptions): { key: string; parts: KeyParts } {
  const parts = keyParts(func, options, ptxasFor(options));
  return { key: keyOf(parts), parts };
}

export function compileCached(func: Func, options: CompileOptions, deps: CompileCachedDeps = {}): CompileResult {
  const run = deps.compile ?? compile;
  // ptxas demanded but missing: let compile() raise its PtxasError rather than serve a cubin-less hit.
  if (options.ptxas === true && !findPtxas()) return run(func, options);
  const cache = deps.cache ?? defaultCompileCache();
  const { key } = compileCacheKey(func, options);
  const hit = cache.get(key);
  if (hit) return hit;
  const result = run(func, options);
  cache.put(key, result, printFunc(func, { locs: true }));
  return result;
}
