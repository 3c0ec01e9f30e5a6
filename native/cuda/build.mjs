// Builds the N-API addon into build/Release/tessera_cuda.node with node-gyp, offline and without
// touching the rest of build/ (cmake's tree lives there too, and `node-gyp rebuild` in the
// package root would delete it): node-gyp runs in build/addon/ on a binding.gyp that includes
// native/cuda/addon.gypi, and the result is copied to build/Release/.
// node-gyp is the pinned dependency (else npm's: npm_config_node_gyp in npm scripts, or the copy
// bundled next to this node); headers come from the installed node (--nodedir), never downloaded.
// Usage: node native/cuda/build.mjs
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const prefix = resolve(dirname(process.execPath), '..');
const work = join(root, 'build', 'addon');
const output = join(root, 'build', 'Release', 'tessera_cuda.node');

function findNodeGyp() {
  let pinned = null; // the pinned dependency, wherever npm put it (hoisted in a project that depends on tessera)
  try {
    pinned = createRequire(join(root, 'package.json')).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    // not installed: fall back to npm's own
  }
  const candidates = [
    pinned,
    process.env.npm_config_node_gyp,
    join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ].filter(Boolean);
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`tessera: node-gyp not found (looked in: ${candidates.join(', ')})`);
  return found;
}

function findNodeDir() {
  // Headers of the running node: <prefix>/include/node/node_api.h (distro and official builds).
  const dirs = [process.env.npm_config_nodedir, prefix].filter(Boolean);
  return dirs.find((d) => existsSync(join(d, 'include', 'node', 'node_api.h')));
}

mkdirSync(work, { recursive: true });
writeFileSync(
  join(work, 'binding.gyp'),
  JSON.stringify({ includes: [join(root, 'native', 'cuda', 'addon.gypi')] }, null, 2) + '\n',
);
const nodedir = findNodeDir();
const jobs = process.env.npm_config_jobs || '2';
const flags = ['--jobs', jobs, '--loglevel=warn', ...(nodedir ? [`--nodedir=${nodedir}`] : [])];
console.log(`tessera: building the CUDA driver addon (node-gyp${nodedir ? `, headers from ${nodedir}` : ''})`);
const gyp = findNodeGyp();
for (const step of ['configure', 'build']) {
  execFileSync(process.execPath, [gyp, step, ...flags], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
}
mkdirSync(dirname(output), { recursive: true });
copyFileSync(join(work, 'build', 'Release', 'tessera_cuda.node'), output);
console.log(`tessera: addon at ${output}`);
