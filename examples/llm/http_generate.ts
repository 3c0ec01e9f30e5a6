// `POST /v1/generate` for examples/server.ts: the request body checked field by field (before
// anything runs), and the generation streamed as server-sent events through a Batcher (continuous
// batching: concurrent requests share each decode step). The client going away cancels its
// sequence: its AbortSignal ends it in the batcher, which frees its KV pages at once.
//
//   body: { "tokens": [1, 7, 42] | "prompt": "text", "max_tokens": 16, "temperature": 0, "top_k": 50,
//           "top_p": 0.9, "seed": 0, "stream": true, "ignore_eos": false }
//   stream (default): 200 text/event-stream
//     event: token  data: {"token":228,"index":0}            one per new token, as it is sampled
//     event: done   data: {"finish_reason":"length"|"stop","prompt_tokens":3,"completion_tokens":16[,"text"]}
//     event: error  data: {"error","code"}                    a failure after the stream began
//   "stream": false: 200 application/json {"tokens":[...],"finish_reason",...}
import type { ServerResponse } from 'node:http';
import { ops } from '../../src/index.js';
import type { Batcher } from './batcher.js';

/** The fields the route takes; any other is refused (a typo such as "max_token" is not ignored). */
export const GENERATE_FIELDS = ['tokens', 'prompt', 'max_tokens', 'temperature', 'top_k', 'top_p', 'seed', 'stream', 'ignore_eos'] as const;
/** Largest request body (bytes): a prompt of the whole context as JSON ids fits many times over. */
export const MAX_GENERATE_BODY = 1 << 20;
/** max_tokens when the request gives none. */
export const DEFAULT_MAX_TOKENS = 16;
/** The server's cap on max_tokens unless configured (`--max-tokens`). */
export const MAX_TOKENS_LIMIT = 1024;

/** A bad request body: 400 naming the field. */
export class GenerateInputError extends Error {
  constructor(readonly code: 'E_JSON' | 'E_FIELD', readonly field: string | null, message: string) {
    super(message);
  }
}

export interface GenerateRequest {
  readonly tokens: readonly number[];
  /** The request gave text (`prompt`): the answer carries the decoded text too. */
  readonly fromText: boolean;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly topK?: number;
  readonly topP?: number;
  readonly seed: number;
  readonly stream: boolean;
  readonly ignoreEos: boolean;
}

export interface GenerateLimits {
  /** Cap on max_tokens (default MAX_TOKENS_LIMIT). */
  readonly maxTokens?: number;
}

const bad = (field: string, message: string): GenerateInputError => new GenerateInputError('E_FIELD', field, `${field}: ${message}`);

/** The body of a generate request, checked against the batcher's model and cache. */
export function parseGenerateRequest(body: Buffer, batcher: Batcher, limits: GenerateLimits = {}): GenerateRequest {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new GenerateInputError('E_JSON', null, 'the body is not UTF-8 text');
  }
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new GenerateInputError('E_JSON', null, `the body is not JSON (${(e as Error).message})`);
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) throw new GenerateInputError('E_JSON', null, 'the body must be a JSON object, e.g. {"tokens":[1,2,3],"max_tokens":16}');
  const o = j as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !(GENERATE_FIELDS as readonly string[]).includes(k));
  if (unknown !== undefined) {
    const name = unknown.slice(0, 80);
    throw new GenerateInputError('E_FIELD', name, `unknown field ${JSON.stringify(name)} (the fields are ${GENERATE_FIELDS.join(', ')})`);
  }

  const model = batcher.model;
  const V = model.config.vocabSize;
  let tokens: number[];
  const fromText = o['prompt'] !== undefined;
  if (o['tokens'] !== undefined && fromText) throw bad('tokens', 'give either tokens or prompt, not both');
  if (fromText) {
    const p = o['prompt'];
    if (typeof p !== 'string' || p.length === 0) throw bad('prompt', 'expected a non-empty string');
    if (!model.tokenizer) throw bad('prompt', 'this model has no tokenizer here: send token ids (tokens)');
    tokens = model.tokenizer.encode(p);
  } else {
    const t = o['tokens'];
    if (t === undefined) throw bad('tokens', 'required: token ids (tokens) or text (prompt)');
    if (!Array.isArray(t) || t.length === 0) throw bad('tokens', 'expected a non-empty array of token ids');
    const i = t.findIndex((x) => typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x >= V);
    if (i >= 0) throw bad('tokens', `tokens[${i}] = ${JSON.stringify(t[i])?.slice(0, 40)} is not a token id in 0..${V - 1}`);
    tokens = t as number[];
  }

  const cap = limits.maxTokens ?? MAX_TOKENS_LIMIT;
  const maxTokens = intField(o, 'max_tokens', 1, cap) ?? DEFAULT_MAX_TOKENS;
  // the whole generation must fit the model's positions and the KV cache
  const { numBlocks, blockSize } = model.cache;
  const context = Math.min(model.config.maxPositionEmbeddings, numBlocks * blockSize);
  const promptField = fromText ? 'prompt' : 'tokens';
  if (tokens.length >= context) throw bad(promptField, `${tokens.length} tokens: the context is ${context} tokens (with at least one new token)`);
  if (tokens.length + maxTokens > context) throw bad('max_tokens', `${maxTokens} new tokens after a prompt of ${tokens.length} exceed the context of ${context} tokens (at most ${context - tokens.length})`);
  if (batcher.pagesFor(tokens.length, maxTokens) > numBlocks) throw bad('max_tokens', `the prompt and ${maxTokens} new tokens need more KV pages than the cache has (${numBlocks})`);

  const temperature = numField(o, 'temperature', (n) => n >= 0, 'a finite number >= 0') ?? 0;
  const topK = intField(o, 'top_k', 1, ops.MAX_TOPK);
  const topP = numField(o, 'top_p', (n) => n > 0 && n <= 1, 'a number in (0, 1]');
  // ops.sample takes the nucleus among the top-k: over a large vocabulary it needs top_k
  if (temperature > 0 && topP !== undefined && topP < 1 && topK === undefined && V > ops.MAX_TOPK) {
    throw bad('top_p', `over a vocabulary of ${V} tokens top_p needs top_k (<= ${ops.MAX_TOPK})`);
  }
  const seed = intField(o, 'seed', 0, 2 ** 32 - 1) ?? 0;
  const stream = boolField(o, 'stream') ?? true;
  const ignoreEos = boolField(o, 'ignore_eos') ?? false;
  return {
    tokens, fromText, maxTokens, temperature, seed, stream, ignoreEos,
    ...(topK !== undefined ? { topK } : {}), ...(topP !== undefined ? { topP } : {}),
  };
}

function intField(o: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(name, `expected an integer in ${min}..${max}, got ${JSON.stringify(v)?.slice(0, 40)}`);
  return v;
}

function numField(o: Record<string, unknown>, name: string, ok: (n: number) => boolean, what: string): number | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw bad(name, `expected ${what}, got ${JSON.stringify(v)?.slice(0, 40)}`);
  return v;
}

function boolField(o: Record<string, unknown>, name: string): boolean | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw bad(name, `expected true or false, got ${JSON.stringify(v)?.slice(0, 40)}`);
  return v;
}

export interface GenerateOutcome {
  /** How it ended: its tokens ('length'), an end-of-sequence token ('stop'), the client gone ('cancelled'). */
  readonly finish: 'length' | 'stop' | 'cancelled';
  readonly completionTokens: number;
  /** ms from the start of the generation to its first token (undefined when none came). */
  readonly firstTokenMs?: number;
}

export interface RunOptions {
  /** Extra response headers (e.g. connection: close while the server stops). */
  readonly headers?: Record<string, string>;
  /** A client that reads nothing for this long (its socket buffer full) is disconnected: cancelled. */
  readonly writeTimeoutMs: number;
}

/**
 * Runs `r` through the batcher and answers it on `res`. A client that disconnects (res closes
 * before the answer is complete) cancels the sequence; the outcome says so and nothing more is
 * written. A failure before the first byte of the answer is thrown (the server answers 5xx); after
 * it, it ends the stream with an `error` event.
 */
export async function runGenerate(batcher: Batcher, r: GenerateRequest, res: ServerResponse, opts: RunOptions): Promise<GenerateOutcome> {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  const t0 = performance.now();
  let firstTokenMs: number | undefined;
  const tokens: number[] = [];
  const eos = batcher.model.config.eosTokenIds;
  const finish = (): 'stop' | 'length' => (!r.ignoreEos && tokens.length > 0 && eos.includes(tokens.at(-1)!) ? 'stop' : 'length');
  const summary = () => ({
    finish_reason: finish(), prompt_tokens: r.tokens.length, completion_tokens: tokens.length,
    ...(r.fromText ? { text: decodeText(batcher, tokens) } : {}),
  });
  const cancelled = (): GenerateOutcome => ({ finish: 'cancelled', completionTokens: tokens.length, ...(firstTokenMs !== undefined ? { firstTokenMs } : {}) });
  try {
    const it = batcher.submit(r.tokens, {
      maxNewTokens: r.maxTokens, temperature: r.temperature, seed: r.seed, ignoreEos: r.ignoreEos, signal: abort.signal,
      ...(r.topK !== undefined ? { topK: r.topK } : {}), ...(r.topP !== undefined ? { topP: r.topP } : {}),
    });
    if (abort.signal.aborted) {
      await it.return(undefined);
      return cancelled();
    }
    if (!r.stream) {
      for await (const id of it) {
        firstTokenMs ??= performance.now() - t0;
        tokens.push(id);
      }
      if (abort.signal.aborted) return cancelled();
      const text = JSON.stringify({ tokens, ...summary() });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...opts.headers });
      res.end(text);
      return { finish: finish(), completionTokens: tokens.length, firstTokenMs: firstTokenMs ?? 0 };
    }
    let started = false;
    try {
      for await (const id of it) {
        firstTokenMs ??= performance.now() - t0;
        if (!started) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...opts.headers });
          started = true;
        }
        // the client gone or stalled: leaving the loop ends the iterator, which leaves the batch
        if (!(await send(res, 'token', { token: id, index: tokens.length }, opts.writeTimeoutMs))) return cancelled();
        tokens.push(id);
      }
    } catch (e) {
      if (!started) throw e;
      const code = (e as { code?: string }).code ?? 'E_INTERNAL';
      res.end(event('error', { error: (e as Error).message ?? String(e), code }));
      return { finish: finish(), completionTokens: tokens.length, ...(firstTokenMs !== undefined ? { firstTokenMs } : {}) };
    }
    if (abort.signal.aborted) return cancelled();
    if (!started) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...opts.headers });
    res.end(event('done', summary()));
    return { finish: finish(), completionTokens: tokens.length, ...(firstTokenMs !== undefined ? { firstTokenMs } : {}) };
  } finally {
    res.off('close', onClose);
  }
}

const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** Writes one event; false when the client is gone, or did not take it within `timeoutMs` (then it is disconnected). */
async function send(res: ServerResponse, name: string, data: unknown, timeoutMs: number): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(event(name, data))) return true;
  // the socket's buffer is full: wait for the client to read, for a while
  let done: (ok: boolean) => void = () => {};
  const drained = () => done(true);
  const closed = () => done(false);
  const ok = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    done = (v) => {
      clearTimeout(timer);
      res.off('drain', drained);
      res.off('close', closed);
      resolve(v);
    };
    res.once('drain', drained);
    res.once('close', closed);
  });
  if (!ok) res.destroy();
  return ok && !res.destroyed;
}

/** The new tokens as text with the byte-level tokenizer (invalid UTF-8 shown as U+FFFD); undefined when they are not bytes. */
function decodeText(batcher: Batcher, tokens: readonly number[]): string | undefined {
  if (!batcher.model.tokenizer || tokens.some((t) => t > 255)) return undefined;
  return new TextDecoder().decode(new Uint8Array(tokens));
}
