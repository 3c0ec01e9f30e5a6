// Dropped device arrays, with the garbage collector forced (a worker thread that exposes gc,
// running the built package from dist/): arrays dropped while a kernel uses them
// change no result (the queued work holds them), and dropped arrays are released by the
// FinalizationRegistry safety net (their blocks go back to the device's pool, and from it to the
// sim's free memory when trimmed).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/runtime/native/addon.js';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
require('node:v8').setFlagsFromString('--expose-gc');
const gc = require('node:vm').runInNewContext('gc');
(async () => {
  const t = await import(workerData.index);
  t.setDeviceAnnouncer(() => {});
  const device = 'sim';
  const dev = t.getDevice(device);
  const inUse = () => dev.memoryStats().inUseBytes;
  const free = () => dev.native.driver.memGetInfo().free;
  const settle = async () => {
    for (let i = 0; i < 20; i++) { gc(); await new Promise((r) => setTimeout(r, 5)); }
  };
  const scale = t.kernel({ name: 'gc_scale', params: { x: t.ptr('f32'), out: t.ptr('f32'), n: 'i32', BLOCK: t.constexpr() } }, ({ x, out, n, BLOCK }) => {
    const offs = t.programId(0).mul(BLOCK).add(t.arange(0, BLOCK));
    const mask = offs.lt(n);
    t.store(out.add(offs), t.load(x.add(offs), { mask }).mul(3), { mask });
  });
  const n = 1 << 16;
  const out = t.DeviceArray.empty([n], 'f32', { device });
  await scale.run({ x: t.DeviceArray.full([n], 1, 'f32', { device }), out, n, BLOCK: 1024 }, { grid: n / 1024, device }); // compile
  await settle(); // the compile run's dropped input goes first
  await dev.synchronize();
  dev.trimMemory();
  const before = inUse();
  const freeBefore = free();
  // Inputs made inline and never kept: only the queued launches hold them.
  const runs = [];
  for (let r = 0; r < 8; r++) runs.push(scale.run({ x: t.DeviceArray.full([n], r, 'f32', { device }), out, n, BLOCK: 1024 }, { grid: n / 1024, device }));
  const during = inUse();
  gc();
  await Promise.all(runs);
  const result = Array.from((await out.toArray()).subarray(0, 4));
  await settle();
  const after = inUse();
  await dev.synchronize();
  dev.trimMemory();
  const freeAfter = free();
  // The interpreter's memory has no native finalizer: only the FinalizationRegistry frees it.
  const mem = t.getDevice('interpret').mem;
  const m = 1 << 12;
  const outI = t.DeviceArray.empty([m], 'f32', { device: 'interpret' });
  const addrs = [];
  // Made in a function, so that no frame of this one keeps the last of them.
  const launch = (r) => {
    const x = t.DeviceArray.full([m], r, 'f32', { device: 'interpret' });
    addrs.push(x.address);
    return scale.run({ x, out: outI, n: m, BLOCK: 1024 }, { grid: m / 1024, device: 'interpret' });
  };
  const runsI = [0, 1, 2, 3].map(launch);
  gc();
  await Promise.all(runsI);
  const resultI = Array.from((await outI.toArray()).subarray(0, 4));
  await settle();
  const freedI = addrs.map((a) => mem.find(a).freed);
  parentPort.postMessage({ before, during, after, freeBefore, freeAfter, result, resultI, freedI, outFreed: mem.find(outI.address).freed });
})().catch((e) => parentPort.postMessage({ error: String(e && e.stack || e) }));
`;

describe('dropped device arrays (sim and interpret, forced GC)', () => {
  it('stay alive while queued work uses them, and are released once dropped', async () => {
    const index = join(packageRoot(), 'dist', 'src', 'index.js');
    expect(existsSync(index), `${index} (run npm run build:ts)`).toBe(true);
    const w = new Worker(WORKER, { eval: true, workerData: { index: pathToFileURL(index).href } });
    const msg = await new Promise<{
      before: number; during: number; after: number; freeBefore: number; freeAfter: number; result: number[]; resultI: number[]; freedI: boolean[]; outFreed: boolean; error?: string;
    }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    expect(msg.error).toBeUndefined();
    expect(msg.result).toEqual([21, 21, 21, 21]); // the last launch: 7 * 3
    expect(msg.during).toBeGreaterThanOrEqual(msg.before + 8 * 4 * (1 << 16)); // eight inputs were live
    expect(msg.after).toBe(msg.before); // and all were released without free()
    expect(msg.freeAfter).toBe(msg.freeBefore); // back in the sim's free memory once the pool is trimmed
    expect(msg.resultI).toEqual([9, 9, 9, 9]); // interpret: the last launch, 3 * 3
    expect(msg.freedI).toEqual([true, true, true, true]);
    expect(msg.outFreed).toBe(false); // a live array is not touched
  });
});
