// The persistent compile cache (docs/cache.md).
export { compileCached, compileCacheKey, defaultCompileCache } from './compile_cached.js';
export type { CompileCachedDeps, CompileFn } from './compile_cached.js';
export { CompileCache } from './compile_cache.js';
export type { CacheEntrySummary, CacheStats, CompileCacheOptions } from './compile_cache.js';
export { COMPILER_VERSION, tesseraVersion } from './version.js';
export { resolveCacheDir, diskCacheEnabled } from './cache_dir.js';
export { normalizeOptions } from './key.js';
export type { KeyParts, NormalizedOptions } from './key.js';
