// DeviceArray: an array that lives on a device (device memory on cuda/sim, the interpreter's
// memory on interpret): dtype, shape, strides (elements) and a byte offset into a Storage, which
// several views share. Kernels receive it with no copy. Reads are awaitable (`toArray`) or
// explicitly blocking (`toArraySync`); every copy is ordered on a stream.
//
// Lifetimes: work in flight holds the Storage, so dropping the array or calling free() early is
// safe (the free is deferred until that work is done); a FinalizationRegistry frees what the user
// forgot. A Storage remembers its device context: once that context is lost to a sticky fault,
// every use says so.
import type { Func } from '../ir/ops.js';
import { numel, isDType, DTYPES, type DType } from '../ir/types.js';
import { BYTES, arrayCtorFor } from '../ir/dtype_arrays.js';
import { ARRAY_FOR_DTYPE, HostArray, array as hostArray, holdsDType, type ArrayTypes, type TypedArray } from './array.js';
import { DeviceError, getDevice, type Device, type DeviceKind, type DeviceName, type RawBuffer, type Stream } from './device.js';
import { Future } from './future.js';

export interface DeviceArrayOptions {
  /** The device (default: the runtime's default device). */
  readonly device?: DeviceName | Device;
  /** The stream the initial write is queued on (default stream when omitted). */
  readonly stream?: Stream;
}

export interface FromOptions extends DeviceArrayOptions {
  /** Default: [length] of the data (or the source array's shape). */
  readonly shape?: readonly number[];
}

/** Releases what the user forgot; never the only path (free(), or the owner's close(), are). */
const finalizer = new FinalizationRegistry<{ device: Device; raw: RawBuffer }>(({ device, raw }) => {
  try {
    device.memory?.free(raw);
  } catch {
    // the device or its context is gone; nothing is left to free
  }
});

/** One allocation under one or more views. */
export class Storage {
  #inflight = 0;
  #freeRequested = false;
  #released = false;

  constructor(readonly device: Device, readonly raw: RawBuffer) {
    finalizer.register(this, { device, raw }, this);
  }

  get freed(): boolean { return this.#freeRequested; }
  get inflight(): number { return this.#inflight; }
  /** The device memory has been given back (free() requested and no work holds it any more). */
  get released(): boolean { return this.#released; }

  /** Work that uses this storage was queued. */
  retain(): void { this.#inflight++; }

  /** That work is done; a free requested meanwhile happens now. */
  release(): void {
    this.#inflight--;
    if (this.#freeRequested && this.#inflight === 0) {
      try {
        this.#releaseNow();
      } catch {
        // called as work completes, where no one could hear it; the handle's own finalizer remains
      }
    }
  }

  /** free(): at once if no work uses it, else when the last of that work is done. */
  requestFree(): void {
    if (this.#freeRequested) return;
    this.#freeRequested = true;
    if (this.#inflight === 0) this.#releaseNow();
  }

  #releaseNow(): void {
    if (this.#released) return;
    this.#released = true;
    finalizer.unregister(this);
    this.device.memory!.free(this.raw);
  }
}

/** Holds every storage in `storages` until `done` settles (deferred frees happen then). */
/**
 * A device's peer copy (cuda/sim: cuMemcpyPeerAsync between two devices of one driver): queues
 * `bytes` from `src` (a buffer of `srcDevice`) into `dst` (this device's) and returns the future of
 * that copy, or undefined when the two devices cannot copy directly (the caller stages through host).
 */
export type PeerCopy = (dst: RawBuffer, dstOffset: number, src: RawBuffer, srcDevice: Device, srcOffset: number, bytes: number, stream?: Stream) => Future<void> | undefined;

export function holdUntil(storages: readonly Storage[], done: PromiseLike<unknown>): void {
  if (storages.length === 0) return;
  for (const s of storages) s.retain();
  const release = () => {
    for (const s of storages) s.release();
  };
  // a Future releases as it settles (synchronously); any other thenable a microtask later
  if (done instanceof Future) done.whenSettled(release);
  else done.then(release, release);
}

const describeShape = (dtype: DType, shape: readonly number[]) => `${dtype}[${shape.join(', ')}]`;

function memoryOf(device: Device, what: string) {
  const m = device.memory;
  if (!m) throw new DeviceError('E_DEVICE', `${what}: device '${device.kind}' has no device memory`);
  return m;
}

function checkShape(shape: unknown, what: string): number[] {
  if (!Array.isArray(shape) || shape.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new DeviceError('E_ARG', `${what}: shape must be a list of non-negative integers, got ${JSON.stringify(shape)}`);
  }
  return [...(shape as number[])];
}

function checkDType(dtype: unknown, what: string): DType {
  if (!isDType(dtype as string)) throw new DeviceError('E_ARG', `${what}: unknown dtype ${String(dtype)} (one of ${DTYPES.join(' ')})`);
  return dtype as DType;
}

const rowMajor = (shape: readonly number[]): number[] => {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
};

export class DeviceArray<D extends DType = DType> {
  readonly shape: readonly number[];
  /** Element strides per dimension. */
  readonly strides: readonly number[];

  /** @internal Use DeviceArray.empty/zeros/full/from, or a view of another DeviceArray. */
  constructor(readonly storage: Storage, readonly dtype: D, shape: readonly number[], strides: readonly number[], readonly offset: number) {
    this.shape = Object.freeze([...shape]);
    this.strides = Object.freeze([...strides]);
  }

  get device(): Device { return this.storage.device; }
  get size(): number { return numel(this.shape); }
  get itemBytes(): number { return BYTES[this.dtype]; }
  /** True once free() was called (on this array or any view of its storage). */
  get freed(): boolean { return this.storage.freed; }
  /** Row-major with no gaps: what a kernel indexing `i` from 0 to size-1 expects. */
  get contiguous(): boolean {
    const want = rowMajor(this.shape);
    return this.shape.every((d, i) => d <= 1 || this.strides[i] === want[i]);
  }
  /** What a pointer parameter receives: the device address of element 0. */
  get address(): bigint | number {
    // the storage's address and the view's offset never change: computed once (a BigInt sum
    // per launch showed in the launch path's profile)
    if (this.#address === undefined) {
      const a = this.storage.raw.address;
      this.#address = typeof a === 'bigint' ? a + BigInt(this.offset) : a + this.offset;
    }
    return this.#address;
  }
  #address: bigint | number | undefined;

  /** Throws (naming `what`) when this array cannot be used: freed, or its context is gone. */
  check(what = `DeviceArray ${describeShape(this.dtype, this.shape)}`): void {
    if (this.storage.freed) throw new DeviceError('E_FREED', `${what}: the array was freed`);
    this.storage.raw.context.check(what);
  }

  // ---- creation ----

  /** An array of `shape` whose contents are undefined until written. */
  static empty<D extends DType>(shape: readonly number[], dtype: D, opts: DeviceArrayOptions = {}): DeviceArray<D> {
    const sh = checkShape(shape, 'DeviceArray.empty');
    checkDType(dtype, 'DeviceArray.empty');
    const device = getDevice(opts.device);
    const mem = memoryOf(device, 'DeviceArray.empty');
    const bytes = numel(sh) * BYTES[dtype];
    const raw = mem.alloc(bytes);
    return new DeviceArray(new Storage(device, raw), dtype, sh, rowMajor(sh), 0);
  }

  static zeros<D extends DType>(shape: readonly number[], dtype: D, opts: DeviceArrayOptions = {}): DeviceArray<D> {
    const a = DeviceArray.empty(shape, dtype, opts);
    const bytes = a.size * a.itemBytes;
    if (bytes > 0) a.#track(memoryOf(a.device, 'DeviceArray.zeros').fill(a.storage.raw, 0, bytes, 0, opts.stream));
    return a;
  }

  /** Every element `value` (rounded to f16/bf16, wrapped to integer widths, as `array()`). */
  static full<D extends DType>(shape: readonly number[], value: number | bigint | boolean, dtype: D, opts: DeviceArrayOptions = {}): DeviceArray<D> {
    const sh = checkShape(shape, 'DeviceArray.full');
    checkDType(dtype, 'DeviceArray.full');
    const host = hostArray(new Array(numel(sh)).fill(typeof value === 'boolean' ? Number(value) : value), dtype);
    return DeviceArray.from(host, dtype, { ...opts, shape: sh });
  }

  /**
   * A new device array holding `data`: a typed array of the dtype's storage kind, a HostArray,
   * a DeviceArray (copied on the device), or a list of numbers/bigints (encoded as `array()`).
   */
  static from<D extends DType>(
    data: TypedArray | HostArray<D> | DeviceArray<D> | ArrayLike<number> | ArrayLike<bigint>, dtype?: D, opts: FromOptions = {},
  ): DeviceArray<D> {
    if (data instanceof DeviceArray) {
      if (dtype !== undefined && dtype !== data.dtype) throw new DeviceError('E_ARG', `DeviceArray.from: source is ${data.dtype}, asked for ${dtype}`);
      return data.clone({ ...opts, ...(opts.device === undefined ? { device: data.device } : {}) }).#reshapedTo(opts.shape, 'DeviceArray.from') as DeviceArray<D>;
    }
    let host: HostArray;
    if (data instanceof HostArray) {
      if (dtype !== undefined && dtype !== data.dtype) throw new DeviceError('E_ARG', `DeviceArray.from: source is ${data.dtype}, asked for ${dtype}`);
      host = data;
    } else {
      if (dtype === undefined) throw new DeviceError('E_ARG', 'DeviceArray.from: a dtype is needed for a typed array or a list');
      host = hostArray(data as ArrayLike<number>, checkDType(dtype, 'DeviceArray.from'));
    }
    const shape = opts.shape ? checkShape(opts.shape, 'DeviceArray.from') : host.shape;
    if (numel(shape) !== host.size) {
      throw new DeviceError('E_ARG', `DeviceArray.from: shape [${shape.join(', ')}] does not match ${host.size} elements`);
    }
    const a = DeviceArray.empty(shape, host.dtype as D, opts);
    if (host.data.byteLength > 0) a.#track(memoryOf(a.device, 'DeviceArray.from').write(a.storage.raw, 0, host.data, opts.stream));
    return a;
  }

  // ---- reading ----

  /**
   * The elements, row-major, in their storage typed array (f16/bf16 as bit patterns, bool as 0/1
   * bytes), after the work queued on `stream` (default stream) so far. Never blocks the event loop.
   */
  async toArray(opts: { stream?: Stream } = {}): Promise<ArrayTypes[D]> {
    this.check('toArray');
    const [lo, hi] = this.#span();
    const bytes = new Uint8Array(hi - lo);
    const done = memoryOf(this.device, 'toArray').read(this.storage.raw, this.offset + lo, bytes, opts.stream);
    holdUntil([this.storage], done);
    await done;
    return this.#gather(bytes, lo);
  }

  /** As toArray, blocking until the device's queued work is done (explicitly synchronous). */
  toArraySync(): ArrayTypes[D] {
    this.check('toArraySync');
    const [lo, hi] = this.#span();
    const bytes = new Uint8Array(hi - lo);
    memoryOf(this.device, 'toArraySync').readSync(this.storage.raw, this.offset + lo, bytes);
    return this.#gather(bytes, lo);
  }

  /** A HostArray copy (its toArray() gives JS numbers, f16/bf16 decoded). */
  async toHost(opts: { stream?: Stream } = {}): Promise<HostArray<D>> {
    return new HostArray(this.dtype, this.shape, await this.toArray(opts));
  }

  // ---- writing and copying ----

  /** Overwrites this (contiguous) array with `src` (same dtype and size), in stream order. */
  copyFrom(src: DeviceArray<D> | TypedArray | HostArray<D>, opts: { stream?: Stream } = {}): Future<void> {
    try {
      this.check('copyFrom (destination)');
      if (!this.contiguous) throw new DeviceError('E_ARG', 'copyFrom: the destination must be contiguous');
      const mem = memoryOf(this.device, 'copyFrom');
      if (src instanceof DeviceArray) {
        src.check('copyFrom (source)');
        if (src.device !== this.device) throw new DeviceError('E_DEVICE', `copyFrom: the source is on device '${src.device.name ?? src.device.kind}', the destination on '${this.device.name ?? this.device.kind}'`);
        if (src.dtype !== this.dtype || src.size !== this.size) {
          throw new DeviceError('E_ARG', `copyFrom: source ${describeShape(src.dtype, src.shape)} does not match destination ${describeShape(this.dtype, this.shape)}`);
        }
        if (!src.contiguous) throw new DeviceError('E_ARG', 'copyFrom: the source must be contiguous (toArray it, or copy a contiguous view)');
        const done = mem.copy(this.storage.raw, this.offset, src.storage.raw, src.offset, this.size * this.itemBytes, opts.stream);
        holdUntil([this.storage, src.storage], done);
        return done;
      }
      const data = src instanceof HostArray ? src.data : src;
      if (!holdsDType(data, this.dtype)) {
        throw new DeviceError('E_ARG', `copyFrom: a ${this.dtype} array needs a ${ARRAY_FOR_DTYPE[this.dtype]}, got ${(data as object)?.constructor?.name ?? typeof data}`);
      }
      if (data.length !== this.size) throw new DeviceError('E_ARG', `copyFrom: ${data.length} elements for ${this.size}`);
      return this.#track(mem.write(this.storage.raw, this.offset, data, opts.stream));
    } catch (e) {
      return Future.rejected(e);
    }
  }

  /**
   * A copy of this array on `device` (`'sim:1'`, `'cuda:0'`, a Device). Between two devices of the
   * same driver the copy is a peer copy (cuMemcpyPeerAsync: direct where the GPUs can reach each
   * other, staged by the driver where not); between kinds (sim -> interpret, ...) it is staged
   * through host memory. The source's queued work is waited for first (its streams, never the
   * whole device); the copy is queued on `opts.stream` of the destination. The same device gives
   * a clone. Resolves with the new array once the copy is done.
   */
  to(device: DeviceName | Device, opts: { stream?: Stream } = {}): Promise<DeviceArray<D>> {
    try {
      this.check('to');
      const dst = getDevice(device);
      if (dst === this.device && this.contiguous) {
        const c = this.clone(opts.stream ? { stream: opts.stream } : {});
        return c.#settled(opts.stream).then(() => c);
      }
      const src = this;
      return (async () => {
        const out = DeviceArray.empty(src.shape, src.dtype, { device: dst });
        try {
          const peer = (dst as { peerCopy?: PeerCopy }).peerCopy;
          if (src.contiguous && peer) {
            await src.device.synchronize?.();
            const done = peer.call(dst, out.storage.raw, 0, src.storage.raw, src.device, src.offset, src.size * src.itemBytes, opts.stream);
            if (done) {
              holdUntil([src.storage, out.storage], done);
              await done;
              return out;
            }
          }
          // Staged through host memory: read (after the source's queued work), then write.
          const host = await src.toArray();
          await out.copyFrom(host as TypedArray, opts.stream ? { stream: opts.stream } : {});
          return out;
        } catch (e) {
          out.free();
          throw e;
        }
      })();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Settles when the work queued so far on `stream` (default: the device's default stream) is done. */
  #settled(stream?: Stream): Promise<void> {
    return Promise.resolve((stream ?? this.device.defaultStream)?.synchronize()).then(() => undefined);
  }

  /** A new contiguous array with the same elements (copied on the device). */
  clone(opts: DeviceArrayOptions = {}): DeviceArray<D> {
    this.check('clone');
    const device = opts.device === undefined ? this.device : getDevice(opts.device);
    if (device !== this.device) throw new DeviceError('E_DEVICE', `clone: the array is on device '${this.device.name ?? this.device.kind}', not '${device.name ?? device.kind}' (use to() to copy between devices)`);
    if (!this.contiguous) throw new DeviceError('E_ARG', 'clone: the array must be contiguous');
    const out = DeviceArray.empty(this.shape, this.dtype, { device });
    void out.copyFrom(this, opts.stream ? { stream: opts.stream } : {});
    return out;
  }

  // ---- views (no copies) ----

  /** The same elements with another shape (contiguous arrays only). */
  reshape(shape: readonly number[]): DeviceArray<D> {
    return this.#reshapedTo(shape, 'reshape');
  }

  /**
   * A view of a part: one entry per leading dim, each a [start, end) pair, an index (the dim is
   * dropped), or null (all of it). Negative bounds count from the end.
   */
  slice(...ranges: (readonly [number, number] | number | null)[]): DeviceArray<D> {
    if (ranges.length > this.shape.length) throw new DeviceError('E_ARG', `slice: ${ranges.length} ranges for a ${this.shape.length}-d array`);
    const shape: number[] = [];
    const strides: number[] = [];
    let offset = this.offset;
    this.shape.forEach((n, d) => {
      const r = ranges[d];
      const norm = (x: number) => (x < 0 ? x + n : x);
      if (typeof r === 'number') {
        const i = norm(r);
        if (!Number.isInteger(i) || i < 0 || i >= n) throw new DeviceError('E_ARG', `slice: index ${r} is out of range for dim ${d} of size ${n}`);
        offset += i * this.strides[d]! * this.itemBytes;
        return;
      }
      const [s, e] = r ? [norm(r[0]), norm(r[1])] : [0, n];
      if (!Number.isInteger(s) || !Number.isInteger(e) || s < 0 || e > n || s > e) {
        throw new DeviceError('E_ARG', `slice: range [${String(r?.[0])}, ${String(r?.[1])}) is out of range for dim ${d} of size ${n}`);
      }
      offset += s * this.strides[d]! * this.itemBytes;
      shape.push(e - s);
      strides.push(this.strides[d]!);
    });
    return new DeviceArray(this.storage, this.dtype, shape, strides, offset);
  }

  /** A view with the dims permuted (default: reversed); its strides say how to index it. */
  transpose(perm?: readonly number[]): DeviceArray<D> {
    const p = perm ?? this.shape.map((_, i) => this.shape.length - 1 - i);
    if (p.length !== this.shape.length || [...p].sort((a, b) => a - b).some((v, i) => v !== i)) {
      throw new DeviceError('E_ARG', `transpose: ${JSON.stringify(perm)} is not a permutation of ${this.shape.length} dims`);
    }
    return new DeviceArray(this.storage, this.dtype, p.map((i) => this.shape[i]!), p.map((i) => this.strides[i]!), this.offset);
  }

  /**
   * Frees the storage (shared with every view of it). Work already queued on it still sees it:
   * the release waits for that work. Using the array afterwards is an E_FREED error.
   */
  free(): void {
    this.storage.requestFree();
  }

  toString(): string {
    return `DeviceArray(${describeShape(this.dtype, this.shape)} on ${this.device.kind})`;
  }

  #reshapedTo(shape: readonly number[] | undefined, what: string): DeviceArray<D> {
    if (shape === undefined) return this;
    const sh = checkShape(shape, what);
    if (numel(sh) !== this.size) throw new DeviceError('E_ARG', `${what}: shape [${sh.join(', ')}] does not match ${this.size} elements`);
    if (!this.contiguous) throw new DeviceError('E_ARG', `${what}: only a contiguous array can be reshaped`);
    return new DeviceArray(this.storage, this.dtype, sh, rowMajor(sh), this.offset);
  }

  /** Keeps this storage alive for `done`, and returns it as a future. */
  #track(done: Future<void>): Future<void> {
    holdUntil([this.storage], done);
    return done;
  }

  /** Byte range [lo, hi) relative to `offset` that the view touches. */
  #span(): [number, number] {
    if (this.size === 0) return [0, 0];
    let lo = 0;
    let hi = 0;
    this.shape.forEach((n, d) => {
      const step = this.strides[d]! * (n - 1);
      if (step < 0) lo += step;
      else hi += step;
    });
    return [lo * this.itemBytes, (hi + 1) * this.itemBytes];
  }

  #gather(bytes: Uint8Array, lo: number): ArrayTypes[D] {
    const C = arrayCtorFor(this.dtype);
    const src = new C(bytes.buffer as ArrayBuffer, 0, bytes.byteLength / this.itemBytes);
    if (this.contiguous) return src as ArrayTypes[D];
    const out = new C(this.size);
    const base = -lo / this.itemBytes;
    const idx = new Array<number>(this.shape.length).fill(0);
    for (let k = 0; k < this.size; k++) {
      let at = base;
      for (let d = 0; d < idx.length; d++) at += idx[d]! * this.strides[d]!;
      (out as unknown as { [i: number]: number | bigint })[k] = (src as unknown as { [i: number]: number | bigint })[at]!;
      for (let d = idx.length - 1; d >= 0; d--) {
        if (++idx[d]! < this.shape[d]!) break;
        idx[d] = 0;
      }
    }
    return out as ArrayTypes[D];
  }
}


/** A DeviceArray argument must be usable and of this device; the error names the parameter. */
export function checkArray(a: DeviceArray, device: Device, func: Func, i: number): void {
  const what = `kernel '${func.name}', parameter '${func.params[i]?.name ?? i}'`;
  if (a.device !== device) throw new DeviceError('E_DEVICE', `${what}: the array is on device '${a.device.name ?? a.device.kind}', the launch on '${device.name ?? device.kind}'`);
  a.check(what);
}
