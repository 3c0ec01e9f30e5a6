// Several processes writing the same entries at once: every key ends up as exactly one valid entry,
// exactly one writer per key reports 'written' (the others find it there), every read right after
// a write is a whole entry, and no temporaries are left. The children run disk_store.ts, which
// imports only node builtins, transpiled to plain JavaScript here.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DiskStore } from '../../src/runtime/cache/disk_store.js';
import { tempDir } from './helpers.js';

const WRITERS = 4;
const KEYS = 30;

const CHILD = `
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { DiskStore } from './disk_store.mjs';
const [dir, go, id, n] = process.argv.slice(2);
const until = Date.now() + 30000;
while (!existsSync(go) && Date.now() < until) {}
const store = new DiskStore(dir);
const outcomes = { written: 0, exists: 0, replaced: 0 };
const problems = [];
for (let i = 0; i < Number(n); i++) {
  const key = createHash('sha256').update('key ' + i).digest('hex');
  const ptx = '// kernel ' + i + '\\n' + 'x'.repeat(50000);
  outcomes[store.write(key, { ptx, ir: 'ir ' + i, metadata: { i }, stages: [{ name: 'ptx', text: ptx }], info: { writer: id } })]++;
  const r = store.read(key);
  if (r.status !== 'hit') problems.push(key + ': ' + r.status + ' ' + (r.reason ?? ''));
  else if (r.entry.ptx !== ptx) problems.push(key + ': wrong ptx');
}
process.stdout.write(JSON.stringify({ outcomes, problems }));
`;

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => done({ code, out, err }));
  });
}

describe('concurrent writers in separate processes', () => {
  it(`${WRITERS} processes x ${KEYS} keys -> one valid entry per key, one 'written' per key`, async () => {
    const work = tempDir();
    const src = readFileSync(resolve(__dirname, '../../src/runtime/cache/disk_store.ts'), 'utf8');
    const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(join(work, 'disk_store.mjs'), js);
    writeFileSync(join(work, 'child.mjs'), CHILD);
    const dir = join(work, 'cache');
    const go = join(work, 'go');
    const children = Array.from({ length: WRITERS }, (_, i) => run([join(work, 'child.mjs'), dir, go, `w${i}`, String(KEYS)]));
    writeFileSync(go, '');
    const results = await Promise.all(children);

    const totals = { written: 0, exists: 0, replaced: 0 };
    for (const r of results) {
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const { outcomes, problems } = JSON.parse(r.out) as { outcomes: typeof totals; problems: string[] };
      expect(problems).toEqual([]);
      for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += outcomes[k];
    }
    expect(totals).toEqual({ written: KEYS, exists: KEYS * (WRITERS - 1), replaced: 0 });

    const store = new DiskStore(dir);
    const listed = store.list();
    expect(listed.length).toBe(KEYS);
    for (let i = 0; i < KEYS; i++) {
      const key = createHash('sha256').update(`key ${i}`).digest('hex');
      expect(readdirSync(join(dir, key.slice(0, 2))).filter((k) => k === key)).toEqual([key]);
      expect(store.read(key).status).toBe('hit');
    }
    expect(readdirSync(join(dir, '.tmp'))).toEqual([]);
  }, 60000);
});
