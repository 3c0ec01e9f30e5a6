// `npm install` / `npm run build`: compiles the TypeScript and the native libraries.
// The CMake-built libraries (CMakeLists.txt: the sim, the XLA custom-call library, their tests)
// are configured and built by cmake-js (pinned devDependency) into build/; package.json's
// `binary.napi_versions` puts cmake-js in Node-API mode, so it takes its headers from the
// node-api-headers package and never downloads anything. A missing nvcc skips only the CUDA-C
// parts. The N-API addon is then built by node-gyp (native/cuda/build.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
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
  console.log('tessera: building native libraries (cmake-js)');
  const cmakeJs = join(root, 'node_modules/cmake-js/bin/cmake-js');
  if (!existsSync(cmakeJs)) throw new Error(`tessera: cmake-js not found at ${cmakeJs} (run npm install)`);
  const jobs = String(Math.max(1, Math.min(4, cpus().length)));
  run(process.execPath, [cmakeJs, 'build', '--out', 'build', '--config', 'Release', '--parallel', jobs,
    '--CDCMAKE_BUILD_TYPE=Release']);
  console.log('tessera: building the N-API addon (build/Release/tessera_cuda.node)');
  run(process.execPath, [join(root, 'native/cuda/build.mjs')]);
}
