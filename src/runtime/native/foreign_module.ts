// The low-level launch API for PTX and cubins that Tessera did not produce (nvcc, Triton, hand
// written): load a module on a `cuda` or `sim` device, get a function, launch it with any grid,
// block, dynamic shared memory and stream. Argument offsets come from the signature (read from
// the PTX `.entry`, or given for a cubin), never from the caller; each function keeps one launch
// plan (a reused parameter buffer), so a launch allocates nothing on the native side.
//
//   const mod = device.loadModule(ptxText);
//   const saxpy = mod.getFunction('saxpy');
//   await saxpy.launch({ grid: cdiv(n, 256), block: 256, args: [x, y, 2.5, n] });
import { DeviceError, getDevice, type Device, type DeviceKind, type DeviceName, type SanitizeCheck, type Stream } from '../device.js';
import { DeviceArray, type Storage } from '../device_array.js';
import { future, rejected, type Future } from '../future.js';
import { bf16Bits, f16Bits } from '../../ir/half.js';
import type { FunctionHandle, LaunchPlan, ModuleHandle } from './addon.js';
import { NativeDeviceError, native, rethrow } from './errors.js';
import { leadWithSource } from './fault_source.js';
import { explicitSignature, isBinaryImage, layout, ptxEntries, type ForeignParam, type ParamDecl } from './ptx_signature.js';
import type { NativeContext, NativeRuntimeDevice } from './runtime-device.js';

export type Dim = number | readonly number[];

export interface ForeignLaunchOptions {
  /** Blocks along x, or [x, y?, z?]. */
  readonly grid: Dim;
  /** Threads per block along x, or [x, y?, z?]. */
  readonly block: Dim;
  /** Dynamic shared memory in bytes (default 0). */
  readonly sharedBytes?: number;
  readonly stream?: Stream;
  /** In parameter order, or by the parameter names of the signature. */
  readonly args: readonly unknown[] | Readonly<Record<string, unknown>>;
  /** The sim's sanitizers for this launch (default: the device's setSanitize). */
  readonly sanitize?: readonly SanitizeCheck[];
}

/** Attributes the driver reports for a function (the addon's handle fields, less its name). */
export type FunctionAttributes = Omit<FunctionHandle, 'name'>;

const fail = (code: string, msg: string): never => {
  throw new NativeDeviceError(code, msg);
};

const describe = (v: unknown): string =>
  v === null ? 'null' : v instanceof DeviceArray ? `DeviceArray(${v.dtype})` : typeof v === 'object' ? (v as object).constructor?.name ?? 'object' : `${typeof v} ${String(v)}`;

const GRID_MAX = [0x7fffffff, 65535, 65535] as const;
const BLOCK_MAX = [1024, 1024, 64] as const;
const ONE: readonly number[] = [];

/** Writes the 3 dimensions of `v` into out[at..at+2] (checked; the hot path allocates nothing). */
function dims(v: Dim, out: Uint32Array, at: number, kernel: string, what: string, max: readonly [number, number, number]): void {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max[0]) {
    out[at] = v;
    out[at + 1] = 1;
    out[at + 2] = 1;
    return;
  }
  const d = dim3(v, `kernel '${kernel}': ${what}`, max);
  out[at] = d[0];
  out[at + 1] = d[1];
  out[at + 2] = d[2];
}

function dim3(v: Dim, what: string, max: readonly [number, number, number]): [number, number, number] {
  const a = typeof v === 'number' ? [v] : v ?? ONE;
  if (!Array.isArray(a) || a.length < 1 || a.length > 3) return fail('E_RANGE', `${what} must be a number or 1 to 3 numbers, got ${JSON.stringify(v)}`);
  const d: [number, number, number] = [a[0] as number, (a[1] ?? 1) as number, (a[2] ?? 1) as number];
  d.forEach((x, i) => {
    if (!Number.isInteger(x) || x < 1 || x > max[i]!) fail('E_RANGE', `${what}.${'xyz'[i]} must be an integer in [1, ${max[i]}], got ${JSON.stringify(a[i])}`);
  });
  return d;
}

/** A module loaded on one context of a native device. */
export class ForeignModule {
  readonly #functions = new Map<string, ForeignFunction>();
  #unloaded = false;

  /** @internal */
  constructor(
    readonly device: NativeRuntimeDevice,
    /** @internal */ readonly ctx: NativeContext,
    /** @internal */ readonly handle: ModuleHandle,
    /** Entry signatures read from the PTX text; empty for a binary image. */
    readonly entries: ReadonlyMap<string, readonly ForeignParam[]>,
    readonly isPtx: boolean,
    /** @internal The PTX text (its .loc lines put source locations into fault and hazard reports). */
    readonly ptx?: string,
  ) {}

  /** The JIT/loader log of the driver (ptxas-style info lines, for PTX on a real GPU). */
  get infoLog(): string { return this.handle.infoLog; }

  /** @internal False once unloaded or its context is gone (check() then says why). */
  get usable(): boolean { return !this.#unloaded && this.ctx.token.usable; }

  /** @internal Throws if the module cannot be used any more. */
  check(what: string): void {
    if (this.#unloaded) fail('E_FREED', `${what}: the module was unloaded`);
    this.ctx.token.check(`${what} (its module was loaded on that context; load it again)`);
  }

  /**
   * The kernel `name`. For PTX the signature is read from the module's `.entry` (a given one must
   * agree with it); a cubin needs one: e.g. ['ptr', 'ptr', 'f32', 'i32'].
   */
  getFunction(name: string, signature?: readonly ParamDecl[]): ForeignFunction {
    this.check(`getFunction('${name}')`);
    if (typeof name !== 'string' || name === '') fail('E_ARG', `getFunction: expected a kernel name, got ${JSON.stringify(name)}`);
    const cached = this.#functions.get(name);
    if (cached && signature === undefined) return cached;
    let params: ForeignParam[];
    const parsed = this.entries.get(name);
    if (this.isPtx && !parsed) {
      fail('E_NOT_FOUND', `getFunction: the module has no kernel '${name}' (its .entry kernels: ${[...this.entries.keys()].join(', ') || 'none'})`);
    }
    if (signature !== undefined) {
      params = explicitSignature(name, signature);
      if (parsed) {
        if (parsed.length !== params.length) fail('E_ARG', `kernel '${name}': the signature has ${params.length} parameters, the PTX ${parsed.length}`);
        parsed.forEach((p, i) => {
          const q = params[i]!;
          if (p.size !== q.size) fail('E_ARG', `kernel '${name}', parameter ${i} ('${p.name}'): the signature says ${q.type} (${q.size} bytes), the PTX ${p.type} (${p.size} bytes)`);
        });
        // keep the PTX names (the caller's types, the PTX's layout)
        params = layout(params.map((q, i) => ({ name: parsed[i]!.name, type: q.type, size: q.size, align: Math.max(q.align, parsed[i]!.align) }))).params;
      }
    } else if (parsed) {
      params = parsed.slice();
    } else {
      return fail('E_ARG', `getFunction('${name}'): a cubin carries no signature here; pass one, e.g. getFunction('${name}', ['ptr', 'i32'])`);
    }
    const fn = native(() => this.ctx.native.driver.getFunction(this.handle, name), `kernel '${name}'`);
    const f = new ForeignFunction(this, name, fn, params);
    if (signature === undefined) this.#functions.set(name, f);
    return f;
  }

  /** Unloads once the work queued so far on the device is done; its functions refuse new launches at once. */
  unload(): Future<void> {
    if (this.#unloaded) return rejected(new NativeDeviceError('E_FREED', 'unload: the module was already unloaded'));
    this.#unloaded = true;
    return future(Promise.resolve(this.device.synchronize()).then(() => {
      if (this.ctx.token.usable) native(() => this.ctx.native.driver.moduleUnload(this.handle), 'unload');
    }));
  }
}

/** One kernel of a ForeignModule, with its signature and a reused launch plan. */
export class ForeignFunction {
  readonly params: readonly ForeignParam[];
  readonly attributes: FunctionAttributes;
  readonly #plan: LaunchPlan;
  readonly #view: DataView;
  readonly #byName: ReadonlyMap<string, number>;
  readonly #dims = new Uint32Array(6);
  #sharedLimitSet = 0;

  /** @internal */
  constructor(readonly module: ForeignModule, readonly name: string, readonly handle: FunctionHandle, params: readonly ForeignParam[]) {
    this.params = params;
    const bytes = params.reduce((m, p) => Math.max(m, p.offset + p.size), 0);
    this.#plan = native(() => module.ctx.native.driver.createLaunchPlan(handle, params.map((p) => p.offset), Math.max(bytes, 1)), `kernel '${name}'`);
    this.#view = new DataView(this.#plan.params.buffer, this.#plan.params.byteOffset, this.#plan.params.byteLength);
    this.#byName = new Map(params.map((p, i) => [p.name, i]));
    const h = handle;
    this.attributes = {
      numRegs: h.numRegs, sharedBytes: h.sharedBytes, constBytes: h.constBytes, localBytes: h.localBytes,
      maxThreadsPerBlock: h.maxThreadsPerBlock, ptxVersion: h.ptxVersion, binaryVersion: h.binaryVersion,
    };
  }

  get device(): NativeRuntimeDevice { return this.module.device; }

  /**
   * Queues the kernel and returns a future that settles when it is done. Everything is checked
   * before anything is queued; DeviceArrays passed are held until the kernel completes.
   */
  launch(opts: ForeignLaunchOptions): Future<void> {
    const dev = this.module.device;
    const mod = this.module;
    try {
      if (typeof opts !== 'object' || opts === null) fail('E_ARG', `kernel '${this.name}': launch expects { grid, block, args, sharedBytes?, stream? }`);
      if (!mod.usable) mod.check(`kernel '${this.name}'`);
      const ctx = mod.ctx;
      const info = ctx.native.info;
      const d = this.#dims;
      dims(opts.grid, d, 0, this.name, 'grid', GRID_MAX);
      dims(opts.block, d, 3, this.name, 'block', BLOCK_MAX);
      const threads = d[3]! * d[4]! * d[5]!;
      if (threads > this.attributes.maxThreadsPerBlock) {
        fail('E_RANGE', `kernel '${this.name}': block has ${threads} threads; this function allows at most ${this.attributes.maxThreadsPerBlock}`);
      }
      const shared = opts.sharedBytes ?? 0;
      if (!Number.isInteger(shared) || shared < 0) fail('E_RANGE', `kernel '${this.name}': sharedBytes must be a non-negative integer, got ${JSON.stringify(opts.sharedBytes)}`);
      if (shared + this.attributes.sharedBytes > info.maxSharedOptin) {
        fail('E_RANGE', `kernel '${this.name}': ${shared} bytes of dynamic shared memory + ${this.attributes.sharedBytes} static exceed the device's ${info.maxSharedOptin}`);
      }
      const values = this.#values(opts.args);
      const storages = this.#write(values);
      const stream = dev.streamOf(opts.stream).on(ctx);
      if (shared > info.maxSharedPerBlock - this.attributes.sharedBytes && shared > this.#sharedLimitSet) {
        native(() => ctx.native.driver.setMaxDynamicShared(this.handle, shared), `kernel '${this.name}'`);
        this.#sharedLimitSet = shared;
      }
      dev.applySanitize(ctx, opts.sanitize, this.name);
      try {
        this.#plan.launch(d[0]!, d[1]!, d[2]!, d[3]!, d[4]!, d[5]!, shared, stream.handle);
      } catch (e) {
        rethrow(e, `kernel '${this.name}'`);
      }
      const ptx = mod.ptx;
      const name = this.name;
      return ctx.completion(stream).after(storages, ptx === undefined ? undefined : (e: unknown) => {
        // a report naming this kernel gets the source lines of its PTX's .loc directives
        if (e instanceof Error && e.message.includes(`kernel '${name}'`) && !(e as { located?: boolean }).located) {
          e.message = leadWithSource(e.message, ptx).message;
          (e as { located?: boolean }).located = true;
        }
      });
    } catch (e) {
      return dev.failed(e);
    }
  }

  #values(args: ForeignLaunchOptions['args']): readonly unknown[] {
    const ps = this.params;
    if (Array.isArray(args)) {
      if (args.length !== ps.length) {
        fail('E_PARAM', `kernel '${this.name}': expected ${ps.length} arguments (${ps.map((p) => `${p.name}: ${p.type}`).join(', ')}), got ${args.length}`);
      }
      return args;
    }
    if (typeof args !== 'object' || args === null) return fail('E_PARAM', `kernel '${this.name}': args must be an array or an object keyed by parameter name`);
    const named = args as Readonly<Record<string, unknown>>;
    for (const k of Object.keys(named)) if (!this.#byName.has(k)) fail('E_PARAM', `kernel '${this.name}': no parameter '${k}' (parameters: ${ps.map((p) => p.name).join(', ')})`);
    return ps.map((p) => {
      if (!(p.name in named)) fail('E_PARAM', `kernel '${this.name}': missing argument '${p.name}'`);
      return named[p.name];
    });
  }

  /** Checks every value first, then writes them all: a bad argument leaves the buffer untouched. */
  #write(values: readonly unknown[]): Storage[] | undefined {
    const ps = this.params;
    let storages: Storage[] | undefined;
    for (let i = 0; i < ps.length; i++) {
      const v = values[i];
      if (v instanceof DeviceArray) {
        (storages ??= []).push(this.#checkArray(ps[i]!, v));
      } else {
        checkValue(this.name, ps[i]!, v);
      }
    }
    const view = this.#view;
    for (let i = 0; i < ps.length; i++) writeValue(view, ps[i]!, values[i]);
    return storages;
  }

  #checkArray(p: ForeignParam, a: DeviceArray): Storage {
    const s = a.storage;
    // the common case is checked without building a message
    if ((p.type === 'ptr' || p.type === 'u64') && s.device === this.module.device && !s.freed && s.raw.context.usable) return s;
    const what = `kernel '${this.name}', parameter '${p.name}'`;
    if (p.type !== 'ptr' && p.type !== 'u64' && p.type !== 'i64') fail('E_PARAM', `${what} (${p.type}): a DeviceArray goes only to a 64-bit (pointer) parameter`);
    if (a.device !== this.module.device) throw new DeviceError('E_DEVICE', `${what}: the array is on device '${a.device.name ?? a.device.kind}', the kernel on '${this.module.device.name ?? this.module.device.kind}'`);
    a.check(what);
    return s;
  }
}

const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  u32: [0, 2 ** 32 - 1], i32: [-(2 ** 31), 2 ** 31 - 1], u16: [0, 65535], i16: [-32768, 32767], u8: [0, 255], i8: [-128, 127],
};

const I64 = [-(1n << 63n), (1n << 63n) - 1n] as const;
const U64 = [0n, (1n << 64n) - 1n] as const;

function checkValue(kernel: string, p: ForeignParam, v: unknown): void {
  const bad = (want: string): never => fail('E_PARAM', `kernel '${kernel}', parameter '${p.name}' (${p.type}): expected ${want}, got ${describe(v)}`);
  switch (p.type) {
    case 'ptr': case 'u64': case 'i64': {
      if (typeof v === 'number') {
        if (!Number.isSafeInteger(v) || (v < 0 && p.type !== 'i64')) bad(p.type === 'i64' ? 'a bigint or a safe integer' : 'a DeviceArray, a bigint or a non-negative safe integer');
        return;
      }
      if (typeof v !== 'bigint') bad(p.type === 'ptr' ? 'a DeviceArray or a bigint address' : 'a bigint or an integer');
      const [lo, hi] = p.type === 'i64' ? I64 : U64;
      if ((v as bigint) < lo || (v as bigint) > hi) bad(`a value in [${lo}, ${hi}]`);
      return;
    }
    case 'f64': case 'f32': case 'f16': case 'bf16':
      if (typeof v !== 'number') bad('a number');
      return;
    case 'bytes':
      if (!ArrayBuffer.isView(v) || v.byteLength !== p.size) bad(`a TypedArray or DataView of exactly ${p.size} bytes`);
      return;
    default: {
      const r = INT_RANGES[p.type]!;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < r[0] || v > r[1]) bad(`an integer in [${r[0]}, ${r[1]}]`);
    }
  }
}

function writeValue(view: DataView, p: ForeignParam, v: unknown): void {
  const o = p.offset;
  if (v instanceof DeviceArray) {
    view.setBigUint64(o, BigInt(v.address), true);
    return;
  }
  switch (p.type) {
    case 'ptr': case 'u64': case 'i64':
      if (typeof v === 'number') {
        // a safe integer, split into 32-bit halves (two's complement for negatives) without a BigInt
        view.setUint32(o, v >>> 0, true);
        view.setInt32(o + 4, Math.floor(v / 4294967296), true);
      } else if (p.type === 'i64') view.setBigInt64(o, v as bigint, true);
      else view.setBigUint64(o, v as bigint, true);
      return;
    case 'u32': view.setUint32(o, v as number, true); return;
    case 'i32': view.setInt32(o, v as number, true); return;
    case 'u16': view.setUint16(o, v as number, true); return;
    case 'i16': view.setInt16(o, v as number, true); return;
    case 'u8': view.setUint8(o, v as number); return;
    case 'i8': view.setInt8(o, v as number); return;
    case 'f64': view.setFloat64(o, v as number, true); return;
    case 'f32': view.setFloat32(o, v as number, true); return;
    case 'f16': view.setUint16(o, f16Bits(v as number), true); return;
    case 'bf16': view.setUint16(o, bf16Bits(v as number), true); return;
    case 'bytes': {
      const src = v as ArrayBufferView;
      new Uint8Array(view.buffer, view.byteOffset + o, p.size).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    }
  }
}

/** Loads `image` (PTX text, or cubin/fatbin bytes) on the device's current context. */
export function loadForeignModule(device: NativeRuntimeDevice, image: string | Uint8Array): ForeignModule {
  const ctx = device.context();
  if (typeof image === 'string') {
    if (!/\.entry\s/.test(image)) fail('E_ARG', 'loadModule: the text has no .entry kernel; expected PTX');
    const entries = ptxEntries(image);
    const handle = native(() => ctx.native.driver.moduleLoadData(image), 'loadModule');
    return new ForeignModule(device, ctx, handle, entries, true, image);
  }
  if (!(image instanceof Uint8Array)) return fail('E_ARG', `loadModule: expected PTX text or cubin bytes (Uint8Array), got ${describe(image)}`);
  const binary = isBinaryImage(image);
  if (!binary) return loadForeignModule(device, new TextDecoder().decode(image).replace(/\0+$/, ''));
  try {
    const handle = native(() => ctx.native.driver.moduleLoadData(image), 'loadModule');
    return new ForeignModule(device, ctx, handle, new Map(), false);
  } catch (e) {
    if (device.kind === 'sim' && e instanceof NativeDeviceError) {
      throw new NativeDeviceError(e.code, `loadModule: the sim runs PTX text only and refused this ${image[0] === 0x7f ? 'cubin' : 'fatbinary'} (${e.code}); load the PTX instead`, { cause: e });
    }
    throw e;
  }
}

/**
 * Loads a module that Tessera did not compile on `device` (default: the default device, which
 * must be `cuda` or `sim`): PTX text, or cubin/fatbin bytes (the sim refuses those).
 */
export function loadModule(image: string | Uint8Array, opts: { device?: DeviceName | Device } = {}): ForeignModule {
  const device = getDevice(opts.device);
  const load = (device as { loadModule?: (image: string | Uint8Array) => ForeignModule }).loadModule;
  if (typeof load !== 'function') {
    throw new DeviceError('E_DEVICE', `loadModule: the ${device.kind} device cannot run PTX; use the 'sim' or 'cuda' device`);
  }
  return load.call(device, image);
}
