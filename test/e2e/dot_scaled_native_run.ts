// Helpers of the block-scaled dotScaled tests (dot_scaled_native_sm100.test.ts and its sabotage):
// a case's kernel compiled for sm_100a (native or emulated) and its PTX run on the sim.
import { compile, type CompileResult } from '../../src/compile/compile.js';
import type { RunArgs } from '../../src/runtime/kernel.js';
import { DeviceArray } from '../../src/runtime/index.js';
import { simDevice } from './helpers.js';
import { scaledKernel, type Case } from './dot_scaled_cases.js';

const PARAMS = ['a', 'b', 'as', 'bs', 'c'] as const;

/** Runs PTX of a case's kernel on the sim through loadModule; the output c. */
export async function runPtx(r: CompileResult, args: RunArgs, numWarps: number): Promise<Float32Array> {
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

export const compileCase = (c: Case, name: string, numWarps: number, blockScaled = true): CompileResult =>
  compile(scaledKernel(c, name).trace({}), { target: 'sm_100a', numWarps, ptxas: true, blockScaled });
