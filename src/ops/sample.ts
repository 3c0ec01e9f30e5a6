// sample(logits[B, V], { temperature, topK, topP, seed, offset }) -> i32[B]: one token per row.
// temperature 0 is greedy (argmax, ties to the lower index). Otherwise the Gumbel-max trick:
// argmax_j (logit_j / T - log(-log u_j)) is a sample of softmax(logits / T), with u_j uniform from
// the Philox stream (the language's `rand`, Triton's) keyed by `seed` at counter offset + b*V + j;
// restricting the argmax to the top-k / top-p set samples the renormalised distribution over it,
// in Hugging Face's order (temperature, then top-k, then top-p on the top-k's softmax).
// With a filter, one program per row keeps its KP best logits (topk.ts's sort keys), then computes
// the probabilities, the nucleus (exclusive cumulative sum < topP) and the Gumbel argmax over them.
import type { DType } from '../ir/types.js';
import { arange, constexpr, cumsum, exp, forLoop, full, load, log, max, min, programId, ptr, rand, store, sum, where, zeros, type Tile } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkInt, checkNumber, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { argmaxKernel } from './argmax.js';
import { rowConfig } from './rows.js';
import { fromKey, MAX_TOPK, rowTopKeys, topkShape } from './topk.js';

export interface SampleOptions extends OpOptions {
  /** 0 (default): greedy. */
  readonly temperature?: number;
  /** Sample among the topK most likely tokens only (1..1024). */
  readonly topK?: number;
  /** Sample within the nucleus: the most likely tokens whose probabilities sum to topP (0 < topP <= 1). */
  readonly topP?: number;
  /** The Philox key (an integer in 0..2^53). */
  readonly seed?: number;
  /** The stream position: row b uses counters offset + b*V + token (advance it by B*V per step). */
  readonly offset?: number;
  /** The result array, i32 [B]. */
  readonly out?: DeviceArray;
}

/** -log(-log u): a standard Gumbel variate from u in [0, 1) (u = 0 gives -inf: never chosen). */
const gumbel = (u: Tile): Tile => log(log(u).neg()).neg();

const kernels = new Map<string, Kernel>();

function gumbelKernel(dt: DType): Kernel {
  const name = `ops_sample_${dt}`;
  let k = kernels.get(name);
  if (!k) {
    k = kernel({ name, params: { x: ptr(dt), out: ptr('i32'), V: 'i32', invT: 'f32', seed: 'i64', offset: 'i64', BLOCK: constexpr() } }, ({ x, out, V, invT, seed, offset, BLOCK }) => {
      const row = programId(0);
      const base = row.to('i64').mul(V);
      const cols = arange(0, BLOCK);
      const [bv, bi] = forLoop(0, V, BLOCK, [full([BLOCK], -Infinity, 'f32'), zeros([BLOCK], 'i32')], (c0, best, idx) => {
        const offs = c0.add(cols), mask = offs.lt(V);
        const v = load(x.add(base).add(offs), { mask, other: 0 }).to('f32');
        const u = rand(seed, offset.add(base).add(offs));
        const score = where(mask, v.mul(invT).add(gumbel(u)), -Infinity);
        const better = score.gt(best!);
        return [where(better, score, best!), where(better, offs, idx!)];
      });
      const m = max(bv!, 0);
      store(out.add(row), min(where(bv!.eq(m), bi!, 2147483647), 0));
    });
    kernels.set(name, k);
  }
  return k;
}

function filteredKernel(dt: DType, useTopP: boolean, fullRowMass: boolean): Kernel {
  const name = `ops_sample_filtered_${dt}${useTopP ? (fullRowMass ? '_topp_row' : '_topp') : ''}`;
  let k = kernels.get(name);
  if (!k) {
    k = kernel({
      name, params: { x: ptr(dt), out: ptr('i32'), V: 'i32', invT: 'f32', seed: 'i64', offset: 'i64', topK: 'i32', topP: 'f32', BLOCK: constexpr(), KP: constexpr() },
    }, ({ x, out, V, invT, seed, offset, topK, topP, BLOCK, KP }) => {
      const row = programId(0);
      const base = row.to('i64').mul(V);
      const best = rowTopKeys((offs, mask) => load(x.add(base).add(offs), { mask, other: 0 }).to('f32'), V, BLOCK, KP);
      const [v, idx] = fromKey(best);
      const r = arange(0, KP);
      const kept = r.lt(topK).logicalAnd(r.lt(V));
      const top = max(where(kept, v, -Infinity), 0);
      const z = v.sub(top).mul(invT);
      const e = where(kept, exp(z), 0);
      let keep = kept;
      if (useTopP) {
        let total = sum(e, 0);
        if (fullRowMass) {
          // no topK: the probabilities are the whole row's softmax
          const cols = arange(0, BLOCK);
          const [s] = forLoop(0, V, BLOCK, [zeros([BLOCK], 'f32')], (c0, acc) => {
            const offs = c0.add(cols), mask = offs.lt(V);
            const xv = load(x.add(base).add(offs), { mask, other: 0 }).to('f32');
            return [acc!.add(where(mask, exp(xv.sub(top).mul(invT)), 0))];
          });
          total = sum(s!, 0);
        }
        const p = e.div(total);
        const before = cumsum(p, 0).sub(p);
        // the most likely token is always kept (HF's min_tokens_to_keep = 1)
        keep = kept.logicalAnd(before.lt(topP).logicalOr(r.eq(0)));
      }
      const u = rand(seed, offset.add(base).add(idx.to('i64')));
      const score = where(keep, z.add(gumbel(u)), -Infinity);
      const [, pos] = max(score, 0, { returnIndices: true });
      store(out.add(row), sum(where(r.eq(pos), idx, 0), 0));
    });
    kernels.set(name, k);
  }
  return k;
}

/** One token index per row of logits [B, V]. */
export function sample(logits: DeviceArray, opts?: SampleOptions): Future<DeviceArray<'i32'>> {
  const op = 'sample';
  const o = checkOptions(op, opts, ['temperature', 'topK', 'topP', 'seed', 'offset', 'out', 'stream']) as SampleOptions;
  checkArray(op, 'logits', logits, 2, FLOATS);
  const [B, V] = logits.shape as [number, number];
  if (V === 0) throw new OpsError('E_OPS_SHAPE', op, 'logits', 'has no columns (nothing to sample from)');
  const temperature = o.temperature === undefined ? 0 : checkNumber(op, 'temperature', o.temperature, (n) => n >= 0, 'a finite number >= 0');
  const topK = o.topK === undefined ? undefined : checkInt(op, 'topK', o.topK, 1, MAX_TOPK);
  const topP = o.topP === undefined ? undefined : checkNumber(op, 'topP', o.topP, (n) => n > 0 && n <= 1, 'a number in (0, 1]');
  const seed = o.seed === undefined ? 0 : checkInt(op, 'seed', o.seed, 0);
  const offset = o.offset === undefined ? 0 : checkInt(op, 'offset', o.offset, 0);
  if (offset + B * V > Number.MAX_SAFE_INTEGER) throw new OpsError('E_OPS_ARG', op, 'offset', `offset + B*V passes 2^53`);
  const useTopP = topP !== undefined && topP < 1;
  if (temperature > 0 && useTopP && topK === undefined && V > MAX_TOPK) {
    throw new OpsError('E_OPS_ARG', op, 'topP', `top-p over rows of ${V} logits needs topK (<= ${MAX_TOPK}): the nucleus is taken among the topK most likely tokens`);
  }
  const device = sameDevice(op, { logits, out: o.out });
  const y = outArray(op, o.out, [B], 'i32', device) as DeviceArray<'i32'>;
  if (B === 0) return launchNothing(y);
  if (temperature === 0) {
    const { BLOCK, numWarps } = rowConfig(device, V);
    return launch(argmaxKernel(logits.dtype), { x: logits, out: y, V, BLOCK }, { numWarps }, B, device, o.stream, y);
  }
  const invT = Math.fround(1 / temperature);
  if (topK === undefined && !useTopP) {
    const { BLOCK, numWarps } = rowConfig(device, V);
    return launch(gumbelKernel(logits.dtype), { x: logits, out: y, V, invT, seed, offset, BLOCK }, { numWarps }, B, device, o.stream, y);
  }
  const k = Math.min(topK ?? V, V);
  const { BLOCK, KP, numWarps } = topkShape(device, V, k);
  return launch(filteredKernel(logits.dtype, useTopP, topK === undefined), { x: logits, out: y, V, invT, seed, offset, topK: k, topP: topP ?? 1, BLOCK, KP }, { numWarps }, B, device, o.stream, y);
}
