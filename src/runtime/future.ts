// Futures: what a queued launch or copy returns. A thenable (`await` it, or pass it to
// Promise.all) that makes no Promise until someone asks for one, so a launch nobody awaits costs
// no promise, and a failure nobody awaits never becomes an unhandled rejection: it stays in the
// future for whoever awaits it.

export class Future<T = void> implements PromiseLike<T> {
  #state: 0 | 1 | 2 = 0; // pending, fulfilled, rejected
  #value: unknown;
  #promise: Promise<T> | undefined;
  #settle: [(v: T) => void, (e: unknown) => void] | undefined;
  #onSettled: (() => void)[] | undefined;

  /** A future settled by `p`. */
  static from<T>(p: PromiseLike<T>): Future<T> {
    if (p instanceof Future) return p;
    const f = new Future<T>();
    p.then((v) => f.resolve(v), (e: unknown) => f.reject(e));
    return f;
  }

  static resolved(): Future<void> {
    const f = new Future<void>();
    f.resolve();
    return f;
  }

  static rejected<T = never>(e: unknown): Future<T> {
    const f = new Future<T>();
    f.reject(e);
    return f;
  }

  /** True once settled. */
  get done(): boolean {
    return this.#state !== 0;
  }

  /** @internal */
  resolve(v: T): void {
    if (this.#state) return;
    this.#state = 1;
    this.#value = v;
    this.#settle?.[0](v);
    this.#runSettled();
  }

  /** @internal */
  reject(e: unknown): void {
    if (this.#state) return;
    this.#state = 2;
    this.#value = e;
    this.#settle?.[1](e);
    this.#runSettled();
  }

  /**
   * @internal Calls `fn` synchronously when this settles (now if it has), either way. What holds an
   * array for queued work uses it: the array is released the moment the work is known done, not a
   * microtask later, so that a synchronous caller (the OOM retry) sees the deferred free happen.
   */
  whenSettled(fn: () => void): void {
    if (this.#state) fn();
    else (this.#onSettled ??= []).push(fn);
  }

  #runSettled(): void {
    const fns = this.#onSettled;
    if (!fns) return;
    this.#onSettled = undefined;
    for (const fn of fns) fn();
  }

  then<A = T, B = never>(onFulfilled?: ((v: T) => A | PromiseLike<A>) | null, onRejected?: ((e: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#asPromise().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((e: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#asPromise().catch(onRejected);
  }

  finally(f?: (() => void) | null): Promise<T> {
    return this.#asPromise().finally(f);
  }

  #asPromise(): Promise<T> {
    if (!this.#promise) {
      if (this.#state === 1) this.#promise = Promise.resolve(this.#value as T);
      else if (this.#state === 2) this.#promise = Promise.reject(this.#value);
      else this.#promise = new Promise<T>((res, rej) => (this.#settle = [res, rej]));
    }
    return this.#promise;
  }
}

/** `p` as a Future (it then never counts as an unhandled rejection). */
export const future = <T>(p: PromiseLike<T>): Future<T> => Future.from(p);

/** A future rejected with `e` (for errors found before anything was queued). */
export const rejected = <T = void>(e: unknown): Future<T> => Future.rejected<T>(e);
