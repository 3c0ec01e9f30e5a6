// The capture in progress (device.capture) while its callback runs. A graph records the work of one
// stream of one device; work queued meanwhile on any other device would run at once, outside the
// graph, while the caller believes it recorded. So every device refuses it (E_CAPTURE naming both
// devices), and the refusal fails the capture even if the callback caught it — as a nested capture does.
import { DeviceError } from './device.js';

export interface CaptureScope {
  /** The capturing device (compared by identity). */
  readonly device: object;
  readonly deviceName: string;
  /** Makes the capture fail with `e` (the first failure wins). */
  fail(e: Error): void;
}

let active: CaptureScope | undefined;

/** The capture whose callback is running now, if any. */
export const activeCapture = (): CaptureScope | undefined => active;

/** Runs `fn` (a capture's callback) with `scope` active. */
export function withinCapture<T>(scope: CaptureScope, fn: () => T): T {
  const outer = active;
  active = scope;
  try {
    return fn();
  } finally {
    active = outer;
  }
}

/** Throws E_CAPTURE (and fails the capture) when `device` is not the one capturing now. */
export function refuseOtherDevice(device: object, deviceName: string, what = 'work'): void {
  const cap = active;
  if (!cap || cap.device === device) return;
  const e = new DeviceError('E_CAPTURE', `${what} on device '${deviceName}' cannot be recorded by the capture in progress on device '${cap.deviceName}' (a graph records one stream of one device; that work would run at once): the capture is abandoned`);
  cap.fail(e);
  throw e;
}
