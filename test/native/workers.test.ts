// The addon is context-aware: it loads in worker_threads, and two workers launch at once on the
// sim, each checking its own result.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { addonPath } from '../../src/runtime/native/addon.js';
import { VADD_PTX } from './fixtures.js';
import { openSimDriver, simLibrary } from './sim-helpers.js';

// CommonJS worker source (eval: true): opens the sim, runs vadd `rounds` times through a launch
// plan and reports the number of wrong elements.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const { addon, lib, ptx, seed, rounds } = workerData;
const drv = require(addon).open(lib);
const n = 4096;
const x = new Float32Array(n), y = new Float32Array(n);
for (let i = 0; i < n; i++) { x[i] = (i * seed) % 97; y[i] = seed; }
const px = drv.memAlloc(n * 4), py = drv.memAlloc(n * 4), po = drv.memAlloc(n * 4);
drv.memcpyHtoD(px, x); drv.memcpyHtoD(py, y);
const plan = drv.createLaunchPlan(drv.getFunction(drv.moduleLoadData(ptx), 'vadd'), [0, 8, 16, 24], 28);
const v = new DataView(plan.params.buffer, plan.params.byteOffset, 28);
v.setBigUint64(0, px.address, true); v.setBigUint64(8, py.address, true);
v.setBigUint64(16, po.address, true); v.setInt32(24, n, true);
const s = drv.streamCreate();
(async () => {
  let wrong = 0;
  for (let r = 0; r < rounds; r++) {
    plan.launch(n / 128, 1, 1, 128, 1, 1, 0, s);
    await drv.streamDone(s);
    const out = new Float32Array(n);
    drv.memcpyDtoH(out, po);
    for (let i = 0; i < n; i++) if (out[i] !== x[i] + y[i]) wrong++;
  }
  drv.streamDestroy(s);
  parentPort.postMessage({ wrong });
})().catch((e) => parentPort.postMessage({ error: String(e && e.code) + ': ' + (e && e.message) }));
`;

function runWorker(seed: number): Promise<{ wrong?: number; error?: string }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { addon: addonPath(), lib: simLibrary(), ptx: VADD_PTX, seed, rounds: 5 },
    });
    w.once('message', (m) => {
      resolve(m as { wrong?: number; error?: string });
      void w.terminate();
    });
    w.once('error', reject);
  });
}

// A worker that allocates, keeps a copy in flight, and then ends without freeing anything: by
// exiting or by being terminated mid-wait. Its handles are freed at the environment's teardown.
const LEAKER = `
const { workerData, parentPort } = require('node:worker_threads');
const { addon, lib, ptx } = workerData;
const drv = require(addon).open(lib);
const ptrs = [];
for (let i = 0; i < 4; i++) ptrs.push(drv.memAlloc(8 << 20));
const s = drv.streamCreate();
const e = drv.eventCreate();
drv.eventRecord(e, s);
const fn = drv.getFunction(drv.moduleLoadData(ptx), 'vadd');
drv.createLaunchPlan(fn, [0, 8, 16, 24], 28);
drv.memcpyDtoHAsync(new Uint8Array(8 << 20), ptrs[0], s).then(() => {}, () => {});
parentPort.postMessage({ free: drv.memGetInfo().free });
`;

async function leakyWorker(end: 'exit' | 'terminate'): Promise<number> {
  const w = new Worker(LEAKER, { eval: true, workerData: { addon: addonPath(), lib: simLibrary(), ptx: VADD_PTX } });
  const exited = new Promise<void>((resolve, reject) => {
    w.once('exit', () => resolve());
    w.once('error', reject);
  });
  const m = (await new Promise((resolve) => w.once('message', resolve))) as { free: number };
  if (end === 'terminate') await w.terminate();
  await exited;
  return m.free;
}

describe('addon in worker_threads', () => {
  // Runs first: the other test's workers are terminated without being awaited.
  it('a worker that ends without freeing gives its device memory back at teardown', async () => {
    const drv = openSimDriver();
    const before = drv.memGetInfo().free;
    for (const end of ['exit', 'terminate', 'exit', 'terminate'] as const) {
      const during = await leakyWorker(end);
      expect(before - during).toBeGreaterThanOrEqual(32 << 20);
      expect(drv.memGetInfo().free).toBe(before);
    }
    drv.close();
  });

  it('two workers launch concurrently and both get correct results', async () => {
    const [a, b] = await Promise.all([runWorker(3), runWorker(7)]);
    expect(a).toEqual({ wrong: 0 });
    expect(b).toEqual({ wrong: 0 });
  });
});
