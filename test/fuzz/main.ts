// `npm run fuzz [-- --count N] [--seed S]`: the long run of the differential fuzzer. Generates
// programs from consecutive seeds, runs each on the interpreter and the sim, and shrinks and saves
// every failure under test/fuzz/regressions/ (replayed by fuzz.test.ts). Prints kernels/s.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check } from './check.js';
import { generate } from './generate.js';
import { describeProgram } from './program.js';
import { shrink } from './shrink.js';

process.env['TESSERA_CACHE'] ??= '0';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : dflt;
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} wants a non-negative integer, got '${process.argv[i + 1]}'`);
  return v;
}

// dist/test/fuzz -> the source tree's test/fuzz/regressions
const here = dirname(fileURLToPath(import.meta.url));
const regressions = join(here.includes(`${'dist'}`) ? join(here, '..', '..', '..', 'test', 'fuzz') : here, 'regressions');

const count = arg('count', 2000), seed0 = arg('seed', 1);
// ptxas for sm_80 on every N-th kernel (0: never); every kernel by default, as DESIGN.md asks.
const ptxasEvery = arg('ptxas-every', 1);
const t0 = performance.now();
let same = 0, failures = 0, lastPrint = t0;
for (let s = seed0; s < seed0 + count; s++) {
  const p = generate(s);
  const r = await check(p, ptxasEvery > 0 && (s - seed0) % ptxasEvery === 0 ? { ptxas: ['sm_80'] } : {});
  if (r.status === 'same') same++;
  else {
    failures++;
    const small = await shrink(p, r, r.status === 'error' && r.device === 'ptxas' ? { ptxas: ['sm_80'] } : {});
    mkdirSync(regressions, { recursive: true });
    const file = join(regressions, `seed-${s}.json`);
    writeFileSync(file, JSON.stringify({ seed: s, found: small.result, program: small.program }, null, 1) + '\n');
    console.log(`seed ${s}: ${r.status}; shrunk to ${small.program.nodes.length} nodes -> ${file}\n${describeProgram(small.program)}\n${JSON.stringify(small.result)}`);
  }
  const now = performance.now();
  if (now - lastPrint > 10_000) {
    lastPrint = now;
    console.log(`${s - seed0 + 1}/${count} kernels, ${((s - seed0 + 1) / ((now - t0) / 1000)).toFixed(1)} kernels/s, ${failures} failing`);
  }
}
const secs = (performance.now() - t0) / 1000;
console.log(`fuzz: ${count} kernels (seeds ${seed0}..${seed0 + count - 1}) in ${secs.toFixed(1)} s = ${(count / secs).toFixed(1)} kernels/s; ${same} same, ${failures} failing (interpret vs sim, on the CPU: no GPU)`);
process.exitCode = failures > 0 ? 1 : 0;
