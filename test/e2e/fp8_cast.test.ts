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
