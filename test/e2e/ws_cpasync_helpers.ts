// Helpers of the cp.async-producer tests (warp_specialize_cpasync.test.ts,
// persistent_ws_cpasync.test.ts): small-integer inputs, a JS reference, the PTX the sim runs,
// and the producer's registers as ptxas honoured them (SASS by cuobjdump).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompileResult } from '../../src/compile/compile.js';
import { matmulF64 } from './helpers.js';

/** Small integers (exact in f16, every product and sum exact in f32): bit-exact references. */
export function smallInts(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    out[i] = ((s >>> 16) % 7) - 3;
  }
  return out;
}
/** C = A B rounded to f32 (exact for smallInts()). */
export const matmulRef = (a: Float32Array, b: Float32Array, M: number, N: number, K: number): Float32Array => Float32Array.from(matmulF64(a, b, M, N, K));
/**
 * The cubin's SASS by cuobjdump (the CUDA image has ptxas only: Triton's wheel in .venv ships
 * one, as bench/tc_vs_triton.ts finds it): the registers the producer partition (after its
 * USETMAXREG.DEALLOC) uses, and the counts of both setmaxnreg, as ptxas honoured them.
 */
export function producerRegisters(cubin: Uint8Array): { dealloc: number; alloc: number; maxReg: number } {
  const lib = join(process.cwd(), '.venv', 'lib');
  const tool = existsSync(lib) ? readdirSync(lib).map((py) => join(lib, py, 'site-packages', 'triton', 'backends', 'nvidia', 'bin', 'cuobjdump')).find(existsSync) : undefined;
  if (!tool) throw new Error('no cuobjdump (Triton\'s wheel in .venv) to read the SASS with');
  const file = join(mkdtempSync(join(tmpdir(), 'wscp-')), 'k.cubin');
  writeFileSync(file, cubin);
  const sass = spawnSync(tool, ['-sass', file], { encoding: 'utf8', maxBuffer: 1 << 26 }).stdout.split('\n');
  const at = sass.findIndex((l) => l.includes('USETMAXREG.DEALLOC'));
  const num = (re: RegExp): number => Number(re.exec(sass.join('\n'))?.[1] ?? NaN);
  let maxReg = 0;
  for (const l of sass.slice(at)) for (const m of (l.split(';')[0] ?? '').matchAll(/\bR(\d+)\b/g)) maxReg = Math.max(maxReg, Number(m[1]));
  return { dealloc: num(/USETMAXREG\.DEALLOC\.CTAPOOL (0x[0-9a-f]+)/), alloc: num(/USETMAXREG\.TRY_ALLOC\.CTAPOOL UP\d+, (0x[0-9a-f]+)/), maxReg };
}
export { simPtx } from './helpers.js';
export const pipelineText = (r: CompileResult): string => r.stages.find((s) => s.name === 'pipeline')!.text;
