// attention(q[T,Hq,Dh], k[T,Hkv,Dh], v[T,Hkv,Dh], { causal, scale }) -> o[T,Hq,Dh]: prefill of one
// sequence, flash-attention style. One program per BM query rows of one query head; it walks
// BN-key blocks with an online softmax (running row max m, row sum l, f32 accumulator), two dots
// per block (S = Q K^T, then acc += P V with P in the input dtype), so no [T, T] score matrix is
// ever stored. GQA: query head h reads kv head h / (Hq / Hkv). Causal programs stop at their
// diagonal block; keys past the diagonal (and past T) are masked to -inf before the softmax.
import type { DType } from '../ir/types.js';
import { arange, constexpr, dot, exp, forLoop, full, load, max, maximum, minimum, programId, ptr, store, sum, where, zeros, type KernelParamSpec, type Tile } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel, type RunArgs } from '../runtime/kernel.js';
import { checkArray, checkNumber, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { pick } from './tuning.js';
import { ATTENTION_TUNING } from './attention_tuning.js';
import { checkHeadDim } from './attention_check.js';

export interface AttentionOptions extends OpOptions {
  /** Query i attends to keys 0..i only (default true). */
  readonly causal?: boolean;
  /** Multiplies Q K^T before the softmax (default 1/sqrt(Dh)). */
  readonly scale?: number;
  /** The result [T, Hq, Dh] in q's dtype (else a new one). */
  readonly out?: DeviceArray;
}

const kernels = new Map<string, Kernel>();

/** The prefill kernel for one dtype and masking mode (traced per constexpr set, cached). */
export function attentionKernel(dt: DType, causal: boolean): Kernel {
  const name = `ops_attention_${dt}_${causal ? 'causal' : 'full'}`;
  let k = kernels.get(name);
  if (k) return k;
  const params: Record<string, KernelParamSpec> = {
    q: ptr(dt), k: ptr(dt), v: ptr(dt), o: ptr(dt), T: 'i32', scale: 'f32',
    HQ: constexpr(), HKV: constexpr(), D: constexpr(), BM: constexpr(), BN: constexpr(),
  };
  k = kernel({ name, params }, (p) => {
    const { q, k: kp, v, o, T, scale } = p as unknown as Record<string, Tile>;
    const { HQ, HKV, D, BM, BN } = p as unknown as Record<string, number>;
    const h = programId(1);
    const kvh = h.floordiv(HQ / HKV);
    const rm = programId(0).mul(BM).add(arange(0, BM));
    const rn = arange(0, BN);
    const rd = arange(0, D);
    const rowIn = rm.expandDims(1).lt(T!);
    // q[t, h, d] at (t*HQ + h)*D + d; k and v [t, kvh, d] at (t*HKV + kvh)*D + d
    const qv = load(q!.add(rm.expandDims(1).mul(HQ).add(h).mul(D).add(rd.expandDims(0))), { mask: rowIn, other: 0 });
    // causal: keys beyond this block's last row never count; always at least key 0 per row, so
    // the first block gives every row a finite max (no exp(-inf - -inf))
    const hi = causal ? minimum(T!, programId(0).add(1).mul(BM)) : T!;
    const init = [full([BM], -Infinity, 'f32'), zeros([BM], 'f32'), zeros([BM, D], 'f32')];
    const prec = dt === 'f32' ? { inputPrecision: 'ieee' as const } : {};
    const [, l, acc] = forLoop(0, hi, BN, init, (j, m, l, acc) => {
      const kn = j.add(rn);
      const keyIn = kn.lt(T!);
      const kvOff = kn.mul(HKV).add(kvh).mul(D);
      const kt = load(kp!.add(kvOff.expandDims(0).add(rd.expandDims(1))), { mask: keyIn.expandDims(0), other: 0 }); // [D, BN]
      const vv = load(v!.add(kvOff.expandDims(1).add(rd.expandDims(0))), { mask: keyIn.expandDims(1), other: 0 }); // [BN, D]
      let ok = keyIn.expandDims(0);
      if (causal) ok = ok.logicalAnd(kn.expandDims(0).le(rm.expandDims(1)));
      const s = where(ok, dot(qv, kt, prec).mul(scale!), -Infinity);
      const mNew = maximum(m!, max(s, 1));
      const alpha = exp(m!.sub(mNew));
      const pr = exp(s.sub(mNew.expandDims(1)));
      return [mNew, l!.mul(alpha).add(sum(pr, 1)), acc!.mul(alpha.expandDims(1)).add(dot(pr.to(dt), vv, prec))];
    });
    store(o!.add(rm.expandDims(1).mul(HQ).add(h).mul(D).add(rd.expandDims(0))), acc!.div(l!.expandDims(1)).to(dt), { mask: rowIn });
  });
  kernels.set(name, k);
  return k;
}

/**
 * Scaled dot-product attention over one sequence of T tokens: softmax(scale * Q K^T [+ causal
 * mask]) V per query head, K/V shared by groups of Hq / Hkv query heads (GQA). f32, f16 or bf16,
 * all three arrays of one dtype; accumulates in f32; the result has q's dtype.
 */
export function attention(q: DeviceArray, k: DeviceArray, v: DeviceArray, opts?: AttentionOptions): Future<DeviceArray> {
  const op = 'attention';
  const o = checkOptions(op, opts, ['causal', 'scale', 'out', 'stream']) as AttentionOptions;
  checkArray(op, 'q', q, 3, FLOATS);
  const [T, Hq, Dh] = q.shape as [number, number, number];
  checkHeadDim(op, 'q', Dh);
  checkArray(op, 'k', k, 3, [q.dtype], [T, null, Dh]);
  const Hkv = k.shape[1]!;
  checkArray(op, 'v', v, 3, [q.dtype], [T, Hkv, Dh]);
  if (Hkv < 1 || Hq % Hkv !== 0) throw new OpsError('E_OPS_SHAPE', op, 'k', `has ${Hkv} kv heads; q's ${Hq} heads must be a multiple of it (GQA)`);
  const causal = o.causal ?? true;
  if (typeof causal !== 'boolean') throw new OpsError('E_OPS_ARG', op, 'causal', `expected a boolean, got ${typeof causal}`);
  const scale = o.scale === undefined ? 1 / Math.sqrt(Dh) : checkNumber(op, 'scale', o.scale);
  const device = sameDevice(op, { q, k, v, out: o.out });
  const out = outArray(op, o.out, [T, Hq, Dh], q.dtype, device);
  if (T === 0) return launchNothing(out);
  const cfg = pick(ATTENTION_TUNING, device, { T, Dh, dtype: q.dtype });
  const args: RunArgs = { q, k, v, o: out, T, scale, HQ: Hq, HKV: Hkv, D: Dh, ...cfg.constexprs };
  return launch(attentionKernel(q.dtype, causal), args, cfg, [Math.ceil(T / cfg.constexprs.BM), Hq], device, o.stream, out);
}
