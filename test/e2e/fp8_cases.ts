// fp8 cast kernels shared by the e2e tests: decode all 256 codes of a format to f32/f16/bf16/i32/
// the other fp8 format/u8 (bitcast), and encode a sweep of f32 values (and the same values
// through f16 and bf16, and i32 values) to fp8. Expected values come from test/ir/fp8_ref.ts,
// which is written from the format definitions, not from src/ir/fp8.ts.
import { arange, load, programId, ptr, store } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/index.js';
import type { Func } from '../../src/ir/ops.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../../src/ir/half.js';
import { f32Sweep, refDecode, refEncode, type Fp8 } from '../ir/fp8_ref.js';

export const BLOCK = 256;
const other = (d: Fp8): Fp8 => (d === 'f8e4m3' ? 'f8e5m2' : 'f8e4m3');

/** codes[i] -> f32, f16, bf16, i32, the other fp8 format, and u8 (bitcast), for i < 256. */
export function decodeFunc(d: Fp8): Func {
  const k = kernel({
    name: `fp8_decode_${d}`,
    params: { x: ptr(d), f: ptr('f32'), h: ptr('f16'), b: ptr('bf16'), i: ptr('i32'), o: ptr(other(d)), u: ptr('u8') },
  }, ({ x, f, h, b, i, o, u }) => {
    const offs = arange(0, BLOCK);
    const v = load(x.add(offs));
    store(f.add(offs), v.to('f32'));
    store(h.add(offs), v.to('f16'));
    store(b.add(offs), v.to('bf16'));
    store(i.add(offs), v.to('i32'));
    store(o.add(offs), v.to(other(d)));
    store(u.add(offs), v.bitcast('u8'));
  }) as unknown as Kernel;
  return k.trace({});
}

/** x[i] (f32) -> fp8 directly, through f16, through bf16; n[i] (i32) -> fp8; u8 codes bitcast to fp8. */
export function encodeFunc(d: Fp8): Func {
  const k = kernel({
    name: `fp8_encode_${d}`,
    params: { x: ptr('f32'), n: ptr('i32'), c: ptr('u8'), a: ptr(d), h: ptr(d), b: ptr(d), q: ptr(d), r: ptr(d), len: 'i32' },
  }, ({ x, n, c, a, h, b, q, r, len }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const mask = offs.lt(len);
    const v = load(x.add(offs), { mask });
    store(a.add(offs), v.to(d), { mask });
    store(h.add(offs), v.to('f16').to(d), { mask });
    store(b.add(offs), v.to('bf16').to(d), { mask });
    store(q.add(offs), load(n.add(offs), { mask }).to(d), { mask });
    store(r.add(offs), load(c.add(offs), { mask }).bitcast(d), { mask });
  }) as unknown as Kernel;
  return k.trace({});
}

export interface DecodeCase {
  readonly args: [Uint8Array, Float32Array, Uint16Array, Uint16Array, Int32Array, Uint8Array, Uint8Array];
  readonly want: { f: Float32Array; h: Uint16Array; b: Uint16Array; i: Int32Array; o: Uint8Array; u: Uint8Array };
}

/** Float -> int as the IR defines it (truncate, saturate, NaN -> 0). */
const toI32 = (v: number): number => (v !== v ? 0 : v >= 2 ** 31 - 1 ? 2 ** 31 - 1 : v <= -(2 ** 31) ? -(2 ** 31) : Math.trunc(v));
const NAN_CODE: Record<Fp8, number> = { f8e4m3: 0x7f, f8e5m2: 0x7e };
const enc = (d: Fp8, v: number): number => (Number.isNaN(v) ? NAN_CODE[d] : refEncode(d, v));

export function decodeCase(d: Fp8): DecodeCase {
  const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
  const vals = Array.from(codes, (c) => refDecode(d, c));
  return {
    args: [codes, new Float32Array(256), new Uint16Array(256), new Uint16Array(256), new Int32Array(256), new Uint8Array(256), new Uint8Array(256)],
    want: {
      f: Float32Array.from(vals),
      h: Uint16Array.from(vals, (v) => f16Bits(v)),
      b: Uint16Array.from(vals, (v) => bf16Bits(v)),
      i: Int32Array.from(vals, toI32),
      o: Uint8Array.from(vals, (v) => enc(other(d), v)),
      u: codes.slice(),
    },
  };
}

export interface EncodeCase {
  readonly args: [Float32Array, Int32Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, number];
  readonly len: number;
  readonly want: { a: Uint8Array; h: Uint8Array; b: Uint8Array; q: Uint8Array; r: Uint8Array };
}

export function encodeCase(d: Fp8): EncodeCase {
  const xs = Float32Array.from([...f32Sweep(d), NaN, -NaN]);
  const len = xs.length;
  // integers: small ones, around max, and far past it (where f32 itself rounds)
  const ints = Int32Array.from({ length: len }, (_, i) => {
    const k = i % 6;
    return k === 0 ? (i % 1000) - 500 : k === 1 ? 448 + (i % 40) - 20 : k === 2 ? 57344 + (i % 9000) - 4500
      : k === 3 ? (2 ** 24 + i) * (i % 2 ? 1 : -1) : k === 4 ? 2 ** 31 - 1 - i : -(2 ** 31) + i;
  });
  const codes = Uint8Array.from({ length: len }, (_, i) => i & 0xff);
  const z = () => new Uint8Array(len);
  return {
    args: [xs, ints, codes, z(), z(), z(), z(), z(), len],
    len,
    want: {
      a: Uint8Array.from(xs, (x) => enc(d, x)),
      h: Uint8Array.from(xs, (x) => enc(d, f16Value(f16Bits(x)))),
      b: Uint8Array.from(xs, (x) => enc(d, bf16Value(bf16Bits(x)))),
      q: Uint8Array.from(ints, (n) => enc(d, n)),
      r: codes.slice(),
    },
  };
}

export const grid = (len: number): number => Math.ceil(len / BLOCK);
