// `tessera cache dir | list [--json] | stats [--json] | clear` through main(argv, io), against a
// cache filled by compileCached in a temp directory; usage errors exit 2 and name the flag.
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIO } from '../../src/cli/main.js';
import { CompileCache, compileCached, compileCacheKey } from '../../src/runtime/cache/index.js';
import { loopsKernel, vectorAdd } from '../ir/build.js';
import { tempDir } from './helpers.js';

async function cli(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { out: (s) => void (out += s), err: (s) => void (err += s), cwd: process.cwd(), env };
  const code = await main(argv, io);
  return { code, out, err };
}

function filled(): { dir: string; env: NodeJS.ProcessEnv; keys: string[] } {
  const dir = tempDir();
  const cache = new CompileCache({ dir });
  compileCached(vectorAdd(128), { target: 'sm_80', ptxas: false }, { cache });
  compileCached(loopsKernel(), { target: 'sm_90', ptxas: false, numWarps: 8 }, { cache });
  const keys = [compileCacheKey(vectorAdd(128), { target: 'sm_80', ptxas: false }).key, compileCacheKey(loopsKernel(), { target: 'sm_90', ptxas: false, numWarps: 8 }).key];
  return { dir, env: { TESSERA_CACHE_DIR: dir }, keys };
}

describe('tessera cache', () => {
  it('dir follows TESSERA_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache', async () => {
    const d = tempDir();
    expect((await cli(['cache', 'dir'], { TESSERA_CACHE_DIR: d, XDG_CACHE_HOME: '/x' })).out).toBe(`${d}\n`);
    expect((await cli(['cache', 'dir'], { XDG_CACHE_HOME: d })).out).toBe(`${join(d, 'tessera')}\n`);
    expect((await cli(['cache', 'dir'], { XDG_CACHE_HOME: 'relative' })).out).toBe(`${join(homedir(), '.cache', 'tessera')}\n`);
    expect((await cli(['cache', 'dir'], {})).out).toBe(`${join(homedir(), '.cache', 'tessera')}\n`);
  });

  it('list shows one line per entry; --json gives key, name, target, warps and size', async () => {
    const { env, keys } = filled();
    const text = await cli(['cache', 'list'], env);
    expect(text.code).toBe(0);
    const lines = text.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.startsWith(keys[1]!.slice(0, 16)))).toMatch(/ loops {2}sm_90 {2}8 warps {2}ptx /);
    const json = await cli(['cache', 'list', '--json'], env);
    const entries = JSON.parse(json.out) as { key: string; name: string; target: string; numWarps: number; bytes: number }[];
    expect(entries.map((e) => e.key).sort()).toEqual([...keys].sort());
    expect(entries.find((e) => e.key === keys[0])).toMatchObject({ name: 'add', target: 'sm_80', numWarps: 4 });
    expect(entries.every((e) => e.bytes > 0)).toBe(true);
  });

  it('stats counts entries and bytes; clear removes them', async () => {
    const { dir, env } = filled();
    const before = JSON.parse((await cli(['cache', 'stats', '--json'], env)).out);
    const listed = JSON.parse((await cli(['cache', 'list', '--json'], env)).out) as { bytes: number }[];
    expect(before).toEqual({ dir, enabled: true, entries: 2, bytes: listed[0]!.bytes + listed[1]!.bytes });
    expect((await cli(['cache', 'stats'], { ...env, TESSERA_CACHE: '0' })).out).toContain('disk cache: off (TESSERA_CACHE=0)');
    const cleared = await cli(['cache', 'clear'], env);
    expect(cleared).toEqual({ code: 0, out: `removed 2 entries from ${dir}\n`, err: '' });
    expect(readdirSync(dir)).toEqual([]);
    expect((await cli(['cache', 'list'], env)).out).toBe(`no entries in ${dir}\n`);
    expect(JSON.parse((await cli(['cache', 'stats', '--json'], env)).out)).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('usage errors exit 2 and name the flag or subcommand', async () => {
    const env = { TESSERA_CACHE_DIR: tempDir() };
    const cases: [string[], string][] = [
      [['cache'], 'missing subcommand (one of dir, list, stats, clear)'],
      [['cache', 'purge'], "unknown subcommand 'purge'"],
      [['cache', 'list', 'extra'], "unexpected argument 'extra'"],
      [['cache', 'dir', '--json'], "flag '--json' is not accepted by 'tessera cache dir'"],
      [['cache', 'clear', '--json'], "flag '--json' is not accepted by 'tessera cache clear'"],
      [['cache', 'list', '--all'], "unknown flag '--all'"],
      [['cache', 'list', '--json=yes'], "flag '--json' takes no value"],
    ];
    for (const [argv, msg] of cases) {
      const r = await cli(argv, env);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toContain(msg);
      expect(r.err).toContain('usage: tessera cache dir | list [--json] | stats [--json] | clear');
    }
    const help = await cli(['cache', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.out).toContain('usage: tessera cache');
  });
});
