// The compile-cache key: sha256 of a JSON record of everything compile() output depends on —
// the IR (hashFunc, plus the source locations the PTX's .loc lines carry), the options
// normalised (defaults filled in, specialization by parameter name with only the set flags,
// names sorted), the tessera version, COMPILER_VERSION and the ptxas version when ptxas runs.
// Options are checked here the way compile() checks them, so bad input is rejected even on a hit.
import { createHash } from 'node:crypto';
import { numStagesOf, TARGETS, type CompileOptions } from '../../compile/compile.js';
import { paramSpec } from '../../compiler/axis_info.js';
import { CompileError } from '../../compiler/errors.js';
import { DEFAULT_DOT } from '../../codegen/tensor_cores/lower_dot.js';
import { hashFunc } from '../../ir/hash.js';
import type { Func } from '../../ir/ops.js';
import { printFunc } from '../../ir/print.js';
import { COMPILER_VERSION, tesseraVersion } from './version.js';

export interface NormalizedOptions {
  readonly target: string;
  readonly numWarps: number;
  /** [param name, flags] sorted by name; params with no flag set are left out. */
  readonly specialization: [string, { divisibleBy16?: true; equalsOne?: true }][];
  readonly dot: string;
  readonly skipIRPasses: boolean;
  /** The checked numStages, defaults filled in (compile's DEFAULT_NUM_STAGES). */
  readonly numStages: number;
  /** Only when set (tests). */
  readonly pipelineSabotage?: string;
  /** Only when set: tensor descriptors without TMA on sm_90a (false), and the TMA sabotage (tests). */
  readonly tma?: boolean;
  readonly tmaSabotage?: string;
  /** Only when a cluster of more than one CTA: its shape (multicast depends on it), and the multicast sabotage (tests). */
  readonly clusterDims?: readonly [number, number, number];
  readonly multicastSabotage?: string;
  /** Only when set: the 2-CTA tcgen05 MMA (sm_100a) and its sabotage (tests). */
  readonly twoCta?: boolean;
  readonly twoCtaSabotage?: string;
  /** Only when false: sm_100a dotScaled on the exact emulation instead of the block-scaled kinds. */
  readonly blockScaled?: false;
  /** Only when false: a native dot_scaled on the cp.async ring waits for its MMAs (tests). */
  readonly scaledInflight?: false;
}

export interface KeyParts {
  readonly ir: string;
  readonly locs: string;
  readonly options: NormalizedOptions;
  readonly tessera: string;
  readonly compiler: number;
  /** 'off' when ptxas does not run, else its version banner. */
  readonly ptxas: string;
}

export function normalizeOptions(func: Func, o: CompileOptions): NormalizedOptions {
  if (!TARGETS.includes(o.target)) throw new CompileError(func.name, `option 'target' must be one of ${TARGETS.join(', ')}, got ${String(o.target)}`);
  const numWarps = o.numWarps ?? 4;
  if (!Number.isInteger(numWarps) || numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)) !== 0) {
    throw new CompileError(func.name, `option 'numWarps' must be a power of two in 1..32, got ${String(numWarps)}`);
  }
  const spec = o.specialization;
  if (spec && !Array.isArray(spec)) {
    for (const k of Object.keys(spec)) if (!func.params.some((p) => p.name === k)) throw new CompileError(func.name, `specialization names unknown parameter '${k}'`);
  }
  const specialization: NormalizedOptions['specialization'] = [];
  func.params.forEach((p, i) => {
    const s = paramSpec(spec, p.name, i);
    const flags = { ...(s.divisibleBy16 ? { divisibleBy16: true as const } : {}), ...(s.equalsOne ? { equalsOne: true as const } : {}) };
    if (Object.keys(flags).length) specialization.push([p.name, flags]);
  });
  specialization.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (o.blockScaled !== undefined && typeof o.blockScaled !== 'boolean') {
    throw new CompileError(func.name, `option 'blockScaled' must be a boolean, got ${JSON.stringify(o.blockScaled)}`);
  }
  if (o.scaledInflight !== undefined && typeof o.scaledInflight !== 'boolean') {
    throw new CompileError(func.name, `option 'scaledInflight' must be a boolean, got ${JSON.stringify(o.scaledInflight)}`);
  }
  const numStages = numStagesOf(func.name, o);
  return {
    target: o.target, numWarps, specialization, dot: o.dot ?? DEFAULT_DOT, skipIRPasses: o.skipIRPasses ?? false, numStages,
    ...(o.pipelineSabotage !== undefined ? { pipelineSabotage: o.pipelineSabotage } : {}),
    ...(o.tma !== undefined ? { tma: o.tma } : {}),
    ...(o.tmaSabotage !== undefined ? { tmaSabotage: o.tmaSabotage } : {}),
    ...(o.clusterDims && o.clusterDims[0] * o.clusterDims[1] * o.clusterDims[2] > 1 ? { clusterDims: o.clusterDims } : {}),
    ...(o.multicastSabotage !== undefined ? { multicastSabotage: o.multicastSabotage } : {}),
    ...(o.twoCta ? { twoCta: true } : {}), ...(o.twoCtaSabotage !== undefined ? { twoCtaSabotage: o.twoCtaSabotage } : {}),
    ...(o.blockScaled === false ? { blockScaled: false as const } : {}),
    ...(o.scaledInflight === false ? { scaledInflight: false as const } : {}),
  };
}

/** `ptxas` is the version banner of the ptxas that will run, or undefined when none runs. */
export function keyParts(func: Func, options: CompileOptions, ptxas: string | undefined): KeyParts {
  return {
    ir: hashFunc(func),
    // The PTX carries .loc lines, so a kernel whose source moved must not reuse the old PTX.
    locs: createHash('sha256').update(printFunc(func, { locs: true })).digest('hex'),
    options: normalizeOptions(func, options),
    tessera: tesseraVersion(),
    compiler: COMPILER_VERSION,
    ptxas: ptxas ?? 'off',
  };
}

export function keyOf(parts: KeyParts): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
