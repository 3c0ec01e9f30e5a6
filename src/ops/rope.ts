// rope(x[T, H, Dh], positions i32[T]) rotates x IN PLACE by the rotary position embedding: pair
// (x1, x2) of each head at angle pos * invFreq[i] becomes (x1 cos - x2 sin, x2 cos + x1 sin).
// Half-split pairs (i, i + Dh/2) are Hugging Face's rotate_half (Llama); interleaved pairs are
// (2i, 2i+1) (GPT-J, the original RoFormer). The angle is an f32 product, as HF computes it; cos
// and sin are taken in f64 (the f32 hardware approximations lose accuracy at the angles of long
// positions), and the rotation is f32 math rounded once to x's dtype.
import type { DType } from '../ir/types.js';
import { arange, constexpr, cos, load, programId, ptr, sin, store } from '../lang/index.js';
import type { Device } from '../runtime/device.js';
import { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel } from '../runtime/kernel.js';
import { checkArray, checkNumber, checkOptions, FLOATS, OpsError, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { pow2 } from './tuning.js';

export interface RopeOptions extends OpOptions {
  /** Base of the frequencies invFreq[i] = theta^(-2i/Dh) (default 10000). */
  readonly theta?: number;
  /** The frequencies themselves (Dh/2 of them; f32), overriding theta: rope_scaling's adjusted ones. */
  readonly invFreq?: Float32Array | DeviceArray;
  /** Pairs (2i, 2i+1) instead of (i, i + Dh/2). */
  readonly interleaved?: boolean;
}

const kernels = new Map<string, Kernel>();

function ropeKernel(dt: DType, interleaved: boolean): Kernel {
  const name = `ops_rope_${dt}_${interleaved ? 'interleaved' : 'half'}`;
  let k = kernels.get(name);
  if (!k) {
    k = kernel({ name, params: { x: ptr(dt), pos: ptr('i32'), invFreq: ptr('f32'), H: 'i32', HALF: 'i32', BLOCK: constexpr() } }, ({ x, pos, invFreq, H, HALF, BLOCK }) => {
      const row = programId(0); // one (token, head)
      const t = row.floordiv(H);
      const i = arange(0, BLOCK), mask = i.lt(HALF);
      const base = row.to('i64').mul(HALF.mul(2));
      const ang = load(pos.add(t)).to('f32').mul(load(invFreq.add(i), { mask, other: 0 })).to('f64');
      const c = cos(ang).to('f32'), s = sin(ang).to('f32');
      const i1 = interleaved ? i.mul(2) : i;
      const i2 = interleaved ? i.mul(2).add(1) : i.add(HALF);
      const p1 = x.add(base).add(i1), p2 = x.add(base).add(i2);
      const x1 = load(p1, { mask, other: 0 }).to('f32'), x2 = load(p2, { mask, other: 0 }).to('f32');
      store(p1, x1.mul(c).sub(x2.mul(s)).to(dt), { mask });
      store(p2, x2.mul(c).add(x1.mul(s)).to(dt), { mask });
    });
    kernels.set(name, k);
  }
  return k;
}

/** invFreq[i] = 1 / theta^(2i/Dh), rounded to f32 (HF's default rope init). */
export function ropeInvFreq(headDim: number, theta = 10000): Float32Array {
  return Float32Array.from({ length: headDim / 2 }, (_, i) => 1 / theta ** ((2 * i) / headDim));
}

// the default frequencies per device, theta and head dim: uploaded once
const freqCache = new WeakMap<Device, Map<string, DeviceArray>>();

function deviceFreqs(device: Device, headDim: number, theta: number): DeviceArray {
  let m = freqCache.get(device);
  if (!m) freqCache.set(device, (m = new Map()));
  const key = `${headDim}/${theta}`;
  let a = m.get(key);
  if (!a || a.freed) m.set(key, (a = DeviceArray.from(ropeInvFreq(headDim, theta), 'f32', { device })));
  return a;
}

/** Rotates x [T, H, Dh] in place by positions [T]; resolves to x. */
export function rope<D extends DType>(x: DeviceArray<D>, positions: DeviceArray, opts?: RopeOptions): Future<DeviceArray<D>> {
  const op = 'rope';
  const o = checkOptions(op, opts, ['theta', 'invFreq', 'interleaved', 'stream']) as RopeOptions;
  checkArray(op, 'x', x, 3, FLOATS);
  const [T, H, Dh] = x.shape as [number, number, number];
  if (Dh % 2 !== 0) throw new OpsError('E_OPS_SHAPE', op, 'x', `head dim ${Dh} is odd (rope rotates pairs)`);
  checkArray(op, 'positions', positions, 1, ['i32'], [T]);
  const interleaved = o.interleaved ?? false;
  if (typeof interleaved !== 'boolean') throw new OpsError('E_OPS_ARG', op, 'interleaved', `expected a boolean, got ${typeof interleaved}`);
  const theta = o.theta === undefined ? 10000 : checkNumber(op, 'theta', o.theta, (n) => n > 0, 'a positive number');
  if (o.theta !== undefined && o.invFreq !== undefined) throw new OpsError('E_OPS_ARG', op, 'invFreq', 'give theta or invFreq, not both');
  let freqs: DeviceArray;
  let owned = false;
  if (o.invFreq instanceof Float32Array) {
    if (o.invFreq.length !== Dh / 2) throw new OpsError('E_OPS_SHAPE', op, 'invFreq', `expected ${Dh / 2} frequencies (head dim / 2), got ${o.invFreq.length}`);
    freqs = DeviceArray.from(o.invFreq, 'f32', { device: x.device, ...(o.stream ? { stream: o.stream } : {}) });
    owned = true;
  } else if (o.invFreq !== undefined) {
    freqs = checkArray(op, 'invFreq', o.invFreq, 1, ['f32'], [Dh / 2]);
  } else {
    sameDevice(op, { x, positions });
    freqs = deviceFreqs(x.device, Dh, theta);
  }
  const device = sameDevice(op, { x, positions, invFreq: freqs });
  if (T * H === 0 || Dh === 0) return launchNothing(x);
  const BLOCK = Math.max(16, pow2(Dh / 2));
  const f = launch(ropeKernel(x.dtype, interleaved), { x, pos: positions, invFreq: freqs, H, HALF: Dh / 2, BLOCK }, { numWarps: BLOCK >= 128 ? 2 : 1 }, T * H, device, o.stream, x);
  if (owned) freqs.free();
  return f;
}
