// appendKV(kCache, vCache, k[T,Hkv,Dh], v[T,Hkv,Dh], slots i32[T]): writes token t's keys and
// values (all its kv heads) into the cache pages at slot slots[t] = block * blockSize + offset
// (vLLM's reshape_and_cache with FlashInfer's NHD pages). One program per token. A negative slot
// is skipped (vLLM's padding slot -1); a slot past the cache is skipped on the device too, and is
// a named error before anything runs when the slots came from PagedKVCache.slotMapping.
import type { DType } from '../ir/types.js';
import { arange, constexpr, load, programId, ptr, store, type KernelParamSpec, type Tile } from '../lang/index.js';
import type { DeviceArray } from '../runtime/device_array.js';
import type { Future } from '../runtime/future.js';
import { kernel, type Kernel, type RunArgs } from '../runtime/kernel.js';
import { checkArray, checkOptions, FLOATS, OpsError, sameDevice, type OpOptions } from './check.js';
import { launch, launchNothing } from './launch.js';
import { pow2 } from './tuning.js';
import { checkHeadDim } from './attention_check.js';
import { indexMirror } from './paged_kv.js';

const kernels = new Map<string, Kernel>();

export function appendKernel(src: DType, dst: DType): Kernel {
  const name = `ops_append_kv_${src}_${dst}`;
  let k = kernels.get(name);
  if (k) return k;
  const params: Record<string, KernelParamSpec> = {
    kc: ptr(dst), vc: ptr(dst), k: ptr(src), v: ptr(src), slots: ptr('i32'), nSlots: 'i32',
    HKV: constexpr(), HP: constexpr(), D: constexpr(),
  };
  k = kernel({ name, params }, (p) => {
    const { kc, vc, k: kp, v, slots, nSlots } = p as unknown as Record<string, Tile>;
    const { HKV, HP, D } = p as unknown as Record<string, number>;
    const t = programId(0);
    const slot = load(slots!.add(t));
    const rh = arange(0, HP).expandDims(1), rd = arange(0, D).expandDims(0);
    const heads = rh.lt(HKV);
    const ok = heads.logicalAnd(slot.ge(0)).logicalAnd(slot.lt(nSlots!));
    const src = t.mul(HKV).add(rh).mul(D).add(rd); // [HP, D]: token t's heads, contiguous
    const dstOff = slot.mul(HKV).add(rh).mul(D).add(rd);
    store(kc!.add(dstOff), load(kp!.add(src), { mask: heads, other: 0 }).to(dst), { mask: ok });
    store(vc!.add(dstOff), load(v!.add(src), { mask: heads, other: 0 }).to(dst), { mask: ok });
  });
  kernels.set(name, k);
  return k;
}

/** Checks a cache pair: [numBlocks, blockSize, Hkv, Dh] arrays of one float dtype and shape. */
export function checkCachePair(op: string, kCache: DeviceArray, vCache: DeviceArray): [number, number, number, number] {
  checkArray(op, 'kCache', kCache, 4, FLOATS);
  const [nb, bs, hkv, dh] = kCache.shape as [number, number, number, number];
  checkArray(op, 'vCache', vCache, 4, [kCache.dtype], [nb, bs, hkv, dh]);
  checkHeadDim(op, 'kCache', dh);
  if ((bs & (bs - 1)) !== 0) throw new OpsError('E_OPS_SHAPE', op, 'kCache', `block size ${bs} is not a power of two`);
  return [nb, bs, hkv, dh];
}

/** Writes k and v (any float dtype, converted to the cache's) into the pages at `slots`. */
export function appendKV(kCache: DeviceArray, vCache: DeviceArray, k: DeviceArray, v: DeviceArray, slots: DeviceArray, opts?: OpOptions): Future<void> {
  const op = 'appendKV';
  const o = checkOptions(op, opts, ['stream']) as OpOptions;
  const [nb, bs, hkv, dh] = checkCachePair(op, kCache, vCache);
  checkArray(op, 'k', k, 3, FLOATS, [null, hkv, dh]);
  const T = k.shape[0]!;
  checkArray(op, 'v', v, 3, [k.dtype], [T, hkv, dh]);
  checkArray(op, 'slots', slots, 1, ['i32'], [T]);
  const device = sameDevice(op, { kCache, vCache, k, v, slots });
  const nSlots = nb * bs;
  const m = indexMirror(slots);
  if (m) {
    const bad = m.values.findIndex((s) => s >= nSlots);
    if (bad >= 0) throw new OpsError('E_OPS_ARG', op, 'slots', `slots[${bad}] = ${m.values[bad]} is past the cache's ${nSlots} slots`);
  }
  if (T === 0) return launchNothing<void>(undefined);
  const args: RunArgs = { kc: kCache, vc: vCache, k, v, slots, nSlots, HKV: hkv, HP: pow2(hkv), D: dh };
  return launch<void>(appendKernel(k.dtype, kCache.dtype), args, { numWarps: dh * pow2(hkv) >= 1024 ? 4 : 2 }, [T], device, o.stream, undefined);
}
