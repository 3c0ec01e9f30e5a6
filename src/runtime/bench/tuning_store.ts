// Autotuning results on disk, beside the compile cache: <cache dir>/tuning/<key>.json. One small
// JSON file per (kernel hash, key values, device, driver); written to a temp file and renamed so a
// reader never sees half a record. TESSERA_CACHE=0 turns it off, as for the compile cache.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskCacheEnabled, resolveCacheDir } from '../cache/cache_dir.js';
import { FILE_MODE, mkdirPrivate } from '../cache/disk_store.js';

export interface TuningRecord {
  readonly kernel: string;
  readonly key: string;
  readonly device: string;
  readonly driver: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly ms: number;
  readonly clock: string;
}

export class TuningStore {
  constructor(readonly dir: string = join(resolveCacheDir(), 'tuning'), readonly enabled: boolean = diskCacheEnabled()) {}

  get(id: string): TuningRecord | undefined {
    if (!this.enabled) return undefined;
    try {
      return JSON.parse(readFileSync(join(this.dir, `${id}.json`), 'utf8')) as TuningRecord;
    } catch {
      return undefined; // absent or unreadable: tune again
    }
  }

  put(id: string, rec: TuningRecord): void {
    if (!this.enabled) return;
    try {
      mkdirPrivate(this.dir); // private like the compile cache beside it
      const tmp = join(this.dir, `${id}.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(rec, null, 2), { mode: FILE_MODE });
      renameSync(tmp, join(this.dir, `${id}.json`));
    } catch {
      // a read-only cache only costs a re-tune next time
    }
  }
}
