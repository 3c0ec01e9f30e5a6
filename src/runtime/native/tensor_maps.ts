// The CUtensorMaps of TMA kernels (sm_90a), built at launch: a compiled kernel's metadata lists,
// per hidden 128-byte parameter, how to build its map from the launch's arguments (codegen/
// tensor_map.ts TensorMapSpec); this encodes it with cuTensorMapEncodeTiled and writes it at its
// offset. Maps are cached per (address, dims, strides, box, swizzle, dtype), so relaunching with
// the same tensors costs a lookup. Bad descriptors are E_DESCRIPTOR, named, before anything runs.
import type { TensorMapSpec, ScalarSource } from '../../codegen/async/tensor_map.js';
import { byteSize } from '../../ir/types.js';
import type { Driver } from './addon.js';
import { NativeDeviceError, native } from './errors.js';
import type { ParamSpec } from './params.js';

/** cuda.h enums: CU_TENSOR_MAP_SWIZZLE_*, CU_TENSOR_MAP_L2_PROMOTION_L2_128B. */
const SWIZZLE_ENUM: Readonly<Record<number, number>> = { 0: 0, 32: 1, 64: 2, 128: 3 };
const L2_PROMOTION_128B = 2;
/** Maps kept per device; beyond this the oldest is dropped (a map is 128 bytes). */
const MAX_CACHED = 1024;

const bad = (kernel: string, what: string): never => {
  throw new NativeDeviceError('E_DESCRIPTOR', `kernel '${kernel}': ${what}`);
};

export class TensorMapCache {
  readonly #cache = new Map<string, Uint8Array>();
  /** cuTensorMapEncodeTiled calls made (tests read it to see the cache work). */
  encodes = 0;

  constructor(private readonly driver: Driver) {}

  /**
   * Writes every map of `specs` into `bytes` (the kernel's parameter buffer), reading the base
   * address and the integer shapes and strides from `arg(i)` (parameter i's argument).
   */
  write(kernel: string, params: readonly ParamSpec[], specs: readonly TensorMapSpec[], arg: (i: number) => unknown, bytes: Uint8Array): void {
    for (const s of specs) bytes.set(this.#map(kernel, params, s, arg), s.offset);
  }

  #map(kernel: string, params: readonly ParamSpec[], s: TensorMapSpec, arg: (i: number) => unknown): Uint8Array {
    const pname = params[s.base]?.name ?? `#${s.base}`;
    const a = arg(s.base);
    const address = typeof a === 'bigint' ? a : typeof a === 'object' && a !== null && 'address' in a ? (a as { address: unknown }).address : undefined;
    if (typeof address !== 'bigint') return bad(kernel, `tensor descriptor base '${pname}': expected a device buffer`);
    if (address % 16n !== 0n) return bad(kernel, `tensor descriptor base '${pname}' is at 0x${address.toString(16)}, not 16-byte aligned (TMA needs 16)`);
    const eb = byteSize(s.dtype);
    const value = (src: ScalarSource, what: string): number => {
      if ('value' in src) return src.value;
      const v = arg(src.param);
      const n = typeof v === 'bigint' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isInteger(n)) return bad(kernel, `tensor descriptor ${what} ('${params[src.param]?.name}') must be an integer, got ${String(v)}`);
      return n;
    };
    const dims = s.dims.map((d, i) => {
      const n = value(d, `shape (dim ${s.dims.length - 1 - i})`);
      // the descriptor's index math is i32 (docs/language.md), so is the shape it may describe
      if (n < 1 || n > 2 ** 31 - 1) bad(kernel, `tensor descriptor on '${pname}': shape dim ${s.dims.length - 1 - i} is ${n}, outside 1..2^31-1`);
      return n;
    });
    const strides = s.strides.map((d, i) => {
      const dim = s.dims.length - 2 - i;
      const e = value(d, `stride (dim ${dim})`);
      if (e > 2 ** 31 - 1) bad(kernel, `tensor descriptor on '${pname}': stride of dim ${dim} is ${e} elements, above 2^31-1`);
      const n = e * eb;
      if (n <= 0 || n % 16 !== 0) bad(kernel, `tensor descriptor on '${pname}': stride of dim ${dim} is ${n} bytes, not a positive multiple of 16 (TMA)`);
      return n;
    });
    const key = `${address}|${s.dataType}|${dims.join(',')}|${strides.join(',')}|${s.box.join(',')}|${s.swizzle}|${s.oobFill ?? 0}`;
    let m = this.#cache.get(key);
    if (m) return m;
    const enc = this.driver.tensorMapEncodeTiled;
    if (!enc) return bad(kernel, 'this build of the addon has no tensorMapEncodeTiled (rebuild it: node native/cuda/build.mjs)');
    m = native(() => enc.call(this.driver, s.dataType, dims.length, address, dims, strides, s.box, s.box.map(() => 1), 0, SWIZZLE_ENUM[s.swizzle]!, L2_PROMOTION_128B, s.oobFill ?? 0), `kernel '${kernel}', tensor map for '${pname}'`);
    this.encodes++;
    if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, m);
    return m;
  }
}

/** Bytes the parameter buffer needs with the maps (they follow the ordinary parameters). */
export const paramBytesWithMaps = (bytes: number, specs: readonly TensorMapSpec[] | undefined): number =>
  specs?.length ? Math.max(bytes, ...specs.map((s) => s.offset + 128)) : bytes;
