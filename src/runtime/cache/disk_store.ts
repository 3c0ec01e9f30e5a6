// The on-disk half of the compile cache: one directory per key, <dir>/<key[0..2]>/<key>/, holding
// kernel.ptx, kernel.cubin (when there is one), kernel.ir, stages.json and metadata.json.
// An entry is written into a fresh directory under <dir>/.tmp and renamed into place, so another
// process sees either no entry or a whole one. metadata.json records the size and sha256 of every
// other file; an entry that fails those checks is "corrupt": a miss, replaced by the next write.
// The cache is private to the user (directories 0700, files 0600): kernels and their IR can carry a
// user's source and constants, and a shared writable cache would let another user swap the PTX.
// This file imports only node builtins (the multi-process test runs it without the rest of Tessera).
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Bumped when the layout of an entry changes; entries of another format are corrupt. */
export const ENTRY_FORMAT = 1;
const KEY_RE = /^[0-9a-f]{64}$/;
const TMP = '.tmp';

export interface EntryFiles {
  readonly ptx: string;
  readonly cubin?: Uint8Array;
  /** Printed tile IR of the kernel, for people reading the cache. */
  readonly ir: string;
  /** JSON-serialisable: compile()'s metadata. */
  readonly metadata: unknown;
  /** JSON-serialisable: compile()'s stages. */
  readonly stages: unknown;
  /** Shown by `tessera cache list`; not part of the key. */
  readonly info?: Readonly<Record<string, unknown>>;
}

interface FileRecord {
  readonly size: number;
  readonly sha256: string;
}
interface MetadataFile {
  readonly format: number;
  readonly key: string;
  readonly createdAt: string;
  readonly info: Record<string, unknown>;
  readonly metadata: unknown;
  readonly files: Record<string, FileRecord>;
}

export type ReadResult =
  | { readonly status: 'hit'; readonly entry: EntryFiles }
  | { readonly status: 'miss' }
  | { readonly status: 'corrupt'; readonly reason: string };

export interface ListedEntry {
  readonly key: string;
  readonly path: string;
  readonly bytes: number;
  readonly createdAt?: string;
  readonly info?: Record<string, unknown>;
  /** Set when metadata.json is missing or unreadable (the files are not re-hashed by list). */
  readonly corrupt?: string;
}

/** The cache is private to the user (compile cache and tuning records): directories 0700, files 0600. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** mkdir -p where every directory it creates is private. */
export function mkdirPrivate(path: string): void {
  mkdirSync(path, { recursive: true, mode: DIR_MODE });
}

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

function dirBytes(path: string): number {
  let n = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

export class DiskStore {
  constructor(readonly dir: string) {}

  static isKey(key: string): boolean {
    return KEY_RE.test(key);
  }

  entryPath(key: string): string {
    if (!KEY_RE.test(key)) throw new Error(`cache key must be 64 lowercase hex digits, got '${key}'`);
    return join(this.dir, key.slice(0, 2), key);
  }

  read(key: string): ReadResult {
    const path = this.entryPath(key);
    let meta: MetadataFile;
    try {
      meta = JSON.parse(readFileSync(join(path, 'metadata.json'), 'utf8')) as MetadataFile;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        // No metadata.json: a missing entry, or a directory with a lost file (corrupt).
        try {
          statSync(path);
        } catch {
          return { status: 'miss' };
        }
        return { status: 'corrupt', reason: 'metadata.json is missing' };
      }
      return { status: 'corrupt', reason: `metadata.json: ${(e as Error).message}` };
    }
    if (meta === null || typeof meta !== 'object' || meta.format !== ENTRY_FORMAT) return { status: 'corrupt', reason: 'metadata.json has another format' };
    if (meta.key !== key) return { status: 'corrupt', reason: `metadata.json names key ${String(meta.key)}` };
    const files = new Map<string, Buffer>();
    for (const [name, rec] of Object.entries(meta.files ?? {})) {
      let b: Buffer;
      try {
        b = readFileSync(join(path, name));
      } catch {
        return { status: 'corrupt', reason: `${name} is missing` };
      }
      if (b.length !== rec.size || sha(b) !== rec.sha256) return { status: 'corrupt', reason: `${name} does not match its recorded size/sha256` };
      files.set(name, b);
    }
    const ptx = files.get('kernel.ptx');
    const stages = files.get('stages.json');
    if (!ptx || !stages) return { status: 'corrupt', reason: 'kernel.ptx or stages.json is not recorded' };
    const cubin = files.get('kernel.cubin');
    return {
      status: 'hit',
      entry: {
        ptx: ptx.toString('utf8'),
        ...(cubin ? { cubin: new Uint8Array(cubin.buffer, cubin.byteOffset, cubin.byteLength) } : {}),
        ir: files.get('kernel.ir')?.toString('utf8') ?? '',
        metadata: meta.metadata,
        stages: JSON.parse(stages.toString('utf8')) as unknown,
        info: meta.info ?? {},
      },
    };
  }

  /**
   * Writes the entry atomically. Returns 'written', 'exists' (a valid entry was already there or
   * another writer got there first) or 'replaced' (a corrupt entry was moved aside and replaced).
   * `beforeRename` is a test hook called after the files are written, before the rename.
   */
  write(key: string, e: EntryFiles, beforeRename?: () => void): 'written' | 'exists' | 'replaced' {
    const final = this.entryPath(key);
    const tmpRoot = join(this.dir, TMP);
    this.#ensureRoot();
    mkdirPrivate(tmpRoot);
    const tmp = mkdtempSync(join(tmpRoot, `${key.slice(0, 12)}-`));
    try {
      const data: [string, Uint8Array | string][] = [
        ['kernel.ptx', e.ptx],
        ['kernel.ir', e.ir],
        ['stages.json', JSON.stringify(e.stages)],
      ];
      if (e.cubin) data.push(['kernel.cubin', e.cubin]);
      const files: Record<string, FileRecord> = {};
      for (const [name, content] of data) {
        const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
        writeFileSync(join(tmp, name), buf, { mode: FILE_MODE });
        files[name] = { size: buf.byteLength, sha256: sha(buf) };
      }
      const meta: MetadataFile = { format: ENTRY_FORMAT, key, createdAt: new Date().toISOString(), info: { ...(e.info ?? {}) }, metadata: e.metadata, files };
      writeFileSync(join(tmp, 'metadata.json'), JSON.stringify(meta, null, 2) + '\n', { mode: FILE_MODE });
      mkdirPrivate(dirname(final));
      beforeRename?.();
      if (this.#rename(tmp, final)) return 'written';
      if (this.read(key).status === 'hit') return 'exists';
      // A corrupt entry is in the way: move it aside (another process may do the same; one wins).
      const aside = join(tmpRoot, `old-${key.slice(0, 12)}-${randomBytes(6).toString('hex')}`);
      try {
        renameSync(final, aside);
      } catch {
        // already moved by someone else
      }
      rmSync(aside, { recursive: true, force: true });
      if (this.#rename(tmp, final)) return 'replaced';
      if (this.read(key).status === 'hit') return 'exists';
      throw new Error(`could not replace the corrupt cache entry ${final}`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  /** Creates the cache root 0700, and tightens one of ours that an older version made 0755. */
  #ensureRoot(): void {
    mkdirPrivate(this.dir);
    const st = statSync(this.dir);
    if ((st.mode & 0o077) !== 0 && typeof process.getuid === 'function' && st.uid === process.getuid()) {
      chmodSync(this.dir, DIR_MODE);
    }
  }

  /** rename(2) of a directory onto a non-empty one fails; false then, so the caller can look. */
  #rename(from: string, to: string): boolean {
    try {
      renameSync(from, to);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM' || code === 'EACCES') return false;
      throw err;
    }
  }

  remove(key: string): void {
    const path = this.entryPath(key);
    const aside = join(this.dir, TMP, `rm-${key.slice(0, 12)}-${randomBytes(6).toString('hex')}`);
    try {
      mkdirPrivate(join(this.dir, TMP));
      renameSync(path, aside);
    } catch {
      return;
    }
    rmSync(aside, { recursive: true, force: true });
  }

  /** Every entry directory (valid or not) with its size; sorted newest first. */
  list(): ListedEntry[] {
    const out: ListedEntry[] = [];
    let shards: string[];
    try {
      shards = readdirSync(this.dir);
    } catch {
      return out;
    }
    for (const s of shards) {
      if (!/^[0-9a-f]{2}$/.test(s)) continue;
      let keys: string[];
      try {
        keys = readdirSync(join(this.dir, s));
      } catch {
        continue;
      }
      for (const key of keys) {
        if (!KEY_RE.test(key) || key.slice(0, 2) !== s) continue;
        const path = join(this.dir, s, key);
        try {
          const bytes = dirBytes(path);
          try {
            const meta = JSON.parse(readFileSync(join(path, 'metadata.json'), 'utf8')) as MetadataFile;
            out.push({ key, path, bytes, createdAt: meta.createdAt, info: meta.info ?? {} });
          } catch (e) {
            out.push({ key, path, bytes, corrupt: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'metadata.json is missing' : 'metadata.json is unreadable' });
          }
        } catch {
          // removed while we looked
        }
      }
    }
    return out.sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || a.key.localeCompare(b.key));
  }

  /** Removes every entry and any leftover temporaries; returns how many entries there were. */
  clear(): number {
    const n = this.list().length;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    for (const s of names) if (/^[0-9a-f]{2}$/.test(s) || s === TMP) rmSync(join(this.dir, s), { recursive: true, force: true });
    return n;
  }
}
