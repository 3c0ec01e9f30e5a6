// The MX storage dtypes f8e8m0 and f4e2m1 end to end: every code decoded to f32, f16 and bf16, and
// a sweep of f32 values (ties, midpoints, subnormals, ±0, ±inf, NaN, past the range) encoded,
// directly and from f16/bf16, plus a cast to f8e4m3 and back. The interpreter must equal the JS
// reference of src/ir/mx.ts (written from the OCP MX v1.0 definitions and the PTX cvt rules; checked
// by hand at the boundaries below), and the sm_80 PTX on the sim must equal the interpreter bit for
// bit; the PTX of every target is assembled by ptxas (the conversions are integer code, the same on
// every target).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { arange, load, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { array } from '../../src/runtime/array.js';
import type { Func } from '../../src/ir/ops.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { f4e2m1Bits, f4e2m1Value, f8e8m0Bits, f8e8m0Value } from '../../src/ir/mx.js';
import { f8e4m3Bits, f8e4m3Value } from '../../src/ir/fp8.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../../src/ir/half.js';
import { expectBitwise, runOn, runSimCompiled } from './helpers.js';
import { gateTargets } from '../codegen/gate.js';
import { B, copy, decodeK, encodeK, sweep } from './mx_cases.js';

describe.each(['f8e8m0', 'f4e2m1'] as const)('%s', (d) => {
  const value = d === 'f8e8m0' ? f8e8m0Value : f4e2m1Value;
  const bits = d === 'f8e8m0' ? f8e8m0Bits : f4e2m1Bits;

  it('the reference at the boundaries (OCP MX: e8m0 2^floor(log2 x); e2m1 nearest even, saturating)', () => {
    if (d === 'f8e8m0') {
      expect([1, 1.5, 1.99, 2, 0.75, 2 ** -127, 2 ** -140, 2 ** 127, 3.4e38].map(bits)).toEqual([127, 127, 127, 128, 126, 0, 0, 254, 254]);
      expect([0, -0, -1, NaN].map(bits)).toEqual([0xff, 0xff, 0xff, 0xff]);
      expect(bits(Infinity)).toBe(0xfe);
      expect([0, 127, 254].map(value)).toEqual([2 ** -127, 1, 2 ** 127]);
      expect(value(0xff)).toBeNaN();
    } else {
      expect([0.25, 0.26, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 5.01, 100, Infinity].map(bits)).toEqual([0, 1, 2, 2, 4, 4, 6, 6, 7, 7, 7]);
      expect([-0, -0.1, -6, -Infinity].map(bits)).toEqual([8, 8, 15, 15]);
      expect(bits(NaN)).toBe(7);
      expect(Array.from({ length: 16 }, (_, c) => value(c))).toEqual([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0, -0.5, -1, -1.5, -2, -3, -4, -6]);
      expect(value(0xf3)).toBe(1.5); // the high nibble is not part of the code
    }
  });

  it('decodes every code to f32, f16, bf16 and f8e4m3: sim (sm_80 PTX) = interpreter = reference', async () => {
    const f = decodeK(d);
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const args: LaunchArg[] = [codes, new Float32Array(256), new Uint16Array(256), new Uint16Array(256), new Uint8Array(256)];
    const interp = copy(args);
    await runOn('interpret', f, interp, 1);
    const sim = runSimCompiled(f, args, 1, { target: 'sm_80' });
    gateTargets(f, ['sm_80', 'sm_89', 'sm_90', 'sm_90a', 'sm_100a']);
    const vals = Array.from(codes, (c) => value(c));
    const canon = (a: Float32Array): Float32Array => a.map((x) => (Number.isNaN(x) ? NaN : x)); // NaN payloads differ (0x7fffffff vs JS's)
    expect(Array.from(canon(sim[1] as Float32Array)).map(String)).toEqual(vals.map((v) => String(Math.fround(v))));
    expect(Array.from(canon(interp[1] as Float32Array)).map(String)).toEqual(vals.map((v) => String(Math.fround(v))));
    const same16 = (got: Uint16Array, enc: (x: number) => number, dec: (b: number) => number, what: string): void => {
      for (let c = 0; c < 256; c++) {
        const w = enc(vals[c]!);
        if (Number.isNaN(dec(w))) expect(Number.isNaN(dec(got[c]!)), `${what} code ${c}`).toBe(true);
        else expect(got[c], `${what} code ${c}`).toBe(w);
      }
    };
    for (const [out, what] of [[sim, 'sim'], [interp, 'interpreter']] as const) {
      same16(out[2] as Uint16Array, f16Bits, f16Value, `${what} -> f16`);
      same16(out[3] as Uint16Array, bf16Bits, bf16Value, `${what} -> bf16`);
      expect(Array.from(out[4] as Uint8Array), `${what} -> f8e4m3`).toEqual(vals.map((v) => f8e4m3Bits(v)));
    }
  });

  it('encodes f32, f16, bf16 and f8e4m3 values: sim (sm_80 PTX) = interpreter = reference, bit for bit', async () => {
    const f = encodeK(d);
    const x = sweep();
    const n = x.length;
    const xh = Uint16Array.from(x, (v) => f16Bits(v)), xb = Uint16Array.from(x, (v) => bf16Bits(v)), xe = Uint8Array.from(x, (v) => f8e4m3Bits(v));
    const args: LaunchArg[] = [x, xh, xb, xe, new Uint8Array(n), new Uint8Array(n), new Uint8Array(n), new Uint8Array(n), n];
    const g = Math.ceil(n / B);
    const interp = copy(args);
    await runOn('interpret', f, interp, g);
    const sim = runSimCompiled(f, args, g, { target: 'sm_80' });
    gateTargets(f, ['sm_80', 'sm_90a', 'sm_100a']);
    const wants = [
      Uint8Array.from(x, (v) => bits(v)),
      Uint8Array.from(xh, (h) => bits(f16Value(h))),
      Uint8Array.from(xb, (h) => bits(bf16Value(h))),
      Uint8Array.from(xe, (e) => bits(f8e4m3Value(e))),
    ];
    wants.forEach((want, k) => {
      expectBitwise(interp[4 + k] as Uint8Array, want, `${['f32', 'f16', 'bf16', 'f8e4m3'][k]} -> ${d}: interpreter vs reference`);
      expectBitwise(sim[4 + k] as Uint8Array, want, `${['f32', 'f16', 'bf16', 'f8e4m3'][k]} -> ${d}: sim vs reference`);
    });
  });
});

describe('the MX dtypes are storage types', () => {
  it('host arrays round values as the casts do and decode them back', () => {
    expect(array([0.3, 0.75, -7, NaN], 'f4e2m1').toArray()).toEqual([0.5, 1, -6, 6]);
    expect(Array.from(array([0.3, 0.75, -7, NaN], 'f4e2m1').data)).toEqual([1, 2, 15, 7]);
    const e = array([1, 3, 2 ** -130, Infinity, 0], 'f8e8m0');
    expect(Array.from(e.data)).toEqual([127, 128, 0, 254, 255]);
    expect(e.toArray().slice(0, 4)).toEqual([1, 2, 2 ** -127, 2 ** 127]);
  });

  it('arithmetic, dot and scalar parameters fail by name before anything runs', () => {
    const add = kernel({ name: 'mx_add', params: { c: ptr('f4e2m1') } }, ({ c }) => {
      const x = load(c.add(arange(0, 16)));
      store(c.add(arange(0, 16)), x.add(x));
    });
    expect(() => add.trace({})).toThrow(/does not take f4e2m1 operands: f4e2m1 is a storage type without arithmetic/);
    expect(() => kernel({ name: 'mx_scalar', params: { s: 'f8e8m0' } }, () => undefined).trace({})).toThrow(/f8e8m0 scalar parameters are not supported \(f8e8m0 is a storage type\)/);
  });
});
