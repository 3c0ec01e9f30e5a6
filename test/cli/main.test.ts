// The `tessera` CLI through `main(argv, io)`: info, compile (files written, PTX assembled),
// bench argument checks, and usage errors (exit code 2, naming the flag).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPtxas } from '../../src/codegen/ptxas.js';
import { main, type CliIO } from '../../src/cli/main.js';

// Two simulated devices (read by the sim at its first cuInit in this process): info lists both.
process.env.TESSERA_SIM_DEVICES = '2';

const ROOT = resolve(__dirname, '../..');
const FIXTURE = join(__dirname, 'fixtures', 'kernels.ts');

async function cli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { out: (s) => void (out += s), err: (s) => void (err += s), cwd: ROOT, env };
  const code = await main(argv, io);
  return { code, out, err };
}

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('tessera info', () => {
  it('--json reports versions, devices, the default device and the sim driver', async () => {
    const r = await cli(['info', '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.out);
    expect(info.node).toBe(process.version);
    expect(info.tessera).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    const sim = join(ROOT, 'build', 'lib', 'libtessera_sim.so');
    const names = info.devices.map((d: { name: string }) => d.name);
    expect(names[0]).toBe('cuda:0');
    // every sim device by ordinal, each with its compute capability and memory
    if (existsSync(sim)) {
      expect(names.filter((n: string) => n.startsWith('sim:'))).toEqual(['sim:0', 'sim:1']);
      const s1 = info.devices.find((d: { name: string }) => d.name === 'sim:1');
      expect(s1).toMatchObject({ kind: 'sim', ordinal: 1, available: true, computeCapability: '8.0' });
      expect(s1.memoryBytes).toBeGreaterThan(0);
    }
    expect(names.at(-1)).toBe('interpret:0');
    expect(info.devices.at(-1).available).toBe(true);
    expect(info.simDriver).toBe(existsSync(sim) ? sim : null);
    const firstAvailable = info.devices.find((d: { available: boolean }) => d.available).kind;
    if (!process.env.TESSERA_DEVICE) expect(info.defaultDevice).toBe(firstAvailable);
    expect(info.ptxas.path).toMatch(/ptxas$/);
    expect(info.ptxas.version).toMatch(/^\d+\.\d+/);
  });
  it('TESSERA_DEVICE forces the default device; text output names it', async () => {
    const r = await cli(['info'], { ...process.env, TESSERA_DEVICE: 'interpret' });
    expect(r.code).toBe(0);
    expect(r.out).toContain('default device: interpret (TESSERA_DEVICE=interpret)');
    expect(r.out).toMatch(/interpret:0\s+yes/);
    expect(r.out).toMatch(/sim:1\s+yes/);
  });
  it('rejects an unknown flag with exit code 2, naming it', async () => {
    const r = await cli(['info', '--jsn']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown flag '--jsn'");
  });
});

describe('tessera compile', () => {
  const base = ['compile', FIXTURE, '--kernel', 'vector_add', '--arg', 'x=ptr:f32:16', '--arg', 'y=ptr:f32', '--arg', 'out=ptr:f32', '--arg', 'n=i32', '--constexpr', 'BLOCK=256'];

  for (const arch of ['sm_80', 'sm_89', 'sm_90', 'sm_90a', 'sm_100', 'sm_100a']) {
    it(`writes ptx, cubin, ir and metadata for ${arch}; the PTX assembles`, async () => {
      const dir = tmp();
      const r = await cli([...base, '--arch', arch, '--num-warps', '2', '--emit', 'ptx,cubin,ir', '-o', dir]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(readdirSync(dir).sort()).toEqual([`vector_add.${arch}.cubin`, `vector_add.${arch}.ir`, `vector_add.${arch}.json`, `vector_add.${arch}.ptx`]);
      const ptx = readFileSync(join(dir, `vector_add.${arch}.ptx`), 'utf8');
      expect(ptx).toContain(`.target ${arch}`);
      expect(ptx).toMatch(/\.entry vector_add/);
      expect(runPtxas(ptx, arch).cubin.length).toBeGreaterThan(0);
      expect([...readFileSync(join(dir, `vector_add.${arch}.cubin`)).subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]); // ELF
      expect(readFileSync(join(dir, `vector_add.${arch}.ir`), 'utf8')).toContain('vector_add');
      const meta = JSON.parse(readFileSync(join(dir, `vector_add.${arch}.json`), 'utf8'));
      expect(meta).toMatchObject({ name: 'vector_add', target: arch, numWarps: 2, constexprs: { BLOCK: 256 } });
      expect(r.out).toContain(`compiled 'vector_add' for ${arch}`);
    });
  }

  it('defaults: sm_80, 4 warps, PTX only; another kernel of the same file by name', async () => {
    const dir = tmp();
    const r = await cli(['compile', FIXTURE, '-k', 'softmax', '--constexpr=BLOCK=128', '-o', dir]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['softmax.sm_80.json', 'softmax.sm_80.ptx']);
    expect(JSON.parse(readFileSync(join(dir, 'softmax.sm_80.json'), 'utf8'))).toMatchObject({ numWarps: 4, target: 'sm_80' });
  });

  const usage: [string, string[], string][] = [
    ['an unknown flag', ['--bogus', '1'], "'--bogus'"],
    ['a bad --arch', ['--arch', 'sm_70'], "'--arch'"],
    ['a bad --num-warps', ['--num-warps', '3'], "'--num-warps'"],
    ['a bad --emit', ['--emit', 'ptx,sass'], "'--emit'"],
    ['a malformed --arg', ['--arg', 'x:f32'], "'--arg'"],
    ['a malformed --constexpr', ['--constexpr', 'BLOCK'], "'--constexpr'"],
    ['a flag without its value', ['--arch'], "'--arch' needs a value"],
  ];
  for (const [what, extra, named] of usage) {
    it(`${what} is a usage error (exit 2) naming the flag`, async () => {
      const dir = tmp();
      const r = await cli([...base, '-o', dir, ...extra]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(named);
      expect(r.err).toContain('usage: tessera compile');
      expect(readdirSync(dir)).toEqual([]);
    });
  }
  it('a flag given twice is a usage error', async () => {
    const r = await cli([...base, '--kernel', 'softmax']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("flag '--kernel' given twice");
  });
  it('no FILE is a usage error', async () => {
    const r = await cli(['compile', '--kernel', 'x']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('expected exactly one FILE');
  });

  const input: [string, string[], RegExp][] = [
    ['an --arg type that does not match the kernel', ['--arg', 'x=ptr:f16'], /--arg 'x' says ptr<f16> but the parameter is ptr<f32>/],
    ['an --arg for a constexpr', ['--arg', 'BLOCK=i32'], /'BLOCK' is a constexpr/],
    ['an --arg for no parameter', ['--arg', 'z=i32'], /'z' is not a parameter/],
    ['an unknown kernel', ['--kernel', 'nope'], /no kernel 'nope' \(it exports: vector_add, softmax\)/],
  ];
  for (const [what, extra, msg] of input) {
    it(`${what} fails (exit 1) and writes nothing`, async () => {
      const dir = tmp();
      const named = extra[0] === '--kernel' ? [] : ['--kernel', 'vector_add'];
      const r = await cli(['compile', FIXTURE, ...named, '--constexpr', 'BLOCK=256', '-o', dir, ...extra]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(msg);
      expect(readdirSync(dir)).toEqual([]);
    });
  }
  it('a missing constexpr names it and the flag that gives it (not the CLI\'s own source line)', async () => {
    const dir = tmp();
    const r = await cli(['compile', FIXTURE, '--kernel', 'vector_add', '-o', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("tessera compile: kernel 'vector_add' needs a value for constexpr 'BLOCK': pass --constexpr BLOCK=VALUE (e.g. --constexpr BLOCK=1024)\n");
    expect(readdirSync(dir)).toEqual([]);
  });
  it('several kernels and no --kernel: asks to pick one', async () => {
    const r = await cli(['compile', FIXTURE, '--constexpr', 'BLOCK=64', '-o', tmp()]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('pick one with --kernel');
  });
  it('a file that cannot be imported', async () => {
    const r = await cli(['compile', join(ROOT, 'no-such-file.mjs'), '-o', tmp()]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('cannot import');
  });
});

describe('tessera (general)', () => {
  it('no command prints usage and exits 2; an unknown command names it', async () => {
    expect((await cli([])).code).toBe(2);
    const r = await cli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command 'frobnicate'");
  });
  it('--help of a command prints its usage', async () => {
    const r = await cli(['compile', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('--constexpr NAME=VALUE');
  });
  it('bench rejects an unknown benchmark name', async () => {
    const r = await cli(['bench', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown benchmark 'nosuch' (benchmarks: compile, launch, sim, tc, kernel-run, graph, vector-add, softmax, layernorm, rmsnorm, matmul, attention)");
  });
  it('the built bin runs as a program (node dist/src/cli/main.js info --json)', () => {
    const bin = join(ROOT, 'dist', 'src', 'cli', 'main.js');
    expect(existsSync(bin), `${bin} is missing: run npm run build`).toBe(true);
    const r = spawnSync(process.execPath, [bin, 'info', '--json'], { encoding: 'utf8', env: { ...process.env, TESSERA_DEVICE: 'interpret' } });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).defaultDevice).toBe('interpret');
    const bad = spawnSync(process.execPath, [bin, 'compile', 'x.mjs', '--num-warps', '5'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("'--num-warps'");
  });
  it('the built bin: a .ts FILE on a Node without type stripping says how, a closed stdout (| head) ends quietly', () => {
    const bin = join(ROOT, 'dist', 'src', 'cli', 'main.js');
    const ts = spawnSync(process.execPath, [bin, 'compile', FIXTURE, '--kernel', 'vector_add', '-D', 'BLOCK=64', '-o', tmp()], { encoding: 'utf8' });
    if (Number(process.versions.node.split('.')[0]) < 22) {
      expect(ts.status).toBe(1);
      expect(ts.stderr).toMatch(/^tessera compile: cannot import .*kernels\.ts: Node [\d.]+ does not run TypeScript files .*npx tsc.*npx tsx node_modules\/tessera\/dist\/src\/cli\/main\.js compile FILE\.ts/);
      expect(ts.stderr.split('\n').length).toBe(2);
    }
    // `| true` closes the pipe before the CLI writes: EPIPE, which must not print a stack.
    const pipe = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" info | true; echo "rc=\${PIPESTATUS[0]}"`], { encoding: 'utf8', env: { ...process.env, TESSERA_DEVICE: 'interpret' } });
    expect(pipe.stderr).toBe('');
    expect(pipe.stdout.trim()).toBe('rc=0');
  });
  it('main.ts starts with a node shebang (it is the package bin)', () => {
    expect(readFileSync(join(ROOT, 'src', 'cli', 'main.ts'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });
});
