// bench(): structure and ordering of the figures, and which device timed them (no timing thresholds).
import { describe, expect, it } from 'vitest';
import { bench, getDevice, Kernel, quantile, type Future } from '../../src/runtime/index.js';
import type { NativeRuntimeDevice } from '../../src/runtime/native/runtime-device.js';
import type { KernelDef } from '../../src/lang/index.js';
import { vectorAdd } from '../../bench/kernels.js';

process.env['TESSERA_CACHE'] = '0';
const add = new Kernel(vectorAdd as unknown as KernelDef);
const n = 256;
const x = Float32Array.from({ length: n }, (_, i) => i);
const y = Float32Array.from({ length: n }, (_, i) => 2 * i);
const out = new Float32Array(n);
const runAdd = (device: 'sim' | 'interpret') => () => add.run({ x, y, out, n, BLOCK: 128 } as never, { grid: [2], device });

function checkShape(r: Awaited<ReturnType<typeof bench>>): void {
  expect(r.times.length).toBe(r.reps);
  expect(r.reps).toBeGreaterThanOrEqual(2);
  expect(r.min).toBeGreaterThanOrEqual(0);
  expect(r.min).toBeLessThanOrEqual(r.p20);
  expect(r.p20).toBeLessThanOrEqual(r.p50);
  expect(r.p50).toBeLessThanOrEqual(r.p80);
  expect(r.p80).toBeLessThanOrEqual(r.max);
  expect(r.mean).toBeGreaterThanOrEqual(r.min);
  expect(r.mean).toBeLessThanOrEqual(r.max);
  expect(Math.min(...r.times)).toBe(r.min);
}

describe('bench', () => {
  it('on the sim: device events, labelled as simulation time, never a GPU time', async () => {
    const r = await bench(runAdd('sim'), { device: 'sim', warmup: 1, rep: 2, minReps: 3, maxReps: 6 });
    checkShape(r);
    expect(r.kind).toBe('sim');
    expect(r.clock).toBe('sim-events');
    expect(r.isGpuTime).toBe(false);
    expect(r.label).toMatch(/not a GPU time/);
    expect(r.device).toMatch(/^sim \(.+\)$/);
    expect(getDevice('sim').description).toContain(r.device.slice(5, -1));
    expect(out[n - 1]).toBe(3 * (n - 1)); // the timed function really ran
  });

  it('records the end event right behind queued work (a Future), after completion only for an async fn', async () => {
    const d = (getDevice('sim') as NativeRuntimeDevice).native.driver;
    const record = d.eventRecord;
    let last: Future | undefined;
    const doneAtRecord: boolean[] = [];
    // the addon's methods are read-only on its prototype: shadow it on this instance
    Object.defineProperty(d, 'eventRecord', {
      configurable: true,
      value: (e: Parameters<typeof record>[0], s: Parameters<typeof record>[1]) => {
        doneAtRecord.push(last?.done ?? true);
        return record.call(d, e, s);
      },
    });
    try {
      const opts = { device: 'sim', warmup: 0, rep: 1, minReps: 2, maxReps: 3, flushL2: false } as const;
      await bench(() => (last = runAdd('sim')()), opts);
      // start events follow a finished run; every end event went in while its launch was pending
      expect(doneAtRecord.filter((x) => !x).length).toBeGreaterThanOrEqual(5 + 2);
      doneAtRecord.length = 0;
      await bench(async () => {
        await (last = runAdd('sim')());
      }, opts);
      expect(doneAtRecord.every((x) => x)).toBe(true);
    } finally {
      delete (d as { eventRecord?: unknown }).eventRecord;
    }
  });

  it('on the interpreter: the host clock, labelled so', async () => {
    const r = await bench(runAdd('interpret'), { device: 'interpret', warmup: 0, rep: 1, minReps: 2, maxReps: 3 });
    checkShape(r);
    expect(r.clock).toBe('host');
    expect(r.kind).toBe('interpret');
    expect(r.isGpuTime).toBe(false);
    expect(r.label).toMatch(/host clock.*not a GPU time/);
  });

  it('counts repetitions from the time budget (more budget, more reps, within the bounds)', async () => {
    let calls = 0;
    const fn = async () => {
      calls++;
      const t = performance.now();
      while (performance.now() - t < 0.2) { /* a fixed amount of host work */ }
    };
    const r = await bench(fn, { device: 'interpret', warmup: 0, rep: 1000, minReps: 2, maxReps: 7 });
    expect(r.reps).toBe(7); // capped: the budget asks for about 5000
    expect(calls).toBe(1 + 5 + r.warmupRuns + r.reps);
  });

  it('rejects bad input before running anything', async () => {
    let ran = false;
    await expect(bench(() => { ran = true; }, { rep: -1, device: 'interpret' })).rejects.toThrow(/option 'rep' must be a number >= 0/);
    await expect(bench('nope' as never)).rejects.toThrow(/first argument must be a function/);
    expect(ran).toBe(false);
  });

  it('quantile interpolates as numpy does', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([0, 10], 0.2)).toBeCloseTo(2);
  });
});
