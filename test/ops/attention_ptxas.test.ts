// The ptxas gate for the attention ops: every config the tuning tables pick for f16/bf16/f32 and
// head dims 64, 128, 256 (prompts short to long), and the appendKV kernel, assembles with ptxas
// for the target that uses it, without register spills. Written first against the tables' first
// draft, it found the 64-row prefill tiles and the 4-warp Dh-128 decode spilling.
import { describe, it } from 'vitest';
import type { Target } from '../../src/compile/compile.js';
import type { DType } from '../../src/ir/types.js';
import { appendKernel } from '../../src/ops/append_kv.js';
import { attentionKernel } from '../../src/ops/attention.js';
import { ATTENTION_TUNING, DECODE_TUNING } from '../../src/ops/attention_tuning.js';
import { decodeKernel } from '../../src/ops/paged_attention.js';
import type { OpsTarget } from '../../src/ops/tuning.js';
import { gateTargets } from '../codegen/gate.js';

const TARGETS: Record<OpsTarget, Target> = { sm_80: 'sm_80', sm_90a: 'sm_90a' };
const first = <P,>(list: readonly { fits?: (p: P) => boolean }[], p: P) => list.findIndex((e) => !e.fits || e.fits(p));

describe('attention kernels pass the ptxas gate (every config the tables pick)', () => {
  for (const [table, target] of Object.entries(TARGETS) as [OpsTarget, Target][]) {
    const seen = new Set<string>();
    for (const dtype of ['f16', 'bf16', 'f32'] as DType[]) for (const Dh of [64, 128, 256]) for (const T of [8, 40, 200, 1000]) {
      const i = first(ATTENTION_TUNING[table], { T, Dh, dtype });
      const key = `${dtype} ${Dh} ${i}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const cfg = ATTENTION_TUNING[table][i]!;
      it(`prefill ${table} ${dtype} Dh=${Dh}: entry ${i} ${JSON.stringify(cfg.constexprs)}, ${cfg.numWarps} warps`, () => {
        const f = attentionKernel(dtype, true).trace({ HQ: 4, HKV: 2, D: Dh, ...cfg.constexprs });
        gateTargets(f, [target], { numWarps: cfg.numWarps, ...(cfg.numStages ? { numStages: cfg.numStages } : {}) });
      });
    }
    for (const dtype of ['f16', 'bf16', 'f32'] as DType[]) for (const Dh of [64, 128, 256]) {
      const cfg = DECODE_TUNING[table][first(DECODE_TUNING[table], { Dh, dtype })]!;
      it(`decode ${table} ${dtype} Dh=${Dh}, 16-token pages: ${cfg.numWarps} warps`, () => {
        gateTargets(decodeKernel(dtype, dtype).trace({ HQ: 4, HKV: 2, D: Dh, BS: 16 }), [target], { numWarps: cfg.numWarps });
      });
    }
  }
  it('appendKV (2 and 8 kv heads of 128)', () => {
    gateTargets(appendKernel('f16', 'f16').trace({ HKV: 2, HP: 2, D: 128 }), ['sm_80', 'sm_90a'], { numWarps: 2 });
    gateTargets(appendKernel('f32', 'bf16').trace({ HKV: 8, HP: 8, D: 128 }), ['sm_80', 'sm_90a'], { numWarps: 4 });
  });
});
