// autotune on the sim: picks a config, persists it, a second process starts tuned ('cache'), the
// caller's in-place data survives tuning, a config that cannot compile is skipped with its reason.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { arange, constexpr, defineKernel, deviceAssert, dot, forLoop, load, programId, ptr, store, zeros, type KernelDef } from '../../src/lang/index.js';
import { f16Array } from '../../src/ir/half.js';
import { autotune, DeviceArray, Kernel, TuningStore } from '../../src/runtime/index.js';
import { vectorAdd } from '../../bench/kernels.js';

process.env['TESSERA_CACHE'] = '0'; // the compile cache; tuning stores below get their own dirs
const ROOT = resolve(__dirname, '../..');
const fresh = (): TuningStore => new TuningStore(mkdtempSync(join(tmpdir(), 'tessera-tune-')), true);
const add = new Kernel(vectorAdd as unknown as KernelDef);
const FAST = { warmup: 0, rep: 1, maxReps: 3 } as const;

/** x = x * 2 + 1, in place: running it twice would be visible. */
const scaleInPlace = new Kernel(defineKernel(
  { name: 'scale_in_place', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    store(x.add(offs), load(x.add(offs), { mask }).mul(2).add(1), { mask });
  },
) as unknown as KernelDef);

/** out += x, asserting out was zero: a second run without a reset fails its assert. */
const accumulateOnce = new Kernel(defineKernel(
  { name: 'accumulate_once', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    const o = load(out.add(offs), { mask });
    deviceAssert(o.eq(0).or(offs.ge(n)), 'out was not zero');
    store(out.add(offs), o.add(load(x.add(offs), { mask })), { mask });
  },
) as unknown as KernelDef);

/** x = x * 2 + 1 in place, asserting x[i] == i first: a second run without a restore fails. */
const scaleFromIota = new Kernel(defineKernel(
  { name: 'scale_from_iota', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(n);
    const v = load(x.add(offs), { mask });
    deviceAssert(v.eq(offs.to('f32')).or(offs.ge(n)), 'x is not its original value');
    store(x.add(offs), v.mul(2).add(1), { mask });
  },
) as unknown as KernelDef);

describe('TuningStore', () => {
  it('is private to the user like the compile cache: directories 0700, records 0600', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'tessera-tune-perm-')), 'cache', 'tuning');
    const store = new TuningStore(dir, true);
    store.put('abc', { kernel: 'k', key: 'n=1', device: 'sim', driver: 'd', config: { numWarps: 4 }, ms: 1, clock: 'sim' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'abc.json')).mode & 0o777).toBe(0o600);
    expect(store.get('abc')?.config).toEqual({ numWarps: 4 });
  });
});

// The reset rules and prune, on the interpreter (a failed assert there rejects only its launch).
describe('autotune: prune, resetToZero, restoreValue (interpret)', () => {
  const grid = (a: Record<string, unknown>): number => Math.ceil(Number(a['n']) / Number(a['BLOCK']));
  const blocks = [{ constexprs: { BLOCK: 32 } }, { constexprs: { BLOCK: 64 } }, { constexprs: { BLOCK: 128 } }];
  const opts = { key: ['n'], device: 'interpret', ...FAST } as const;

  it('prune drops configs before timing; pruning every config is an error naming it', async () => {
    const n = 40;
    const seen: number[] = [];
    const tuned = autotune({ ...opts, configs: blocks, store: fresh(), prune: (cs, a) => {
      seen.push(Number((a as Record<string, unknown>)['n']));
      return cs.filter((c) => Number(c.constexprs!['BLOCK']) <= 2 * Number((a as Record<string, unknown>)['n']));
    } }, add);
    const out = new Float32Array(n);
    const t = await tuned.run({ x: new Float32Array(n).fill(1), y: new Float32Array(n).fill(2), out, n }, { grid });
    expect(seen).toEqual([n]);
    expect(t.trials.map((r) => r.config.constexprs!['BLOCK'])).toEqual([32, 64]);
    expect(Array.from(out)).toEqual(Array.from({ length: n }, () => 3));
    const none = autotune({ ...opts, configs: blocks, store: fresh(), prune: () => [] }, add);
    await expect(none.run({ x: new Float32Array(n), y: new Float32Array(n), out, n }, { grid })).rejects.toThrow(/prune left no configs/);
  });

  it('resetToZero zeroes an accumulating output before every trial (without it, the trials fail)', async () => {
    const n = 100;
    const x = Float32Array.from({ length: n }, (_, i) => i + 1);
    const out = new Float32Array(n);
    const t = await autotune({ ...opts, configs: blocks, store: fresh(), resetToZero: ['out'] }, accumulateOnce).run({ x, out, n }, { grid });
    expect(t.trials.every((r) => r.ms !== undefined)).toBe(true);
    expect(Array.from(out)).toEqual(Array.from(x)); // the caller's run: exactly once, from zero
    const out2 = new Float32Array(n);
    const bad = autotune({ ...opts, configs: blocks, store: fresh() }, accumulateOnce);
    await expect(bad.run({ x, out: out2, n }, { grid })).rejects.toThrow(/no config could run[\s\S]*out was not zero/);
    expect(Array.from(out2)).toEqual(Array.from({ length: n }, () => 0)); // tuning never wrote the caller's array
  });

  it('restoreValue gives every trial the original values (without it, the trials fail)', async () => {
    const n = 100;
    const x0 = Float32Array.from({ length: n }, (_, i) => i);
    const x = x0.slice();
    const t = await autotune({ ...opts, configs: blocks, store: fresh(), restoreValue: ['x'] }, scaleFromIota).run({ x, n }, { grid });
    expect(t.trials.every((r) => r.ms !== undefined)).toBe(true);
    expect(Array.from(x)).toEqual(Array.from(x0, (v) => v * 2 + 1));
    const y = x0.slice();
    await expect(autotune({ ...opts, configs: blocks, store: fresh() }, scaleFromIota).run({ x: y, n }, { grid })).rejects.toThrow(/x is not its original value/);
    expect(Array.from(y)).toEqual(Array.from(x0));
  });
});

// an f16 matmul whose loads the pipeliner takes (aligned, multiples of 16)
const mm16 = new Kernel(defineKernel(
  { name: 'mm_f16_tune', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), N: 'i32', K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, N, K, BM, BN, BK }) => {
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = programId(1).mul(BN).add(arange(0, BN));
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      return [dot(load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0)))), load(b.add(ka.expandDims(1).mul(N).add(rn.expandDims(0)))), { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(N).add(rn.expandDims(0))), acc!);
  },
) as unknown as KernelDef);

describe('autotune (sim)', () => {
  it('picks a config among those that run, skips one that cannot compile with its reason, and runs correctly', async () => {
    const store = fresh();
    const tuned = autotune({ configs: [{ constexprs: { BLOCK: 64 }, numWarps: 2 }, { constexprs: { BLOCK: 100 } }, { constexprs: { BLOCK: 128 }, numWarps: 4 }], key: ['n'], store, device: 'sim', ...FAST }, add);
    const n = 300;
    const x = Float32Array.from({ length: n }, (_, i) => i);
    const y = Float32Array.from({ length: n }, (_, i) => 1 - i);
    const out = new Float32Array(n);
    const t = await tuned.run({ x, y, out, n }, { grid: (a) => Math.ceil(Number(a['n']) / Number(a['BLOCK'])) });
    expect(t.tuned).toBe('measured');
    expect([64, 128]).toContain(t.config.constexprs!['BLOCK']);
    expect(t.trials).toHaveLength(3);
    const skipped = t.trials.find((r) => r.config.constexprs!['BLOCK'] === 100)!;
    expect(skipped.ms).toBeUndefined();
    expect(skipped.skipped).toMatch(/power of two/);
    for (const r of t.trials.filter((r) => r !== skipped)) expect(r.ms).toBeGreaterThanOrEqual(0);
    expect(Array.from(out)).toEqual(Array.from({ length: n }, () => 1));
    // Inspectable, and reused for the same key without measuring again.
    expect(tuned.last).toBe(t);
    expect(tuned.chosen({ n })).toBe(t);
    expect(await tuned.run({ x, y, out, n }, { grid: (a) => Math.ceil(Number(a['n']) / Number(a['BLOCK'])) })).toBe(t);
    expect(readdirSync(store.dir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    // A new value of the key argument tunes again.
    const t2 = await tuned.run({ x: x.subarray(0, 200), y: y.subarray(0, 200), out, n: 200 }, { grid: (a) => Math.ceil(Number(a['n']) / Number(a['BLOCK'])) });
    expect(t2).not.toBe(t);
    expect(t2.tuned).toBe('measured');
    expect(readdirSync(store.dir).filter((f) => f.endsWith('.json'))).toHaveLength(2);
  });

  it("never corrupts the caller's data: an in-place kernel runs once on it, trials on restored copies", async () => {
    const n = 200;
    const x0 = Float32Array.from({ length: n }, (_, i) => i * 0.5);
    const x = x0.slice();
    const tuned = autotune({ configs: [{ constexprs: { BLOCK: 32 } }, { constexprs: { BLOCK: 64 } }, { constexprs: { BLOCK: 256 } }], key: ['n'], restoreValue: ['x'], store: fresh(), device: 'sim', ...FAST }, scaleInPlace);
    await tuned.tune({ x, n }, (a) => Math.ceil(Number(a['n']) / Number(a['BLOCK'])));
    expect(Array.from(x)).toEqual(Array.from(x0)); // tuning alone leaves it as it was
    const t = await tuned.run({ x, n }, { grid: (a) => Math.ceil(Number(a['n']) / Number(a['BLOCK'])) });
    expect(t.trials.filter((r) => r.ms !== undefined)).toHaveLength(3);
    expect(Array.from(x)).toEqual(Array.from(x0, (v) => v * 2 + 1)); // exactly one application
  });

  it('the same for a device-resident DeviceArray: trials on a device clone, restored each time', async () => {
    const n = 100;
    const x0 = Float32Array.from({ length: n }, (_, i) => i - 50);
    const x = DeviceArray.from(x0, 'f32', { device: 'sim' });
    const tuned = autotune({ configs: [{ constexprs: { BLOCK: 32 } }, { constexprs: { BLOCK: 128 } }], key: ['n'], restoreValue: ['x'], store: fresh(), device: 'sim', ...FAST }, scaleInPlace);
    await tuned.run({ x, n }, { grid: (a) => Math.ceil(Number(a['n']) / Number(a['BLOCK'])) });
    expect(Array.from(await x.toArray())).toEqual(Array.from(x0, (v) => v * 2 + 1));
    x.free();
  });

  it('skips a config that needs more shared memory than the device has, with the sizes in the reason', async () => {
    // tensor-core operands staged whole (numStages 1): a 256 x 256 and a 256 x 256 f16 tile with
    // padded rows are more than any device's shared memory; a small tile runs
    const n = 64;
    const a = f16Array(Float32Array.from({ length: n * n }, (_, i) => (i % 7) - 3));
    const b = f16Array(Float32Array.from({ length: n * n }, (_, i) => (i % 5) - 2));
    const c = new Float32Array(n * n);
    const configs = [{ constexprs: { BM: 256, BN: 256, BK: 256 }, numStages: 1 }, { constexprs: { BM: 64, BN: 64, BK: 32 }, numStages: 1 }];
    const t = await autotune({ configs, key: ['N'], store: fresh(), device: 'sim', ...FAST }, mm16).run({ a, b, c, N: n, K: n }, { grid: (x) => [Math.ceil(n / Number(x['BM'])), Math.ceil(n / Number(x['BN']))] });
    expect(t.config.constexprs).toEqual({ BM: 64, BN: 64, BK: 32 });
    const m = /needs (\d+) bytes of shared memory; the device allows (\d+)/.exec(t.trials[0]!.skipped ?? '');
    expect(m, t.trials[0]!.skipped).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(Number(m![2]));
    let want = 0;
    for (let k = 0; k < n; k++) want += (((5 * n + k) % 7) - 3) * (((k * n + 9) % 5) - 2);
    expect(c[5 * n + 9]).toBe(want);
  });

  it('applies numStages: a ring too deep for the device and a bad depth are skipped, numStages 1 and 2 run', async () => {
    const tile = { BM: 128, BN: 128, BK: 64 };
    const n = 128;
    const a = f16Array(Float32Array.from({ length: n * n }, (_, i) => (i % 7) - 3));
    const b = f16Array(Float32Array.from({ length: n * n }, (_, i) => (i % 5) - 2));
    const c = new Float32Array(n * n);
    const configs = [{ constexprs: tile, numStages: 8 }, { constexprs: tile, numStages: 0 }, { constexprs: tile, numStages: 1 }, { constexprs: tile, numStages: 2 }];
    const t = await autotune({ configs, key: ['N'], store: fresh(), device: 'sim', ...FAST }, mm16).run({ a, b, c, N: n, K: n }, { grid: [1, 1] });
    // a ring of numStages - 1 = 7 stages of swizzled tiles, (128 x 128 + 64 x 256 bytes) each
    expect(t.trials[0]!.skipped).toMatch(/needs 229376 bytes of shared memory; the device allows \d+/);
    expect(t.trials[1]!.skipped).toMatch(/numStages' must be an integer in 1\.\.8, got 0/);
    expect(t.trials[2]!.ms).toBeGreaterThanOrEqual(0);
    expect(t.trials[3]!.ms).toBeGreaterThanOrEqual(0);
    let want = 0;
    for (let k = 0; k < n; k++) want += (((5 * n + k) % 7) - 3) * (((k * n + 9) % 5) - 2);
    expect(c[5 * n + 9]).toBe(want);
  });

  it('shows a progress line on stderr only when it is a TTY', async () => {
    const n = 64;
    const args = () => ({ x: new Float32Array(n), y: new Float32Array(n), out: new Float32Array(n), n });
    const tune = () => autotune({ configs: [{ constexprs: { BLOCK: 32 } }, { constexprs: { BLOCK: 64 } }], key: ['n'], store: fresh(), device: 'sim', ...FAST }, add)
      .run(args(), { grid: (a) => Math.ceil(Number(a['n']) / Number(a['BLOCK'])) });
    const was = process.stderr.isTTY;
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      process.stderr.isTTY = false;
      await tune();
      expect(write).not.toHaveBeenCalled();
      process.stderr.isTTY = true;
      await tune();
      const text = write.mock.calls.map((c) => String(c[0])).join('');
      expect(text).toMatch(/autotune vector_add: 1\/2 BLOCK=32 numWarps=4/);
      expect(text).toMatch(/autotune vector_add: 2\/2 BLOCK=64 numWarps=4/);
    } finally {
      write.mockRestore();
      process.stderr.isTTY = was;
    }
  });

  it('rejects bad options before running anything', () => {
    expect(() => autotune({ configs: [], key: [] }, add)).toThrow(/configs must be a non-empty array/);
    expect(() => autotune({ configs: [{ constexprs: { BLOCK: 64 } }], key: ['m'] }, add)).toThrow(/key names 'm', which is not a parameter/);
    expect(() => autotune({ configs: [{ constexprs: { BLOKC: 64 } }], key: ['n'] }, add)).toThrow(/sets 'BLOKC', which is not a constexpr/);
  });

  it('a second process starts tuned from the disk store (spawned node, built dist/)', () => {
    const dist = join(ROOT, 'dist', 'src', 'index.js');
    const kernels = join(ROOT, 'dist', 'bench', 'kernels.js');
    expect(existsSync(dist), 'dist/ is built by npm install').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'tessera-tune-proc-'));
    const child = join(dir, 'child.mjs');
    writeFileSync(child, `
import { autotune, Kernel, TuningStore } from ${JSON.stringify(pathToFileURL(dist).href)};
import { vectorAdd } from ${JSON.stringify(pathToFileURL(kernels).href)};
const n = 256;
const x = new Float32Array(n).fill(1), y = new Float32Array(n).fill(2), out = new Float32Array(n);
const tuned = autotune({ configs: [{ constexprs: { BLOCK: 64 } }, { constexprs: { BLOCK: 128 } }], key: ['n'], warmup: 0, rep: 1, maxReps: 3,
  store: new TuningStore(${JSON.stringify(join(dir, 'tuning'))}, true), device: 'sim' }, new Kernel(vectorAdd));
const t = await tuned.run({ x, y, out, n }, { grid: (a) => Math.ceil(a.n / a.BLOCK) });
process.stdout.write(JSON.stringify({ tuned: t.tuned, block: t.config.constexprs.BLOCK, trials: t.trials.length, ok: out.every((v) => v === 3) }));
`);
    const go = () => {
      const r = spawnSync(process.execPath, [child], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, TESSERA_CACHE: '0' } });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { tuned: string; block: number; trials: number; ok: boolean };
    };
    const first = go();
    expect(first).toMatchObject({ tuned: 'measured', trials: 2, ok: true });
    const second = go();
    expect(second).toEqual({ tuned: 'cache', block: first.block, trials: 0, ok: true });
  });
});
