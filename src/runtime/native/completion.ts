// Completion of queued work on one native stream, without blocking the event loop and without
// one driver wait per launch: every `after()` joins a batch, and at most one wait on the stream
// is in flight; when it returns, every future of its batch (all queued before the wait began) is
// settled, the storages those launches held are released, and the next batch's wait starts.
import type { Storage } from '../device_array.js';
import { Future } from '../future.js';
import { streamDone } from './driver_seam.js';
import type { NativeDevice, NativeStream } from './native-device.js';

interface Entry {
  /** Its place in the stream's order (1, 2, ...): work queued before a read is done when the read is. */
  readonly seq: number;
  readonly future: Future;
  readonly storages: readonly Storage[] | undefined;
  /** Adds the user's source location to a failure of this work (a kernel launch). */
  readonly locate: ((e: unknown) => void) | undefined;
}

function settle(x: Entry, e?: unknown): void {
  if (x.future.done) return; // settled once (a lost context fails everything at once)
  if (x.storages) for (const s of x.storages) s.release();
  if (e === undefined) x.future.resolve();
  else {
    x.locate?.(e);
    x.future.reject(e);
  }
}

export class StreamCompletion {
  #pending: Entry[] = [];
  #inWait: Entry[] = [];
  #waiting = false;
  #queued = 0;

  /**
   * `onError` hears every failed wait (the device decides whether it was a sticky fault); the
   * batch is rejected when the promise it returns settles (after the device's recovery).
   */
  constructor(readonly device: NativeDevice, readonly stream: NativeStream, readonly onError: (e: unknown) => Promise<void>) {}

  /** Settles when all work queued on the stream so far is done; `storages` are held until then. */
  after(storages?: readonly Storage[], locate?: (e: unknown) => void): Future {
    const future = new Future();
    if (storages) for (const s of storages) s.retain();
    this.#pending.push({ seq: ++this.#queued, future, storages, locate });
    if (!this.#waiting) this.#wait();
    return future;
  }

  /**
   * Waits (blocking, for this one stream, not the device) until the work queued on it so far is
   * done and settles that work now: its arrays are released, so the frees deferred behind it are
   * queued at once. Only the OOM retry calls it (a synchronous allocation cannot wait for the
   * batch's own wait to return). A failed wait settles nothing: the batch's own wait reports it.
   */
  settleNow(): void {
    if (this.#inWait.length === 0 && this.#pending.length === 0) return;
    try {
      this.stream.synchronize();
    } catch {
      return;
    }
    const done = [...this.#inWait, ...this.#pending];
    this.#pending = [];
    for (const x of done) settle(x); // the batch in its wait skips these when it returns
  }

  /** The work queued on the stream so far, for settleThrough once later stream-ordered work is known done. */
  mark(): number {
    return this.#queued;
  }

  /**
   * Work queued after `mark` (a read on this stream) completed without error, so everything up to
   * `mark` is done too (stream order; a fault would have failed that work, since faults are
   * sticky): settles it now rather than when the batch's own wait returns, so that the arrays it
   * held are released, and a free() called after the read frees at once instead of later.
   */
  settleThrough(mark: number): void {
    for (const x of this.#inWait) if (x.seq <= mark) settle(x); // the batch in its wait skips these when it returns
    if (this.#pending.length === 0 || this.#pending[0]!.seq > mark) return;
    const left: Entry[] = [];
    for (const x of this.#pending) {
      if (x.seq <= mark) settle(x);
      else left.push(x);
    }
    this.#pending = left;
  }

  /** Rejects every unsettled future (the context is gone). */
  failAll(e: unknown): void {
    for (const x of this.#inWait.splice(0)) settle(x, e);
    for (const x of this.#pending.splice(0)) settle(x, e);
  }

  #wait(): void {
    this.#waiting = true;
    const batch = (this.#inWait = this.#pending);
    this.#pending = [];
    streamDone(this.device.driver, this.stream).then(
      () => {
        for (const x of batch) settle(x);
      },
      (e: unknown) => this.onError(e).finally(() => {
        for (const x of batch) settle(x, e ?? new Error('stream failed'));
      }),
    ).finally(() => {
      this.#inWait = [];
      this.#waiting = false;
      if (this.#pending.length) this.#wait();
    });
  }
}
