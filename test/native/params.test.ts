// packParams: argument packing at the metadata's offsets, and rejection of wrong arguments.
import { describe, expect, it } from 'vitest';
import { bf16Bits, f16Bits } from '../../src/ir/half.js';
import { packParams, type ParamSpec } from '../../src/runtime/native/params.js';

const P = (name: string, type: string, offset: number, size: number): ParamSpec => ({ name, type, offset, size });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  throw new Error('expected a throw');
}

describe('packParams', () => {
  const spec = [P('x', 'ptr<f32>', 0, 8), P('n', 'i32', 8, 4), P('a', 'f32', 12, 4), P('h', 'f16', 16, 2),
    P('b', 'bf16', 18, 2), P('k', 'i64', 24, 8), P('d', 'f64', 32, 8), P('flag', 'bool', 40, 1), P('u', 'u8', 41, 1)];

  it('writes every type little-endian at its offset', () => {
    const addr = 0x7f00_1234_5678n;
    const args = [{ address: addr }, -5, 1.5, 0.333, -2.75, -(2n ** 40n), Math.PI, true, 200];
    const { bytes, offsets } = packParams('k', spec, args);
    expect(bytes.length).toBe(42);
    expect(offsets).toEqual(spec.map((p) => p.offset));
    const v = new DataView(bytes.buffer);
    expect(v.getBigUint64(0, true)).toBe(addr);
    expect(v.getInt32(8, true)).toBe(-5);
    expect(v.getFloat32(12, true)).toBe(1.5);
    expect(v.getUint16(16, true)).toBe(f16Bits(0.333));
    expect(v.getUint16(18, true)).toBe(bf16Bits(-2.75));
    expect(v.getBigInt64(24, true)).toBe(-(2n ** 40n));
    expect(v.getFloat64(32, true)).toBe(Math.PI);
    expect(v.getUint8(40)).toBe(1);
    expect(v.getUint8(41)).toBe(200);
  });

  it('accepts arguments by name and raw bigint addresses', () => {
    const s = [P('p', 'ptr', 0, 8), P('n', 'u32', 8, 4)];
    const { bytes } = packParams('k', s, { n: 4294967295, p: 4096n });
    const v = new DataView(bytes.buffer);
    expect(v.getBigUint64(0, true)).toBe(4096n);
    expect(v.getUint32(8, true)).toBe(4294967295);
  });

  it('rejects wrong counts, names and types, naming kernel and parameter', () => {
    const s = [P('x', 'ptr<f32>', 0, 8), P('n', 'i32', 8, 4)];
    expect(() => packParams('vadd', s, [1n])).toThrow("kernel 'vadd': expected 2 arguments (x, n), got 1");
    expect(codeOf(() => packParams('vadd', s, { x: 1n }))).toBe('E_PARAM');
    expect(codeOf(() => packParams('vadd', s, { x: 1n, n: 1, extra: 2 }))).toBe('E_PARAM');
    expect(() => packParams('vadd', s, [3.5, 1])).toThrow(/kernel 'vadd', parameter 'x' \(ptr<f32>\): expected a device buffer/);
    expect(() => packParams('vadd', s, [1n, 2 ** 31])).toThrow(/parameter 'n' \(i32\): 2147483648 is not an integer/);
    expect(codeOf(() => packParams('vadd', s, [1n, 1.5]))).toBe('E_PARAM');
    expect(codeOf(() => packParams('vadd', s, [-1n, 1]))).toBe('E_PARAM');
    expect(codeOf(() => packParams('vadd', s, [1n, '1']))).toBe('E_PARAM');
  });

  it('writes narrow integers and bools widened to 4 bytes when the metadata says so', () => {
    const s = [P('c', 'i8', 0, 4), P('u', 'u16', 4, 4), P('b', 'bool', 8, 4)];
    const { bytes } = packParams('k', s, [-3, 65535, true]);
    const v = new DataView(bytes.buffer);
    expect(v.getInt32(0, true)).toBe(-3);
    expect(v.getUint32(4, true)).toBe(65535);
    expect(v.getUint32(8, true)).toBe(1);
    expect(codeOf(() => packParams('k', s, [-129, 0, false]))).toBe('E_PARAM');
  });

  it('rejects metadata that cannot be right', () => {
    expect(codeOf(() => packParams('k', [P('n', 'i32', 0, 8)], [1]))).toBe('E_PARAM');
    expect(codeOf(() => packParams('k', [P('n', 'i32', 2, 4)], [1]))).toBe('E_PARAM');
    expect(codeOf(() => packParams('k', [P('n', 'q7', 0, 4)], [1]))).toBe('E_PARAM');
  });
});
