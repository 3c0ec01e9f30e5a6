// The interpret device's streams: an in-order queue of tasks, each a sequence of small steps (a
// kernel is one step per program). Tasks run in slices of a few milliseconds between which the
// event loop runs, so a long kernel never blocks it; `drain()` runs everything now, for the
// explicitly blocking reads.
import { Future } from './future.js';

/** A task: called once when it starts; returns the steps still to run (or nothing). */
export type Task = () => Iterator<void, void, void> | void;

/** How long one slice may run before the event loop gets a turn. */
const SLICE_MS = 4;

interface Queued {
  readonly start: Task;
  readonly done: Future;
  steps?: Iterator<void, void, void>;
}

export class InterpretQueue {
  readonly #tasks: Queued[] = [];
  #scheduled = false;

  /** Queues `start`; the promise settles when it has run (with its error, if it threw). */
  enqueue(start: Task): Future {
    const q: Queued = { start, done: new Future() };
    this.#tasks.push(q);
    this.#schedule();
    return q.done;
  }

  get idle(): boolean {
    return this.#tasks.length === 0;
  }

  /** Runs every queued task to its end now (blocking). */
  drain(): void {
    while (this.#tasks.length) this.#step(Infinity);
  }

  #schedule(): void {
    if (this.#scheduled || this.#tasks.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#step(performance.now() + SLICE_MS);
      this.#schedule();
    });
  }

  /** Runs steps of the head tasks until `deadline` (ms, performance.now()). */
  #step(deadline: number): void {
    while (this.#tasks.length) {
      const q = this.#tasks[0]!;
      try {
        if (!q.steps) {
          const s = q.start();
          if (!s) {
            this.#finish(q);
            continue;
          }
          q.steps = s;
        }
        for (;;) {
          if (q.steps.next().done) {
            this.#finish(q);
            break;
          }
          if (performance.now() >= deadline) return;
        }
      } catch (e) {
        this.#tasks.shift();
        q.done.reject(e);
      }
      if (performance.now() >= deadline) return;
    }
  }

  #finish(q: Queued): void {
    this.#tasks.shift();
    q.done.resolve();
  }
}
