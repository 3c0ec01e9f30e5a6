// Eager execution of primitives. Arrays are host data with an abstract value; a primitive's impl
// runs its work through an EagerContext, the seam to the device: custom-call targets run through
// the addon's `callCustomCall` (the legacy GPU ABI: stream, device buffers, opaque bytes) on
// device copies of the inputs, Tessera kernels through the runtime's devices.
import type { DType } from '../ir/types.js';
import { arrayCtorFor } from '../interpret/memory.js';
import { byteSize, numel } from '../ir/types.js';
import type { TypedArray } from '../runtime/array.js';
import type { DevicePtrHandle, Driver, StreamHandle } from '../runtime/native/addon.js';
import { checkAval, describeAval, shaped, type ShapedArray } from './aval.js';
import { PrimitiveError } from './errors.js';

export interface EagerArray {
  readonly aval: ShapedArray;
  /** Storage form as in the runtime: f16/bf16 bit patterns in a Uint16Array, bool as bytes. */
  readonly data: TypedArray;
}

export function eagerArray(data: TypedArray, dtype: DType, shape: readonly number[] = [data.length]): EagerArray {
  const aval = checkAval({ shape, dtype }, 'eagerArray', 'array');
  if (!(data instanceof arrayCtorFor(dtype))) throw new PrimitiveError('E_TYPE', 'eagerArray', `${dtype} data must be a ${arrayCtorFor(dtype).name}`);
  if (numel(shape) !== data.length) throw new PrimitiveError('E_SHAPE', 'eagerArray', `shape [${shape.join(', ')}] does not hold ${data.length} elements`);
  return { aval, data };
}

export const emptyLike = (aval: ShapedArray): EagerArray => ({ aval: shaped(aval.shape, aval.dtype), data: new (arrayCtorFor(aval.dtype))(numel(aval.shape)) as TypedArray });

export interface EagerContext {
  /**
   * Runs a legacy-GPU custom-call target (`void(CUstream, void** buffers, const char* opaque,
   * size_t, XlaCustomCallStatus*)`) with `ins` then fresh outputs of `outs` as its buffers.
   */
  customCall(symbol: string, ins: readonly EagerArray[], outs: readonly ShapedArray[], opaque: Uint8Array): Promise<EagerArray[]>;
}

/** The addon entry point the eager custom calls need (being added to native/cuda). */
export interface CustomCallDriver {
  callCustomCall(libraryPath: string, symbol: string, stream: StreamHandle | null, buffers: readonly bigint[], opaque: Uint8Array): void;
}

/**
 * Custom calls on a native driver (cuda or sim): inputs copied to device memory, the target run on
 * `stream`, outputs copied back after the stream is done. Everything is freed on every path.
 */
export function nativeEagerContext(o: { driver: Driver; libraryPath: string; stream?: StreamHandle | null }): EagerContext {
  const call = (o.driver as unknown as Partial<CustomCallDriver>).callCustomCall;
  return {
    async customCall(symbol, ins, outs, opaque) {
      if (typeof call !== 'function') {
        throw new PrimitiveError('E_UNAVAILABLE', symbol, 'the loaded addon has no callCustomCall (native/cuda); rebuild it with the custom-call entry point');
      }
      const d = o.driver;
      const stream = o.stream ?? null;
      const held: DevicePtrHandle[] = [];
      const alloc = (bytes: number): DevicePtrHandle => {
        const p = d.memAlloc(Math.max(bytes, 1));
        held.push(p);
        return p;
      };
      try {
        const inPtrs = ins.map((a) => {
          const p = alloc(a.data.byteLength);
          if (a.data.byteLength) d.memcpyHtoD(p, new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength));
          return p;
        });
        const results = outs.map(emptyLike);
        const outPtrs = outs.map((a) => alloc(numel(a.shape) * byteSize(a.dtype)));
        call.call(d, o.libraryPath, symbol, stream, [...inPtrs, ...outPtrs].map((p) => BigInt(p.address)), opaque);
        if (stream) await d.streamSynchronizeAsync(stream);
        else await d.synchronizeAsync();
        results.forEach((r, i) => {
          if (r.data.byteLength) d.memcpyDtoH(new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength), outPtrs[i]!);
        });
        return results;
      } finally {
        for (const p of held) d.memFree(p);
      }
    },
  };
}

let fallback: EagerContext | undefined;

/** Sets the context `apply` uses when none is passed (e.g. nativeEagerContext on the sim). */
export function setDefaultEagerContext(ctx: EagerContext | undefined): void {
  fallback = ctx;
}

export function defaultEagerContext(): EagerContext {
  if (fallback) return fallback;
  return {
    customCall: (symbol, ins) => {
      throw new PrimitiveError('E_UNAVAILABLE', symbol, `no eager context: pass one to apply() or call setDefaultEagerContext(nativeEagerContext({ driver, libraryPath })) (inputs ${ins.map((a) => describeAval(a.aval)).join(', ')})`);
    },
  };
}
