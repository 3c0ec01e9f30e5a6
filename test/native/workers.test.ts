// The addon is context-aware: it loads in worker_threads, and two workers launch at once on the
// sim, each checking its own result.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { addonPath } from '../../src/runtime/native/addon.js';
import { VADD_PTX } from './fixtures.js';
import { simLibrary } from './sim-helpers.js';

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

describe('addon in worker_threads', () => {
  it('two workers launch concurrently and both get correct results', async () => {
    const [a, b] = await Promise.all([runWorker(3), runWorker(7)]);
    expect(a).toEqual({ wrong: 0 });
    expect(b).toEqual({ wrong: 0 });
  });
});
