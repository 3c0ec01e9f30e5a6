// CompileCache: an in-memory LRU of compile results in front of the on-disk store (disk_store.ts).
// A hit returns the same shape compile() returns. Writing is best effort: a cache that cannot be
// written (read-only disk, full disk) costs a recompile next time, never a failed compile.
import type { CompileMetadata, CompileResult, Stage } from '../../compile/compile.js';
import { diskCacheEnabled, resolveCacheDir, type EnvVars } from './cache_dir.js';
import { DiskStore, type ListedEntry } from './disk_store.js';
import { Lru } from './lru.js';

export interface CompileCacheOptions {
  /** Cache directory; default $TESSERA_CACHE_DIR, $XDG_CACHE_HOME/tessera or ~/.cache/tessera. */
  readonly dir?: string;
  /** false: memory only; default: on unless TESSERA_CACHE=0. */
  readonly disk?: boolean;
  /** Results kept in memory (default 256). */
  readonly memoryEntries?: number;
  /** Environment read for the defaults (default process.env). */
  readonly env?: EnvVars;
}

export interface CacheEntrySummary {
  readonly key: string;
  readonly path: string;
  readonly bytes: number;
  readonly name?: string;
  readonly target?: string;
  readonly numWarps?: number;
  readonly cubin?: boolean;
  readonly createdAt?: string;
  readonly corrupt?: string;
}

export interface CacheStats {
  readonly dir: string;
  readonly disk: boolean;
  /** On disk now (0 when the disk cache is off). */
  readonly entries: number;
  readonly bytes: number;
  /** This process, this CompileCache. */
  readonly memoryEntries: number;
  readonly memoryHits: number;
  readonly diskHits: number;
  readonly misses: number;
  /** Disk entries found corrupt (each one counted as a miss too). */
  readonly corrupt: number;
  readonly writes: number;
  readonly writeErrors: number;
}

export class CompileCache {
  readonly dir: string;
  readonly diskEnabled: boolean;
  readonly #disk: DiskStore;
  readonly #memory: Lru<string, CompileResult>;
  #memoryHits = 0;
  #diskHits = 0;
  #misses = 0;
  #corrupt = 0;
  #writes = 0;
  #writeErrors = 0;
  /** The last write error, for debugging a cache that never fills. */
  lastWriteError: Error | undefined;

  constructor(opts: CompileCacheOptions = {}) {
    const env = opts.env ?? process.env;
    this.dir = opts.dir ?? resolveCacheDir(env);
    this.diskEnabled = opts.disk ?? diskCacheEnabled(env);
    this.#disk = new DiskStore(this.dir);
    this.#memory = new Lru(opts.memoryEntries ?? 256);
  }

  /** Where entry `key` lives (whether or not it exists). */
  entryPath(key: string): string {
    return this.#disk.entryPath(key);
  }

  get(key: string): CompileResult | undefined {
    const m = this.#memory.get(key);
    if (m) {
      this.#memoryHits++;
      return m;
    }
    if (this.diskEnabled) {
      const r = this.#disk.read(key);
      if (r.status === 'hit') {
        const e = r.entry;
        const result: CompileResult = { ptx: e.ptx, ...(e.cubin ? { cubin: e.cubin } : {}), metadata: e.metadata as CompileMetadata, stages: e.stages as Stage[] };
        this.#memory.set(key, result);
        this.#diskHits++;
        return result;
      }
      if (r.status === 'corrupt') this.#corrupt++;
    }
    this.#misses++;
    return undefined;
  }

  /** Stores `result` under `key`; `ir` is the printed IR kept beside it for people to read. */
  put(key: string, result: CompileResult, ir = '', hooks?: { beforeRename?: () => void }): void {
    this.#disk.entryPath(key); // validates the key
    this.#memory.set(key, result);
    if (!this.diskEnabled) return;
    try {
      const m = result.metadata;
      this.#disk.write(key, { ptx: result.ptx, ...(result.cubin ? { cubin: result.cubin } : {}), ir, metadata: m, stages: result.stages, info: { name: m.name, target: m.target, numWarps: m.numWarps, cubin: result.cubin !== undefined } }, hooks?.beforeRename);
      this.#writes++;
    } catch (e) {
      this.#writeErrors++;
      this.lastWriteError = e as Error;
    }
  }

  /** Forgets everything in memory and on disk; returns the number of disk entries removed. */
  clear(): number {
    this.#memory.clear();
    return this.#disk.clear();
  }

  /** Disk entries, newest first (empty when the disk cache is off). */
  list(): CacheEntrySummary[] {
    if (!this.diskEnabled) return [];
    return this.#disk.list().map(summary);
  }

  stats(): CacheStats {
    const entries = this.diskEnabled ? this.#disk.list() : [];
    return {
      dir: this.dir,
      disk: this.diskEnabled,
      entries: entries.length,
      bytes: entries.reduce((n, e) => n + e.bytes, 0),
      memoryEntries: this.#memory.size,
      memoryHits: this.#memoryHits,
      diskHits: this.#diskHits,
      misses: this.#misses,
      corrupt: this.#corrupt,
      writes: this.#writes,
      writeErrors: this.#writeErrors,
    };
  }
}

function summary(e: ListedEntry): CacheEntrySummary {
  const i = e.info ?? {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return {
    key: e.key,
    path: e.path,
    bytes: e.bytes,
    ...(str(i.name) !== undefined ? { name: str(i.name)! } : {}),
    ...(str(i.target) !== undefined ? { target: str(i.target)! } : {}),
    ...(typeof i.numWarps === 'number' ? { numWarps: i.numWarps } : {}),
    ...(typeof i.cubin === 'boolean' ? { cubin: i.cubin } : {}),
    ...(e.createdAt !== undefined ? { createdAt: e.createdAt } : {}),
    ...(e.corrupt !== undefined ? { corrupt: e.corrupt } : {}),
  };
}
