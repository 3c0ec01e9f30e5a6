// Device selection. A Device runs a traced Func over a grid with host arguments; the interpret
// device is built in, native ones (cuda, sim) register a provider when their addon is available.
// Order of the default choice: cuda, then sim, then interpret. The choice is printed once.
import type { Func } from '../ir/ops.js';
import { TesseraError } from '../lang/errors.js';
import { HostMemory, interpret } from '../interpret/index.js';

export type DeviceKind = 'cuda' | 'sim' | 'interpret';
export const DEVICE_KINDS: readonly DeviceKind[] = ['cuda', 'sim', 'interpret'];

/** A pointer argument (host data; copied to the device and back) or a scalar. */
export type LaunchArg = ArrayBufferView | number | bigint | boolean;

export interface LaunchOptions {
  /** (x, y, z) */
  readonly grid: readonly [number, number, number];
  readonly numWarps: number;
  readonly onPrint?: (line: string) => void;
}

export interface Device {
  readonly kind: DeviceKind;
  /** A line describing the device, printed when it is chosen. */
  readonly description: string;
  /**
   * Runs `func`. Pointer params receive the host arrays in `args`; the arrays are updated only if
   * the whole launch succeeds (a failing launch leaves every caller array untouched).
   */
  launch(func: Func, args: readonly LaunchArg[], opts: LaunchOptions): Promise<void>;
  /** Releases what the device holds (a native device's context); optional. */
  close?(): void;
}

export class DeviceError extends TesseraError {}

/** The interpreter as a device: host arrays are copied into a HostMemory, and back on success. */
export class InterpretDevice implements Device {
  readonly kind = 'interpret' as const;
  readonly description = 'interpret (tile IR executed in TypeScript on the CPU)';

  async launch(func: Func, args: readonly LaunchArg[], opts: LaunchOptions): Promise<void> {
    const mem = new HostMemory();
    // The same array object passed twice is one buffer (aliasing works as on a device).
    const addrOf = new Map<ArrayBufferView, number>();
    const scalars = args.map((a) => {
      if (!ArrayBuffer.isView(a)) return a;
      let addr = addrOf.get(a);
      if (addr === undefined) {
        addr = mem.upload(a);
        addrOf.set(a, addr);
      }
      return addr;
    });
    interpret(func, scalars, mem, { grid: [...opts.grid], ...(opts.onPrint ? { onPrint: opts.onPrint } : {}) });
    for (const [a, addr] of addrOf) mem.download(addr, a);
  }
}

/** Returns a native device of `kind`, or a reason it is not available. */
export type DeviceProvider = () => Device | { unavailable: string };

const providers = new Map<DeviceKind, DeviceProvider>([
  ['interpret', () => new InterpretDevice()],
]);

/** Lets a native device (cuda/sim) plug in; later registrations replace earlier ones. */
export function registerDeviceProvider(kind: Exclude<DeviceKind, 'interpret'>, provider: DeviceProvider): void {
  providers.set(kind, provider);
  // The device this replaces is retired: a native one releases its context.
  const old = cache.get(kind);
  if (old && 'close' in old && typeof old.close === 'function') old.close();
  cache.delete(kind);
  defaultDevice = undefined;
}

const NOT_BUILT: Record<Exclude<DeviceKind, 'interpret'>, string> = {
  cuda: 'the CUDA device needs the native addon, which is not available in this build',
  sim: 'the sim device needs the native addon and the simulator library, which are not available in this build',
};

const cache = new Map<DeviceKind, Device | { unavailable: string }>();
let defaultDevice: Device | undefined;
let announce: (line: string) => void = (line) => console.error(line);

/** Where the one-time "using device" line goes (default: stderr). */
export function setDeviceAnnouncer(fn: (line: string) => void): void {
  announce = fn;
}

function probe(kind: DeviceKind): Device | { unavailable: string } {
  let r = cache.get(kind);
  if (!r) {
    const p = providers.get(kind);
    try {
      r = p ? p() : { unavailable: NOT_BUILT[kind as Exclude<DeviceKind, 'interpret'>] };
    } catch (e) {
      r = { unavailable: e instanceof Error ? e.message : String(e) };
    }
    cache.set(kind, r);
  }
  return r;
}

function checkKind(kind: unknown, where: string): DeviceKind {
  if (typeof kind !== 'string' || !(DEVICE_KINDS as readonly string[]).includes(kind)) {
    throw new DeviceError('E_DEVICE', `${where}: unknown device ${JSON.stringify(kind)}; use one of ${DEVICE_KINDS.join(', ')}`);
  }
  return kind as DeviceKind;
}

/**
 * The device to run on: `requested` (an option) wins, then TESSERA_DEVICE, then the default
 * (cuda if available, else sim, else interpret). A requested device that is not available is an
 * E_DEVICE error, never a silent fallback.
 */
export function getDevice(requested?: DeviceKind | Device): Device {
  if (requested !== undefined && typeof requested === 'object') return requested;
  const env = process.env['TESSERA_DEVICE'];
  const kind = requested !== undefined ? checkKind(requested, 'device option') : env ? checkKind(env, 'TESSERA_DEVICE') : undefined;
  if (kind) {
    const r = probe(kind);
    if ('unavailable' in r) throw new DeviceError('E_DEVICE', `device '${kind}' is not available: ${r.unavailable}`);
    return r;
  }
  if (!defaultDevice) {
    const skipped: string[] = [];
    for (const k of DEVICE_KINDS) {
      const r = probe(k);
      if ('unavailable' in r) skipped.push(`${k}: ${r.unavailable}`);
      else {
        defaultDevice = r;
        break;
      }
    }
    announce(`tessera: using device ${defaultDevice!.description}${skipped.length ? ` [${skipped.join('; ')}]` : ''}`);
  }
  return defaultDevice!;
}
