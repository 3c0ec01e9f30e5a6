// The raw addon against the sim driver library: memory, modules, launches, streams, events, and
// every kind of bad input (the host must get an error, never a crash).
import { afterAll, describe, expect, it } from 'vitest';
import type { DevicePtrHandle } from '../../src/runtime/native/addon.js';
import { BAD_PTX, VADD_PTX, randomFloats } from './fixtures.js';
import { asyncCodeOf, codeOf, openSimDriver } from './sim-helpers.js';

const drv = openSimDriver();
const other = openSimDriver();
afterAll(() => {
  other.close();
  drv.close();
});

function vaddParams(x: DevicePtrHandle, y: DevicePtrHandle, out: DevicePtrHandle, n: number): Uint8Array {
  const b = new Uint8Array(28);
  const v = new DataView(b.buffer);
  v.setBigUint64(0, x.address, true);
  v.setBigUint64(8, y.address, true);
  v.setBigUint64(16, out.address, true);
  v.setInt32(24, n, true);
  return b;
}

describe('sim driver: device', () => {
  it('describes the simulated device', () => {
    const info = drv.deviceInfo();
    expect(info.isSim).toBe(true);
    expect(drv.isSim).toBe(true);
    expect(info.warpSize).toBe(32);
    expect(info.ccMajor).toBeGreaterThanOrEqual(8);
    expect(info.maxThreadsPerBlock).toBe(1024);
    expect(info.maxSharedOptin).toBeGreaterThan(info.maxSharedPerBlock);
    expect(info.totalMemory).toBeGreaterThan(0);
    expect(info.name.length).toBeGreaterThan(0);
    expect(info.libraryPath).toBe(drv.libraryPath);
  });
});

describe('sim driver: memory', () => {
  it('round-trips bytes through device memory, at offsets', () => {
    const data = randomFloats(1000, 7);
    const p = drv.memAlloc(8000);
    expect(typeof p.address).toBe('bigint');
    expect(p.bytes).toBe(8000);
    drv.memcpyHtoD(p, data);
    drv.memcpyHtoD(p, data.subarray(10, 20), 4000);
    const back = new Float32Array(1000);
    drv.memcpyDtoH(back, p);
    expect(back).toEqual(data);
    const tail = new Float32Array(10);
    drv.memcpyDtoH(tail, p, 4000);
    expect(tail).toEqual(data.subarray(10, 20));
    drv.memFree(p);
  });

  it('memsetD8 sets the requested span only', () => {
    const p = drv.memAlloc(64);
    drv.memsetD8(p, 0);
    drv.memsetD8(p, 0xab, 16, 8);
    const back = new Uint8Array(64);
    drv.memcpyDtoH(back, p);
    const want = new Uint8Array(64);
    want.fill(0xab, 8, 24);
    expect(back).toEqual(want);
    drv.memFree(p);
  });

  it('rejects bad sizes, spans and buffers before calling the driver', () => {
    const p = drv.memAlloc(16);
    expect(codeOf(() => drv.memAlloc(0))).toBe('E_RANGE');
    expect(codeOf(() => drv.memAlloc(-1))).toBe('E_RANGE');
    expect(codeOf(() => drv.memAlloc(1.5))).toBe('E_RANGE');
    expect(codeOf(() => drv.memAlloc('16' as unknown as number))).toBe('E_ARG');
    expect(codeOf(() => drv.memcpyHtoD(p, new Uint8Array(17)))).toBe('E_RANGE');
    expect(codeOf(() => drv.memcpyHtoD(p, new Uint8Array(8), 9))).toBe('E_RANGE');
    expect(codeOf(() => drv.memcpyDtoH(new Uint8Array(4), p, 13))).toBe('E_RANGE');
    expect(codeOf(() => drv.memcpyHtoD(p, [1, 2, 3] as unknown as Uint8Array))).toBe('E_ARG');
    expect(codeOf(() => drv.memsetD8(p, 256))).toBe('E_RANGE');
    expect(codeOf(() => drv.memsetD8(p, 1, 17))).toBe('E_RANGE');
    drv.memFree(p);
  });

  it('refuses freed pointers, look-alike objects and pointers of another driver', () => {
    const p = drv.memAlloc(16);
    drv.memFree(p);
    expect(codeOf(() => drv.memFree(p))).toBe('E_FREED');
    expect(codeOf(() => drv.memcpyHtoD(p, new Uint8Array(4)))).toBe('E_FREED');
    expect(codeOf(() => drv.memcpyDtoH(new Uint8Array(4), p))).toBe('E_FREED');
    const fake = { address: 4096n, bytes: 16 } as DevicePtrHandle;
    expect(codeOf(() => drv.memcpyHtoD(fake, new Uint8Array(4)))).toBe('E_ARG');
    expect(codeOf(() => drv.memFree(null as unknown as DevicePtrHandle))).toBe('E_ARG');
    const q = other.memAlloc(16);
    expect(codeOf(() => drv.memFree(q))).toBe('E_ARG');
    other.memFree(q);
  });
});

describe('sim driver: modules and launches', () => {
  it('loads PTX, reads function attributes and runs vadd (extra-buffer form)', () => {
    const m = drv.moduleLoadData(VADD_PTX);
    const fn = drv.getFunction(m, 'vadd');
    expect(fn.name).toBe('vadd');
    expect(fn.maxThreadsPerBlock).toBeGreaterThan(0);
    expect(fn.sharedBytes).toBe(0);
    const n = 1000; // ragged: not a multiple of the block
    const x = randomFloats(n, 1), y = randomFloats(n, 2);
    const [px, py, po] = [drv.memAlloc(4 * n), drv.memAlloc(4 * n), drv.memAlloc(4 * n)];
    drv.memcpyHtoD(px, x);
    drv.memcpyHtoD(py, y);
    drv.memsetD8(po, 0);
    drv.launch(fn, [Math.ceil(n / 128)], [128], 0, null, vaddParams(px, py, po, n));
    drv.synchronize();
    const out = new Float32Array(n);
    drv.memcpyDtoH(out, po);
    const want = x.map((v, i) => Math.fround(v + y[i]!));
    expect(out).toEqual(want);
    for (const p of [px, py, po]) drv.memFree(p);
    drv.moduleUnload(m);
  });

  it('runs vadd through the kernelParams form (paramOffsets)', () => {
    const m = drv.moduleLoadData(new TextEncoder().encode(VADD_PTX));
    const fn = drv.getFunction(m, 'vadd');
    const n = 77;
    const x = randomFloats(n, 3), y = randomFloats(n, 4);
    const [px, py, po] = [drv.memAlloc(4 * n), drv.memAlloc(4 * n), drv.memAlloc(4 * n)];
    drv.memcpyHtoD(px, x);
    drv.memcpyHtoD(py, y);
    drv.launch(fn, [1, 1, 1], [96, 1, 1], 0, null, vaddParams(px, py, po, n), [0, 8, 16, 24]);
    const out = new Float32Array(n);
    drv.memcpyDtoH(out, po); // synchronous copies wait for the default stream
    expect(out).toEqual(x.map((v, i) => Math.fround(v + y[i]!)));
    for (const p of [px, py, po]) drv.memFree(p);
    drv.moduleUnload(m);
  });

  it('puts the JIT log of bad PTX into the error', () => {
    let err: (Error & { code?: string; call?: string }) | undefined;
    try {
      drv.moduleLoadData(BAD_PTX);
    } catch (e) {
      err = e as Error & { code?: string; call?: string };
    }
    expect(err?.code).toBe('CUDA_ERROR_INVALID_PTX');
    expect(err?.call).toBe('cuModuleLoadDataEx');
    expect(err?.message).toMatch(/frobnicate/);
    expect(codeOf(() => drv.moduleLoadData(''))).toBe('E_ARG');
    expect(codeOf(() => drv.moduleLoadData(42 as unknown as string))).toBe('E_ARG');
  });

  it('reports an unknown kernel name with the driver error name', () => {
    const m = drv.moduleLoadData(VADD_PTX);
    expect(codeOf(() => drv.getFunction(m, 'nope'))).toBe('CUDA_ERROR_NOT_FOUND');
    expect(codeOf(() => drv.getFunction(m, ''))).toBe('E_ARG');
    drv.moduleUnload(m);
    expect(codeOf(() => drv.getFunction(m, 'vadd'))).toBe('E_FREED');
    expect(codeOf(() => drv.moduleUnload(m))).toBe('E_FREED');
  });

  it('turns invalid launches into driver error codes, naming the call', () => {
    const m = drv.moduleLoadData(VADD_PTX);
    const fn = drv.getFunction(m, 'vadd');
    const p = drv.memAlloc(16);
    const params = vaddParams(p, p, p, 0);
    let err: (Error & { code?: string; call?: string }) | undefined;
    try {
      drv.launch(fn, [1], [2048], 0, null, params); // more threads than a block may have
    } catch (e) {
      err = e as Error & { code?: string; call?: string };
    }
    expect(err?.code).toBe('CUDA_ERROR_INVALID_VALUE');
    expect(err?.call).toBe('cuLaunchKernel');
    expect(err?.message).toContain("launching 'vadd'");
    expect(codeOf(() => drv.launch(fn, [1], [32], 1 << 30, null, params))).toBe('CUDA_ERROR_INVALID_VALUE');
    // argument validation happens before the driver is called
    expect(codeOf(() => drv.launch(fn, [0], [32], 0, null, params))).toBe('E_RANGE');
    expect(codeOf(() => drv.launch(fn, [1, 1, 1, 1], [32], 0, null, params))).toBe('E_RANGE');
    expect(codeOf(() => drv.launch(fn, 1 as unknown as number[], [32], 0, null, params))).toBe('E_ARG');
    expect(codeOf(() => drv.launch(fn, [1], [32], 0, null, params, [0, 8, 16, 28]))).toBe('E_RANGE');
    expect(codeOf(() => drv.launch({} as typeof fn, [1], [32], 0, null, params))).toBe('E_ARG');
    drv.moduleUnload(m);
    expect(codeOf(() => drv.launch(fn, [1], [32], 0, null, params))).toBe('E_FREED');
    drv.memFree(p);
  });
});

describe('sim driver: streams, events, async', () => {
  it('copies and launches on a stream, times with events, and downloads asynchronously', async () => {
    const m = drv.moduleLoadData(VADD_PTX);
    const fn = drv.getFunction(m, 'vadd');
    const s = drv.streamCreate();
    const [start, end] = [drv.eventCreate(), drv.eventCreate()];
    const n = 4096;
    const x = randomFloats(n, 5), y = randomFloats(n, 6);
    const [px, py, po] = [drv.memAlloc(4 * n), drv.memAlloc(4 * n), drv.memAlloc(4 * n)];
    drv.eventRecord(start, s);
    drv.memcpyHtoDAsync(px, x, s);
    const yCopy = y.slice();
    drv.memcpyHtoDAsync(py, yCopy, s);
    yCopy.fill(0); // the staged copy is unaffected
    drv.launch(fn, [n / 256], [256], 0, s, vaddParams(px, py, po, n));
    drv.eventRecord(end, s);
    const out = await drv.memcpyDtoHAsync(new Float32Array(n), po, s);
    expect(out).toEqual(x.map((v, i) => Math.fround(v + y[i]!)));
    drv.eventSynchronize(end);
    expect(drv.eventElapsed(start, end)).toBeGreaterThanOrEqual(0);
    await drv.streamSynchronizeAsync(s);
    await drv.synchronizeAsync();
    drv.streamSynchronize(s);
    drv.streamDestroy(s);
    expect(codeOf(() => drv.streamSynchronize(s))).toBe('E_FREED');
    expect(codeOf(() => drv.eventRecord(end, s))).toBe('E_FREED');
    drv.eventDestroy(start);
    drv.eventDestroy(end);
    expect(codeOf(() => drv.eventSynchronize(end))).toBe('E_FREED');
    for (const p of [px, py, po]) drv.memFree(p);
    drv.moduleUnload(m);
  });

  it('keeps a pointer busy while an async copy reads it', async () => {
    const p = drv.memAlloc(1 << 16);
    const pending = drv.memcpyDtoHAsync(new Uint8Array(1 << 16), p, null);
    expect(codeOf(() => drv.memFree(p))).toBe('E_BUSY');
    await pending;
    drv.memFree(p);
    expect(await asyncCodeOf(() => drv.memcpyDtoHAsync(new Uint8Array(4), p, null))).toBe('E_FREED');
  });

  it('has no fault report before any fault', () => {
    expect(drv.lastFault()).toBeNull();
  });
});

describe('sim driver: garbage in', () => {
  it('every method answers wrong arguments with a coded error, never a crash', async () => {
    const d = openSimDriver();
    const ptr = d.memAlloc(64);
    const freed = d.memAlloc(64);
    d.memFree(freed);
    const garbage: unknown[] = [undefined, null, -1, 2 ** 64, NaN, 'x', {}, [], [1, 2, 3, 4], Symbol('s'), () => 1, -5n,
      new Uint8Array(3), new ArrayBuffer(0), ptr, freed, { address: ptr.address, bytes: 64 }, new Proxy({}, {})];
    const proto = Object.getPrototypeOf(d) as Record<string, unknown>;
    const methods = Object.getOwnPropertyNames(proto).filter((m) => m !== 'constructor' && m !== 'close' && typeof proto[m] === 'function');
    expect(methods.length).toBeGreaterThan(25);
    const codes = new Set<string>();
    for (const m of methods) {
      for (let i = 0; i < garbage.length; i++) {
        const args = [garbage[i], garbage[(i * 7 + 3) % garbage.length], garbage[(i * 5 + 1) % garbage.length],
          garbage[(i * 3 + 2) % garbage.length], garbage[(i + 4) % garbage.length], garbage[(i * 11 + 5) % garbage.length]];
        try {
          const r = (proto[m] as (...a: unknown[]) => unknown).apply(d, args);
          if (r instanceof Promise) await r;
        } catch (e) {
          const code = (e as { code?: unknown }).code;
          expect(typeof code, `${m}(${i}) threw ${String(e)}`).toBe('string');
          codes.add(code as string);
        }
      }
    }
    expect(codes).toContain('E_ARG');
    expect(codes).toContain('E_FREED');
    expect(codes).toContain('E_RANGE');
    d.synchronize();
    d.close();
  });
});

describe('sim driver: close', () => {
  it('invalidates everything after close, and closing twice is harmless', () => {
    const d = openSimDriver();
    const p = d.memAlloc(16);
    d.close();
    d.close();
    expect(codeOf(() => d.memAlloc(16))).toBe('E_CLOSED');
    expect(codeOf(() => d.memFree(p))).toBe('E_CLOSED');
    expect(codeOf(() => d.deviceInfo())).toBe('E_CLOSED');
  });
});
