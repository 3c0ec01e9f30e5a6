// The addon's tensorMapEncodeTiled against the sim driver: a valid map is 128 bytes and encodes
// the same twice; bad argument types and list lengths are named E_ARG / E_RANGE by the addon, and
// what only the driver checks (alignment, 16-byte strides, box sizes) comes back as its
// CUDA_ERROR_INVALID_VALUE — never a crash.
import { afterAll, describe, expect, it } from 'vitest';
import { codeOf, openSimDriver } from './sim-helpers.js';

const drv = openSimDriver();
afterAll(() => drv.close());

describe('tensorMapEncodeTiled (sim)', () => {
  const buf = drv.memAlloc(64 * 64 * 2);
  const enc = (over: Partial<Record<'address' | 'dims' | 'strides' | 'box' | 'es' | 'swizzle', unknown>> = {}) =>
    drv.tensorMapEncodeTiled!(6 /* FLOAT16 */, 2, (over.address ?? buf.address) as bigint, (over.dims ?? [64, 64]) as number[], (over.strides ?? [128]) as number[],
      (over.box ?? [64, 16]) as number[], (over.es ?? [1, 1]) as number[], 0, (over.swizzle ?? 3) as number, 0, 0);

  it('encodes a 2-D f16 map with a 128B swizzle', () => {
    const m = enc();
    expect(m).toBeInstanceOf(Uint8Array);
    expect(m.length).toBe(128);
    expect(Array.from(enc())).toEqual(Array.from(m));
    expect(Array.from(enc({ dims: [64, 32] }))).not.toEqual(Array.from(m));
  });

  it('names bad arguments before calling the driver', () => {
    expect(codeOf(() => enc({ dims: [64] }))).toBe('E_RANGE');
    expect(codeOf(() => enc({ box: 'x' }))).toBe('E_ARG');
    expect(codeOf(() => enc({ strides: [-16] }))).toBe('E_RANGE');
    expect(codeOf(() => drv.tensorMapEncodeTiled!(6, 0, buf.address, [], [], [], [], 0, 0, 0, 0))).toBe('E_RANGE');
  });

  it("returns the driver's refusal for what only it checks", () => {
    expect(codeOf(() => enc({ address: buf.address + 8n }))).toBe('CUDA_ERROR_INVALID_VALUE'); // not 16-byte aligned
    expect(codeOf(() => enc({ strides: [120] }))).toBe('CUDA_ERROR_INVALID_VALUE'); // not a multiple of 16
    expect(codeOf(() => enc({ box: [64, 512] }))).toBe('CUDA_ERROR_INVALID_VALUE'); // box dim above 256
    expect(codeOf(() => enc({ box: [128, 16] }))).toBe('CUDA_ERROR_INVALID_VALUE'); // 256-byte inner box with a 128B swizzle
  });
});
