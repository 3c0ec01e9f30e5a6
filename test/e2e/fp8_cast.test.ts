// fp8 casts end to end on the sm_80 path (emulated with integer and exact f32 ops): the PTX for
// sm_80 runs on the sim and must equal the interpreter and the reference of test/ir/fp8_ref.ts
// bit for bit (fp8 results, NaN codes included; float results up to which NaN), over all 256 codes
// of each format and a sweep of f32 values. The sm_89+ PTX (hardware cvt) is assembled by ptxas
// here; it runs in fp8_cvt_sm89.test.ts.
import { describe, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { expectBitwise, expectSame, runOn, runSimCompiled } from './helpers.js';
import { gateTargets } from '../codegen/gate.js';
import { decodeCase, decodeFunc, encodeCase, encodeFunc, grid } from './fp8_cases.js';

const copy = (args: readonly LaunchArg[]): LaunchArg[] => args.map((a) => (ArrayBuffer.isView(a) ? (a as unknown as { slice(): LaunchArg }).slice() : a));
type View = ArrayBufferView;

describe.each(['f8e4m3', 'f8e5m2'] as const)('%s casts on sm_80 (emulated)', (d) => {
  const o = d === 'f8e4m3' ? 'f8e5m2' : 'f8e4m3';

  it('decodes all 256 codes to f32, f16, bf16, i32, the other fp8 format and u8', async () => {
    const f = decodeFunc(d);
    const c = decodeCase(d);
    const interp = copy(c.args);
    await runOn('interpret', f, interp, 1);
    const sim = runSimCompiled(f, c.args, 1, { target: 'sm_80' });
    gateTargets(f, ['sm_80', 'sm_89', 'sm_90', 'sm_90a']);
    const outs: [number, DType, View][] = [[1, 'f32', c.want.f], [2, 'f16', c.want.h], [3, 'bf16', c.want.b], [4, 'i32', c.want.i], [5, o, c.want.o], [6, 'u8', c.want.u]];
    for (const [i, t, want] of outs) {
      expectSame(t, sim[i] as View, interp[i] as View, `${d} -> ${t}: sim vs interpreter`);
      expectSame(t, sim[i] as View, want, `${d} -> ${t}: sim vs reference`);
      if (t === o) {
        expectBitwise(sim[i] as View, interp[i] as View, `${d} -> ${t}: sim vs interpreter, NaN codes too`);
        expectBitwise(sim[i] as View, want, `${d} -> ${t}: sim vs reference, NaN codes too`);
      }
    }
  });

  it('encodes a sweep of f32 values (directly, through f16 and bf16), i32 values and u8 bitcasts', async () => {
    const f = encodeFunc(d);
    const c = encodeCase(d);
    const interp = copy(c.args);
    await runOn('interpret', f, interp, grid(c.len));
    const sim = runSimCompiled(f, c.args, grid(c.len), { target: 'sm_80' });
    gateTargets(f, ['sm_80', 'sm_89', 'sm_90', 'sm_90a']);
    const outs: [number, string, View][] = [[3, 'f32', c.want.a], [4, 'f16', c.want.h], [5, 'bf16', c.want.b], [6, 'i32', c.want.q], [7, 'u8 bitcast', c.want.r]];
    for (const [i, from, want] of outs) {
      expectBitwise(sim[i] as View, interp[i] as View, `${from} -> ${d}: sim vs interpreter`);
      expectBitwise(sim[i] as View, want, `${from} -> ${d}: sim vs reference`);
    }
  });
});

describe('fp8 data movement on the sim', () => {
  it('vectorized copies, masked loads with an `other`, transposes and a literal store move the bytes unchanged', async () => {
    const { arange, load, programId, ptr, store, full } = await import('../../src/lang/index.js');
    const { kernel } = await import('../../src/runtime/index.js');
    const B = 1024, T = 32;
    const k = kernel({ name: 'fp8_move', params: { x: ptr('f8e4m3'), y: ptr('f8e4m3'), t: ptr('f8e5m2'), s: ptr('f8e5m2'), c: ptr('f8e4m3'), n: 'i32' } }, ({ x, y, t, s, c, n }) => {
      const offs = programId(0).mul(B).add(arange(0, B));
      const mask = offs.lt(n);
      store(y.add(offs), load(x.add(offs), { mask, other: 1.5 }));
      const r = arange(0, T);
      const idx = r.reshape([T, 1]).mul(T).add(r.reshape([1, T]));
      const idxT = r.reshape([1, T]).mul(T).add(r.reshape([T, 1]));
      store(s.add(idxT), load(t.add(idx)));
      store(c.add(r), full([T], -3.25, 'f8e4m3'));
    });
    const f = (k as unknown as { trace(c: object): import('../../src/ir/ops.js').Func }).trace({});
    const n = 1008; // divisible by 16: the masked load vectorizes too
    const x = Uint8Array.from({ length: B }, (_, i) => (i * 37 + 11) & 0xff);
    const t = Uint8Array.from({ length: T * T }, (_, i) => (i * 101 + 7) & 0xff);
    const args: LaunchArg[] = [x, new Uint8Array(B), t, new Uint8Array(T * T), new Uint8Array(T), n];
    const interp = copy(args);
    await runOn('interpret', f, interp, 1);
    const a16 = { divisibleBy16: true };
    const specialization = { x: a16, y: a16, t: a16, s: a16, c: a16, n: a16 };
    const sim = runSimCompiled(f, args, 1, { target: 'sm_80', specialization });
    const ptx = gateTargets(f, ['sm_80', 'sm_89', 'sm_90', 'sm_90a'], { specialization })['sm_80']!.ptx;
    const wantY = Uint8Array.from({ length: B }, (_, i) => (i < n ? x[i]! : 0x3c)); // 1.5 in e4m3 = 0x3c
    const wantS = Uint8Array.from({ length: T * T }, (_, i) => t[(i % T) * T + Math.floor(i / T)]!);
    const wantC = new Uint8Array(T).fill(0xc5); // -3.25 rounds to -3.25 = 1.101b x 2^1: S=1, E=8, M=5
    for (const [i, want, what] of [[1, wantY, 'copy'], [3, wantS, 'transpose'], [4, wantC, 'literal']] as const) {
      expectBitwise(sim[i] as View, interp[i] as View, `${what}: sim vs interpreter`);
      expectBitwise(sim[i] as View, want, `${what}: sim vs reference`);
    }
    // the copy is vectorized: four fp8 values to a b32 word
    if (!/ld\.global(\.v\d)?\.b32/.test(ptx)) throw new Error(`expected packed fp8 loads in:\n${ptx}`);
  });
});

describe('fp8 through kernel().run on the sim device', () => {
  it('HostArray<f8e4m3> in, HostArray<f8e5m2> and f32 out, as the interpreter', async () => {
    const { arange, load, ptr, store } = await import('../../src/lang/index.js');
    const { array, kernel } = await import('../../src/runtime/index.js');
    const { runBoth } = await import('./helpers.js');
    const { refDecode, refEncode } = await import('../ir/fp8_ref.js');
    const k = kernel({ name: 'fp8_run', params: { x: ptr('f8e4m3'), y: ptr('f8e5m2'), z: ptr('f32') } }, ({ x, y, z }) => {
      const o = arange(0, 256);
      const v = load(x.add(o));
      store(y.add(o), v.to('f8e5m2'));
      store(z.add(o), v.to('f32').mul(2));
    });
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const args = { x: array(codes, 'f8e4m3'), y: array(new Uint8Array(256), 'f8e5m2'), z: array(new Float32Array(256), 'f32') };
    const r = await runBoth(k as never, args, 1);
    const vals = Array.from(codes, (c) => refDecode('f8e4m3', c));
    const wantY = Uint8Array.from(vals, (v) => (Number.isNaN(v) ? 0x7e : refEncode('f8e5m2', v)));
    const wantZ = Float32Array.from(vals, (v) => 2 * v);
    for (const dev of ['interpret', 'sim'] as const) {
      expectBitwise(r[dev].y.data, wantY, `${dev}: e4m3 -> e5m2`);
      expectSame('f32', r[dev].z.data, wantZ, `${dev}: 2 * f32(e4m3)`);
    }
  });
});
