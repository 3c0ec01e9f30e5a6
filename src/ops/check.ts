// Argument checks shared by every op (src/ops): arrays are DeviceArrays, live, row-major, on one
// device, of the ranks, shapes and dtypes the op takes. Everything is checked before anything is
// queued, and a failure is an OpsError naming the op and the argument.
import { TesseraError } from '../ir/errors.js';
import type { DType } from '../ir/types.js';
import { DeviceError, type Device, type Stream } from '../runtime/device.js';
import { DeviceArray } from '../runtime/device_array.js';

export type OpsErrorCode = 'E_OPS_SHAPE' | 'E_OPS_DTYPE' | 'E_OPS_DEVICE' | 'E_OPS_ARG';

/** A bad argument to an op, found before anything ran. `op` and `arg` name what was wrong. */
export class OpsError extends TesseraError {
  readonly op: string;
  readonly arg: string;
  constructor(code: OpsErrorCode, op: string, arg: string, detail: string) {
    super(code, `ops.${op}: ${arg}: ${detail}`);
    this.op = op;
    this.arg = arg;
  }
}

/** Options every op takes. */
export interface OpOptions {
  /** Where to queue the work (a stream of the arrays' device; default: its default stream). */
  readonly stream?: Stream;
}

/** The float dtypes every op takes (fp8 only where an op says so). */
export const FLOATS: readonly DType[] = ['f32', 'f16', 'bf16'];

const shapeText = (s: readonly number[]): string => `[${s.join(', ')}]`;

/** Checks one array argument: a live, contiguous DeviceArray of `rank` (and the given dims, null = any) and one of `dtypes`. */
export function checkArray(op: string, arg: string, x: unknown, rank: number, dtypes: readonly DType[], dims?: readonly (number | null)[]): DeviceArray {
  if (!(x instanceof DeviceArray)) throw new OpsError('E_OPS_ARG', op, arg, `expected a DeviceArray, got ${describe(x)}`);
  try {
    x.check(`ops.${op}: ${arg}`);
  } catch (e) {
    if (e instanceof DeviceError) throw new OpsError('E_OPS_ARG', op, arg, e.message);
    throw e;
  }
  if (x.shape.length !== rank) throw new OpsError('E_OPS_SHAPE', op, arg, `expected rank ${rank}, got shape ${shapeText(x.shape)}`);
  if (!x.contiguous) throw new OpsError('E_OPS_SHAPE', op, arg, `expected a contiguous (row-major) array, got a strided view of shape ${shapeText(x.shape)}`);
  if (!dtypes.includes(x.dtype)) throw new OpsError('E_OPS_DTYPE', op, arg, `expected ${dtypes.join(' or ')}, got ${x.dtype}`);
  if (dims) {
    dims.forEach((d, i) => {
      if (d !== null && x.shape[i] !== d) {
        throw new OpsError('E_OPS_SHAPE', op, arg, `expected shape ${shapeText(dims.map((v) => v ?? '*') as number[])}, got ${shapeText(x.shape)}`);
      }
    });
  }
  return x;
}

/** Every array on one device (the first one's); returns that device. */
export function sameDevice(op: string, arrays: Readonly<Record<string, DeviceArray | undefined | null>>): Device {
  let first: [string, Device] | undefined;
  for (const [name, a] of Object.entries(arrays)) {
    if (!a) continue;
    if (!first) first = [name, a.device];
    else if (a.device !== first[1]) {
      throw new OpsError('E_OPS_DEVICE', op, name, `is on device '${deviceName(a.device)}', ${first[0]} on '${deviceName(first[1])}' (every array of one op must be on one device)`);
    }
  }
  if (!first) throw new OpsError('E_OPS_ARG', op, 'arguments', 'no array given');
  return first[1];
}

/** Checks `out` (when given) against the result's shape and dtype, else allocates the result on `device`. */
export function outArray(op: string, out: unknown, shape: readonly number[], dtype: DType, device: Device): DeviceArray {
  if (out === undefined) return DeviceArray.empty(shape, dtype, { device });
  const o = checkArray(op, 'out', out, shape.length, [dtype], shape);
  if (o.device !== device) throw new OpsError('E_OPS_DEVICE', op, 'out', `is on device '${deviceName(o.device)}', the inputs on '${deviceName(device)}'`);
  return o;
}

/** A positive integer option (or argument). */
export function checkInt(op: string, arg: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new OpsError('E_OPS_ARG', op, arg, `expected an integer in ${min}..${max === Number.MAX_SAFE_INTEGER ? 'inf' : max}, got ${describe(v)}`);
  }
  return v;
}

/** A finite number option. */
export function checkNumber(op: string, arg: string, v: unknown, ok: (n: number) => boolean = () => true, want = 'a finite number'): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new OpsError('E_OPS_ARG', op, arg, `expected ${want}, got ${describe(v)}`);
  return v;
}

/** Rejects option names the op does not know (a typo is an error, not a silent default). */
export function checkOptions(op: string, opts: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null) throw new OpsError('E_OPS_ARG', op, 'options', `expected an object, got ${describe(opts)}`);
  for (const k of Object.keys(opts)) {
    if (!allowed.includes(k)) throw new OpsError('E_OPS_ARG', op, 'options', `unknown option '${k}' (allowed: ${allowed.join(', ')})`);
  }
  return opts as Record<string, unknown>;
}

export const deviceName = (d: Device): string => d.name ?? d.kind;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v instanceof DeviceArray) return `a DeviceArray ${v.dtype}${shapeText(v.shape)}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  if (typeof v === 'object') return `an object (${(v as object).constructor?.name ?? 'Object'})`;
  return `${typeof v} ${String(v)}`;
}
