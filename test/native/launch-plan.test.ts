// The launch path and stream-ordered work of the raw addon (issue 10) against the sim: launch
// plans, device-to-device copies, async memset, cross-stream waits, event queries, streamDone,
// and bad input (freed handles, wrong types, wrong counts): clear errors, never a crash.
import { afterAll, describe, expect, it } from 'vitest';
import { VADD_PTX, randomFloats } from './fixtures.js';
import { asyncCodeOf, codeOf, openSimDriver } from './sim-helpers.js';

const drv = openSimDriver();
const other = openSimDriver();
afterAll(() => {
  other.close();
  drv.close();
});

const N = 300;
const upload = (data: Float32Array) => {
  const p = drv.memAlloc(data.byteLength);
  drv.memcpyHtoD(p, data);
  return p;
};
const download = (p: ReturnType<typeof drv.memAlloc>, n = N) => {
  const out = new Float32Array(n);
  drv.memcpyDtoH(out, p);
  return out;
};

describe('launch plan', () => {
  const fn = drv.getFunction(drv.moduleLoadData(VADD_PTX), 'vadd');

  it('launches vadd from a persistent parameter buffer, rewritten between launches', () => {
    const x = randomFloats(N, 1), y = randomFloats(N, 2), z = randomFloats(N, 3);
    const px = upload(x), py = upload(y), pz = upload(z), out = drv.memAlloc(N * 4), out2 = drv.memAlloc(N * 4);
    const plan = drv.createLaunchPlan(fn, [0, 8, 16, 24], 28);
    expect(plan.params.byteLength).toBe(28);
    expect(plan.paramCount).toBe(4);
    const v = new DataView(plan.params.buffer, plan.params.byteOffset, plan.params.byteLength);
    v.setBigUint64(0, px.address, true);
    v.setBigUint64(8, py.address, true);
    v.setBigUint64(16, out.address, true);
    v.setInt32(24, N, true);
    const stream = drv.streamCreate();
    plan.launch(Math.ceil(N / 128), 1, 1, 128, 1, 1, 0, stream);
    // The driver copied the arguments at launch: rewriting now changes only the next launch.
    v.setBigUint64(0, pz.address, true);
    v.setBigUint64(16, out2.address, true);
    plan.launch(Math.ceil(N / 128), 1, 1, 128, 1, 1, 0, null);
    drv.streamSynchronize(stream);
    drv.synchronize();
    const got = download(out), got2 = download(out2);
    for (let i = 0; i < N; i++) {
      expect(got[i]).toBe(Math.fround(x[i]! + y[i]!));
      expect(got2[i]).toBe(Math.fround(z[i]! + y[i]!));
    }
    drv.streamDestroy(stream);
    for (const p of [px, py, pz, out, out2]) drv.memFree(p);
  });

  it('rejects bad plans and bad launches with clear errors', () => {
    expect(codeOf(() => drv.createLaunchPlan(fn, [0, 8, 16, 28], 28))).toBe('E_RANGE');
    expect(codeOf(() => drv.createLaunchPlan(fn, 'x' as never, 28))).toBe('E_ARG');
    expect(codeOf(() => drv.createLaunchPlan({} as never, [0], 8))).toBe('E_ARG');
    expect(codeOf(() => drv.createLaunchPlan(fn, [-1], 8))).toBe('E_RANGE');
    const plan = drv.createLaunchPlan(fn, [0, 8, 16, 24], 28);
    expect(codeOf(() => (plan.launch as (...a: unknown[]) => void)(1, 1, 1, 32, 1, 1, 0))).toBe('E_ARG');
    expect(codeOf(() => plan.launch(0, 1, 1, 32, 1, 1, 0, null))).toBe('E_ARG');
    expect(codeOf(() => plan.launch(1, 1, 1, 1.5, 1, 1, 0, null))).toBe('E_ARG');
    expect(codeOf(() => plan.launch(1, 1, 1, 32, 1, 1, 0, {} as never))).toBe('E_ARG');
    // A block too large for the device: the driver's own error, nothing launched, context fine.
    expect(codeOf(() => plan.launch(1, 1, 1, 2048, 1, 1, 0, null))).toBe('CUDA_ERROR_INVALID_VALUE');
    const s = drv.streamCreate();
    drv.streamDestroy(s);
    expect(codeOf(() => plan.launch(1, 1, 1, 32, 1, 1, 0, s))).toBe('E_FREED');
    const s2 = other.streamCreate();
    expect(codeOf(() => plan.launch(1, 1, 1, 32, 1, 1, 0, s2))).toBe('E_ARG');
    other.streamDestroy(s2);
    const m = drv.moduleLoadData(VADD_PTX);
    const f2 = drv.getFunction(m, 'vadd');
    const plan2 = drv.createLaunchPlan(f2, [0, 8, 16, 24], 28);
    drv.moduleUnload(m);
    expect(codeOf(() => plan2.launch(1, 1, 1, 32, 1, 1, 0, null))).toBe('E_FREED');
    expect(codeOf(() => drv.createLaunchPlan(f2, [0], 8))).toBe('E_FREED');
  });
});

describe('device copies and stream-ordered work', () => {
  it('memcpyDtoD and memcpyDtoDAsync copy with offsets', async () => {
    const x = randomFloats(N, 4);
    const a = upload(x), b = drv.memAlloc(N * 4), c = drv.memAlloc(N * 4);
    drv.memsetD8(b, 0);
    drv.memcpyDtoD(b, a, 100 * 4, 8 * 4, 4 * 4);
    const s = drv.streamCreate();
    drv.memcpyDtoDAsync(c, a, N * 4, s);
    await drv.streamDone(s);
    const gb = download(b), gc = download(c);
    for (let i = 0; i < N; i++) {
      expect(gb[i]).toBe(i >= 8 && i < 108 ? x[i - 4]! : 0);
      expect(gc[i]).toBe(x[i]);
    }
    expect(codeOf(() => drv.memcpyDtoD(b, a, N * 4, 4))).toBe('E_RANGE');
    expect(codeOf(() => drv.memcpyDtoDAsync(b, a, 4, s, 0, N * 4))).toBe('E_RANGE');
    expect(codeOf(() => drv.memcpyDtoD(b, 'a' as never, 4))).toBe('E_ARG');
    drv.memFree(c);
    expect(codeOf(() => drv.memcpyDtoD(c, a, 4))).toBe('E_FREED');
    expect(codeOf(() => drv.memcpyDtoDAsync(a, c, 4, null))).toBe('E_FREED');
    drv.streamDestroy(s);
    drv.memFree(a);
    drv.memFree(b);
  });

  it('memsetD8Async sets a range in stream order', async () => {
    const p = drv.memAlloc(64);
    drv.memsetD8(p, 0);
    const s = drv.streamCreate();
    drv.memsetD8Async(p, 0xab, 16, 8, s);
    await drv.streamDone(s);
    const got = new Uint8Array(64);
    drv.memcpyDtoH(got, p);
    for (let i = 0; i < 64; i++) expect(got[i]).toBe(i >= 8 && i < 24 ? 0xab : 0);
    expect(codeOf(() => drv.memsetD8Async(p, 256, 1, 0, s))).toBe('E_RANGE');
    expect(codeOf(() => drv.memsetD8Async(p, 1, 60, 8, s))).toBe('E_RANGE');
    drv.streamDestroy(s);
    drv.memFree(p);
    expect(codeOf(() => drv.memsetD8Async(p, 1, 1, 0, null))).toBe('E_FREED');
  });

  it('streamWaitEvent orders a copy after work on another stream; eventQuery and eventSynchronizeAsync', async () => {
    const x = randomFloats(N, 5);
    const a = upload(x), b = drv.memAlloc(N * 4), c = drv.memAlloc(N * 4);
    const s1 = drv.streamCreate(), s2 = drv.streamCreate();
    const ev = drv.eventCreate();
    drv.memcpyDtoDAsync(b, a, N * 4, s1);
    drv.eventRecord(ev, s1);
    drv.streamWaitEvent(s2, ev);
    drv.memcpyDtoDAsync(c, b, N * 4, s2);
    await drv.eventSynchronizeAsync(ev);
    expect(drv.eventQuery(ev)).toBe(true);
    await drv.streamDone(s2);
    expect(Array.from(download(c))).toEqual(Array.from(x));
    expect(codeOf(() => drv.streamWaitEvent(s2, {} as never))).toBe('E_ARG');
    drv.eventDestroy(ev);
    expect(codeOf(() => drv.eventQuery(ev))).toBe('E_FREED');
    expect(await asyncCodeOf(async () => drv.eventSynchronizeAsync(ev))).toBe('E_FREED');
    expect(codeOf(() => drv.streamWaitEvent(s2, ev))).toBe('E_FREED');
    drv.streamDestroy(s1);
    drv.streamDestroy(s2);
    expect(await asyncCodeOf(async () => drv.streamDone(s1))).toBe('E_FREED');
    for (const p of [a, b, c]) drv.memFree(p);
  });

  it('memcpyHtoDAsync keeps its source until the copy completed (caller may reuse it at once)', async () => {
    const s = drv.streamCreate();
    const p = drv.memAlloc(N * 4);
    const src = randomFloats(N, 9);
    const want = Float32Array.from(src);
    for (let r = 0; r < 3; r++) drv.memcpyHtoDAsync(p, src, s);
    src.fill(0);
    await drv.streamDone(s);
    expect(Array.from(download(p))).toEqual(Array.from(want));
    drv.streamDestroy(s);
    drv.memFree(p);
  });

  it('streamDone on the default stream resolves', async () => {
    await expect(drv.streamDone(null)).resolves.toBeUndefined();
  });
});

describe('low-level module API', () => {
  it('the sim refuses a cubin (ptxas output) with CUDA_ERROR_NO_BINARY_FOR_GPU', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'tessera-cubin-'));
    writeFileSync(join(dir, 'vadd.ptx'), VADD_PTX);
    execFileSync('/usr/local/cuda/bin/ptxas', ['-arch=sm_80', '-o', join(dir, 'vadd.cubin'), join(dir, 'vadd.ptx')]);
    const cubin = new Uint8Array(readFileSync(join(dir, 'vadd.cubin')));
    expect(cubin[0]).toBe(0x7f); // an ELF image
    expect(codeOf(() => drv.moduleLoadData(cubin))).toBe('CUDA_ERROR_NO_BINARY_FOR_GPU');
  });
});
