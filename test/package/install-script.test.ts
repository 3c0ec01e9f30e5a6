// scripts/install.mjs (npm's install hook) on machines that lack pieces, run directly on a copy of
// the package's files (package mode, as in a project that depends on tessera): it never fails the
// install, says what is missing in one line each, records it in build/native-status.json, and
// `tessera info` shows it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectInfo, formatInfo } from '../../src/cli/info.js';
import type { NativeBuildStatus } from '../../src/runtime/native/addon.js';
import { NODE, cleanEnv, packageTree, run } from './helpers.js';

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
}, 300_000); // removing a project with node_modules and a native build is slow on a busy machine

function tree(): string {
  const t = mkdtempSync(join(tmpdir(), 'tessera-install-'));
  temps.push(t);
  return packageTree(join(t, 'pkg'));
}

function install(root: string, env: NodeJS.ProcessEnv, args: string[] = []) {
  const r = run(NODE, [join(root, 'scripts', 'install.mjs'), ...args], root, env, 900_000);
  const out = `${r.stdout}\n${r.stderr}`;
  const lines = out.split('\n').filter((l) => l.startsWith('tessera: '));
  return { r, out, lines, status: () => JSON.parse(readFileSync(join(root, 'build', 'native-status.json'), 'utf8')) as NativeBuildStatus };
}

describe('the install script when pieces are missing', () => {
  it('a PATH without cmake or a C++ compiler: the install succeeds and says "interpreter only" and how to fix it', () => {
    const root = tree();
    const bin = join(root, '..', 'bin'); // node and nothing else
    mkdirSync(bin);
    symlinkSync(NODE, join(bin, 'node'));
    const env = cleanEnv({ PATH: bin, CXX: undefined, CUDA_HOME: undefined });
    const { r, out, lines, status } = install(root, env);
    expect(r.status, out).toBe(0);
    const missing = lines.filter((l) => l.includes('no native build'));
    expect(missing, out).toHaveLength(1);
    expect(missing[0]).toMatch(/missing a C\+\+ compiler .*cmake/);
    expect(missing[0]).toMatch(/interpreter only/);
    expect(missing[0]).toMatch(/apt install g\+\+ make cmake python3\) and run `npm rebuild tessera`/);
    const s = status();
    expect(s.mode).toBe('package');
    expect([s.addon.built, s.sim.built, s.xla.built]).toEqual([false, false, false]);
    expect(existsSync(join(root, 'build', 'Release', 'tessera_cuda.node'))).toBe(false);
    // tessera info, for that installation: only the interpreter, and why.
    const info = collectInfo(env, root);
    expect(info.devices.map((d) => [d.name, d.available])).toEqual([['cuda:0', false], ['sim:0', false], ['interpret:0', true]]);
    expect(info.defaultDevice).toBe('interpret');
    expect(info.devices[0]!.detail).toContain(missing[0]!.slice('tessera: '.length));
    expect(formatInfo(info)).toContain(`native build: package build of ${s.builtAt}\n  ${missing[0]!.slice('tessera: '.length)}`);
  });

  it('TESSERA_SKIP_NATIVE_BUILD=1: nothing is built, one line says so', () => {
    const root = tree();
    const { r, out, lines, status } = install(root, cleanEnv({ TESSERA_SKIP_NATIVE_BUILD: '1' }));
    expect(r.status, out).toBe(0);
    expect(lines, out).toEqual([expect.stringMatching(/^tessera: native build skipped \(TESSERA_SKIP_NATIVE_BUILD=1\)/)]);
    expect(status().addon.built).toBe(false);
    expect(existsSync(join(root, 'build', 'CMakeCache.txt'))).toBe(false);
  });

  it('a build that fails (a compiler that always fails) never fails the install in package mode, and does in a clone', () => {
    const root = tree();
    const env = cleanEnv({ CXX: '/bin/false', CC: '/bin/false', CUDA_HOME: join(root, 'no-cuda') });
    const pkg = install(root, env);
    expect(pkg.r.status, pkg.out).toBe(0);
    expect(pkg.lines.filter((l) => l.includes('addon not built: node-gyp failed')), pkg.out).toHaveLength(1);
    expect(pkg.status().addon.built).toBe(false);
    const clone = install(root, env, ['--mode', 'clone']);
    expect(clone.r.status, clone.out).toBe(1);
    expect(clone.out).toMatch(/tessera: native build failed/);
  });

  it('a CUDA_HOME that does not exist: the addon is built, the sim is skipped and says so', () => {
    const root = tree();
    const cudaHome = join(root, 'no-such-cuda');
    const env = cleanEnv({ CUDA_HOME: cudaHome });
    const { r, out, lines, status } = install(root, env);
    expect(r.status, out).toBe(0);
    const sim = lines.filter((l) => l.includes('sim not built'));
    expect(sim, out).toHaveLength(1);
    expect(sim[0]).toContain(`no CUDA toolkit (no include/cuda.h in ${cudaHome})`);
    expect(sim[0]).toMatch(/the addon does not need it .*set CUDA_HOME, then run `npm rebuild tessera`/);
    const s = status();
    expect(s.addon.built, out).toBe(true);
    expect([s.sim.built, s.xla.built]).toEqual([false, false]);
    expect(existsSync(join(root, 'build', 'Release', 'tessera_cuda.node'))).toBe(true);
    expect(existsSync(join(root, 'build', 'CMakeCache.txt')), 'cmake is not run without the toolkit').toBe(false);
    // No driver on this machine is its own line (a machine with one would say nothing).
    if (!s.driver.found) expect(lines.filter((l) => l.includes('no NVIDIA driver')), out).toHaveLength(1);
    const info = collectInfo(env, root);
    expect(info.addon).toBe(join(root, 'build', 'Release', 'tessera_cuda.node'));
    expect(info.simDriver).toBeNull();
    expect(info.devices.filter((d) => d.kind === 'sim')).toEqual([{
      name: 'sim:0', kind: 'sim', ordinal: 0, computeCapability: null, memoryBytes: null, available: false,
      detail: `sim driver not built (build/lib/libtessera_sim.so): ${sim[0]!.slice('tessera: '.length)}`,
    }]);
  }, 900_000);
});
