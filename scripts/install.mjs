// The native build: npm's `install` hook (`npm install` in this repository, `npm install tessera` in
// a project that depends on it, `npm rebuild tessera`), and the native half of `npm run build`.
//
// It builds, from source, with the pinned cmake-js, node-gyp and node-addon-api (dependencies):
//   build/Release/tessera_cuda.node   the N-API addon over the CUDA driver API (node-gyp)
//   build/lib/libtessera_sim.so       the `sim` device: a CUDA driver that runs PTX on the CPU (cmake-js)
//   build/lib/libtessera_xla.so       the XLA custom-call targets (cmake-js)
// and writes build/native-status.json: what was built, and for each part that was not, one line
// saying why and how to fix it (`tessera info` and the device errors show that line).
//
// Two modes, told apart by the native test sources (the npm package does not ship them):
//   package  (installed as a dependency)  libraries only (TESSERA_BUILD_TESTS=OFF); nothing here ever
//            fails the install: a missing tool or a failed build is one line, and the package
//            runs on what was built (in the end the interpreter, which needs no native code).
//   clone    (this repository)  also the native tests, tools and benchmarks; a missing tool is one
//            line, a failed build fails `npm install`.
// TESSERA_SKIP_NATIVE_BUILD=1 skips it all (one line; build/ is left as it is).
// Usage: node scripts/install.mjs [--mode package|clone]
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const packageRoot = resolve(here, '..');
export const STATUS_FILE = join('build', 'native-status.json');

/** The first executable `name` on env.PATH (or `name` itself when it is a path), else null. */
export function which(name, env = process.env) {
  if (!name) return null;
  const isExe = (p) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (name.includes('/')) return isExe(name) ? resolve(name) : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExe(join(dir, name))) return join(dir, name);
  }
  return null;
}

/**
 * The CUDA toolkit's cuda.h (the sim and the XLA library are compiled against its declarations) and
 * nvcc. CUDA_HOME, when set, is the only place looked at (so CUDA_HOME=/nowhere means "no toolkit");
 * otherwise the toolkit of the nvcc on PATH, then /usr/local/cuda.
 */
export function findCudaToolkit(env = process.env) {
  const homes = [];
  if (env.CUDA_HOME) homes.push(env.CUDA_HOME);
  else {
    const nvcc = which('nvcc', env);
    if (nvcc) homes.push(resolve(dirname(nvcc), '..'));
    homes.push('/usr/local/cuda');
  }
  for (const home of homes) {
    if (existsSync(join(home, 'include', 'cuda.h'))) {
      const nvcc = join(home, 'bin', 'nvcc');
      return { home, include: join(home, 'include'), nvcc: which(nvcc, env), looked: homes };
    }
  }
  return { home: null, include: null, nvcc: null, looked: homes };
}

/** What the build needs, found on this machine. */
export function probeTools(env = process.env) {
  const cxx = env.CXX ? which(env.CXX.split(' ')[0], env) : ['g++', 'c++', 'clang++'].map((n) => which(n, env)).find(Boolean) ?? null;
  return {
    cxx,
    make: which('make', env),
    ninja: which('ninja', env),
    cmake: which('cmake', env),
    python: which(env.PYTHON || 'python3', env) ?? which('python', env),
    cuda: findCudaToolkit(env),
  };
}

function resolveFrom(root, request) {
  try {
    return createRequire(join(root, 'package.json')).resolve(request);
  } catch {
    return null;
  }
}

/** Loads the freshly built addon and opens libcuda.so.1: null when it works, else why not. */
function probeDriver(addonFile) {
  try {
    const addon = createRequire(import.meta.url)(addonFile);
    const driver = addon.open();
    driver.close();
    return null;
  } catch (e) {
    return String(e?.message ?? e).split('\n')[0];
  }
}

/**
 * Builds the native parts of the package at `root`. Returns the status (also written to
 * build/native-status.json); throws only in clone mode, when a build that could run failed.
 */
export function buildNative({ root = packageRoot, env = process.env, mode, log = (l) => console.log(l) } = {}) {
  mode ??= existsSync(join(root, 'native', 'sim', 'tests')) ? 'clone' : 'package';
  const strict = mode === 'clone';
  // What rebuilds it: in a project that depends on tessera, npm rebuild; in the repository, the build script.
  const REBUILD = strict ? '`npm run build`' : '`npm rebuild tessera`';
  const addonFile = join(root, 'build', 'Release', 'tessera_cuda.node');
  const simFile = join(root, 'build', 'lib', 'libtessera_sim.so');
  const xlaFile = join(root, 'build', 'lib', 'libtessera_xla.so');
  const status = {
    mode,
    builtAt: new Date().toISOString(),
    addon: { built: false, path: addonFile, note: null },
    sim: { built: false, path: simFile, note: null },
    xla: { built: false, path: xlaFile, note: null },
    driver: { found: false, note: null },
    lines: [],
  };
  const say = (line) => {
    status.lines.push(line);
    log(`tessera: ${line}`);
  };
  const write = () => {
    mkdirSync(join(root, 'build'), { recursive: true });
    writeFileSync(join(root, STATUS_FILE), JSON.stringify(status, null, 2) + '\n');
    return status;
  };

  if (env.TESSERA_SKIP_NATIVE_BUILD === '1') {
    const note = `native build skipped (TESSERA_SKIP_NATIVE_BUILD=1); unset it and run ${REBUILD} to build the addon and the sim`;
    for (const part of ['addon', 'sim', 'xla']) status[part].note = note;
    say(note);
    return write();
  }

  const tools = probeTools(env);
  const jobs = String(Number(env.TESSERA_BUILD_JOBS) > 0 ? Number(env.TESSERA_BUILD_JOBS) : Math.max(1, Math.min(4, cpus().length)));
  const childEnv = { ...env, npm_config_jobs: jobs };
  const fix = 'install them (Debian/Ubuntu: apt install g++ make cmake python3) and run ' + REBUILD;

  // --- What can be built ---------------------------------------------------------------------
  const CXX = 'a C++ compiler (g++, c++ or clang++ on PATH, or $CXX)';
  const addonMissing = [!tools.cxx && CXX, !tools.make && 'make', !tools.python && 'python3 (node-gyp runs on it)'].filter(Boolean);
  const cmakeMissing = [!tools.cxx && CXX, !tools.cmake && 'cmake (3.18 or newer)', !tools.make && !tools.ninja && 'make or ninja'].filter(Boolean);
  if (addonMissing.length && cmakeMissing.length) {
    const missing = [...new Set([...addonMissing, ...cmakeMissing])].filter((m, _, all) => m !== 'make or ninja' || !all.includes('make'));
    const note = `no native build: missing ${missing.join(', ')} — Tessera runs on the interpreter only (no cuda, no sim device); ${fix}`;
    for (const part of ['addon', 'sim', 'xla']) status[part].note = note;
    say(note);
    return write();
  }

  // --- The sim and the XLA library (cmake-js) --------------------------------------------------
  let cmakeSkip = null;
  if (cmakeMissing.length) cmakeSkip = `sim not built: missing ${cmakeMissing.join(', ')} — the sim device and the XLA custom-call library are left out; install ${cmakeMissing.length > 1 ? 'them' : 'it'} and run ${REBUILD}`;
  else if (!tools.cuda.include && !strict) {
    cmakeSkip =
      `sim not built: no CUDA toolkit (no include/cuda.h in ${tools.cuda.looked.join(', ')}) — the sim device and the XLA ` +
      `custom-call library are left out; the addon does not need it (it declares the driver API itself), and a real GPU ` +
      `JIT-compiles the PTX through its driver, without ptxas; install the CUDA toolkit or set CUDA_HOME, then run ${REBUILD}`;
  }
  if (cmakeSkip) {
    status.sim.note = status.xla.note = cmakeSkip;
    say(cmakeSkip);
  } else {
    const cmakeJs = resolveFrom(root, 'cmake-js/bin/cmake-js');
    const flags = ['--out', 'build', '--config', 'Release', '--parallel', jobs, '--CDCMAKE_BUILD_TYPE=Release'];
    if (!strict) flags.push('--CDTESSERA_BUILD_TESTS=OFF');
    if (tools.cuda.include) flags.push(`--CDTESSERA_CUDA_INCLUDE=${tools.cuda.include}`);
    if (tools.cuda.nvcc) flags.push(`--CDTESSERA_NVCC=${tools.cuda.nvcc}`);
    try {
      if (!cmakeJs) throw new Error('cmake-js is not installed next to tessera (it is one of its dependencies: reinstall tessera)');
      log('tessera: building the sim and the XLA custom-call library (cmake-js)');
      const run = (cmd) => execFileSync(process.execPath, [cmakeJs, cmd, ...flags], { cwd: root, env: childEnv, stdio: 'inherit' });
      if (!strict || !existsSync(join(root, 'build', 'CMakeCache.txt'))) run('configure');
      run('build');
    } catch (e) {
      if (strict) throw e;
      const note = `sim not built: the cmake build failed (${String(e.message).split('\n')[0]}; its output is above) — the sim device and the XLA custom-call library are left out; fix it and run ${REBUILD}`;
      status.sim.note = status.xla.note = note;
      say(note);
    }
    status.sim.built = existsSync(simFile);
    status.xla.built = existsSync(xlaFile);
    if (!status.sim.built && !status.sim.note) {
      status.sim.note = `sim not built: no CUDA toolkit (no include/cuda.h in ${tools.cuda.looked.join(', ')}); install the CUDA toolkit or set CUDA_HOME, then run ${REBUILD}`;
      status.xla.note = status.sim.note;
      say(status.sim.note);
    }
  }

  // --- The addon (node-gyp) --------------------------------------------------------------------
  if (addonMissing.length) {
    const note = `addon not built: missing ${addonMissing.join(', ')} — no cuda or sim device, the interpreter only; ${fix}`;
    status.addon.note = note;
    say(note);
  } else {
    try {
      execFileSync(process.execPath, [join(root, 'native', 'cuda', 'build.mjs')], { cwd: root, env: childEnv, stdio: 'inherit' });
    } catch (e) {
      if (strict) throw e;
      const note = `addon not built: node-gyp failed (its output is above) — no cuda or sim device, the interpreter only; fix it and run ${REBUILD}`;
      status.addon.note = note;
      say(note);
    }
    status.addon.built = existsSync(addonFile);
  }

  // --- The driver --------------------------------------------------------------------------------
  if (status.addon.built) {
    const why = probeDriver(addonFile);
    status.driver.found = why === null;
    if (why) {
      status.driver.note = `no NVIDIA driver (${why}) — kernels run on the ${status.sim.built ? 'sim' : 'interpreter'}; the cuda device needs the NVIDIA driver (libcuda.so.1)`;
      say(status.driver.note);
    }
  }
  const parts = ['addon', 'sim', 'xla'].filter((p) => status[p].built);
  log(`tessera: native build done (${mode}): ${parts.length ? parts.join(', ') : 'nothing'} built; \`npx tessera info\` shows what runs`);
  return write();
}

/** Reads build/native-status.json of the package at `root`, or null. */
export function readStatus(root = packageRoot) {
  try {
    return JSON.parse(readFileSync(join(root, STATUS_FILE), 'utf8'));
  } catch {
    return null;
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const i = process.argv.indexOf('--mode');
  const mode = i > 0 ? process.argv[i + 1] : undefined;
  if (mode !== undefined && mode !== 'package' && mode !== 'clone') {
    console.error(`tessera: --mode must be package or clone, not ${JSON.stringify(mode)}`);
    process.exit(2);
  }
  try {
    buildNative({ mode });
  } catch (e) {
    console.error(`tessera: native build failed: ${e.message}`);
    process.exit(1);
  }
}
