// rmsNorm and layerNorm over the last dim of x[R, D]: one program per row, the row read in
// BLOCK-column chunks; statistics in f32, the result rounded once to x's dtype (rmsNorm: twice,
// in Hugging Face Llama's order: the normalised row is cast to x's dtype, then times weight).
import type { DType } from '../ir/types.js';
import { arange, constexpr, divRn, forLoop, load, programId, ptr, sqrtRn, store, sum, where, zeros, type Tile } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkNumber, checkOptions, FLOATS, OpsError, outArray, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { rowConfig } from './rows.js';

export interface RmsNormOptions extends OpOptions { readonly eps?: number; readonly out?: DeviceArray }
export interface LayerNormOptions extends OpOptions { readonly eps?: number; readonly out?: DeviceArray }

const kernels = new Map<string, Kernel>();

function rmsKernel(dt: DType, wt: DType): Kernel {
  const name = `ops_rms_norm_${dt}_${wt}`;
  let k = kernels.get(name);
  if (!k) {
    k = kernel({ name, params: { x: ptr(dt), w: ptr(wt), y: ptr(dt), D: 'i32', eps: 'f32', BLOCK: constexpr() } }, ({ x, w, y, D, eps, BLOCK }) => {
      const base = programId(0).to('i64').mul(D);
      const cols = arange(0, BLOCK);
      const [ss] = forLoop(0, D, BLOCK, [zeros([BLOCK], 'f32')], (c0, acc) => {
        const offs = c0.add(cols);
        const v = load(x.add(base).add(offs), { mask: offs.lt(D), other: 0 }).to('f32');
        return [acc!.add(v.mul(v))];
      });
      // correctly rounded sqrt and division: the interpreter and the compiled code agree to the bit
      const rstd = divRn(1, sqrtRn(divRn(sum(ss!, 0), D.to('f32')).add(eps)));
      forLoop(0, D, BLOCK, [], (c0) => {
        const offs = c0.add(cols), mask = offs.lt(D);
        const v = load(x.add(base).add(offs), { mask, other: 0 }).to('f32');
        const h = v.mul(rstd).to(dt).to('f32'); // HF: hidden_states.to(input_dtype), then weight * it
        store(y.add(base).add(offs), h.mul(load(w.add(offs), { mask, other: 0 }).to('f32')).to(dt), { mask });
        return [];
      });
    });
    kernels.set(name, k);
  }
  return k;
}

function lnKernel(dt: DType, wt: DType, bt: DType | null): Kernel {
  const name = `ops_layer_norm_${dt}_${wt}_${bt ?? 'nobias'}`;
  let k = kernels.get(name);
  if (!k) {
    k = kernel({ name, params: { x: ptr(dt), w: ptr(wt), ...(bt ? { b: ptr(bt) } : {}), y: ptr(dt), D: 'i32', eps: 'f32', BLOCK: constexpr() } }, (p) => {
      const { x, w, y, D, eps } = p as unknown as Record<string, Tile>;
      const BLOCK = (p as unknown as { BLOCK: number }).BLOCK;
      const base = programId(0).to('i64').mul(D!);
      const cols = arange(0, BLOCK);
      const n = D!.to('f32');
      const [s1] = forLoop(0, D!, BLOCK, [zeros([BLOCK], 'f32')], (c0, acc) => {
        const offs = c0.add(cols);
        return [acc!.add(load(x!.add(base).add(offs), { mask: offs.lt(D!), other: 0 }).to('f32'))];
      });
      const mean = divRn(sum(s1!, 0), n);
      // two passes (mean, then squared deviations): no cancellation for rows with a large mean
      const [s2] = forLoop(0, D!, BLOCK, [zeros([BLOCK], 'f32')], (c0, acc) => {
        const offs = c0.add(cols), mask = offs.lt(D!);
        const d = where(mask, load(x!.add(base).add(offs), { mask, other: 0 }).to('f32').sub(mean), 0);
        return [acc!.add(d.mul(d))];
      });
      const rstd = divRn(1, sqrtRn(divRn(sum(s2!, 0), n).add(eps!)));
      forLoop(0, D!, BLOCK, [], (c0) => {
        const offs = c0.add(cols), mask = offs.lt(D!);
        let v = load(x!.add(base).add(offs), { mask, other: 0 }).to('f32').sub(mean).mul(rstd).mul(load(w!.add(offs), { mask, other: 0 }).to('f32'));
        if (bt) v = v.add(load((p as unknown as Record<string, Tile>)['b']!.add(offs), { mask, other: 0 }).to('f32'));
        store(y!.add(base).add(offs), v.to(dt), { mask });
        return [];
      });
    });
    kernels.set(name, k);
  }
  return k;
}

const epsOf = (op: string, o: { eps?: unknown }, dflt: number): number => (o.eps === undefined ? dflt : checkNumber(op, 'eps', o.eps, (n) => n >= 0, 'a finite number >= 0'));

/** y = x / sqrt(mean(x^2) + eps) * weight over the last dim of x [R, D]; weight [D] of x's dtype or f32. */
export function rmsNorm<D extends DType>(x: DeviceArray<D>, weight: DeviceArray, opts?: RmsNormOptions): Future<DeviceArray<D>> {
  const op = 'rmsNorm';
  const o = checkOptions(op, opts, ['eps', 'out', 'stream']) as RmsNormOptions;
  checkArray(op, 'x', x, 2, FLOATS);
  const [R, D] = x.shape as [number, number];
  checkArray(op, 'weight', weight, 1, [x.dtype, 'f32'], [D]);
  const eps = epsOf(op, o, 1e-6);
  const device = sameDevice(op, { x, weight, out: o.out });
  const y = outArray(op, o.out, [R, D], x.dtype, device);
  if (R === 0 || D === 0) return launchNothing(y as DeviceArray<D>);
  const { BLOCK, numWarps } = rowConfig(device, D);
  return launch(rmsKernel(x.dtype, weight.dtype), { x, w: weight, y, D, eps, BLOCK }, { numWarps }, R, device, o.stream, y as DeviceArray<D>);
}

/** y = (x - mean) / sqrt(var + eps) * weight + bias over the last dim (biased variance, as PyTorch). */
export function layerNorm<D extends DType>(x: DeviceArray<D>, weight: DeviceArray, bias: DeviceArray | null, opts?: LayerNormOptions): Future<DeviceArray<D>> {
  const op = 'layerNorm';
  const o = checkOptions(op, opts, ['eps', 'out', 'stream']) as LayerNormOptions;
  checkArray(op, 'x', x, 2, FLOATS);
  const [R, D] = x.shape as [number, number];
  checkArray(op, 'weight', weight, 1, [x.dtype, 'f32'], [D]);
  if (bias !== null) {
    if (bias === undefined) throw new OpsError('E_OPS_ARG', op, 'bias', 'expected a DeviceArray or null (no bias), got undefined');
    checkArray(op, 'bias', bias, 1, [x.dtype, 'f32'], [D]);
  }
  const eps = epsOf(op, o, 1e-5);
  const device = sameDevice(op, { x, weight, bias, out: o.out });
  const y = outArray(op, o.out, [R, D], x.dtype, device);
  if (R === 0 || D === 0) return launchNothing(y as DeviceArray<D>);
  const { BLOCK, numWarps } = rowConfig(device, D);
  return launch(lnKernel(x.dtype, weight.dtype, bias ? bias.dtype : null), { x, w: weight, ...(bias ? { b: bias } : {}), y, D, eps, BLOCK }, { numWarps }, R, device, o.stream, y as DeviceArray<D>);
}
