// Packs kernel arguments into the parameter buffer cuLaunchKernel reads, at the offsets and
// sizes the compiler's metadata gives (`params: [{ name, type, offset, size }]`).
import { bf16Bits, f16Bits } from '../../ir/half.js';
import { NativeDeviceError } from './errors.js';

export interface ParamSpec {
  readonly name: string;
  /** An element type ('f32', 'i32', 'bool', ...) or a pointer ('ptr<f32>', or plain 'ptr'). */
  readonly type: string;
  readonly offset: number;
  readonly size: number;
}

/** Anything with a device address (a NativeDevice buffer), a raw address, or a scalar. */
export type KernelArg = { readonly address: bigint } | bigint | number | boolean;

export interface PackedParams {
  readonly bytes: Uint8Array;
  /** Byte offset of each parameter, in order (for cuLaunchKernel's kernelParams form). */
  readonly offsets: readonly number[];
}

const SCALAR_SIZE: Readonly<Record<string, number>> = {
  f64: 8, f32: 4, f16: 2, bf16: 2, i64: 8, u64: 8, i32: 4, u32: 4, i16: 2, u16: 2, i8: 1, u8: 1,
};

const INT_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  i32: [-2147483648, 2147483647], u32: [0, 4294967295], i16: [-32768, 32767], u16: [0, 65535],
  i8: [-128, 127], u8: [0, 255],
};

const isPointerType = (t: string): boolean => t === 'ptr' || t.startsWith('ptr<');

function fail(kernel: string, p: ParamSpec, what: string): never {
  throw new NativeDeviceError('E_PARAM', `kernel '${kernel}', parameter '${p.name}' (${p.type}): ${what}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'object';
  return `${typeof v} ${String(v)}`;
}

// Types narrower than 32 bits may also be passed widened to 4 bytes (the compiler declares them
// `.u32`); they are then written sign- or zero-extended.
const WIDENABLE = new Set(['i16', 'u16', 'i8', 'u8', 'bool']);

/** Checks one parameter's offset and size against its type. */
export function checkSpec(kernel: string, p: ParamSpec): void {
  if (!Number.isInteger(p.offset) || p.offset < 0) fail(kernel, p, `bad offset ${p.offset}`);
  const natural = isPointerType(p.type) ? 8 : p.type === 'bool' ? 1 : SCALAR_SIZE[p.type];
  if (natural === undefined) fail(kernel, p, 'unknown parameter type');
  if (p.size !== natural && !(p.size === 4 && WIDENABLE.has(p.type))) {
    fail(kernel, p, `size ${p.size} does not match the type (${natural} bytes${WIDENABLE.has(p.type) ? ' or 4' : ''})`);
  }
  if (p.offset % p.size !== 0) fail(kernel, p, `offset ${p.offset} is not aligned to ${p.size}`);
}

function toAddress(kernel: string, p: ParamSpec, v: unknown): bigint {
  const a = typeof v === 'bigint' ? v : typeof v === 'object' && v !== null && 'address' in v ? (v as { address: unknown }).address : undefined;
  if (typeof a !== 'bigint') fail(kernel, p, `expected a device buffer or bigint address, got ${describe(v)}`);
  if (a < 0n || a >= 1n << 64n) fail(kernel, p, `address ${a} is outside the 64-bit range`);
  return a;
}

/** Writes one argument at its offset, after checking it fits the parameter's type. */
export function writeParam(kernel: string, view: DataView, p: ParamSpec, v: unknown): void {
  const o = p.offset;
  if (isPointerType(p.type)) {
    view.setBigUint64(o, toAddress(kernel, p, v), true);
    return;
  }
  if (p.type === 'bool') {
    if (typeof v !== 'boolean' && v !== 0 && v !== 1) fail(kernel, p, `expected a boolean, got ${describe(v)}`);
    const bit = v === true || v === 1 ? 1 : 0;
    if (p.size === 1) view.setUint8(o, bit);
    else view.setUint32(o, bit, true);
    return;
  }
  if (p.type === 'i64' || p.type === 'u64') {
    let b: bigint;
    if (typeof v === 'bigint') b = v;
    else if (typeof v === 'number' && Number.isSafeInteger(v)) b = BigInt(v);
    else fail(kernel, p, `expected an integer (number or bigint), got ${describe(v)}`);
    const [lo, hi] = p.type === 'i64' ? [-(1n << 63n), (1n << 63n) - 1n] : [0n, (1n << 64n) - 1n];
    if (b < lo || b > hi) fail(kernel, p, `${b} is out of range`);
    if (p.type === 'i64') view.setBigInt64(o, b, true);
    else view.setBigUint64(o, b, true);
    return;
  }
  if (typeof v !== 'number') fail(kernel, p, `expected a number, got ${describe(v)}`);
  const range = INT_RANGE[p.type];
  if (range) {
    if (!Number.isInteger(v) || v < range[0] || v > range[1]) fail(kernel, p, `${v} is not an integer in [${range[0]}, ${range[1]}]`);
    if (p.size === 4) {
      if (range[0] < 0) view.setInt32(o, v, true);
      else view.setUint32(o, v, true);
      return;
    }
    switch (p.type) {
      case 'i16': view.setInt16(o, v, true); return;
      case 'u16': view.setUint16(o, v, true); return;
      case 'i8': view.setInt8(o, v); return;
      default: view.setUint8(o, v); return;
    }
  }
  switch (p.type) {
    case 'f64': view.setFloat64(o, v, true); return;
    case 'f32': view.setFloat32(o, v, true); return;
    case 'f16': view.setUint16(o, f16Bits(v), true); return;
    case 'bf16': view.setUint16(o, bf16Bits(v), true); return;
  }
  fail(kernel, p, 'unknown parameter type');
}

/**
 * Packs `args` (positional, or by parameter name) for `kernel`. Every parameter must be given
 * exactly once; nothing is packed if any argument is wrong.
 */
export function packParams(
  kernel: string,
  params: readonly ParamSpec[],
  args: readonly unknown[] | Readonly<Record<string, unknown>>,
): PackedParams {
  let values: unknown[];
  if (Array.isArray(args)) {
    if (args.length !== params.length) {
      throw new NativeDeviceError('E_PARAM', `kernel '${kernel}': expected ${params.length} arguments (${params.map((p) => p.name).join(', ')}), got ${args.length}`);
    }
    values = args;
  } else {
    const named = args as Readonly<Record<string, unknown>>;
    const known = new Set(params.map((p) => p.name));
    const extra = Object.keys(named).filter((k) => !known.has(k));
    if (extra.length) throw new NativeDeviceError('E_PARAM', `kernel '${kernel}': unknown arguments ${extra.join(', ')}`);
    values = params.map((p) => {
      if (!(p.name in named)) throw new NativeDeviceError('E_PARAM', `kernel '${kernel}': missing argument '${p.name}'`);
      return named[p.name];
    });
  }
  let size = 0;
  for (const p of params) {
    checkSpec(kernel, p);
    size = Math.max(size, p.offset + p.size);
  }
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  params.forEach((p, i) => writeParam(kernel, view, p, values[i]));
  return { bytes, offsets: params.map((p) => p.offset) };
}
