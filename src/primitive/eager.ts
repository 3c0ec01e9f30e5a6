// Eager execution of primitives. Arrays are host data with an abstract value (EagerArray) or the
// runtime's DeviceArrays; a primitive's custom call runs through an EagerContext, the seam to the
// device: custom-call targets run through the addon's `callCustomCall` (the legacy GPU ABI:
// stream, device buffers, opaque bytes) on a runtime device's arrays and stream
// (deviceEagerContext) or on device copies of host arrays (nativeEagerContext), Tessera kernels
// through the runtime's devices.
import type { DType } from '../ir/types.js';
import { arrayCtorFor } from '../ir/dtype_arrays.js';
import { byteSize, numel } from '../ir/types.js';
import { existsSync } from 'node:fs';
import type { TypedArray } from '../runtime/array.js';
import { getDevice, type Device, type DeviceKind, type Stream } from '../runtime/device.js';
import { DeviceArray } from '../runtime/device_array.js';
import { notBuiltHint, xlaLibraryPath, type DevicePtrHandle, type Driver, type StreamHandle } from '../runtime/native/addon.js';
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

/** What eager primitives take and return: host arrays, or the runtime's device arrays. */
export type EagerValue = EagerArray | DeviceArray;

export const isDeviceArray = (a: unknown): a is DeviceArray => a instanceof DeviceArray;

/** The abstract value of an eager input (checked: an EagerArray or a DeviceArray). */
export function avalOf(a: EagerValue, prim: string, what: string): ShapedArray {
  if (a instanceof DeviceArray) return shaped(a.shape, a.dtype);
  if (typeof a !== 'object' || a === null || !('aval' in a) || !ArrayBuffer.isView((a as EagerArray).data)) {
    throw new PrimitiveError('E_ARG', prim, `${what} must be an EagerArray (eagerArray(data, dtype, shape)) or a DeviceArray, got ${a === null ? 'null' : typeof a}`);
  }
  return a.aval;
}

/** `DeviceArray(f32[4, 8] on sim)` or `host f32[4, 8]`, for messages. */
export const describeValue = (a: EagerValue): string => (a instanceof DeviceArray ? String(a) : `host ${describeAval(a.aval)}`);

/** `ins` as host arrays, or an E_DEVICE error naming the first device array (for host-only contexts). */
export function hostArrays(symbol: string, ins: readonly EagerValue[], ctxName: string): EagerArray[] {
  const i = ins.findIndex(isDeviceArray);
  if (i >= 0) {
    throw new PrimitiveError('E_DEVICE', symbol, `${ctxName} works on host arrays, but input ${i} is ${describeValue(ins[i]!)}; run device arrays with deviceEagerContext(array.device) (or pass no context)`);
  }
  return ins as EagerArray[];
}

export interface EagerContext {
  /**
   * Runs a legacy-GPU custom-call target (`void(CUstream, void** buffers, const char* opaque,
   * size_t, XlaCustomCallStatus*)`) with `ins` then fresh outputs of `outs` as its buffers.
   * Outputs are device arrays when any input is one (on that device), else host arrays.
   * `aliases` (result -> operand): that result starts as a copy of the operand, and the target
   * gets that one buffer as both (XLA's output_operand_aliases); the inputs are never written.
   */
  customCall(symbol: string, ins: readonly EagerValue[], outs: readonly ShapedArray[], opaque: Uint8Array, aliases?: ReadonlyMap<number, number>): Promise<EagerValue[]>;
}

/** The addon entry point the eager custom calls need (native/cuda's Driver.callCustomCall). */
export interface CustomCallDriver {
  callCustomCall(libraryPath: string, symbol: string, stream: StreamHandle | null, buffers: readonly bigint[], opaque: Uint8Array): void;
}

/**
 * Custom calls on a raw native driver (cuda or sim) on host arrays: inputs copied to device
 * memory, the target run on `stream`, outputs copied back after the stream is done. Everything is
 * freed on every path. Device arrays belong to a runtime device: use deviceEagerContext for them.
 */
export function nativeEagerContext(o: { driver: Driver; libraryPath: string; stream?: StreamHandle | null }): EagerContext {
  const call = (o.driver as unknown as Partial<CustomCallDriver>).callCustomCall;
  return {
    async customCall(symbol, values, outs, opaque, aliases) {
      const ins = hostArrays(symbol, values, 'nativeEagerContext');
      checkAliases(symbol, ins, outs, aliases);
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
        for (const [r, op] of aliases ?? []) {
          const a = ins[op]!;
          if (a.data.byteLength) d.memcpyHtoD(outPtrs[r]!, new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength));
          inPtrs[op] = outPtrs[r]!;
        }
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

export interface DeviceEagerOptions {
  /** The library whose legacy GPU targets run (default: build/lib/libtessera_xla.so). */
  readonly libraryPath?: string;
  /** The stream the calls are queued on (default: the device's default stream). */
  readonly stream?: Stream;
}

/**
 * Custom calls on a runtime device (`sim` or `cuda`): the target gets the device arrays' own
 * memory (no copies) and queues its kernels on the device's stream; outputs are new device
 * arrays of that device; inputs (and outputs) are held until the call's work is done, so freeing
 * or dropping them meanwhile is safe. Each call resolves when its work is done (a failure is the
 * call's own error). Host (EagerArray) inputs are uploaded first and then the outputs come back
 * as host arrays too, unless some input is a device array.
 */
export function deviceEagerContext(device?: DeviceKind | Device, opts: DeviceEagerOptions = {}): EagerContext {
  const dev = getDevice(device);
  if (typeof dev.callCustomCall !== 'function') {
    throw new PrimitiveError('E_UNAVAILABLE', 'deviceEagerContext', `device '${dev.kind}' cannot run CUDA custom-call targets; use 'sim' or 'cuda'`);
  }
  if (opts.stream !== undefined && opts.stream.device !== dev) {
    throw new PrimitiveError('E_DEVICE', 'deviceEagerContext', `the stream belongs to device '${opts.stream.device.name ?? opts.stream.device.kind}', not '${dev.name ?? dev.kind}'`);
  }
  const libraryPath = opts.libraryPath ?? xlaLibraryPath();
  const streamOpt = opts.stream ? { stream: opts.stream } : {};
  return {
    async customCall(symbol, ins, outs, opaque, aliases) {
      checkAliases(symbol, ins, outs, aliases);
      // Everything is checked before anything is allocated or queued.
      ins.forEach((a, i) => {
        if (!(a instanceof DeviceArray)) return;
        const what = `input ${i} (${String(a)})`;
        if (a.device !== dev) throw new PrimitiveError('E_DEVICE', symbol, `${what} is on device '${a.device.name ?? a.device.kind}', the call runs on '${dev.name ?? dev.kind}'`);
        a.check(`${symbol}: ${what}`);
        if (!a.contiguous) throw new PrimitiveError('E_ARG', symbol, `${what} is a strided view; custom-call targets take row-major arrays (clone() it first)`);
      });
      if (!existsSync(libraryPath)) throw new PrimitiveError('E_UNAVAILABLE', symbol, `the XLA custom-call library ${libraryPath} is not built: ${notBuiltHint('xla')}`);
      const onDevice = ins.some(isDeviceArray);
      const temps: DeviceArray[] = [];
      const results: DeviceArray[] = [];
      try {
        const bufs = ins.map((a) => {
          if (a instanceof DeviceArray) return a;
          const t = DeviceArray.from(a.data, a.aval.dtype, { device: dev, shape: a.aval.shape, ...streamOpt });
          temps.push(t);
          return t;
        });
        outs.forEach((o, r) => {
          const op = aliases?.get(r);
          // An aliased result starts as a copy of its operand (stream ordered), and is that operand's buffer.
          results.push(op === undefined ? DeviceArray.empty(o.shape, o.dtype, { device: dev }) : bufs[op]!.clone({ device: dev, ...streamOpt }).reshape(o.shape));
          if (op !== undefined) bufs[op] = results[r]!;
        });
        await dev.callCustomCall!(libraryPath, symbol, [...bufs, ...results], opaque, streamOpt);
      } catch (e) {
        for (const r of results) r.free();
        throw e;
      } finally {
        for (const t of temps) t.free();
      }
      if (onDevice) return results;
      try {
        return await Promise.all(results.map(async (r) => ({ aval: shaped(r.shape, r.dtype), data: await r.toArray(streamOpt) })));
      } finally {
        for (const r of results) r.free();
      }
    },
  };
}

function checkAliases(symbol: string, ins: readonly EagerValue[], outs: readonly ShapedArray[], aliases: ReadonlyMap<number, number> | undefined): void {
  for (const [r, op] of aliases ?? []) {
    const a = ins[op], o = outs[r];
    if (!a || !o) throw new PrimitiveError('E_ARG', symbol, `result ${r} aliases operand ${op}, but there are ${outs.length} results and ${ins.length} operands`);
    const av = avalOf(a, symbol, `operand ${op}`);
    if (av.dtype !== o.dtype || numel(av.shape) !== numel(o.shape)) throw new PrimitiveError('E_SHAPE', symbol, `result ${r} (${describeAval(o)}) cannot alias operand ${op} (${describeAval(av)})`);
  }
}

const deviceContexts = new WeakMap<Device, EagerContext>();

/** The context `apply` uses for device arrays of `device` when none is passed. */
export function eagerContextFor(device: Device): EagerContext {
  let c = deviceContexts.get(device);
  if (!c) deviceContexts.set(device, (c = deviceEagerContext(device)));
  return c;
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
      throw new PrimitiveError('E_UNAVAILABLE', symbol, `no eager context: pass one to apply() or call setDefaultEagerContext(nativeEagerContext({ driver, libraryPath })) (inputs ${ins.map(describeValue).join(', ')})`);
    },
  };
}
