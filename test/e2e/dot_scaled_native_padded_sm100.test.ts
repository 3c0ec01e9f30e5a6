// dotScaled on kind::mxf8f6f4.block_scale.scale_vec::1X with 6- and 4-bit operands (sm_100a):
// e2m3 / e3m2 (one code a byte in u8 tiles) and e2m1 (u8, packed two a byte, paired with any
// other MX format; or f4e2m1, one code a byte, with any), staged in shared memory in the padded 8-bit containers the ISA's packing format for
// mxf8f6f4 gives (codegen/tensor_cores/tcgen05_padded_operand.ts). Each case is checked bit for
// bit against the JS reference of the MX formats (dot_scaled_cases.ts), the interpreter and the
// emulated sm_100a kernel (blockScaled: false); the PTX must name the native kind and the operand
// type codes of the instruction descriptor (before the padded staging these pairs were emulated).
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { count } from '../codegen/gate.js';
import type { RunArgs } from '../../src/runtime/kernel.js';
import { lcg, runOn, simDevice } from './helpers.js';
import { deviceArgs, makeData, reference, scaledKernel, type Case, type DataOptions } from './dot_scaled_cases.js';
import { compileCase, runPtx } from './dot_scaled_native_run.js';

interface PaddedCase extends Case {
  readonly numWarps?: number;
  readonly data?: DataOptions;
  /** ptxas spills a few bytes: one code a byte in registers (b32 or b16 each); the same kernels staged as plain bytes spill too (checked by hand) */
  readonly spills?: boolean;
  /** the bits above the code of every 6-bit or f4e2m1 byte set at random (dotScaled ignores them) */
  readonly noise?: boolean;
}

const CASES: PaddedCase[] = [
  { fa: 'e2m1', fb: 'e4m3', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64 },
  // ragged M, N and K (the last K step masked), an accumulator, a K loop
  { fa: 'e4m3', fb: 'e2m1', M: 100, N: 50, K: 96, BM: 128, BN: 64, BK: 64, acc: true },
  { fa: 'e2m1', fb: 'e5m2', M: 128, N: 32, K: 256, BM: 128, BN: 32, BK: 128, acc: true },
  { fa: 'e5m2', fb: 'e2m1', M: 90, N: 16, K: 64, BM: 128, BN: 16, BK: 32 },
  // 6-bit pairs: every code of e2m3 / e3m2 (magnitudes 0.5 .. 4, and with scales)
  { fa: 'e2m3', fb: 'e2m3', M: 128, N: 64, K: 128, BM: 128, BN: 64, BK: 64, acc: true },
  { fa: 'e3m2', fb: 'e4m3', M: 111, N: 40, K: 96, BM: 128, BN: 64, BK: 32 },
  { fa: 'e2m3', fb: 'e2m1', M: 128, N: 32, K: 64, BM: 128, BN: 32, BK: 64, acc: true, spills: true },
  { fa: 'e2m1', fb: 'e3m2', M: 128, N: 48, K: 128, BM: 128, BN: 64, BK: 128, spills: true },
  // the high two bits of the 6-bit bytes are not part of the code
  { fa: 'e3m2', fb: 'e2m3', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 32, noise: true },
  { fa: 'e3m2', fb: 'e2m3', M: 128, N: 128, K: 64, BM: 128, BN: 128, BK: 64, numWarps: 8 },
  { fa: 'e5m2', fb: 'e3m2', M: 128, N: 32, K: 192, BM: 128, BN: 32, BK: 128, acc: true },
  // scale extremes
  { fa: 'e2m3', fb: 'e5m2', M: 128, N: 32, K: 128, BM: 128, BN: 32, BK: 128, data: { aScales: [0, 1, 2], bScales: [252, 253, 254], lo: 0.5, hi: 2 } },
  // e2m1 in f4e2m1 tiles (one code a byte, f8e8m0 scales): its nibbles packed into the containers, e2m1 x e2m1 too
  { fa: 'e2m1', fb: 'e4m3', M: 100, N: 64, K: 96, BM: 128, BN: 64, BK: 64, acc: true, mxDtypes: true },
  { fa: 'e2m1', fb: 'e2m1', M: 128, N: 40, K: 128, BM: 128, BN: 64, BK: 64, mxDtypes: true },
  { fa: 'e3m2', fb: 'e2m1', M: 128, N: 32, K: 64, BM: 128, BN: 32, BK: 64, mxDtypes: true, noise: true, spills: true },
  // NaN scales (0xff) make their rows / columns NaN
  { fa: 'e2m1', fb: 'e2m3', M: 128, N: 32, K: 64, BM: 128, BN: 32, BK: 64, data: { aScales: [127, 128, 255], bScales: [126, 127, 255] } },
];

/** The device arrays of a case, the high bits of its 6-bit code bytes set at random when asked. */
function argsOf(c: PaddedCase, d: ReturnType<typeof makeData>, seed: number): RunArgs {
  const args = deviceArgs(c, d);
  if (!c.noise) return args;
  const r = lcg(seed);
  for (const [k, f] of [['a', c.fa], ['b', c.fb]] as const) {
    const shift = f === 'e2m3' || f === 'e3m2' ? 6 : f === 'e2m1' && c.mxDtypes ? 4 : 8;
    if (shift === 8) continue;
    const x = args[k] as Uint8Array;
    for (let i = 0; i < x.length; i++) x[i] = x[i]! | (Math.floor(r() * (1 << (8 - shift))) << shift);
  }
  return args;
}

/** The f8f6f4 type codes of the instruction descriptor (bits 7-9 A, 10-12 B). */
const CODE: Record<string, number> = { e4m3: 0, e5m2: 1, e2m3: 3, e3m2: 4, e2m1: 5 };

describe('dotScaled on kind::mxf8f6f4 with padded 6- and 4-bit operands (sm_100a)', () => {
  for (const [i, c] of CASES.entries()) {
    const nw = c.numWarps ?? 4;
    it(`${c.fa} x ${c.fb} ${c.M}x${c.N}x${c.K} (tile ${c.BM}x${c.BN}x${c.BK}${c.acc ? ', acc' : ''}, ${nw} warps): native, bit for bit`, async () => {
      expect(simDevice().target).toBe('sm_100a');
      const d = makeData(c, 170 + i, c.data);
      const ref = reference(c, d);
      if (!c.data?.aScales?.includes(255)) expect(ref.exact).toBe(true);
      const r = compileCase(c, `dsp_${i}`, nw);
      expect(r.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(/: native, tcgen05 block-scaled kind/);
      if (!c.spills) expect(r.metadata.spills).toBe(0);
      expect(count(r.ptx, /tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale\.scale_vec::1X /)).toBe(c.BK / 32);
      // the descriptor names both operand types
      const idesc = [...r.ptx.matchAll(/mov\.b32 %r\d+, 0x([0-9a-f]+);/g)].map((m) => parseInt(m[1]!, 16)).filter((v) => (v >> 23) & 1 && ((v >> 27) & 3) === 1);
      expect(idesc.length).toBeGreaterThan(0);
      for (const v of idesc) expect([(v >> 7) & 7, (v >> 10) & 7]).toEqual([CODE[c.fa], CODE[c.fb]]);
      expect(r.ptx).not.toMatch(/kind::mxf4|kind::tf32|kind::f16|mma\.sync/);
      const got = await runPtx(r, argsOf(c, d, i), nw);
      expect(Array.from(got), 'sim, native').toEqual(Array.from(ref.c));
      const emu = compileCase(c, `dsp_${i}`, nw, false);
      expect(emu.ptx).not.toMatch(/block_scale/);
      expect(Array.from(await runPtx(emu, argsOf(c, d, i), nw)), 'sim, emulated').toEqual(Array.from(ref.c));
      const args = argsOf(c, d, i);
      await runOn('interpret', scaledKernel(c, `dsp_${i}`), args, 1, { numWarps: nw });
      expect(Array.from(args['c'] as Float32Array), 'interpreter').toEqual(Array.from(ref.c));
    });
  }
});
