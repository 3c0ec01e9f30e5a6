// `npm run build` (everything), `npm run prepare` (the TypeScript, after `npm install` in this
// repository) and `npm run prepack` (the TypeScript that goes into the package).
//   node scripts/build.mjs          TypeScript (tsconfig.json: src, tests, benchmarks, examples) + native
//   node scripts/build.mjs ts       TypeScript only
//   node scripts/build.mjs native   native only (scripts/install.mjs, which is also npm's install hook)
//   node scripts/build.mjs pack     the package's JavaScript: dist/src and dist/bench compiled afresh
//                                   from tsconfig.build.json (no tests, no source maps)
// `npm pack`/`npm publish` run prepack and then prepare: prepare leaves the TypeScript alone then,
// so what prepack compiled is what gets packed.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNative } from './install.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = (project) =>
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: root, stdio: 'inherit' });
const only = process.argv[2]; // 'ts' | 'native' | 'pack' | undefined (ts + native)

if (only === 'pack') {
  console.log('tessera: compiling the package (tsconfig.build.json -> dist/src, dist/bench)');
  for (const d of ['src', 'bench']) rmSync(join(root, 'dist', d), { recursive: true, force: true });
  tsc('tsconfig.build.json');
} else {
  if (only === 'ts' && ['pack', 'publish'].includes(process.env.npm_command ?? '')) {
    console.log(`tessera: npm ${process.env.npm_command}: the TypeScript was compiled by prepack`);
    process.exit(0);
  }
  if (only !== 'native') {
    console.log('tessera: compiling TypeScript');
    tsc('tsconfig.json');
  }
  if (only !== 'ts') buildNative({ root });
}
