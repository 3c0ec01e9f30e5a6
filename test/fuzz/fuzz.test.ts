// The differential fuzzer's short run (the long one is `npm run fuzz`): random well-typed kernels
// run on the interpreter and on the sim must agree (bit for bit where the semantics are exact), and
// their PTX must pass ptxas. Every failure the fuzzer found, shrunk, is replayed from regressions/.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check, type CheckResult } from './check.js';
import { generate } from './generate.js';
import { describeProgram, type Program } from './program.js';

const explain = (p: Program, r: CheckResult): string => `${describeProgram(p)}\n${JSON.stringify(r)}`;

describe('random kernels: interpreter == sim, and ptxas accepts the PTX', () => {
  // a fixed window of seeds, different from the long run's default start (1)
  const SEEDS = Array.from({ length: 48 }, (_, i) => 900_000 + i);
  it.each(SEEDS)('seed %i', async (seed) => {
    const p = generate(seed);
    const r = await check(p, { ptxas: seed % 4 === 0 ? ['sm_80', 'sm_90'] : ['sm_80'] });
    expect(r.status, explain(p, r)).toBe('same');
  });
});

describe('regressions found by the fuzzer (shrunk)', () => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'regressions');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  it('there are saved regressions to replay', () => expect(files.length).toBeGreaterThan(0));
  it.each(files)('%s', async (file) => {
    const { program } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { program: Program };
    const r = await check(program, { ptxas: ['sm_80'] });
    expect(r.status, explain(program, r)).toBe('same');
  });
});

describe('the checker can fail', () => {
  it('reports a difference when the two devices disagree (a kernel reading past n on the sim only)', async () => {
    // Same program, but the sim run sees a different `n` than the interpreter: outputs must differ.
    const p: Program = {
      seed: 7, block: 32, grid: 1, n: 32, numWarps: 1, trips: 0, inputs: ['i32'],
      nodes: [{ op: 'load', input: 0, other: 0 }, { op: 'iota' }, { op: 'binary', fn: 'add', a: 0, b: 1 }],
      outputs: [{ kind: 'store', node: 2 }],
    };
    expect((await check(p)).status).toBe('same');
    const r = await check(p, { mutateSim: (q) => ({ ...q, n: 31 }) });
    expect(r.status).toBe('different');
  });
});
