// fp8 casts on the sm_89+ path (hardware `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` and
// `cvt.rn.f16x2.{e4m3x2,e5m2x2}`): the PTX for sm_89 and sm_90 runs on the sim pretending to be an
// sm_90 (TESSERA_SIM_ARCH=sm_90, read at cuInit, so it is set before this file opens the sim) and
// must equal the interpreter and the reference of test/ir/fp8_ref.ts — bit for bit except which
// NaN a NaN becomes (docs/semantics.md leaves the NaN's sign and payload open).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import type { Target } from '../../src/compile/compile.js';
import { expectSame, runOn, runSimCompiled, simDevice } from './helpers.js';
import { decodeCase, decodeFunc, encodeCase, encodeFunc, grid } from './fp8_cases.js';

const copy = (args: readonly LaunchArg[]): LaunchArg[] => args.map((a) => (ArrayBuffer.isView(a) ? (a as unknown as { slice(): LaunchArg }).slice() : a));
type View = ArrayBufferView;

describe.each(['sm_89', 'sm_90'] as Target[])('fp8 casts with hardware cvt (%s) on the sim as sm_90', (target) => {
  it('the sim pretends to be an sm_90 (compute 9.0: the runtime compiles for sm_90a)', () => {
    expect(simDevice().target).toBe('sm_90a');
  });

  describe.each(['f8e4m3', 'f8e5m2'] as const)('%s', (d) => {
    const o = d === 'f8e4m3' ? 'f8e5m2' : 'f8e4m3';

    it('decodes all 256 codes to f32, f16, bf16, i32, the other fp8 format and u8', async () => {
      const f = decodeFunc(d);
      const c = decodeCase(d);
      const sim = runSimCompiled(f, c.args, 1, { target });
      const interp = copy(c.args);
      await runOn('interpret', f, interp, 1);
      const outs: [number, DType, View][] = [[1, 'f32', c.want.f], [2, 'f16', c.want.h], [3, 'bf16', c.want.b], [4, 'i32', c.want.i], [5, o, c.want.o], [6, 'u8', c.want.u]];
      for (const [i, t, want] of outs) {
        expectSame(t, sim[i] as View, interp[i] as View, `${d} -> ${t}: sim vs interpreter`);
        expectSame(t, sim[i] as View, want, `${d} -> ${t}: sim vs reference`);
      }
    });

    it('encodes a sweep of f32 values (directly, through f16 and bf16), i32 values and u8 bitcasts', async () => {
      const f = encodeFunc(d);
      const c = encodeCase(d);
      const sim = runSimCompiled(f, c.args, grid(c.len), { target });
      const interp = copy(c.args);
      await runOn('interpret', f, interp, grid(c.len));
      const outs: [number, string, View][] = [[3, 'f32', c.want.a], [4, 'f16', c.want.h], [5, 'bf16', c.want.b], [6, 'i32', c.want.q], [7, 'u8 bitcast', c.want.r]];
      for (const [i, from, want] of outs) {
        expectSame(d, sim[i] as View, interp[i] as View, `${from} -> ${d}: sim vs interpreter`);
        expectSame(d, sim[i] as View, want, `${from} -> ${d}: sim vs reference`);
      }
    });
  });
});
