// Continuous batching for a LlamaModel: concurrent generation requests share one decode step.
// Each loop turn admits the requests that arrived (one prefill each), then runs ONE decodeStep over
// every live sequence (one new token each) and hands each request its token. A request leaves the
// batch when it has its tokens, emits an end-of-sequence token, or is cancelled (its AbortSignal, or
// the consumer stopping its iterator: a server does that when the client disconnects); its KV pages
// are given back at once. What a server's `POST /v1/generate` sits on.
// Admission reserves a request's worst case in KV pages (prompt + maxNewTokens - 1 tokens: the last
// new token is never appended), so a batch never runs out of pages mid-generation: a request that
// does not fit waits (in order) until finished ones give pages back; one that could never fit the
// cache is refused at submit.
import type { DeviceArray } from '../../src/index.js';
import { ops } from '../../src/index.js';
import { ModelError, type GenerateOptions, type LlamaModel } from './model.js';

export interface SubmitOptions extends GenerateOptions {
  /** Aborting it ends the request: its iterator finishes, its KV pages are freed. */
  readonly signal?: AbortSignal;
}

interface Request {
  readonly seq: number;
  readonly prompt: readonly number[];
  readonly opts: SubmitOptions;
  readonly tokens: number[];
  /** Tokens handed to the model so far (the next decode input is tokens.at(-1)). */
  emitted: number;
  /** KV pages reserved for it while it is in the batch (0 before admission and after it leaves). */
  reserved: number;
  done: boolean;
  error?: unknown;
  wake?: () => void;
}

export class Batcher {
  readonly #pending: Request[] = [];
  readonly #live: Request[] = [];
  #running = false;
  /** KV pages reserved by the live requests. */
  #reserved = 0;

  constructor(readonly model: LlamaModel, readonly maxBatch = 32) {}

  /** Requests in the batch now and waiting to join it. */
  get load(): { live: number; pending: number } {
    return { live: this.#live.length, pending: this.#pending.length };
  }

  /** KV pages reserved by the requests in the batch (0 when it is empty). */
  get reservedPages(): number {
    return this.#reserved;
  }

  /** Queues a generation; its new token ids arrive through the returned iterator. */
  submit(prompt: readonly number[], opts: SubmitOptions): AsyncGenerator<number, void, undefined> {
    if (!Number.isSafeInteger(opts?.maxNewTokens) || opts.maxNewTokens < 0) throw new ModelError('E_MODEL_ARG', `maxNewTokens must be an integer >= 0, got ${String(opts?.maxNewTokens)}`);
    const need = this.pagesFor(prompt.length, opts.maxNewTokens);
    const { numBlocks, blockSize } = this.model.cache;
    if (need > numBlocks) {
      throw new ModelError('E_MODEL_ARG', `a prompt of ${prompt.length} tokens + maxNewTokens ${opts.maxNewTokens} needs ${need} KV pages, the cache has ${numBlocks} (${numBlocks * blockSize} tokens)`);
    }
    const r: Request = { seq: this.model.newSequence(), prompt: [...prompt], opts, tokens: [], emitted: 0, reserved: 0, done: opts.maxNewTokens === 0 };
    if (!r.done) {
      this.#pending.push(r);
      opts.signal?.addEventListener('abort', () => this.#finish(r), { once: true });
      if (opts.signal?.aborted) this.#finish(r);
      this.#kick();
    }
    return this.#stream(r);
  }

  /** KV pages a request needs at most: its prompt and every new token but the last. */
  pagesFor(promptTokens: number, maxNewTokens: number): number {
    return Math.ceil((promptTokens + Math.max(0, maxNewTokens - 1)) / this.model.cache.blockSize);
  }

  async *#stream(r: Request): AsyncGenerator<number, void, undefined> {
    let i = 0;
    try {
      for (;;) {
        if (i < r.tokens.length) {
          yield r.tokens[i++]!;
          continue;
        }
        if (r.error !== undefined) throw r.error;
        if (r.done) return;
        await new Promise<void>((resolve) => (r.wake = resolve));
      }
    } finally {
      this.#finish(r); // the consumer stopped (or we are done): leave the batch, free the pages
    }
  }

  #finish(r: Request): void {
    if (!r.done) r.done = true;
    const p = this.#pending.indexOf(r);
    if (p >= 0) this.#pending.splice(p, 1);
    const l = this.#live.indexOf(r);
    if (l >= 0) this.#live.splice(l, 1);
    this.#reserved -= r.reserved;
    r.reserved = 0;
    this.model.release(r.seq);
    this.#wake(r);
  }

  #wake(r: Request): void {
    const w = r.wake;
    r.wake = undefined;
    w?.();
  }

  #kick(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#loop().finally(() => {
      this.#running = false;
      if (this.#pending.length > 0 || this.#live.length > 0) this.#kick();
    });
  }

  async #loop(): Promise<void> {
    while (this.#pending.length > 0 || this.#live.length > 0) {
      // admit: one prefill per new request, while the batch and the cache have room (in order)
      while (this.#pending.length > 0 && this.#live.length < this.maxBatch) {
        const r = this.#pending[0]!;
        const need = this.pagesFor(r.prompt.length, r.opts.maxNewTokens);
        if (this.#reserved + need > this.model.cache.numBlocks) break;
        this.#pending.shift();
        r.reserved = need;
        this.#reserved += need;
        this.#live.push(r);
        await this.#step([r], () => this.model.prefill(r.seq, r.prompt));
      }
      const batch = this.#live.filter((r) => !r.done);
      if (batch.length > 0) await this.#step(batch, () => this.model.decodeStep(batch.map((r) => r.seq), batch.map((r) => r.tokens.at(-1)!)));
    }
  }

  // Runs one model call for `batch`, samples each request's next token from its row (the last row
  // of a prefill), and hands it over; a failure ends those requests with it.
  async #step(batch: Request[], call: () => Promise<DeviceArray>): Promise<void> {
    let logits: DeviceArray | undefined;
    try {
      logits = await call();
      const rows = logits.shape[0]!;
      for (let b = 0; b < batch.length; b++) {
        const r = batch[b]!;
        if (r.done) continue; // cancelled while the step ran
        const row = rows === batch.length ? b : rows - 1;
        const one = logits.slice([row, row + 1], null).clone();
        const o = r.opts;
        const picked = await ops.sample(one, {
          temperature: o.temperature ?? 0, seed: o.seed ?? 0, offset: r.emitted,
          ...(o.topK !== undefined ? { topK: o.topK } : {}), ...(o.topP !== undefined ? { topP: o.topP } : {}),
        });
        const id = (await picked.toArray())[0]!;
        one.free();
        picked.free();
        r.tokens.push(id);
        r.emitted++;
        if (r.emitted >= o.maxNewTokens || (!o.ignoreEos && this.model.config.eosTokenIds.includes(id))) this.#finish(r);
        else this.#wake(r);
      }
    } catch (e) {
      for (const r of batch) {
        r.error = e;
        this.#finish(r);
      }
    } finally {
      logits?.free();
    }
  }
}
