// compileCached: misses compile and store, hits (memory, then disk from another CompileCache) do
// not compile and return what compile() returned; the key follows every input that changes output.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { vectorAdd as vectorAddKernel } from '../../bench/kernels.js';
import { compile, type CompileOptions } from '../../src/compile/compile.js';
import { CompileError } from '../../src/compiler/errors.js';
import { printFunc } from '../../src/ir/print.js';
import { CompileCache, compileCached, compileCacheKey, COMPILER_VERSION, normalizeOptions, tesseraVersion } from '../../src/runtime/cache/index.js';
import { loopsKernel, vectorAdd } from '../ir/build.js';
import { countingCompile, tempDir } from './helpers.js';

const NO_PTXAS: CompileOptions = { target: 'sm_80', ptxas: false };
const key = (f = vectorAdd(128), o: CompileOptions = NO_PTXAS): string => compileCacheKey(f, o).key;

describe('compileCached', () => {
  it('compiles on a miss, then hits in memory and from disk without compiling', () => {
    const dir = tempDir();
    const counting = countingCompile();
    const f = vectorAddKernel.trace({ BLOCK: 128 });
    const first = compileCached(f, NO_PTXAS, { cache: new CompileCache({ dir }), compile: counting });
    expect(counting.calls).toBe(1);
    expect(first).toEqual(compile(f, NO_PTXAS));

    const cache = new CompileCache({ dir });
    const fromDisk = compileCached(f, NO_PTXAS, { cache, compile: counting });
    const fromMemory = compileCached(f, NO_PTXAS, { cache, compile: counting });
    expect(counting.calls).toBe(1);
    expect(fromDisk).toEqual(first);
    expect(fromMemory).toBe(fromDisk);
    expect(cache.stats()).toMatchObject({ diskHits: 1, memoryHits: 1, misses: 0, entries: 1 });
  });

  it('writes kernel.ptx, kernel.ir and metadata.json under <dir>/<key[0..2]>/<key>/', () => {
    const dir = tempDir();
    const f = loopsKernel({ loc: true });
    const r = compileCached(f, NO_PTXAS, { cache: new CompileCache({ dir }) });
    const k = key(f);
    const entry = join(dir, k.slice(0, 2), k);
    expect(readdirSync(entry).sort()).toEqual(['kernel.ir', 'kernel.ptx', 'metadata.json', 'stages.json']);
    expect(readFileSync(join(entry, 'kernel.ptx'), 'utf8')).toBe(r.ptx);
    expect(readFileSync(join(entry, 'kernel.ir'), 'utf8')).toBe(printFunc(f, { locs: true }));
    const meta = JSON.parse(readFileSync(join(entry, 'metadata.json'), 'utf8'));
    expect(meta.key).toBe(k);
    expect(meta.metadata).toEqual(r.metadata);
    expect(readdirSync(join(dir, '.tmp'))).toEqual([]);
  });

  it('keeps the cubin when ptxas ran, and a disk hit returns the same bytes', () => {
    const dir = tempDir();
    const counting = countingCompile();
    const f = vectorAdd(128);
    const opts: CompileOptions = { target: 'sm_90', ptxas: true };
    const r = compileCached(f, opts, { cache: new CompileCache({ dir }), compile: counting });
    expect(r.cubin).toBeInstanceOf(Uint8Array);
    const hit = compileCached(f, opts, { cache: new CompileCache({ dir }), compile: counting });
    expect(counting.calls).toBe(1);
    expect(Buffer.from(hit.cubin!).equals(Buffer.from(r.cubin!))).toBe(true);
    expect(hit.metadata.registers).toBe(r.metadata.registers);
    const k = key(f, opts);
    expect(existsSync(join(dir, k.slice(0, 2), k, 'kernel.cubin'))).toBe(true);
  });

  it('a disabled disk cache (TESSERA_CACHE=0 or disk: false) writes nothing; memory still hits', () => {
    for (const make of [(dir: string) => new CompileCache({ env: { TESSERA_CACHE_DIR: dir, TESSERA_CACHE: '0' } }), (dir: string) => new CompileCache({ dir, disk: false })]) {
      const dir = tempDir();
      const counting = countingCompile();
      const cache = make(dir);
      expect(cache.dir).toBe(dir);
      expect(cache.diskEnabled).toBe(false);
      compileCached(vectorAdd(), NO_PTXAS, { cache, compile: counting });
      compileCached(vectorAdd(), NO_PTXAS, { cache, compile: counting });
      expect(counting.calls).toBe(1);
      expect(readdirSync(dir)).toEqual([]);
      compileCached(vectorAdd(), NO_PTXAS, { cache: make(dir), compile: counting });
      expect(counting.calls).toBe(2);
      expect(cache.list()).toEqual([]);
    }
  });

  it('checks options like compile() does, even when the key would hit', () => {
    const dir = tempDir();
    const cache = new CompileCache({ dir });
    compileCached(vectorAdd(), NO_PTXAS, { cache });
    const bad: CompileOptions[] = [
      { ...NO_PTXAS, numWarps: 3 },
      { ...NO_PTXAS, target: 'sm_70' as never },
      { ...NO_PTXAS, specialization: { nope: { divisibleBy16: true } } },
    ];
    for (const o of bad) expect(() => compileCached(vectorAdd(), o, { cache })).toThrow(CompileError);
  });
});

describe('the process-wide cache', () => {
  it('is created from TESSERA_CACHE_DIR on first use and serves compileCached without a cache', async () => {
    const dir = tempDir();
    const saved = process.env.TESSERA_CACHE_DIR;
    process.env.TESSERA_CACHE_DIR = dir;
    try {
      vi.resetModules();
      const m = await import('../../src/runtime/cache/compile_cached.js');
      expect(m.defaultCompileCache().dir).toBe(dir);
      const counting = countingCompile();
      m.compileCached(vectorAdd(32), NO_PTXAS, { compile: counting });
      m.compileCached(vectorAdd(32), NO_PTXAS, { compile: counting });
      expect(counting.calls).toBe(1);
      expect(m.defaultCompileCache().list().map((e) => e.key)).toEqual([key(vectorAdd(32))]);
    } finally {
      if (saved === undefined) delete process.env.TESSERA_CACHE_DIR;
      else process.env.TESSERA_CACHE_DIR = saved;
      vi.resetModules();
    }
  });
});

describe('the cache key', () => {
  it('is the same for the same IR built twice (also through the kernel language)', () => {
    expect(key(vectorAdd(128))).toBe(key(vectorAdd(128, 7)));
    expect(key(vectorAddKernel.trace({ BLOCK: 64 }))).toBe(key(vectorAddKernel.trace({ BLOCK: 64 })));
  });

  it('differs for other constexprs, specialization, target, warps, dot, numStages, IR passes and ptxas', () => {
    const f = vectorAdd(128);
    const keys = [
      key(f),
      key(vectorAdd(64)),
      key(vectorAddKernel.trace({ BLOCK: 128 })),
      key(vectorAddKernel.trace({ BLOCK: 256 })),
      key(f, { ...NO_PTXAS, specialization: { x: { divisibleBy16: true } } }),
      key(f, { ...NO_PTXAS, specialization: { y: { divisibleBy16: true } } }),
      key(f, { ...NO_PTXAS, specialization: { n: { equalsOne: true } } }),
      key(f, { ...NO_PTXAS, target: 'sm_90' }),
      key(f, { ...NO_PTXAS, target: 'sm_90a' }),
      key(f, { ...NO_PTXAS, target: 'sm_89' }),
      key(f, { ...NO_PTXAS, numWarps: 8 }),
      key(f, { ...NO_PTXAS, dot: 'fma' }),
      key(f, { ...NO_PTXAS, numStages: 1 }),
      key(f, { ...NO_PTXAS, skipIRPasses: true }),
      key(f, { target: 'sm_80', ptxas: true }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('differs for sm_100a dotScaled on the emulation (blockScaled: false); true is the default', () => {
    const f = vectorAdd(128);
    const on = key(f, { ...NO_PTXAS, target: 'sm_100a' });
    expect(key(f, { ...NO_PTXAS, target: 'sm_100a', blockScaled: false })).not.toBe(on);
    expect(key(f, { ...NO_PTXAS, target: 'sm_100a', blockScaled: true })).toBe(on);
    expect(() => key(f, { ...NO_PTXAS, target: 'sm_100a', blockScaled: 'no' as unknown as boolean })).toThrow(/option 'blockScaled' must be a boolean, got "no"/);
  });

  it('differs when only source locations differ (the PTX carries .loc lines)', () => {
    expect(key(loopsKernel({ loc: true }))).not.toBe(key(loopsKernel()));
  });

  it('normalises options: defaults, specialization by name or position, unset flags, order', () => {
    const f = vectorAdd(128);
    expect(key(f, { target: 'sm_80', ptxas: false, numWarps: 4, dot: 'mma', numStages: 3 })).toBe(key(f));
    // the dot lowering and the pipelining depth change the PTX, so they change the key
    expect(() => key(f, { ...NO_PTXAS, numStages: 0 })).toThrow(/numStages/);
    expect(key(f, { ...NO_PTXAS, specialization: { n: {}, x: { divisibleBy16: false } } })).toBe(key(f));
    const byName = key(f, { ...NO_PTXAS, specialization: { y: { divisibleBy16: true }, x: { divisibleBy16: true } } });
    expect(key(f, { ...NO_PTXAS, specialization: { x: { divisibleBy16: true }, y: { divisibleBy16: true } } })).toBe(byName);
    expect(key(f, { ...NO_PTXAS, specialization: [{ divisibleBy16: true }, { divisibleBy16: true }] })).toBe(byName);
    expect(normalizeOptions(f, { target: 'sm_90', specialization: { y: { divisibleBy16: true }, x: { divisibleBy16: true, equalsOne: false } } })).toEqual({
      target: 'sm_90', numWarps: 4, dot: 'mma', skipIRPasses: false, numStages: 3,
      specialization: [['x', { divisibleBy16: true }], ['y', { divisibleBy16: true }]],
    });
  });

  it('holds the tessera version, COMPILER_VERSION and the ptxas version when ptxas runs', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    const off = compileCacheKey(vectorAdd(), NO_PTXAS).parts;
    expect(off).toMatchObject({ tessera: pkg.version, compiler: COMPILER_VERSION, ptxas: 'off' });
    expect(tesseraVersion()).toBe(pkg.version);
    const on = compileCacheKey(vectorAdd(), { target: 'sm_80', ptxas: true }).parts;
    expect(on.ptxas).toMatch(/release \d+\.\d+/);
  });
});
