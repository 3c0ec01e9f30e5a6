// Sabotage of the two scale-column sets of a dotScaled whose MMAs stay in flight on the cp.async
// ring (dot_scaled_ring_inflight_sm100.test.ts): with the PTX edited to copy every iteration's
// scales into ONE set of TMEM columns, the tcgen05.cp of iteration i+1 writes the columns the MMAs
// of iteration i, still in flight, read (a later tcgen05.cp is not ordered after an earlier MMA).
// Racecheck must report it; the kernel as compiled is clean under it. Its own file: a hazard fails
// the launch (E_HAZARD), and the sanitized suite leaves this sabotage out.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { NativeDevice } from '../../src/runtime/native/native-device.js';
import { makeData, reference, type Case } from './dot_scaled_cases.js';
import { ringArgs, ringKernel } from './dot_scaled_ring_cases.js';

const SPEC = Object.fromEntries(['a', 'b', 'as', 'bs', 'c'].map((n) => [n, { divisibleBy16: true }]));
const PARAMS = ['a', 'b', 'as', 'bs', 'c'] as const;

/** The set's column offset (set * columns a set + the allocation's address) made the allocation's address alone. */
const SET_LINE = /mad\.lo\.u32 (%r\d+), %r\d+, \d+, (%r\d+); \/\/ this iteration's scale-column set/g;
export const oneSet = (ptx: string): string => ptx.replace(SET_LINE, 'mov.u32 $1, $2; // sabotage: one scale-column set');

/** Runs `ptx` (r's kernel) on one CTA on a sim device of its own under racecheck; c, or the launch's error thrown. */
function launchChecked(r: CompileResult, ptx: string, args: Record<string, unknown>, numWarps: number): Float32Array {
  const dev = NativeDevice.open('sim');
  dev.driver.simSetSanitize(1); // racecheck
  try {
    const bufs = PARAMS.map((p) => {
      const h = args[p] as Uint8Array | Float32Array;
      const b = dev.alloc(Math.max(1, h.byteLength));
      dev.upload(b, h);
      return b;
    });
    const { cubin: _text_runs, ...meta } = r;
    expect(meta.metadata.numWarps).toBe(numWarps);
    dev.launch({ ...meta, ptx }, bufs, [1, 1, 1]);
    dev.synchronize();
    return dev.download(bufs[4]!, new Float32Array((args['c'] as Float32Array).length));
  } finally {
    dev.driver.simSetSanitize(0);
    dev.close();
  }
}

describe('racecheck names a tcgen05.cp that writes scale columns an in-flight block-scaled MMA reads', () => {
  for (const [c, S] of [
    [{ fa: 'e4m3', fb: 'e4m3', M: 128, N: 128, K: 384, BM: 128, BN: 128, BK: 128 }, 3],
    [{ fa: 'e2m1', fb: 'e2m1', M: 128, N: 64, K: 512, BM: 128, BN: 64, BK: 128, nvfp4: true }, 4],
  ] as [Case, number][]) {
    it(`${c.fa} x ${c.fb}${c.nvfp4 ? ' (nvfp4)' : ''}, ${S} stages: clean as compiled, a racecheck report with one scale-column set`, () => {
      const d = makeData(c, 31);
      const ref = reference(c, d);
      const r = compile(ringKernel(c, `dsf_sab_${c.fa}`).trace({}), { target: 'sm_100a', numWarps: 4, numStages: S, ptxas: true, specialization: SPEC });
      expect(r.ptx.match(SET_LINE)).toHaveLength(1);
      expect(Array.from(launchChecked(r, r.ptx, ringArgs(c, d), 4))).toEqual(Array.from(ref.c));
      const bad = oneSet(r.ptx);
      expect(bad).not.toBe(r.ptx);
      expect(() => launchChecked(r, bad, ringArgs(c, d), 4)).toThrow(/racecheck hazard in kernel 'dsf_sab_[a-z0-9]+': write-after-read hazard on tensor memory [^\n]*: tcgen05\.cp [^\n]*writes a cell that tcgen05\.mma [^\n]*reads \(its scale factors\)/);
    });
  }
});
