// The MX dtype kernels and inputs shared by mx_dtypes.test.ts (sm_80 PTX on the sim as sm_90) and
// mx_dtypes_sm100.test.ts (sm_100a PTX, whose f4e2m1 casts are the hardware cvt forms).
import { arange, load, programId, ptr, store, type Tile } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import type { Func } from '../../src/ir/ops.js';
import type { LaunchArg } from '../../src/runtime/device.js';

export const B = 512;
export const copy = (args: readonly LaunchArg[]): LaunchArg[] => args.map((a) => (ArrayBuffer.isView(a) ? (a as unknown as { slice(): LaunchArg }).slice() : a));

export const decodeK = (d: 'f8e8m0' | 'f4e2m1'): Func =>
  kernel({ name: `mx_decode_${d}`, params: { c: ptr(d), f: ptr('f32'), h: ptr('f16'), b: ptr('bf16'), e: ptr('f8e4m3') } }, ({ c, f, h, b, e }) => {
    const i = arange(0, 256);
    const x: Tile = load(c.add(i));
    store(f.add(i), x.to('f32'));
    store(h.add(i), x.to('f16'));
    store(b.add(i), x.to('bf16'));
    store(e.add(i), x.to('f8e4m3'));
  }).trace({});

export const encodeK = (d: 'f8e8m0' | 'f4e2m1'): Func =>
  kernel({ name: `mx_encode_${d}`, params: { x: ptr('f32'), xh: ptr('f16'), xb: ptr('bf16'), xe: ptr('f8e4m3'), o: ptr(d), oh: ptr(d), ob: ptr(d), oe: ptr(d), n: 'i32' } }, ({ x, xh, xb, xe, o, oh, ob, oe, n }) => {
    const i = programId(0).mul(B).add(arange(0, B));
    const m = i.lt(n);
    store(o.add(i), load(x.add(i), { mask: m }).to(d), { mask: m });
    store(oh.add(i), load(xh.add(i), { mask: m }).to(d), { mask: m });
    store(ob.add(i), load(xb.add(i), { mask: m }).to(d), { mask: m });
    store(oe.add(i), load(xe.add(i), { mask: m }).to(d), { mask: m });
  }).trace({});

/** f32 inputs: every boundary of both formats, their neighbours, and a sweep. */
export function sweep(): Float32Array {
  const v: number[] = [0, -0, Infinity, -Infinity, NaN, 1e-45, -1e-45, 2 ** -127, 2 ** -126, 2 ** -149, 2 ** 127, 3 * 2 ** 126, 3.4e38, -1, -0.5];
  for (const m of [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 100]) {
    const f = Math.fround(m);
    const up = new Float32Array([f]), bits = new Uint32Array(up.buffer);
    bits[0]! += 1;
    const above = up[0]!;
    bits[0]! -= 2;
    v.push(f, -f, above, -above, up[0]!, -up[0]!);
  }
  for (let k = 0; k < 600; k++) v.push(Math.fround((k % 2 ? -1 : 1) * 2 ** ((k % 300) / 10 - 15) * (1 + ((k * 37) % 100) / 100)));
  return Float32Array.from(v);
}
