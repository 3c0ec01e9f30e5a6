// Futures: what a queued launch or copy returns. A plain Promise (a thenable: `await` it), marked
// handled so that a future nobody awaits does not crash the process when its work fails; the
// failure stays in the future for whoever awaits it.

export type Future<T = void> = Promise<T>;

/** Marks `p` handled and returns it unchanged. */
export function future<T>(p: Promise<T>): Future<T> {
  p.catch(() => undefined);
  return p;
}

/** A future rejected with `e` (for errors found before anything was queued). */
export const rejected = (e: unknown): Future<never> => future(Promise.reject(e));

/** A promise with its settle functions, settled at most once. */
export class Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve!: (v: T) => void;
  reject!: (e: unknown) => void;
  constructor() {
    this.promise = future(new Promise<T>((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    }));
  }
}
