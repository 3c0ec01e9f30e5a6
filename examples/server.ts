// A small real server on node:http that runs a Tessera kernel per request, on every device of the
// machine (requests spread round-robin), or on the devices named by --device.
//
//   node dist/examples/server.js --port 8080 [--device sim:0,sim:1] [--warmup 4,256]
//
//   POST /v1/softmax   body: rows*cols little-endian f32, header `x-shape: rows,cols`
//                      -> 200, the row softmax as little-endian f32 (same shape)
//                      -> 400 {"error","code"} for a missing/bad shape, a body of the wrong size,
//                         a non-finite value; 413 for a body over the limit (from Content-Length,
//                         before reading it); 408 when the headers or the body do not arrive in time
//                         (then the connection is closed, in stages: FIN, then what the client still
//                         sends is dropped for at most --linger-ms, so it reads the answer); the server keeps serving
//   POST /v1/generate  (with --model DIR: a Llama checkpoint, examples/llm) body: JSON
//                      {"tokens":[ids] | "prompt":"text","max_tokens","temperature","top_k","top_p","seed","stream"}
//                      -> 200 server-sent events (one per token, then "done"), or one JSON with "stream":false;
//                         concurrent requests are batched into one decode step (examples/llm/batcher.ts);
//                         a client that disconnects cancels its sequence (its KV pages are freed at once)
//                      -> 400 {"error","code","field"} for bad JSON or a bad field, before anything runs;
//                         413 over 1 MiB; 404 when the server runs no model
//   GET  /healthz      -> 200 {"ok":true,...} (503 while shutting down)
//   GET  /metrics      -> request counts, latency quantiles, each device's memoryStats(), process memory
//
// SIGTERM/SIGINT: stop accepting, finish the requests in flight (for at most --drain-timeout-ms, then
// close what is left), free everything, exit 0. Deadlines: --header-timeout-ms, --body-timeout-ms.
// It prints one JSON line when it listens ({"event":"listening","port":...}) and one when it stops.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { endianness } from 'node:os';
import { parseArgs } from 'node:util';
import {
  arange, constexpr, defaultCompileCache, DeviceArray, devices, exp, getDevice, kernel, load, max, programId, ptr,
  setDeviceAnnouncer, store, sum, type Device,
} from '../src/index.js';
import { closeInStages, closeInStagesAfterAnswer, LINGER_MS } from './close_in_stages.js';
import { Batcher } from './llm/batcher.js';
import { GenerateInputError, MAX_GENERATE_BODY, parseGenerateRequest, runGenerate, type GenerateRequest } from './llm/http_generate.js';
import { loadModel, type ModelDType } from './llm/model.js';

/** One program per row; BLOCK is the row length rounded up to a power of two. */
export const rowSoftmax = kernel(
  { name: 'serve_softmax', params: { x: ptr('f32'), out: ptr('f32'), cols: 'i32', BLOCK: constexpr() } },
  ({ x, out, cols, BLOCK }) => {
    const row = programId(0);
    const offs = arange(0, BLOCK);
    const mask = offs.lt(cols);
    const base = row.mul(cols);
    const v = load(x.add(base).add(offs), { mask, other: -Infinity });
    const e = exp(v.sub(max(v, 0)));
    store(out.add(base).add(offs), e.div(sum(e, 0)), { mask });
  },
);

export const MAX_COLS = 8192;
export const MAX_BODY = 16 << 20;
/** Default deadlines (ms): the headers from a connection's first byte, the body from the end of the headers, the drain at SIGTERM. */
export const HEADER_TIMEOUT_MS = 5_000;
export const BODY_TIMEOUT_MS = 10_000;
export const DRAIN_TIMEOUT_MS = 10_000;
const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

class HttpError extends Error {
  /** `close`: answered without reading the rest of the request, so the connection cannot be reused. */
  constructor(readonly status: number, readonly code: string, message: string, readonly close = false) {
    super(message);
  }
}

/** The client went away mid-request (reset, or closed before its body ended): nothing to answer. */
class ClientGone extends Error {}

/** A header as the client sent it: Node reads header bytes as latin1; UTF-8 text is shown as such. */
function headerText(h: string): string {
  const bytes = Buffer.from(h, 'latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return h; // not UTF-8: the bytes as latin1
  }
}

/** `rows,cols` from the x-shape header, checked. */
export function parseShape(header: string | string[] | undefined): [number, number] {
  if (typeof header !== 'string') throw new HttpError(400, 'E_SHAPE', 'missing x-shape header (rows,cols)');
  const m = /^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$/.exec(header);
  if (!m) throw new HttpError(400, 'E_SHAPE', `x-shape must be "rows,cols" (positive integers), got ${JSON.stringify(headerText(header))}`);
  const rows = Number(m[1]), cols = Number(m[2]);
  if (rows < 1 || cols < 1) throw new HttpError(400, 'E_SHAPE', `x-shape must be positive, got ${rows},${cols}`);
  if (cols > MAX_COLS) throw new HttpError(400, 'E_SHAPE', `cols ${cols} is over the limit of ${MAX_COLS}`);
  if (rows * cols * 4 > MAX_BODY) throw new HttpError(413, 'E_TOO_LARGE', `${rows}x${cols} f32 is over the ${MAX_BODY}-byte limit`);
  return [rows, cols];
}

/**
 * The body, at most `limit` bytes, within `deadlineMs`. Over the limit (a chunked body with no
 * Content-Length): 413 at once, the rest dropped. Past the deadline: 408. Either way the connection
 * is closed after the answer (in stages: closeInStages). A client that resets or closes mid-body: ClientGone.
 */
/** Ends a readBody in progress with an error (the request was answered another way). */
const stopReading = new WeakMap<IncomingMessage, (e: Error) => void>();

function readBody(req: IncomingMessage, limit: number, deadlineMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    let settled = false;
    const finish = (e: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      if (e) {
        req.resume(); // the rest is dropped (no 'data' listener) until the connection closes after the answer
        reject(e);
      } else resolve(Buffer.concat(chunks, n));
    };
    const onData = (c: Buffer) => {
      n += c.length;
      if (n > limit) finish(new HttpError(413, 'E_TOO_LARGE', `body over the ${limit}-byte limit`, true));
      else chunks.push(c);
    };
    const timer = setTimeout(() => finish(new HttpError(408, 'E_TIMEOUT', `the body did not arrive within ${deadlineMs} ms (${n} bytes received)`, true)), deadlineMs);
    stopReading.set(req, finish);
    req.on('data', onData);
    req.once('end', () => finish(undefined));
    req.once('error', () => finish(new ClientGone('the client reset the connection mid-body')));
    req.once('close', () => finish(req.complete ? undefined : new ClientGone('the client closed the connection mid-body')));
  });
}

/** Latencies of the last requests (ms), for quantiles. */
class Latencies {
  readonly #buf = new Float64Array(1 << 16);
  #n = 0;
  add(ms: number): void { this.#buf[this.#n++ % this.#buf.length] = ms; }
  quantiles(): Record<string, number> {
    const k = Math.min(this.#n, this.#buf.length);
    const v = Float64Array.from(this.#buf.subarray(0, k)).sort();
    const q = (p: number) => (k ? v[Math.min(k - 1, Math.floor(p * k))]! : 0);
    return { count: k, p50: q(0.5), p90: q(0.9), p99: q(0.99), p999: q(0.999), max: k ? v[k - 1]! : 0 };
  }
}

export interface ServerOptions {
  readonly port: number;
  readonly host: string;
  readonly devices: readonly Device[];
  readonly warmup: readonly [number, number] | null;
  /** Deadline for a request's headers, from its first byte (default HEADER_TIMEOUT_MS): 408, connection closed. */
  readonly headerTimeoutMs?: number;
  /** Deadline for a request's body, from the end of its headers (default BODY_TIMEOUT_MS): 408, connection closed. */
  readonly bodyTimeoutMs?: number;
  /** A connection answered while its client may still be sending is closed in stages: how long the client may go on sending (default LINGER_MS). */
  readonly lingerMs?: number;
  /** At close(): how long the requests in flight may take before their connections are closed (default DRAIN_TIMEOUT_MS). */
  readonly drainTimeoutMs?: number;
  /** `POST /v1/generate`: the batcher over a loaded model (the caller owns the model), and the cap on max_tokens. */
  readonly generate?: { readonly batcher: Batcher; readonly maxTokens?: number; readonly name?: string };
}

/** Every available device: the GPUs when there are any, else every sim device, else the interpreter. */
export function defaultDevices(): Device[] {
  const list = devices().filter((d) => d.available);
  const kind = list.some((d) => d.kind === 'cuda') ? 'cuda' : list.some((d) => d.kind === 'sim') ? 'sim' : 'interpret';
  return list.filter((d) => d.kind === kind).map((d) => getDevice(d.name as never));
}

const checkMs = (v: number | undefined, name: string, dflt: number): number => {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < 1 || v > 3_600_000) throw new Error(`${name} must be an integer number of ms in 1..3600000, got ${v}`);
  return v;
};

export async function serve(opts: ServerOptions): Promise<{ port: number; close: () => Promise<{ abandoned: number }> }> {
  if (endianness() !== 'LE') throw new Error('this example reads and writes little-endian f32 directly');
  const devs = opts.devices;
  if (devs.length === 0) throw new Error('no device to serve on');
  const headerTimeoutMs = checkMs(opts.headerTimeoutMs, 'headerTimeoutMs', HEADER_TIMEOUT_MS);
  const bodyTimeoutMs = checkMs(opts.bodyTimeoutMs, 'bodyTimeoutMs', BODY_TIMEOUT_MS);
  const drainTimeoutMs = checkMs(opts.drainTimeoutMs, 'drainTimeoutMs', DRAIN_TIMEOUT_MS);
  const lingerMs = checkMs(opts.lingerMs, 'lingerMs', LINGER_MS);
  // clientAborted: the client went away before its answer (not a server error); timedOut: 408s
  const counts = { requests: 0, ok: 0, badRequest: 0, tooLarge: 0, notFound: 0, serverError: 0, unavailable: 0, clientAborted: 0, timedOut: 0 };
  const perDevice = new Map<Device, number>(devs.map((d) => [d, 0]));
  const lat = new Latencies();
  // generate: tokens streamed, requests cancelled by their client, time to first token
  const gen = { tokens: 0, cancelled: 0, ttft: new Latencies() };
  let next = 0;
  let inflight = 0;
  let stopping = false;
  let drained: (() => void) | undefined;

  if (opts.warmup) {
    // Compile (or load from the on-disk cache) and load the module on every device before listening.
    const [r, c] = opts.warmup;
    for (const d of devs) await softmaxOn(d, new Float32Array(r * c), r, c);
  }

  async function softmaxOn(device: Device, x: Float32Array, rows: number, cols: number): Promise<Float32Array> {
    const dx = DeviceArray.from(x, 'f32', { device });
    const out = DeviceArray.empty([rows * cols], 'f32', { device });
    try {
      await rowSoftmax.run({ x: dx, out, cols, BLOCK: pow2(cols) }, { grid: rows, device });
      return await out.toArray();
    } finally {
      dx.free();
      out.free();
    }
  }

  const json = (res: ServerResponse, status: number, body: unknown, close = false) => {
    const text = JSON.stringify(body);
    // `connection: close` makes Node end the socket once the answer is flushed; `close` (the body
    // may be arriving still): in stages, so that the client reads the answer before the close
    if (close && res.socket) {
      answeredToClose.add(res.socket);
      closeInStagesAfterAnswer(res.socket, lingerMs);
    }
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(stopping || close ? { connection: 'close' } : {}) });
    res.end(text);
  };
  /** Connections answered with a close while the client may still be sending: nothing more is served on them. */
  const answeredToClose = new WeakSet<object>();
  /** The client is gone: its socket was reset or closed (or closed at the drain deadline). */
  const gone = (req: IncomingMessage, res: ServerResponse): boolean => res.destroyed || !!req.socket?.destroyed;

  function metrics(): unknown {
    const mem = process.memoryUsage();
    return {
      requests: counts, latencyMs: lat.quantiles(), inflight,
      devices: devs.map((d) => ({ name: d.name ?? d.kind, requests: perDevice.get(d), memory: d.memoryStats?.() ?? null })),
      compileCache: (({ memoryHits, diskHits, misses }) => ({ memoryHits, diskHits, misses }))(defaultCompileCache().stats()),
      process: { rss: mem.rss, heapUsed: mem.heapUsed, external: mem.external, arrayBuffers: mem.arrayBuffers },
      model: opts.generate ? modelMetrics(opts.generate.batcher) : null,
    };
  }

  function modelMetrics(b: Batcher): unknown {
    const m = b.model;
    return {
      name: opts.generate!.name ?? null, device: m.device.name ?? m.device.kind, dtype: m.dtype,
      kvCache: { ...m.cache.stats(), numBlocks: m.cache.numBlocks, blockSize: m.cache.blockSize },
      batcher: { ...b.load, reservedPages: b.reservedPages, maxBatch: b.maxBatch },
      tokens: gen.tokens, cancelled: gen.cancelled, timeToFirstTokenMs: gen.ttft.quantiles(),
      memory: m.device.memoryStats?.() ?? null,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/healthz') {
      req.resume();
      return json(res, stopping ? 503 : 200, { ok: !stopping, devices: devs.map((d) => d.name ?? d.kind), inflight });
    }
    if (req.method === 'GET' && url === '/metrics') {
      req.resume();
      return json(res, 200, metrics());
    }
    if (url === '/v1/generate') return generateRoute(req, res, expectsContinue);
    if (url !== '/v1/softmax') {
      req.resume();
      counts.notFound++;
      return json(res, 404, { error: `no route ${req.method} ${url}`, code: 'E_NOT_FOUND' });
    }
    if (req.method !== 'POST') {
      req.resume();
      counts.notFound++;
      return json(res, 405, { error: 'use POST', code: 'E_METHOD' });
    }
    const t0 = performance.now();
    counts.requests++;
    try {
      let shape: [number, number];
      try {
        shape = parseShape(req.headers['x-shape']);
      } catch (e) {
        req.resume();
        throw e;
      }
      const [rows, cols] = shape;
      // Content-Length decides before a byte of the body is read: too large, or not the shape's size.
      const declared = req.headers['content-length'];
      if (declared !== undefined) {
        const len = Number(declared);
        if (len > MAX_BODY) throw new HttpError(413, 'E_TOO_LARGE', `content-length ${len} is over the ${MAX_BODY}-byte limit`, true);
        if (len !== rows * cols * 4) throw new HttpError(400, 'E_SIZE', `x-shape ${rows},${cols} needs ${rows * cols * 4} bytes of f32, content-length is ${len}`, true);
      }
      if (expectsContinue) res.writeContinue();
      const body = await readBody(req, MAX_BODY, bodyTimeoutMs);
      if (body.length !== rows * cols * 4) {
        throw new HttpError(400, 'E_SIZE', `x-shape ${rows},${cols} needs ${rows * cols * 4} bytes of f32, the body has ${body.length}`);
      }
      const x = new Float32Array(rows * cols);
      new Uint8Array(x.buffer).set(body);
      for (let i = 0; i < x.length; i++) {
        if (!Number.isFinite(x[i]!)) throw new HttpError(400, 'E_NONFINITE', `element ${i} (row ${Math.floor(i / cols)}, col ${i % cols}) is ${x[i]}`);
      }
      const device = devs[next++ % devs.length]!;
      perDevice.set(device, perDevice.get(device)! + 1);
      const y = await softmaxOn(device, x, rows, cols);
      if (gone(req, res)) throw new ClientGone('the client went away while its request ran');
      res.writeHead(200, {
        'content-type': 'application/octet-stream', 'content-length': y.byteLength, 'x-shape': `${rows},${cols}`,
        'x-device': device.name ?? device.kind, ...(stopping ? { connection: 'close' } : {}),
      });
      res.end(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
      counts.ok++;
      lat.add(performance.now() - t0);
    } catch (e) {
      answerFailure(req, res, e);
    }
  }

  /** A route's failure: a client that went away is dropped, an HttpError answered with its status, the rest 503/500. */
  function answerFailure(req: IncomingMessage, res: ServerResponse, e: unknown): void {
    if (answeredByParser.has(res)) return;
    if (e instanceof ClientGone || gone(req, res)) {
      // nobody to answer: not a server error, and nothing is written to a dead socket
      counts.clientAborted++;
      res.destroy();
      return;
    }
    if (e instanceof HttpError) {
      if (e.status === 413) counts.tooLarge++;
      else if (e.status === 408) counts.timedOut++;
      else counts.badRequest++;
      return json(res, e.status, { error: e.message, code: e.code }, e.close);
    }
    if (res.headersSent) {
      // a stream already under way (SSE): its error event was written by the route; end the connection
      res.destroy();
      return;
    }
    const code = (e as { code?: string }).code ?? 'E_INTERNAL';
    const status = code === 'E_OOM' ? 503 : 500;
    if (status === 503) counts.unavailable++;
    else counts.serverError++;
    return json(res, status, { error: (e as Error).message ?? String(e), code });
  }

  // POST /v1/generate: checked like /v1/softmax (early 413 from Content-Length, body limit and
  // deadline), then every field checked before the batcher sees the request.
  async function generateRoute(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    const g = opts.generate;
    if (!g) {
      req.resume();
      counts.notFound++;
      return json(res, 404, { error: 'no model is loaded: start the server with --model DIR (a Llama checkpoint directory) to serve /v1/generate', code: 'E_NO_MODEL' });
    }
    if (req.method !== 'POST') {
      req.resume();
      counts.notFound++;
      return json(res, 405, { error: 'use POST', code: 'E_METHOD' });
    }
    const t0 = performance.now();
    counts.requests++;
    try {
      const declared = req.headers['content-length'];
      if (declared !== undefined && Number(declared) > MAX_GENERATE_BODY) {
        throw new HttpError(413, 'E_TOO_LARGE', `content-length ${Number(declared)} is over the ${MAX_GENERATE_BODY}-byte limit`, true);
      }
      if (expectsContinue) res.writeContinue();
      const body = await readBody(req, MAX_GENERATE_BODY, bodyTimeoutMs);
      let r: GenerateRequest;
      try {
        r = parseGenerateRequest(body, g.batcher, { ...(g.maxTokens !== undefined ? { maxTokens: g.maxTokens } : {}) });
      } catch (e) {
        if (!(e instanceof GenerateInputError)) throw e;
        counts.badRequest++;
        return json(res, 400, { error: e.message, code: e.code, field: e.field });
      }
      if (gone(req, res)) throw new ClientGone('the client went away before its generation began');
      const out = await runGenerate(g.batcher, r, res, { writeTimeoutMs: bodyTimeoutMs, ...(stopping ? { headers: { connection: 'close' } } : {}) });
      gen.tokens += out.completionTokens;
      if (out.firstTokenMs !== undefined) gen.ttft.add(out.firstTokenMs);
      if (out.finish === 'cancelled') {
        gen.cancelled++;
        throw new ClientGone('the client went away during its generation');
      }
      counts.ok++;
      lat.add(performance.now() - t0);
    } catch (e) {
      answerFailure(req, res, e);
    }
  }

  /** Sockets whose request a handler is answering, and its response. */
  const answering = new WeakMap<object, { req: IncomingMessage; res: ServerResponse }>();
  /** Responses the clientError handler wrote (the request turned out malformed mid-body): the handler leaves them. */
  const answeredByParser = new WeakSet<ServerResponse>();
  const onRequest = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    if (answeredToClose.has(req.socket)) {
      req.resume(); // pipelined after an answer that closes the connection: not served (it closes in stages)
      return;
    }
    inflight++;
    answering.set(req.socket, { req, res });
    handle(req, res, expectsContinue)
      .catch((e: unknown) => {
        if (!res.headersSent && !gone(req, res)) json(res, 500, { error: String(e), code: 'E_INTERNAL' });
        else res.destroy();
      })
      .finally(() => {
        if (answering.get(req.socket)?.res === res) answering.delete(req.socket); // (a pipelined next request may own it now)
        inflight--;
        if (inflight === 0 && drained) drained();
      });
  };
  // headersTimeout: Node answers 408 and closes a connection whose request headers are not complete
  // in time (checked every connectionsCheckingInterval); the body's deadline is readBody's.
  const server = createServer({
    headersTimeout: headerTimeoutMs, requestTimeout: 0, connectionsCheckingInterval: Math.max(50, Math.min(1000, headerTimeoutMs >> 2)),
  }, (req, res) => onRequest(req, res, false));
  // Expect: 100-continue: the early checks (shape, Content-Length) answer before the client sends its body.
  server.on('checkContinue', (req, res) => onRequest(req, res, true));
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // What Node does by default (408 for a header timeout, 431 for headers too large, else 400,
    // then close), with a JSON body and counted. A client that went away (reset, or closed
    // mid-request: HPE_INVALID_EOF_STATE) gets nothing, nor does a request whose answer has begun.
    const code = err.code ?? '';
    if (answeredToClose.has(socket)) return; // answered already; the staged close ends it (and drops what follows)
    const owner = answering.get(socket);
    // the error is in the body of the request a handler has (not in a later pipelined one)
    const res = owner && !owner.req.complete ? owner.res : undefined;
    if (code === 'ECONNRESET' || code === 'HPE_INVALID_EOF_STATE' || !socket.writable || owner?.res.headersSent || (owner && !res)) {
      if (!owner && code === 'HPE_INVALID_EOF_STATE') counts.clientAborted++; // closed mid-request (a handler counts its own)
      else if (owner && !res && code.startsWith('HPE_')) counts.badRequest++; // garbage pipelined after a request: closed
      socket.destroy();
      return;
    }
    const [status, reason, ecode] = code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'E_TIMEOUT']
      : code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'E_HEADERS'] : [400, 'Bad Request', 'E_HTTP'];
    if (status === 408) counts.timedOut++;
    else counts.badRequest++;
    const body = { error: status === 408 ? `the request headers did not arrive within ${headerTimeoutMs} ms` : `malformed request (${code || err.message})`, code: ecode };
    if (res) {
      // the headers were fine, the body is not (a bad chunk, an invalid transfer-encoding): answered here
      answeredByParser.add(res);
      json(res, status, body, true);
      stopReading.get(owner!.req)?.(new ClientGone('answered by the parser'));
      return;
    }
    const text = JSON.stringify(body);
    answeredToClose.add(socket);
    socket.write(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    closeInStages(socket, lingerMs);
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;

  /**
   * Stops accepting, lets the requests in flight finish for at most drainTimeoutMs, then closes
   * every connection left (a client stalled mid-body cannot hold the process), waits for the
   * device work already queued, frees every device's memory. `abandoned`: requests still in flight
   * at the deadline (their clients see the connection closed).
   */
  async function close(): Promise<{ abandoned: number }> {
    if (stopping) return { abandoned: 0 };
    stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const allDone = new Promise<void>((resolve) => {
      drained = resolve;
      if (inflight === 0) resolve();
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([allDone, new Promise<void>((resolve) => (timer = setTimeout(resolve, drainTimeoutMs)))]);
    clearTimeout(timer);
    const abandoned = inflight;
    server.closeAllConnections();
    await allDone; // the closed requests end at once; those running device work finish it first
    await closed;
    for (const d of devs) {
      await d.synchronize?.();
      d.trimMemory?.();
    }
    return { abandoned };
  }
  return { port, close };
}

/** --model DIR: the checkpoint loaded (on --model-device, else the first serving device) and warmed up. */
async function openModel(values: Record<string, string | boolean | undefined>, dflt: Device): Promise<NonNullable<ServerOptions['generate']>> {
  const int = (flag: string, min: number, max: number): number | undefined => {
    const v = values[flag];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new Error(`--${flag} must be an integer in ${min}..${max}, got ${String(v)}`);
    return Number(v);
  };
  const dtype = values['dtype'];
  if (dtype !== undefined && !['f32', 'f16', 'bf16'].includes(dtype as string)) throw new Error(`--dtype must be f32, f16 or bf16, got ${String(dtype)}`);
  const maxBatch = int('max-batch', 1, 1024)!;
  const maxTokens = int('max-tokens', 1, 1 << 20);
  const device = values['model-device'] !== undefined ? getDevice(String(values['model-device']) as never) : dflt;
  const model = await loadModel(String(values['model']), { device, kvCacheTokens: int('kv-cache-tokens', 1, 1 << 24)!, ...(dtype ? { dtype: dtype as ModelDType } : {}) });
  const batcher = new Batcher(model, maxBatch);
  // warm-up: compile (or load) the prefill, decode and sampling kernels before listening
  for await (const t of batcher.submit([0, 1], { maxNewTokens: 2, ignoreEos: true })) void t;
  for await (const t of batcher.submit([0, 1], { maxNewTokens: 1, temperature: 1, topK: 8, topP: 0.9 })) void t;
  return { batcher, name: String(values['model']), ...(maxTokens !== undefined ? { maxTokens } : {}) };
}

function parseDevices(spec: string | undefined): Device[] {
  if (!spec || spec === 'all') return defaultDevices();
  return spec.split(',').map((s) => getDevice(s.trim() as never));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      device: { type: 'string' },
      warmup: { type: 'string', default: '4,256' },
      'header-timeout-ms': { type: 'string', default: String(HEADER_TIMEOUT_MS) },
      'body-timeout-ms': { type: 'string', default: String(BODY_TIMEOUT_MS) },
      'drain-timeout-ms': { type: 'string', default: String(DRAIN_TIMEOUT_MS) },
      'linger-ms': { type: 'string', default: String(LINGER_MS) },
      model: { type: 'string' },
      'model-device': { type: 'string' },
      dtype: { type: 'string' },
      'max-batch': { type: 'string', default: '32' },
      'max-tokens': { type: 'string' },
      'kv-cache-tokens': { type: 'string', default: '4096' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  const ms = (flag: 'header-timeout-ms' | 'body-timeout-ms' | 'drain-timeout-ms' | 'linger-ms'): number => {
    const v = Number(values[flag]);
    if (!/^\d+$/.test(values[flag]!) || v < 1 || v > 3_600_000) throw new Error(`--${flag} must be an integer number of ms in 1..3600000, got ${values[flag]}`);
    return v;
  };
  const deadlines = { headerTimeoutMs: ms('header-timeout-ms'), bodyTimeoutMs: ms('body-timeout-ms'), drainTimeoutMs: ms('drain-timeout-ms'), lingerMs: ms('linger-ms') };
  setDeviceAnnouncer(() => {});
  const devs = parseDevices(values.device);
  const warm = values.warmup === 'none' ? null : (parseShape(values.warmup) as [number, number]);
  const generate = values.model === undefined ? undefined : await openModel(values, devs[0]!);
  const s = await serve({ port, host: values.host!, devices: devs, warmup: warm, ...deadlines, ...(generate ? { generate } : {}) });
  // compileCache: what the warm-up cost this process (misses = compiles; diskHits: another process compiled it)
  const { misses, diskHits } = defaultCompileCache().stats();
  console.log(JSON.stringify({ event: 'listening', port: s.port, pid: process.pid, devices: devs.map((d) => d.name ?? d.kind), compileCache: { misses, diskHits } }));
  let exiting = false;
  const stop = (signal: string) => {
    if (exiting) return;
    exiting = true;
    s.close().then(
      ({ abandoned }) => {
        console.log(JSON.stringify({ event: 'stopped', signal, abandoned, devices: devs.map((d) => ({ name: d.name ?? d.kind, memory: d.memoryStats?.() ?? null })) }));
        generate?.batcher.model.dispose();
        for (const d of devs) d.close?.();
        process.exit(0);
      },
      (e: unknown) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

// Run when executed (node dist/examples/server.js), not when imported by tests or the bench.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
