// Tessera from worker_threads: two workers define a kernel, make device arrays and launch at the
// same time (each its own context of the same driver library, the addon being context-aware),
// while the main thread launches too. Workers cannot load TypeScript, so they import the built
// package (dist/, made by `npm install` / `npm run build:ts`); a missing build fails the test.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { DeviceArray, kernel, setDeviceAnnouncer, type DeviceKind } from '../../src/runtime/index.js';
import { packageRoot } from '../../src/runtime/native/addon.js';

setDeviceAnnouncer(() => {});
process.env['TESSERA_CACHE'] = '0';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const t = await import(workerData.index);
  t.setDeviceAnnouncer(() => {});
  const { device, seed, rounds } = workerData;
  const axpy = t.kernel({ name: 'w_axpy', params: { x: t.ptr('f32'), y: t.ptr('f32'), n: 'i32', a: 'f32', BLOCK: t.constexpr() } }, ({ x, y, n, a, BLOCK }) => {
    const offs = t.programId(0).mul(BLOCK).add(t.arange(0, BLOCK));
    const mask = offs.lt(n);
    t.store(y.add(offs), t.load(x.add(offs), { mask }).mul(a).add(t.load(y.add(offs), { mask })), { mask });
  });
  const n = 1000;
  const x = t.DeviceArray.from(Float32Array.from({ length: n }, (_, i) => i + seed), 'f32', { device });
  const y = t.DeviceArray.zeros([n], 'f32', { device });
  const futures = [];
  for (let r = 0; r < rounds; r++) futures.push(axpy.run({ x, y, n, a: 1, BLOCK: 128 }, { grid: Math.ceil(n / 128), device }));
  await Promise.all(futures);
  parentPort.postMessage({ y: Array.from(await y.toArray()) });
})().catch((e) => parentPort.postMessage({ error: String(e && e.stack || e) }));
`;

function runWorker(index: string, device: DeviceKind, seed: number, rounds: number): Promise<{ y?: number[]; error?: string }> {
  const w = new Worker(WORKER, { eval: true, workerData: { index, device, seed, rounds } });
  return new Promise((resolve, reject) => {
    w.once('message', (m) => {
      void w.terminate();
      resolve(m as { y?: number[]; error?: string });
    });
    w.once('error', reject);
  });
}

const scale = kernel({ name: 'w_main_scale', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, ({ x, n, BLOCK }) => {
  const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
  const mask = offs.lt(n);
  store(x.add(offs), load(x.add(offs), { mask }).mul(2), { mask });
});

describe.each(['sim', 'interpret'] as DeviceKind[])('worker threads on %s', (device) => {
  it('two workers launch at once, beside the main thread', async () => {
    const index = join(packageRoot(), 'dist', 'src', 'index.js');
    expect(existsSync(index), `${index} (run npm run build:ts)`).toBe(true);
    const url = pathToFileURL(index).href;
    const rounds = 20;
    const main = DeviceArray.full([512], 1, 'f32', { device });
    const both = Promise.all([runWorker(url, device, 1, rounds), runWorker(url, device, 5, rounds)]);
    for (let r = 0; r < 10; r++) void scale.run({ x: main, n: 512, BLOCK: 128 }, { grid: 4, device });
    const [a, b] = await both;
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    expect(a.y).toEqual(Array.from({ length: 1000 }, (_, i) => rounds * (i + 1)));
    expect(b.y).toEqual(Array.from({ length: 1000 }, (_, i) => rounds * (i + 5)));
    expect(Array.from(await main.toArray())).toEqual(new Array(512).fill(1024));
    main.free();
  });
});
