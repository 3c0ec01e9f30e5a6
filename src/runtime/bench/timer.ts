// The timing seam of bench/autotune: one Timer per device. `cuda` and `sim` time with driver events
// recorded on the stream around the work; `interpret` has no events and times on the host clock.
// Every Timer says what it measures, so a sim or interpreter figure is never shown as a GPU time.
import type { Device, DeviceKind } from '../device.js';
import { NativeRuntimeDevice } from '../native/runtime-device.js';
import type { EventHandle } from '../native/addon.js';
import { Future } from '../future.js';

export type Clock = 'cuda-events' | 'sim-events' | 'host';

export interface Timer {
  readonly kind: DeviceKind;
  /** Which device timed it: kind and device name. */
  readonly device: string;
  readonly clock: Clock;
  /** true only for events of a real GPU. */
  readonly isGpuTime: boolean;
  /** A one-line note for reports, e.g. "sim: CPU simulation time, not a GPU time". */
  readonly label: string;
  /** Device name and driver version (part of the tuning cache key). */
  readonly identity: { readonly name: string; readonly driver: string };
  /**
   * Milliseconds taken by one `fn()` as this timer's clock sees it. When `fn` returns a runtime
   * `Future` (kernel.run, a copy) its work is already queued, and the end event is recorded right
   * behind it, before waiting, as Triton's do_bench does; for any other return (an async function,
   * whose work may be queued after its first await) the end event is recorded once it settles, so
   * the figure then includes the host's completion latency.
   */
  time(fn: () => unknown): Promise<number>;
  /** Writes a buffer larger than the L2 so the next run starts with a cold cache (no-op on interpret). */
  flushL2(): void;
  close(): void;
}

/** Bytes written per flush: above every current NVIDIA L2 (H100: 50 MiB, B200: 126 MiB). */
const CUDA_FLUSH_BYTES = 256 * 2 ** 20;
/** The sim models no cache; a small buffer still runs the flush path. */
const SIM_FLUSH_BYTES = 1 * 2 ** 20;

export function timerFor(device: Device): Timer {
  if (device instanceof NativeRuntimeDevice) return new EventTimer(device);
  return new HostTimer(device);
}

class EventTimer implements Timer {
  readonly kind: DeviceKind;
  readonly device: string;
  readonly clock: Clock;
  readonly isGpuTime: boolean;
  readonly label: string;
  readonly identity: { name: string; driver: string };
  readonly #dev: NativeRuntimeDevice;
  #flush: { ptr: ReturnType<NativeRuntimeDevice['native']['driver']['memAlloc']>; bytes: number } | undefined;
  #start: EventHandle | undefined;
  #end: EventHandle | undefined;

  constructor(dev: NativeRuntimeDevice) {
    this.#dev = dev;
    this.kind = dev.kind;
    const sim = dev.kind === 'sim';
    const i0 = dev.native.info;
    // Name and capability, not the library path: reports are committed and shared.
    this.device = sim ? `sim (${i0.name})` : `cuda (${i0.name}, compute ${i0.ccMajor}.${i0.ccMinor}, ${i0.smCount} SMs)`;
    this.clock = sim ? 'sim-events' : 'cuda-events';
    this.isGpuTime = !sim;
    this.label = sim ? 'sim: CPU simulation time, not a GPU time' : `cuda: GPU time from CUDA events (${dev.native.info.name})`;
    const i = dev.native.info;
    this.identity = { name: i.name, driver: String(i.driverVersion) };
  }

  async time(fn: () => Promise<void>): Promise<number> {
    const d = this.#dev.native.driver;
    this.#start ??= d.eventCreate();
    this.#end ??= d.eventCreate();
    d.eventRecord(this.#start, null);
    const r = fn();
    const queued = r instanceof Future;
    if (queued) d.eventRecord(this.#end, null);
    await r;
    if (!queued) d.eventRecord(this.#end, null);
    d.eventSynchronize(this.#end); // already reached: the work it follows is done
    return d.eventElapsed(this.#start, this.#end);
  }

  flushL2(): void {
    const d = this.#dev.native.driver;
    if (!this.#flush) {
      const bytes = this.kind === 'sim' ? SIM_FLUSH_BYTES : Math.min(CUDA_FLUSH_BYTES, Math.floor(this.#dev.native.info.totalMemory / 8));
      this.#flush = { ptr: d.memAlloc(bytes), bytes };
    }
    d.memsetD8(this.#flush.ptr, 0, this.#flush.bytes);
  }

  close(): void {
    const d = this.#dev.native.driver;
    try {
      if (this.#flush) d.memFree(this.#flush.ptr);
      if (this.#start) d.eventDestroy(this.#start);
      if (this.#end) d.eventDestroy(this.#end);
    } catch {
      // a closed or faulted context took them with it
    }
    this.#flush = this.#start = this.#end = undefined;
  }
}

class HostTimer implements Timer {
  readonly clock = 'host' as const;
  readonly isGpuTime = false;
  readonly kind: DeviceKind;
  readonly device: string;
  readonly label: string;
  readonly identity: { name: string; driver: string };

  constructor(device: Device) {
    this.kind = device.kind;
    this.device = device.description;
    this.label = `${device.kind}: host clock (the tile IR run in TypeScript), not a GPU time`;
    this.identity = { name: device.kind, driver: 'none' };
  }

  async time(fn: () => unknown): Promise<number> {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  }

  flushL2(): void {}
  close(): void {}
}
