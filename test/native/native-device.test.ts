// NativeDevice on the sim: alloc/upload/download, launch of `{ ptx, metadata }` with arguments
// packed from the metadata, module caching, async paths and bad input.
import { afterAll, describe, expect, it } from 'vitest';
import { DeviceBuffer, type CompiledKernel } from '../../src/runtime/native/native-device.js';
import { NativeDeviceError } from '../../src/runtime/native/errors.js';
import { VADD_PARAMS, VADD_PTX, randomFloats } from './fixtures.js';
import { asyncCodeOf, codeOf, openSimDevice } from './sim-helpers.js';

const dev = openSimDevice();
const other = openSimDevice();
afterAll(() => {
  other.close();
  dev.close();
});

const vadd: CompiledKernel = { ptx: VADD_PTX, metadata: { name: 'vadd', numWarps: 4, sharedBytes: 0, params: VADD_PARAMS } };

describe('NativeDevice (sim)', () => {
  it('is the sim', () => {
    expect(dev.kind).toBe('sim');
    expect(dev.info.isSim).toBe(true);
  });

  it.each([1, 127, 128, 129, 5000])('vadd of %i elements matches the JS reference', (n) => {
    const x = randomFloats(n, n), y = randomFloats(n, n + 1);
    const [bx, by, bo] = [dev.alloc(4 * n), dev.alloc(4 * n), dev.alloc(4 * n)];
    dev.upload(bx, x);
    dev.upload(by, y);
    dev.fill(bo, 0xff);
    dev.launch(vadd, [bx, by, bo, n], Math.ceil(n / 128));
    const out = dev.download(bo, new Float32Array(n));
    expect(out).toEqual(x.map((v, i) => Math.fround(v + y[i]!)));
    for (const b of [bx, by, bo]) dev.free(b);
  });

  it('reports counters of the last launch, derived from the launch shape', () => {
    const n = 256; // 2 blocks of 128 threads = 8 full warps; each does 2 loads and 1 store of 32 x f32
    const [bx, by, bo] = [dev.alloc(4 * n), dev.alloc(4 * n), dev.alloc(4 * n)];
    dev.fill(bx, 0); // defined inputs (initcheck: no reads of memory never written)
    dev.fill(by, 0);
    dev.launch(vadd, [bx, by, bo, n], 2);
    dev.synchronize();
    const c = dev.simCounters()!;
    const warps = n / 32;
    expect(c.globalLoadRequests).toBe(2 * warps);
    expect(c.globalStoreRequests).toBe(warps);
    expect(c.globalStoreSectors).toBe(warps * (32 * 4) / 32); // 128 contiguous bytes = 4 sectors
    expect(c.warpInstructions).toBeGreaterThan(warps * 3);
    expect(c.globalLoadSectors).toBe(2 * warps * 4);
    expect(c.byClass.memGlobal).toBeGreaterThanOrEqual(3 * warps);
    expect(Object.values(c.byClass).reduce((p, q) => p + q, 0)).toBe(c.warpInstructions);
    for (const b of [bx, by, bo]) dev.free(b);
  });

  it('takes arguments by name, on a stream, downloading asynchronously', async () => {
    const n = 300;
    const x = randomFloats(n, 11), y = randomFloats(n, 12);
    const [bx, by, bo] = [dev.alloc(4 * n), dev.alloc(4 * n), dev.alloc(4 * n)];
    const s = dev.createStream();
    dev.upload(bx, x, 0, s);
    dev.upload(by, y, 0, s);
    dev.launch(vadd, { out: bo, x: bx, y: by, n }, [3, 1, 1], { stream: s });
    const out = await dev.downloadAsync(bo, new Float32Array(n), 0, s);
    expect(out).toEqual(x.map((v, i) => Math.fround(v + y[i]!)));
    await s.synchronizeAsync();
    s.destroy();
    await dev.synchronizeAsync();
    for (const b of [bx, by, bo]) dev.free(b);
  });

  it('loads each distinct PTX once', () => {
    expect(dev.loadPtx(VADD_PTX)).toBe(dev.loadPtx(VADD_PTX));
    expect(dev.kernel(vadd)).toBe(dev.kernel(vadd));
    expect(dev.kernel(vadd).fn.name).toBe('vadd');
  });

  it('downloads a whole buffer when no destination is given', () => {
    const b = dev.alloc(8);
    dev.upload(b, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
    expect([...dev.download(b)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...dev.download(b, undefined, 6)]).toEqual([7, 8]);
    dev.free(b);
  });

  it('rejects bad buffers, arguments and grids before launching', async () => {
    const b = dev.alloc(64);
    expect(codeOf(() => dev.launch(vadd, [b, b, b], 1))).toBe('E_PARAM');
    expect(codeOf(() => dev.launch(vadd, [b, b, 1.5, 4], 1))).toBe('E_PARAM');
    expect(codeOf(() => dev.launch(vadd, [b, b, b, 4], 0))).toBe('E_RANGE');
    expect(codeOf(() => dev.launch(vadd, [b, b, b, 4], [1, 1, 1, 1]))).toBe('E_RANGE');
    expect(codeOf(() => dev.launch({ ...vadd, metadata: { ...vadd.metadata, numWarps: 0 } }, [b, b, b, 4], 1))).toBe('E_RANGE');
    expect(codeOf(() => dev.launch({ ...vadd, metadata: { ...vadd.metadata, name: 'missing' } }, [b, b, b, 4], 1))).toBe('CUDA_ERROR_NOT_FOUND');
    const foreign = other.alloc(64);
    expect(codeOf(() => dev.launch(vadd, [b, b, foreign, 4], 1))).toBe('E_ARG');
    expect(codeOf(() => dev.upload(foreign, new Uint8Array(4)))).toBe('E_ARG');
    other.free(foreign);
    dev.free(b);
    expect(b.freed).toBe(true);
    expect(codeOf(() => dev.free(b))).toBe('E_FREED');
    expect(codeOf(() => dev.download(b))).toBe('E_FREED');
    expect(codeOf(() => dev.launch(vadd, [b, b, b, 4], 1))).toBe('E_FREED');
    expect(await asyncCodeOf(() => dev.downloadAsync(b))).toBe('E_FREED');
    expect(codeOf(() => dev.upload({} as DeviceBuffer, new Uint8Array(4)))).toBe('E_ARG');
    expect(codeOf(() => dev.alloc(0))).toBe('E_RANGE');
    expect(codeOf(() => dev.loadPtx(''))).toBe('E_ARG');
  });

  it('wraps driver errors as NativeDeviceError with the call', () => {
    try {
      dev.loadPtx('.version 7.0\n.target sm_80\n.address_size 64\nthis is not ptx\n');
      throw new Error('expected a throw');
    } catch (e) {
      expect(e).toBeInstanceOf(NativeDeviceError);
      expect((e as NativeDeviceError).code).toBe('CUDA_ERROR_INVALID_PTX');
      expect((e as NativeDeviceError).call).toBe('cuModuleLoadDataEx');
      expect((e as Error).message).toMatch(/^loadPtx: cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX/);
    }
  });
});
