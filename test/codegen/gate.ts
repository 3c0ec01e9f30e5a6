// The ptxas gate: every kernel a test compiles is assembled for sm_80 AND sm_90. A missing
// ptxas fails the test (it never skips).
import { expect } from 'vitest';
import type { Func } from '../../src/ir/ops.js';
import { compile, type CompileOptions, type CompileResult, type Target } from '../../src/compile/compile.js';
import { findPtxas } from '../../src/codegen/ptxas.js';

export function gate(f: Func, opts: Omit<CompileOptions, 'target' | 'ptxas'> = {}): { sm80: CompileResult; sm90: CompileResult } {
  if (!findPtxas()) throw new Error('ptxas not found (PATH, CUDA_HOME/bin, /usr/local/cuda/bin): the ptxas gate cannot run');
  const sm80 = compile(f, { ...opts, target: 'sm_80', ptxas: true });
  const sm90 = compile(f, { ...opts, target: 'sm_90', ptxas: true });
  for (const r of [sm80, sm90]) {
    expect(r.cubin?.length ?? 0).toBeGreaterThan(0);
    expect(r.metadata.spills, `spills in ${f.name}:\n${r.metadata.ptxasLog}`).toBe(0);
  }
  return { sm80, sm90 };
}

/**
 * The gate for an explicit list of targets (e.g. the fp8 kernels, whose sm_89+ code differs from
 * sm_80's): each must assemble, without spills.
 */
export function gateTargets(f: Func, targets: readonly Target[], opts: Omit<CompileOptions, 'target' | 'ptxas'> = {}): Record<string, CompileResult> {
  if (!findPtxas()) throw new Error('ptxas not found (PATH, CUDA_HOME/bin, /usr/local/cuda/bin): the ptxas gate cannot run');
  const out: Record<string, CompileResult> = {};
  for (const target of targets) {
    const r = compile(f, { ...opts, target, ptxas: true });
    expect(r.cubin?.length ?? 0, `cubin for ${target}`).toBeGreaterThan(0);
    expect(r.metadata.spills, `spills in ${f.name} (${target}):\n${r.metadata.ptxasLog}`).toBe(0);
    out[target] = r;
  }
  return out;
}

/** Lines of the PTX body that are instructions matching `re`. */
export const count = (ptx: string, re: RegExp): number => ptx.split('\n').filter((l) => re.test(l)).length;
