// The package as a user gets it: `npm pack` (prepack compiles the TypeScript) in a copy of the
// repository, then `npm install <tarball>` in a new project outside the repository, offline where
// npm's cache has the dependencies (--prefer-offline), with npm's install hook building the addon
// and the sim there. In that project: `tessera` imports from ESM and from TypeScript (its types
// resolve: a wrong use is a type error), the README's first kernel runs on the sim, and
// `npx tessera info --json` finds the sim and the addon. Prints the tarball's size and the install time.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE, ROOT, cleanEnv, run } from './helpers.js';

const SKIP_COPY = new Set(['node_modules', 'build', 'dist', '.venv', '.git']);
const MB = 1024 * 1024;

interface Packed { filename: string; size: number; unpackedSize: number; files: { path: string }[] }

let tmp = '';
let app = '';
let packed: Packed;
let tarball = '';
let installOut = '';
let env: NodeJS.ProcessEnv;

/** The first ```ts block of README.md's "## 30 seconds" section: the vector add. */
function readmeFirstKernel(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## 30 seconds'));
  const m = /```ts\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('README.md: no ```ts block after "## 30 seconds"');
  return m[1]!;
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'tessera-pack-'));
  env = cleanEnv({ TESSERA_CACHE_DIR: join(tmp, 'cache'), TESSERA_DEVICE: undefined });
  // A copy of the repository (sources and tests, no build outputs), packed as `npm pack` would.
  const src = join(tmp, 'src');
  cpSync(ROOT, src, { recursive: true, filter: (from) => !SKIP_COPY.has(from.slice(ROOT.length + 1).split('/')[0]!) });
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'));
  const p = run('npm', ['pack', '--json', '--pack-destination', tmp], src, env);
  if (p.status !== 0) throw new Error(`npm pack failed (${p.status}):\n${p.stdout}\n${p.stderr}`);
  packed = (JSON.parse(p.stdout.slice(p.stdout.search(/^\[/m))) as Packed[])[0]!; // after any script output
  tarball = join(tmp, packed.filename);
  console.log(`tessera package: ${packed.filename} ${(packed.size / MB).toFixed(2)} MB packed, ${(packed.unpackedSize / MB).toFixed(2)} MB unpacked, ${packed.files.length} files`);

  // A new project that depends on it, outside the repository.
  app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({
    name: 'tessera-user', version: '1.0.0', private: true, type: 'module',
    // npm 11's install-script policy, as `npm approve-scripts tessera` writes it for a tarball.
    allowScripts: { [`file:${tarball}`]: true },
  }, null, 2));
  const t0 = Date.now();
  const i = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts', tarball], app, env, 1_500_000);
  installOut = `${i.stdout}\n${i.stderr}`;
  console.log(`tessera package: npm install took ${((Date.now() - t0) / 1000).toFixed(0)} s (native build included)`);
  if (i.status !== 0) throw new Error(`npm install of the tarball failed (${i.status ?? i.signal}):\n${installOut}`);
}, 1_800_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 300_000); // removing a project with node_modules and a native build is slow on a busy machine

describe('the npm package', () => {
  it('holds what users need and no tests, fixtures, build trees or source maps, under 3 MB packed', () => {
    const paths = packed.files.map((f) => f.path);
    const bad = paths.filter((p) => /^(test|build|\.venv|node_modules|dist\/test|dist\/examples)\//.test(p) || /\.test\.(ts|js|d\.ts)$/.test(p) || /\.map$/.test(p) || /(^|\/)tests?\//.test(p));
    expect(bad).toEqual([]);
    for (const need of ['package.json', 'README.md', 'LICENSE', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', 'dist/bench/defs/index.js',
      'scripts/install.mjs', 'binding.gyp', 'CMakeLists.txt', 'native/cuda/addon.gypi', 'native/cuda/build.mjs', 'native/cuda/src/addon.cc',
      'native/sim/CMakeLists.txt', 'native/sim/src/ptx_parse.cpp', 'native/xla_custom_call/src/rms_norm.cu', 'docs/runtime.md']) {
      expect(paths, need).toContain(need);
    }
    expect(packed.size).toBeLessThan(3 * MB);
    // What got installed is that, plus the native build's outputs.
    const installed = join(app, 'node_modules', 'tessera');
    const top = [...new Set([...paths.map((p) => p.split('/')[0]!), 'build'])].sort();
    expect(top).toEqual(['CMakeLists.txt', 'LICENSE', 'README.md', 'binding.gyp', 'build', 'dist', 'docs', 'native', 'package.json', 'scripts']);
    // (npm may nest a dependency in tessera's own node_modules)
    expect(readdirSync(installed).filter((e) => e !== 'node_modules').sort()).toEqual(top);
    expect(existsSync(join(installed, 'native', 'sim', 'tests'))).toBe(false);
    // The JavaScript is prepack's (tsconfig.build.json, no source maps), not overwritten by prepare.
    expect(readFileSync(join(installed, 'dist', 'src', 'index.js'), 'utf8')).not.toContain('sourceMappingURL');
  });

  it('the install built the addon, the sim and the XLA library, libraries only, and said so', () => {
    const lib = join(app, 'node_modules', 'tessera', 'build');
    for (const f of ['Release/tessera_cuda.node', 'lib/libtessera_sim.so', 'lib/libtessera_xla.so']) expect(existsSync(join(lib, f)), `${f}\n${installOut}`).toBe(true);
    expect(existsSync(join(lib, 'bin')), 'no native tests or tools in a dependency install').toBe(false);
    expect(installOut).toContain('tessera: native build done (package): addon, sim, xla built');
    expect(installOut, 'allowScripts approves tessera').not.toMatch(/not yet covered by allowScripts[\s\S]*tessera@/);
  });

  it('imports from ESM and runs the README\'s first kernel on the sim', () => {
    writeFileSync(join(app, 'main.mjs'), `${readmeFirstKernel()}
import { getDevice } from 'tessera';
const dev = getDevice();
console.log(JSON.stringify({ device: dev.kind, description: dev.description, n: out.length, wrong: out.filter((v) => v !== 3).length }));
`);
    const r = run(NODE, ['main.mjs'], app, { ...env, TESSERA_DEVICE: 'sim' }, 300_000);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const res = JSON.parse(r.stdout.trim().split('\n').pop()!) as { device: string; description: string; n: number; wrong: number };
    expect(res).toMatchObject({ device: 'sim', n: 10_000, wrong: 0 });
    expect(res.description).toMatch(/Simulator/);
  }, 300_000);

  it('imports from TypeScript with its types (a wrong use is a type error)', () => {
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [] },
      include: ['*.ts'],
    }));
    writeFileSync(join(app, 'good.ts'), `${readmeFirstKernel()}\nconst blocks: number = cdiv(x.length, 256);\nexport { blocks };\n`);
    writeFileSync(join(app, 'bad.ts'), `import { cdiv } from 'tessera';\nexport const wrong: string = cdiv(10, 3);\n`);
    const r = run(NODE, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app, env, 300_000);
    const errors = r.stdout.split('\n').filter((l) => /error TS/.test(l));
    expect(errors, r.stdout).toEqual([expect.stringMatching(/^bad\.ts\(2,14\): error TS2322: Type 'number' is not assignable to type 'string'/)]);
  }, 300_000);

  it('npx tessera info --json finds the addon and the sim in the project', () => {
    const r = run('npx', ['--no-install', 'tessera', 'info', '--json'], app, env, 120_000);
    expect(r.status, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout) as { addon: string; simDriver: string; devices: { name: string; available: boolean }[]; build: { mode: string } };
    const installed = join(app, 'node_modules', 'tessera');
    expect(info.addon).toBe(join(installed, 'build', 'Release', 'tessera_cuda.node'));
    expect(info.simDriver).toBe(join(installed, 'build', 'lib', 'libtessera_sim.so'));
    expect(info.devices.find((d) => d.name === 'sim:0')?.available).toBe(true);
    expect(info.build.mode).toBe('package');
  }, 120_000);
});
