// The on-disk entries: a corrupt or partial entry is a miss and is replaced by the recompiled one;
// a writer that loses the rename race leaves the winner's entry; list/stats/clear.
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/compile.js';
import { CompileCache, compileCached, compileCacheKey } from '../../src/runtime/cache/index.js';
import { DiskStore } from '../../src/runtime/cache/disk_store.js';
import { vectorAdd } from '../ir/build.js';
import { countingCompile, tempDir } from './helpers.js';

const OPTS: CompileOptions = { target: 'sm_80', ptxas: false };

const CORRUPTIONS: [string, (entry: string) => void][] = [
  ['truncated kernel.ptx', (e) => writeFileSync(join(e, 'kernel.ptx'), readFileSync(join(e, 'kernel.ptx'), 'utf8').slice(0, 40))],
  ['same-size edit of kernel.ptx', (e) => {
    const t = readFileSync(join(e, 'kernel.ptx'), 'utf8');
    writeFileSync(join(e, 'kernel.ptx'), t.replace('.entry', '.entrz'));
  }],
  ['missing metadata.json', (e) => rmSync(join(e, 'metadata.json'))],
  ['half-written metadata.json', (e) => writeFileSync(join(e, 'metadata.json'), readFileSync(join(e, 'metadata.json'), 'utf8').slice(0, 30))],
  ['missing stages.json', (e) => rmSync(join(e, 'stages.json'))],
  ['metadata.json of another key', (e) => {
    const m = JSON.parse(readFileSync(join(e, 'metadata.json'), 'utf8'));
    writeFileSync(join(e, 'metadata.json'), JSON.stringify({ ...m, key: '0'.repeat(64) }));
  }],
];

describe('corrupt entries', () => {
  it.each(CORRUPTIONS)('%s: a miss, recompiled, replaced by a valid entry', (_, corrupt) => {
    const dir = tempDir();
    const counting = countingCompile();
    const f = vectorAdd(128);
    const want = compile(f, OPTS);
    compileCached(f, OPTS, { cache: new CompileCache({ dir }), compile: counting });
    const { key } = compileCacheKey(f, OPTS);
    corrupt(join(dir, key.slice(0, 2), key));

    const cache = new CompileCache({ dir });
    expect(compileCached(f, OPTS, { cache, compile: counting })).toEqual(want);
    expect(counting.calls).toBe(2);
    expect(cache.stats()).toMatchObject({ corrupt: 1, misses: 1, writes: 1, entries: 1 });
    expect(new DiskStore(dir).read(key).status).toBe('hit');
    expect(compileCached(f, OPTS, { cache: new CompileCache({ dir }), compile: counting })).toEqual(want);
    expect(counting.calls).toBe(2);
  });
});

describe('racing writers (in one process, through the rename hook)', () => {
  const entry = (ptx: string) => ({ ptx, ir: 'ir', metadata: { name: 'k' }, stages: [] });
  const KEY = 'ab'.repeat(32);

  it('the writer that loses the rename keeps the winner\'s entry and leaves no temporaries', () => {
    const dir = tempDir();
    const a = new DiskStore(dir);
    const b = new DiskStore(dir);
    const outcome = a.write(KEY, entry('first'), () => expect(b.write(KEY, entry('second'))).toBe('written'));
    expect(outcome).toBe('exists');
    const r = a.read(KEY);
    expect(r.status === 'hit' && r.entry.ptx).toBe('second');
    expect(readdirSync(join(dir, KEY.slice(0, 2)))).toEqual([KEY]);
    expect(readdirSync(join(dir, '.tmp'))).toEqual([]);
  });

  it('a corrupt entry in the way is moved aside and replaced', () => {
    const dir = tempDir();
    const s = new DiskStore(dir);
    s.write(KEY, entry('old'));
    rmSync(join(s.entryPath(KEY), 'kernel.ptx'));
    expect(s.read(KEY)).toEqual({ status: 'corrupt', reason: 'kernel.ptx is missing' });
    expect(s.write(KEY, entry('new'))).toBe('replaced');
    const r = s.read(KEY);
    expect(r.status === 'hit' && r.entry.ptx).toBe('new');
    expect(readdirSync(join(dir, '.tmp'))).toEqual([]);
  });
});

describe('list, stats, clear', () => {
  it('list names each entry with its size; stats sums them; clear empties the directory', () => {
    const dir = tempDir();
    const cache = new CompileCache({ dir });
    compileCached(vectorAdd(128), OPTS, { cache });
    compileCached(vectorAdd(64), { ...OPTS, numWarps: 2 }, { cache });
    const list = cache.list();
    expect(list.map((e) => [e.name, e.numWarps, e.target, e.cubin]).sort()).toEqual([['add', 2, 'sm_80', false], ['add', 4, 'sm_80', false]]);
    for (const e of list) {
      const bytes = readdirSync(e.path).reduce((n, f) => n + statSync(join(e.path, f)).size, 0);
      expect(e.bytes).toBe(bytes);
    }
    const s = cache.stats();
    expect(s).toMatchObject({ dir, disk: true, entries: 2, memoryEntries: 2, misses: 2, writes: 2 });
    expect(s.bytes).toBe(list[0]!.bytes + list[1]!.bytes);

    // A directory without metadata.json is listed as corrupt.
    rmSync(join(list[0]!.path, 'metadata.json'));
    expect(cache.list().find((e) => e.key === list[0]!.key)?.corrupt).toBe('metadata.json is missing');

    expect(cache.clear()).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, memoryEntries: 0 });
  });

  it('a cache directory that cannot be written costs a recompile, not a failure', () => {
    const dir = tempDir();
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    const counting = countingCompile();
    const cache = new CompileCache({ dir: file });
    compileCached(vectorAdd(), OPTS, { cache, compile: counting });
    expect(cache.stats()).toMatchObject({ writes: 0, writeErrors: 1 });
    expect(cache.lastWriteError).toBeInstanceOf(Error);
    compileCached(vectorAdd(), OPTS, { cache: new CompileCache({ dir: file }), compile: counting });
    expect(counting.calls).toBe(2);
  });
});

describe('permissions', () => {
  const mode = (p: string): number => statSync(p).mode & 0o777;

  it('the cache directory is private to the user (0700) and its files are 0600', () => {
    const dir = join(tempDir(), 'nested', 'cache');
    compileCached(vectorAdd(128), OPTS, { cache: new CompileCache({ dir }) });
    const { key } = compileCacheKey(vectorAdd(128), OPTS);
    const entry = join(dir, key.slice(0, 2), key);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, key.slice(0, 2)))).toBe(0o700);
    expect(mode(entry)).toBe(0o700);
    const files = readdirSync(entry);
    expect(files).toContain('kernel.ptx');
    for (const f of files) expect([f, mode(join(entry, f))]).toEqual([f, 0o600]);
  });

  it('an existing cache root of ours that is group/world readable is tightened on the next write', () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    compileCached(vectorAdd(64), OPTS, { cache: new CompileCache({ dir }) });
    expect(mode(dir)).toBe(0o700);
  });
});
