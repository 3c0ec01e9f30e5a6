// The package as a user gets it: `npm pack` (prepack compiles the TypeScript) in a copy of the
// repository, then `npm install <tarball>` in a new project outside the repository, offline where
// npm's cache has the dependencies (--prefer-offline), with npm's install hook building the addon
// and the sim there. In that project: `tessera` imports from ESM and from TypeScript (its types
// resolve: a wrong use is a type error), the README's first kernel runs on the sim, and
// `npx tessera info --json` finds the sim and the addon. A CommonJS project in the same install
// (app/cjs, "type": "commonjs") require()s it from plain JavaScript (the README's CommonJS sample)
// and from TypeScript compiled to require(). Every CLI command, given its documented arguments
// wrongly, fails with a message and no stack trace. Prints the tarball's size and the install time.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE, ROOT, cleanEnv, run } from './helpers.js';
import { docFiles, moduleSource, unitsOf } from '../docs/blocks.js';

const SKIP_COPY = new Set(['node_modules', 'build', 'dist', '.venv', '.git']);
const MB = 1024 * 1024;

interface Packed { filename: string; size: number; unpackedSize: number; files: { path: string }[] }

let tmp = '';
let app = '';
let packed: Packed;
let tarball = '';
let installOut = '';
let env: NodeJS.ProcessEnv;

/** The first ```LANG block of README.md after the heading `heading`. */
function readmeBlock(heading: string, lang: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(heading);
  if (at < 0) throw new Error(`README.md: no "${heading}"`);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme.slice(at));
  if (!m) throw new Error(`README.md: no \`\`\`${lang} block after "${heading}"`);
  return m[1]!;
}

/** A stack trace's frame line (`    at f (file.js:1:2)`) or the CLI's internal-error prefix. */
const STACK = /^\s+at .*:\d+:\d+\)?$|internal error|node:internal/m;

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

  it('every TypeScript sample of README.md and docs/ type-checks against the installed package\'s types (strict)', () => {
    // test/docs runs them against src/; here the d.ts a user gets (one tsc run over all of them).
    const dir = join(app, 'doc-samples');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')] },
      include: ['*.ts'],
    }));
    for (const f of docFiles(ROOT)) {
      for (const u of unitsOf(f, readFileSync(join(ROOT, f), 'utf8'))) writeFileSync(join(dir, `${f.replace(/\W+/g, '_')}_L${u.line}.ts`), moduleSource(u, false).text);
    }
    const r = run(NODE, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], dir, env, 300_000);
    expect(r.stdout.split('\n').filter((l) => /error TS/.test(l)), r.stdout).toEqual([]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
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

  it('a CommonJS project require()s it: plain JavaScript (the README\'s sample) and TypeScript compiled to require()', () => {
    const cjs = join(app, 'cjs');
    mkdirSync(cjs, { recursive: true });
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'tessera-cjs-user', version: '1.0.0', private: true, type: 'commonjs' }));
    writeFileSync(join(cjs, 'main.js'), readmeBlock('### CommonJS projects', 'js'));
    const r = run(NODE, ['main.js'], cjs, { ...env, TESSERA_DEVICE: 'sim' }, 300_000);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout.trim().split('\n').pop()).toBe('3 3');
    expect(r.stderr).not.toMatch(STACK);
    // TypeScript, "module": "nodenext": the import compiles to require('tessera'); types resolve.
    writeFileSync(join(cjs, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', types: [] },
      include: ['*.ts'],
    }));
    // (ops: the namespace export reaches CommonJS as require('tessera').ops)
    writeFileSync(join(cjs, 'typed.ts'), `import { cdiv, getDevice, ops } from 'tessera';\nconst blocks: number = cdiv(10, 3);\nconsole.log(JSON.stringify({ blocks, device: getDevice().kind, ops: typeof ops.matmul }));\n`);
    const t = run(NODE, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], cjs, env, 300_000);
    expect(t.status, t.stdout).toBe(0);
    expect(readFileSync(join(cjs, 'out', 'typed.js'), 'utf8')).toContain('require("tessera")');
    const o = run(NODE, [join('out', 'typed.js')], cjs, { ...env, TESSERA_DEVICE: 'sim' }, 120_000);
    expect(o.status, o.stderr).toBe(0);
    expect(JSON.parse(o.stdout.trim().split('\n').pop()!)).toEqual({ blocks: 4, device: 'sim', ops: 'function' });
  }, 600_000);

  it('every CLI command, given its documented arguments wrongly, says what is wrong without a stack trace', () => {
    const bin = join(app, 'node_modules', '.bin', 'tessera');
    const kernelFile = `import { kernel, ptr, constexpr, programId, arange, load, store } from 'tessera';
export const add = kernel({ name: 'add', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, ({ x, out, n, BLOCK }) => {
  const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK)), mask = offs.lt(n);
  store(out.add(offs), load(x.add(offs), { mask }), { mask });
});
`;
    writeFileSync(join(app, 'k.mjs'), kernelFile);
    writeFileSync(join(app, 'k.ts'), kernelFile);
    const cases: [string[], number, RegExp][] = [
      [[], 2, /usage: tessera <command>/],
      [['frobnicate'], 2, /unknown command 'frobnicate'/],
      [['info', '--bogus'], 2, /--bogus/],
      [['compile'], 2, /expected exactly one FILE/],
      [['compile', 'missing.mjs'], 1, /cannot import .*missing\.mjs/],
      [['compile', 'k.mjs', '-o', 'out'], 1, /needs a value for constexpr 'BLOCK': pass --constexpr BLOCK=VALUE/],
      [['compile', 'k.mjs', '--arch', 'sm_1', '-D', 'BLOCK=64'], 2, /'--arch' must be one of/],
      [['compile', 'k.mjs', '--arg', 'x=ptr:f16', '-D', 'BLOCK=64'], 1, /--arg 'x' says ptr<f16> but the parameter is ptr<f32>/],
      [['cache', 'bogus'], 2, /bogus/],
      [['bench', 'nosuch'], 2, /unknown benchmark 'nosuch'/],
      [['bench', 'softmax', '--device', 'gpu'], 2, /--device must be cuda, sim or interpret/],
      // Repo-only tools: listed as unavailable with the reason; the other named benchmark runs.
      [['bench', 'sim', 'kernel-run'], 1, /sim cannot run here/],
    ];
    if (Number(process.versions.node.split('.')[0]) < 22) cases.push([['compile', 'k.ts', '-D', 'BLOCK=64'], 1, /does not run TypeScript files .*npx tsc/]);
    for (const [args, code, msg] of cases) {
      const r = run(bin, args, app, { ...env, TESSERA_DEVICE: 'sim' }, 300_000);
      const what = `tessera ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`;
      expect(r.status, what).toBe(code);
      expect(r.stderr, what).toMatch(msg);
      expect(r.stderr, what).not.toMatch(STACK);
      if (args[0] === 'bench' && args[1] === 'sim') {
        expect(r.stdout, what).toMatch(/== sim: unavailable: needs build\/bin\/sim_bench, a native tool built only in a clone of the tessera repository/);
        expect(r.stdout, what).toMatch(/== kernel-run: .*\n[\s\S]*us\/launch/);
      }
    }
    // The documented arguments work; a closed pipe (`| head`) ends quietly.
    const ok = run(bin, ['compile', 'k.mjs', '-D', 'BLOCK=256', '-o', 'out'], app, env, 120_000);
    expect(ok.status, ok.stderr).toBe(0);
    expect(existsSync(join(app, 'out', 'add.sm_80.ptx'))).toBe(true);
    const pipe = run('bash', ['-c', `"${bin}" info | true; echo "rc=\${PIPESTATUS[0]}"`], app, env, 120_000);
    expect(pipe.stderr).toBe('');
    expect(pipe.stdout.trim()).toBe('rc=0');
  }, 900_000);
});
