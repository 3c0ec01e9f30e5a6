// `npm install` / `npm run build`: compiles the TypeScript and the native libraries.
// Native parts are built with cmake (CMakeLists.txt); a missing nvcc skips only the CUDA-C parts.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
const only = process.argv[2]; // 'ts' | 'native' | undefined (both)

if (only !== 'native') {
  console.log('tessera: compiling TypeScript');
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
}
if (only !== 'ts' && existsSync(join(root, 'CMakeLists.txt'))) {
  console.log('tessera: building native libraries (cmake)');
  const jobs = String(Math.max(1, Math.min(4, (await import('node:os')).cpus().length)));
  run('cmake', ['-S', '.', '-B', 'build', '-DCMAKE_BUILD_TYPE=Release']);
  run('cmake', ['--build', 'build', '-j', jobs]);
  console.log('tessera: building the N-API addon (build/Release/tessera_cuda.node)');
  run(process.execPath, [join(root, 'native/cuda/build.mjs')]);
}
