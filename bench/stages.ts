// numStages for Tessera's compile(): software pipelining (and its `numStages` compile option) is
// being added on another branch. Until it is merged compile() has no such field and ignores
// unknown ones, so the benches detect support — numStages 3 must change the PTX of the aligned
// f16 matmul — and pass the option only where it is supported (and say so in their output).
import { compile, type CompileOptions } from '../src/compile/compile.js';
import { matmulAligned } from './kernels.js';

let supported: boolean | undefined;

/** True when this build's compile() honours `numStages` (checked once per process). */
export function tesseraPipelines(): boolean {
  if (supported === undefined) {
    const f = matmulAligned.f16.trace({ BM: 64, BN: 64, BK: 32 });
    const base: CompileOptions = { target: 'sm_80', numWarps: 4, ptxas: false, specialization: { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } } };
    supported = compile(f, { ...base, numStages: 1 } as CompileOptions).ptx !== compile(f, { ...base, numStages: 3 } as CompileOptions).ptx;
  }
  return supported;
}

/** `o` with numStages added when this build supports it (else `o` unchanged). */
export function withStages(o: CompileOptions, numStages: number | undefined): CompileOptions {
  return numStages !== undefined && tesseraPipelines() ? ({ ...o, numStages } as CompileOptions) : o;
}
