// Completion of queued work on one native stream, without blocking the event loop and without
// one driver wait per launch: every `after()` joins a batch, and at most one wait on the stream
// is in flight; when it returns, every future of its batch (all queued before the wait began) is
// settled, and the next batch's wait starts.
import { Deferred } from '../future.js';
import { streamDone } from './driver_seam.js';
import type { NativeDevice, NativeStream } from './native-device.js';

export class StreamCompletion {
  #pending: Deferred[] = [];
  #inWait: Deferred[] = [];
  #waiting = false;

  /**
   * `onError` hears every failed wait (the device decides whether it was a sticky fault); the
   * batch is rejected when the promise it returns settles (after the device's recovery).
   */
  constructor(readonly device: NativeDevice, readonly stream: NativeStream, readonly onError: (e: unknown) => Promise<void>) {}

  /** Settles when all work queued on the stream so far is done. */
  after(): Promise<void> {
    const d = new Deferred();
    this.#pending.push(d);
    if (!this.#waiting) this.#wait();
    return d.promise;
  }

  /** Rejects every unsettled future (the context is gone). */
  failAll(e: unknown): void {
    for (const d of this.#inWait.splice(0)) d.reject(e);
    for (const d of this.#pending.splice(0)) d.reject(e);
  }

  #wait(): void {
    this.#waiting = true;
    const batch = (this.#inWait = this.#pending);
    this.#pending = [];
    streamDone(this.device.driver, this.stream).then(
      () => {
        for (const d of batch) d.resolve();
      },
      (e: unknown) => this.onError(e).finally(() => {
        for (const d of batch) d.reject(e);
      }),
    ).finally(() => {
      this.#inWait = [];
      this.#waiting = false;
      if (this.#pending.length) this.#wait();
    });
  }
}
