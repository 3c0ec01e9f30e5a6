// The sim's sanitizers through the runtime (docs/sim.md, "Sanitizers"): the `sanitize` option of a
// run and a device's setSanitize; hazards reject the run with E_HAZARD and a report naming the
// kernel, both accesses with their PTX and TypeScript lines, threads and address. Sabotaged kernels
// (the pipeliner's no-wait/no-barrier switches; a reduction and a layout conversion with their
// barrier cut out of the PTX) are caught by racecheck; the intact kernels run clean under all three.
// The hand-written PTX kernels of each hazard class are in native/sim/tests/driver/sanitize_test.cpp.
import { afterEach, describe, expect, it } from 'vitest';
import { arange, constexpr, dot, forLoop, load, programId, ptr, store, sum, zeros } from '../../src/lang/index.js';
import { compile, type CompileOptions, type CompileResult } from '../../src/compile/compile.js';
import type { ParamSpec } from '../../src/compiler/axis_info.js';
import { kernel } from '../../src/runtime/kernel.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import { f16Array } from '../../src/ir/half.js';
import type { SanitizeCheck } from '../../src/runtime/device.js';
import { randF32, simDevice } from './helpers.js';

const ALL: SanitizeCheck[] = ['racecheck', 'synccheck', 'initcheck'];
const THIS_FILE = /sanitize\.test\.ts:\d+:\d+/;

const rowSum = kernel(
  { name: 'san_row_sum', params: { x: ptr('f32'), out: ptr('f32'), BLOCK: constexpr() } },
  ({ x, out, BLOCK }) => {
    const v = load(x.add(programId(0).mul(BLOCK).add(arange(0, BLOCK))));
    store(out.add(programId(0)), sum(v, 0));
  },
);

const matmul = kernel(
  { name: 'san_mm', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), K: 'i32', BM: constexpr(), BN: constexpr(), BK: constexpr() } },
  ({ a, b, c, K, BM, BN, BK }) => {
    const rm = arange(0, BM);
    const rn = arange(0, BN);
    const rk = arange(0, BK);
    const [acc] = forLoop(0, K, BK, [zeros([BM as number, BN as number], 'f32')], (k, acc) => {
      const ka = k.add(rk);
      const ta = load(a.add(rm.expandDims(1).mul(K).add(ka.expandDims(0))));
      const tb = load(b.add(ka.expandDims(1).mul(BN).add(rn.expandDims(0))));
      return [dot(ta, tb, { acc: acc! })];
    });
    store(c.add(rm.expandDims(1).mul(BN).add(rn.expandDims(0))), acc!);
  },
);
const D16: ParamSpec = { divisibleBy16: true };
const MM = { BM: 64, BN: 64, BK: 32 };
const K = 128;

/** Removes the bar.sync between the `which`-th shared store run after `from` and the shared loads that follow. */
function cutBarrier(ptx: string, from: RegExp): { ptx: string; cutLine: number } {
  const lines = ptx.split('\n');
  let i = lines.findIndex((l) => from.test(l));
  expect(i, `marker ${from} in the PTX`).toBeGreaterThanOrEqual(0);
  let sawStore = false;
  for (; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (/^(@%p\d+ )?st\.shared/.test(l)) sawStore = true;
    if (sawStore && /^bar\.sync/.test(l)) {
      lines[i] = '// (sabotage: barrier removed)';
      return { ptx: lines.join('\n'), cutLine: i + 1 };
    }
  }
  throw new Error('no barrier after a shared store');
}

/** Runs compiled PTX through loadModule with `sanitize`; resolves to the error, or undefined when clean. */
async function runPtx(r: CompileResult, ptx: string, args: unknown[], grid: number, sanitize: SanitizeCheck[]): Promise<(Error & { code?: string }) | undefined> {
  const dev = simDevice();
  const mod = dev.loadModule(ptx);
  const fn = mod.getFunction(r.metadata.name);
  const sharedBytes = /\.extern\s+\.shared/.test(ptx) ? r.metadata.sharedBytes : 0;
  try {
    await fn.launch({ grid, block: r.metadata.numWarps * 32, sharedBytes, args, sanitize });
    return undefined;
  } catch (e) {
    return e as Error & { code?: string };
  }
}

function mmArgs(): unknown[] {
  const dev = simDevice();
  const a = DeviceArray.from(f16Array(randF32(64 * K, 1)), 'f16', { device: dev });
  const b = DeviceArray.from(f16Array(randF32(K * 64, 2)), 'f16', { device: dev });
  const c = DeviceArray.zeros([64 * 64], 'f32', { device: dev });
  return [a, b, c, K];
}

const expectRace = (e: (Error & { code?: string }) | undefined, name: string): string => {
  expect(e, 'a racecheck report').toBeDefined();
  expect(e!.code).toBe('E_HAZARD');
  const first = e!.message.split('\n').find((l) => l.includes('tessera-sim:'))!;
  expect(first).toMatch(new RegExp(`tessera-sim: racecheck hazard in kernel '${name}': .*hazard on shared memory`));
  // both accesses: PTX line, the user's TypeScript line, thread and CTA
  expect(first).toMatch(/at PTX line \d+ \(.*sanitize\.test\.ts:\d+:\d+\) by thread \(\d+,\d+,\d+\) CTA \(\d+,0,0\) conflicts with .* at PTX line \d+ \(.*sanitize\.test\.ts:\d+:\d+\) by thread/);
  return e!.message;
};

afterEach(() => simDevice().setSanitize([]));

describe('sanitizers on the sim, through the runtime', () => {
  it('the pipeliner\'s no-wait, no-barrier and no-release-barrier kernels: racecheck names the lines; the intact kernel runs clean under all three', async () => {
    for (const S of [2, 3]) {
      const opts: CompileOptions = { target: 'sm_80', numWarps: 4, numStages: S, ptxas: false, specialization: [D16, D16, D16, D16] };
      const good = compile(matmul.trace(MM), opts);
      expect(await runPtx(good, good.ptx, mmArgs(), 1, ALL)).toBeUndefined();
      for (const sabotage of ['no-wait', 'no-barrier', 'no-release-barrier'] as const) {
        const bad = compile(matmul.trace(MM), { ...opts, pipelineSabotage: sabotage });
        // without the checker the broken kernel runs (to a wrong result) and nothing is said
        expect(await runPtx(bad, bad.ptx, mmArgs(), 1, [])).toBeUndefined();
        const msg = expectRace(await runPtx(bad, bad.ptx, mmArgs(), 1, ['racecheck']), 'san_mm');
        if (sabotage === 'no-wait') expect(msg).toMatch(/cp\.async destination before the wait that covers it/);
        else expect(msg).toMatch(/write-after-read hazard|overwrite of a cp\.async destination/);
      }
    }
  });

  it('a reduction without its bar.sync: racecheck reports the cross-warp read of the partial sums', async () => {
    const r = compile(rowSum.trace({ BLOCK: 1024 }), { target: 'sm_80', numWarps: 4, ptxas: false });
    const dev = simDevice();
    const x = DeviceArray.from(randF32(2048, 3), 'f32', { device: dev });
    const out = DeviceArray.zeros([2], 'f32', { device: dev });
    expect(await runPtx(r, r.ptx, [x, out], 2, ALL)).toBeUndefined();
    const { ptx, cutLine } = cutBarrier(r.ptx, /^\s*bfe\.u32/);
    expect(await runPtx(r, ptx, [x, out], 2, [])).toBeUndefined();
    const msg = expectRace(await runPtx(r, ptx, [x, out], 2, ['racecheck']), 'san_row_sum');
    expect(msg).toMatch(/read-after-write hazard/);
    expect(cutLine).toBeGreaterThan(0);
    if (process.env['SAN_SHOW']) console.log(msg);
  });

  it('a layout conversion without its barrier: racecheck reports the read of the staged tile', async () => {
    const opts: CompileOptions = { target: 'sm_80', numWarps: 4, ptxas: false, specialization: [D16, D16, D16, D16] };
    const r = compile(matmul.trace(MM), opts);
    expect(r.ptx).toMatch(/\/\/ convert_layout/);
    const { ptx } = cutBarrier(r.ptx, /bank conflicts \(model\)/);
    expect(await runPtx(r, ptx, mmArgs(), 1, [])).toBeUndefined();
    const msg = expectRace(await runPtx(r, ptx, mmArgs(), 1, ['racecheck']), 'san_mm');
    expect(msg).toMatch(/read-after-write hazard/);
  });

  it('initcheck through kernel.run: a read of DeviceArray.empty is E_HAZARD naming the load\'s TypeScript line; after a write it is clean', async () => {
    const dev = simDevice();
    const x = DeviceArray.empty([1024], 'f32', { device: dev });
    const out = DeviceArray.zeros([1], 'f32', { device: dev });
    // no checker: the read of undefined memory goes unnoticed
    await rowSum.run({ x, out, BLOCK: 1024 }, { grid: 1, device: dev });
    // initcheck tracks allocations made once it was first asked for (earlier ones count as written)
    dev.setSanitize(['initcheck']);
    dev.setSanitize([]);
    const x2 = DeviceArray.empty([1024], 'f32', { device: dev });
    const e = await rowSum.run({ x: x2, out, BLOCK: 1024 }, { grid: 1, device: dev, sanitize: ['initcheck'] }).then(() => undefined, (err: unknown) => err as Error & { code?: string });
    expect(e?.code).toBe('E_HAZARD');
    expect(e!.message).toMatch(/tessera-sim: initcheck hazard in kernel 'san_row_sum': read of uninitialised global memory at 0x[0-9a-f]+: 16-byte read at PTX line \d+ \(.*sanitize\.test\.ts:23:\d+\) by thread \(0,0,0\) CTA \(0,0,0\)/);
    expect(e!.message).toMatch(/initcheck 256 hazards \(2 distinct\)/); // 16-byte loads: 128 lanes, two instructions
    // the context was replaced (as after a memcheck fault); new arrays, written first, are clean
    const y = DeviceArray.from(randF32(1024, 4), 'f32', { device: dev });
    const o2 = DeviceArray.zeros([1], 'f32', { device: dev });
    await rowSum.run({ x: y, out: o2, BLOCK: 1024 }, { grid: 1, device: dev, sanitize: ALL });
  });

  it('setSanitize on the device applies to every launch; a launch option overrides it; bad names are E_ARG', async () => {
    const dev = simDevice();
    expect(() => dev.setSanitize(['racecheck', 'nope' as SanitizeCheck])).toThrow(/unknown sanitizer "nope"/);
    dev.setSanitize(['synccheck']);
    expect(dev.sanitize).toEqual(['synccheck']);
    const ptx = `.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry bad_count()\n{\n  bar.sync 0, 48;\n  ret;\n}\n`;
    const fn = dev.loadModule(ptx).getFunction('bad_count');
    const e = await fn.launch({ grid: 1, block: 64, args: [] }).then(() => undefined, (err: unknown) => err as Error & { code?: string });
    expect(e?.code).toBe('E_HAZARD');
    expect(e!.message).toMatch(/tessera-sim: synccheck hazard in kernel 'bad_count': barrier 0 with a thread count of 48, not a multiple of the warp size, at PTX line 6/);
    const fn2 = dev.loadModule(ptx).getFunction('bad_count');
    await fn2.launch({ grid: 1, block: 64, args: [], sanitize: [] }); // the launch's option wins
    dev.setSanitize([]);
    await fn2.launch({ grid: 1, block: 64, args: [] });
  });

  it('the interpreter has no sanitizers: asking for them is E_UNSUPPORTED', async () => {
    const x = new Float32Array(1024), out = new Float32Array(1);
    const e = await rowSum.run({ x, out, BLOCK: 1024 }, { grid: 1, device: 'interpret', sanitize: ['racecheck'] }).then(() => undefined, (err: unknown) => err as Error & { code?: string });
    expect(e?.code).toBe('E_UNSUPPORTED');
    expect(e!.message).toMatch(/needs the sim device/);
  });
});
