import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { bf16Array, bf16ToFloat32, f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { ewKernel, rng, runEw } from './build.js';

const castK = (from: DType, to: DType, n: number) => ewKernel([from], to, Math.max(1, 2 ** Math.ceil(Math.log2(n))), (k, [x]) => k.cast(x!, to));
const run = <T extends Parameters<typeof runEw>[2]>(from: DType, to: DType, input: Parameters<typeof runEw>[1][0], out: T) =>
  runEw(castK(from, to, out.length), [input], out, Math.max(1, 2 ** Math.ceil(Math.log2(out.length))));

describe('float -> int truncates toward zero and saturates (cvt.rzi.sat), NaN -> 0', () => {
  it('f32 -> i32, u8, i8, u32', () => {
    const x = Float32Array.from([1.9, -1.9, 3e9, -3e9, NaN, Infinity, -Infinity, 200.5, -0.5]);
    expect(Array.from(run('f32', 'i32', x, new Int32Array(9)))).toEqual([1, -1, 2147483647, -2147483648, 0, 2147483647, -2147483648, 200, 0]);
    expect(Array.from(run('f32', 'u8', x, new Uint8Array(9)))).toEqual([1, 0, 255, 0, 0, 255, 0, 200, 0]);
    expect(Array.from(run('f32', 'i8', x, new Int8Array(9)))).toEqual([1, -1, 127, -128, 0, 127, -128, 127, 0]);
    expect(Array.from(run('f32', 'u32', x, new Uint32Array(9)))).toEqual([1, 0, 3e9, 0, 0, 4294967295, 0, 200, 0]);
  });
  it('f64 -> i64 saturates at the i64 range', () => {
    const x = Float64Array.from([1e19, -1e19, -2.5, 2 ** 53 + 2, NaN]);
    expect(Array.from(run('f64', 'i64', x, new BigInt64Array(5)))).toEqual([(1n << 63n) - 1n, -(1n << 63n), -2n, 2n ** 53n + 2n, 0n]);
  });
});

describe('int -> int keeps the low bits; int -> float rounds once', () => {
  it('i32 -> i8/u8/i64, u32 -> i64 zero-extends, i64 -> i32 truncates', () => {
    const x = Int32Array.from([300, -1, 128, -129]);
    expect(Array.from(run('i32', 'i8', x, new Int8Array(4)))).toEqual([44, -1, -128, 127]);
    expect(Array.from(run('i32', 'u8', x, new Uint8Array(4)))).toEqual([44, 255, 128, 127]);
    expect(Array.from(run('i32', 'i64', x, new BigInt64Array(4)))).toEqual([300n, -1n, 128n, -129n]);
    expect(Array.from(run('u32', 'i64', Uint32Array.from([0xffffffff, 5]), new BigInt64Array(2)))).toEqual([4294967295n, 5n]);
    expect(Array.from(run('i64', 'i32', BigInt64Array.from([(1n << 40n) + 7n, -1n]), new Int32Array(2)))).toEqual([7, -1]);
  });
  it('i64 -> f32 rounds once (no double rounding through f64)', () => {
    // 2^60 + 2^36 + 1: through f64 it becomes 2^60 + 2^36 (a tie for f32, rounds to even 2^60);
    // the exact value is just above the tie, so the correct f32 is 2^60 + 2^37.
    const v = (1n << 60n) + (1n << 36n) + 1n;
    const out = run('i64', 'f32', BigInt64Array.from([v, -v, 3n]), new Float32Array(3));
    expect(Array.from(out)).toEqual([2 ** 60 + 2 ** 37, -(2 ** 60 + 2 ** 37), 3]);
  });
  it('i32 -> f16 and bool <-> numbers', () => {
    expect(Array.from(f16ToFloat32(run('i32', 'f16', Int32Array.from([2049, 2051, 70000, -3]), new Uint16Array(4))))).toEqual([2048, 2052, Infinity, -3]);
    expect(Array.from(run('f32', 'bool', Float32Array.from([0, -0, 2, NaN]), new Uint8Array(4)))).toEqual([0, 0, 1, 1]);
    expect(Array.from(run('bool', 'f32', Uint8Array.from([0, 1]), new Float32Array(2)))).toEqual([0, 1]);
  });
});

describe('float -> float', () => {
  it('f32 -> f16 / bf16 round to nearest even; f16 -> f32 exact', () => {
    const r = rng(3);
    const x = Float32Array.from({ length: 500 }, () => (r() - 0.5) * 2 ** Math.floor(r() * 40 - 20));
    const h = run('f32', 'f16', x, new Uint16Array(500));
    expect(Array.from(h)).toEqual(Array.from(f16Array(x)));
    const bf = run('f32', 'bf16', x, new Uint16Array(500));
    expect(Array.from(bf)).toEqual(Array.from(bf16Array(x)));
    expect(Array.from(run('f16', 'f32', h, new Float32Array(500)))).toEqual(Array.from(f16ToFloat32(h)));
    expect(Array.from(run('bf16', 'f32', bf, new Float32Array(500)))).toEqual(Array.from(bf16ToFloat32(bf)));
  });
  it('f64 -> f32 rounds', () => {
    const x = Float64Array.from([0.1, 1 / 3, 1e40]);
    expect(Array.from(run('f64', 'f32', x, new Float32Array(3)))).toEqual([Math.fround(0.1), Math.fround(1 / 3), Infinity]);
  });
});

describe('bitcast', () => {
  it('f32 <-> i32 keeps bits, NaN payloads included', () => {
    const bits = Int32Array.from([0x3f800000, 0x7fc00001, -1, 0x7f800001]);
    const f = runEw(ewKernel(['i32'], 'f32', 4, (k, [x]) => k.one('bitcast', [x!], { elem: 'f32', shape: x!.type.shape }, { to: 'f32' })), [bits], new Float32Array(4), 4);
    expect(Array.from(new Int32Array(f.buffer))).toEqual(Array.from(bits));
    const back = runEw(ewKernel(['f32'], 'i32', 4, (k, [x]) => k.one('bitcast', [x!], { elem: 'i32', shape: x!.type.shape }, { to: 'i32' })), [f], new Int32Array(4), 4);
    expect(Array.from(back)).toEqual(Array.from(bits));
  });
});
