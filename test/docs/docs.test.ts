// The docs harness: every fenced TypeScript block of README.md and docs/*.md (test/docs/blocks.ts
// says how blocks are marked) is type-checked with strict tsc — one tsc run over all of them, with
// 'tessera' resolved to this repository's src/index.ts (the types the package's d.ts are emitted
// from) — and every runnable unit runs on the sim in this process, its console.log output compared
// with the docs' ```text output block where there is one. A doc sample that drifts fails here.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { docFiles, moduleSource, runs, unitsOf, type Unit } from './blocks.js';

const ROOT = resolve(__dirname, '../..');
const ENTRY = join(ROOT, 'src', 'index.ts');
const units: Unit[] = docFiles(ROOT).flatMap((f) => unitsOf(f, readFileSync(join(ROOT, f), 'utf8')));
const nameOf = (u: Unit): string => `${u.file.replace(/\W+/g, '_')}_L${u.line}`;

const tmp = mkdtempSync(join(tmpdir(), 'tessera-docs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('doc samples', () => {
  it('README.md and docs/*.md have TypeScript samples, all well marked', () => {
    expect(units.length).toBeGreaterThan(10);
  });

  it('type-check with strict tsc against the package\'s types (one tsc run)', () => {
    const dir = join(tmp, 'check');
    mkdirSync(dir);
    const origins = new Map<string, string[]>();
    for (const u of units) {
      const { text, origin } = moduleSource(u, false);
      writeFileSync(join(dir, `${nameOf(u)}.ts`), text);
      origins.set(`${nameOf(u)}.ts`, origin);
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true,
        types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')], paths: { tessera: [ENTRY] },
      },
      include: ['*.ts'],
    }));
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8', timeout: 300_000 });
    // Each error is told at its place in the docs.
    const errors = r.stdout.split('\n').filter((l) => /error TS/.test(l)).map((l) => {
      const m = /^(?:.*\/)?([^/(]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(l);
      const where = m && origins.get(m[1]!)?.[Number(m[2]) - 1];
      return where ? `${where}:${m![3]}: ${m![4]}` : l;
    });
    expect(errors, r.stdout + r.stderr).toEqual([]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  }, 300_000);

  describe.each(units.filter(runs).map((u) => [`${u.file}:${u.line}`, u] as const))('%s runs on the sim', (_, u) => {
    it(u.output ? 'prints what the docs show' : 'runs', async () => {
      const dir = join(tmp, 'run');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${nameOf(u)}.ts`);
      writeFileSync(file, moduleSource(u, true).text.replace(/from 'tessera'/g, `from '${ENTRY.replace(/\.ts$/, '.js')}'`));
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void printed.push(format(...a)));
      const prev = process.env.TESSERA_DEVICE;
      process.env.TESSERA_DEVICE = 'sim';
      try {
        await import(pathToFileURL(file).href);
      } finally {
        log.mockRestore();
        if (prev === undefined) delete process.env.TESSERA_DEVICE;
        else process.env.TESSERA_DEVICE = prev;
      }
      if (u.output) expect(printed.join('\n') + '\n', `${u.file}:${u.output.line}`).toBe(u.output.text);
    }, 120_000);
  });
});
