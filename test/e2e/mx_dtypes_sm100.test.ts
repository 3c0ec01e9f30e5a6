// The MX dtypes on sm_100a, where f4e2m1 casts use the hardware conversions
// (`cvt.rn.satfinite.e2m1x2.f32` to encode, `cvt.rn.f16x2.e2m1x2` to decode; f8e8m0 keeps the
// integer code of every target): the sm_100a PTX on the sim as a B200 must give the reference of
// src/ir/mx.ts bit for bit, as the integer code does on the other targets (mx_dtypes.test.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { f4e2m1Bits, f4e2m1Value, f8e8m0Bits, f8e8m0Value } from '../../src/ir/mx.js';
import { f8e4m3Bits, f8e4m3Value } from '../../src/ir/fp8.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../../src/ir/half.js';
import { expectBitwise, runSimCompiled } from './helpers.js';
import { B, decodeK, encodeK, sweep } from './mx_cases.js';

describe.each(['f8e8m0', 'f4e2m1'] as const)('%s on sm_100a', (d) => {
  const value = d === 'f8e8m0' ? f8e8m0Value : f4e2m1Value;
  const bits = d === 'f8e8m0' ? f8e8m0Bits : f4e2m1Bits;

  it('uses the hardware e2m1 conversions for f4e2m1 only', () => {
    const dec = compile(decodeK(d), { target: 'sm_100a' }).ptx, enc = compile(encodeK(d), { target: 'sm_100a' }).ptx;
    expect(dec.includes('cvt.rn.f16x2.e2m1x2'), 'decode').toBe(d === 'f4e2m1');
    expect(enc.includes('cvt.rn.satfinite.e2m1x2.f32'), 'encode').toBe(d === 'f4e2m1');
    expect(compile(encodeK(d), { target: 'sm_90a' }).ptx.includes('e2m1x2')).toBe(false);
  });

  it('decodes every code: sim (sm_100a PTX) = reference', () => {
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const args: LaunchArg[] = [codes, new Float32Array(256), new Uint16Array(256), new Uint16Array(256), new Uint8Array(256)];
    const sim = runSimCompiled(decodeK(d), args, 1, { target: 'sm_100a' });
    const vals = Array.from(codes, (c) => value(c));
    const canon = (a: Float32Array): Float32Array => a.map((x) => (Number.isNaN(x) ? NaN : x));
    expect(Array.from(canon(sim[1] as Float32Array)).map(String)).toEqual(vals.map((v) => String(Math.fround(v))));
    for (let c = 0; c < 256; c++) {
      const h = f16Bits(vals[c]!), b = bf16Bits(vals[c]!);
      if (Number.isNaN(vals[c]!)) {
        expect(Number.isNaN(f16Value((sim[2] as Uint16Array)[c]!)), `f16 code ${c}`).toBe(true);
        expect(Number.isNaN(bf16Value((sim[3] as Uint16Array)[c]!)), `bf16 code ${c}`).toBe(true);
      } else {
        expect((sim[2] as Uint16Array)[c], `f16 code ${c}`).toBe(h);
        expect((sim[3] as Uint16Array)[c], `bf16 code ${c}`).toBe(b);
      }
    }
    expect(Array.from(sim[4] as Uint8Array)).toEqual(vals.map((v) => f8e4m3Bits(v)));
  });

  it('encodes f32, f16, bf16 and f8e4m3 values: sim (sm_100a PTX) = reference, bit for bit', () => {
    const x = sweep();
    const n = x.length;
    const xh = Uint16Array.from(x, (v) => f16Bits(v)), xb = Uint16Array.from(x, (v) => bf16Bits(v)), xe = Uint8Array.from(x, (v) => f8e4m3Bits(v));
    const args: LaunchArg[] = [x, xh, xb, xe, new Uint8Array(n), new Uint8Array(n), new Uint8Array(n), new Uint8Array(n), n];
    const sim = runSimCompiled(encodeK(d), args, Math.ceil(n / B), { target: 'sm_100a' });
    const wants = [
      Uint8Array.from(x, (v) => bits(v)),
      Uint8Array.from(xh, (h) => bits(f16Value(h))),
      Uint8Array.from(xb, (h) => bits(bf16Value(h))),
      Uint8Array.from(xe, (e) => bits(f8e4m3Value(e))),
    ];
    wants.forEach((want, k) => expectBitwise(sim[4 + k] as Uint8Array, want, `${['f32', 'f16', 'bf16', 'f8e4m3'][k]} -> ${d}: sim vs reference`));
  });
});
