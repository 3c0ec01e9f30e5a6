// A small real server on node:http that runs a Tessera kernel per request, on every device of the
// machine (requests spread round-robin), or on the devices named by --device.
//
//   node dist/examples/server.js --port 8080 [--device sim:0,sim:1] [--warmup 4,256]
//
//   POST /v1/softmax   body: rows*cols little-endian f32, header `x-shape: rows,cols`
//                      -> 200, the row softmax as little-endian f32 (same shape)
//                      -> 400 {"error","code"} for a missing/bad shape, a body of the wrong size,
//                         a non-finite value; 413 for a body over the limit; the server keeps serving
//   GET  /healthz      -> 200 {"ok":true,...} (503 while shutting down)
//   GET  /metrics      -> request counts, latency quantiles, each device's memoryStats(), process memory
//
// SIGTERM/SIGINT: stop accepting, finish the requests in flight, free everything, exit 0.
// It prints one JSON line when it listens ({"event":"listening","port":...}) and one when it stops.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { endianness } from 'node:os';
import { parseArgs } from 'node:util';
import {
  arange, constexpr, defaultCompileCache, DeviceArray, devices, exp, getDevice, kernel, load, max, programId, ptr,
  setDeviceAnnouncer, store, sum, type Device,
} from '../src/index.js';

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
const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** `rows,cols` from the x-shape header, checked. */
export function parseShape(header: string | string[] | undefined): [number, number] {
  if (typeof header !== 'string') throw new HttpError(400, 'E_SHAPE', 'missing x-shape header (rows,cols)');
  const m = /^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$/.exec(header);
  if (!m) throw new HttpError(400, 'E_SHAPE', `x-shape must be "rows,cols" (positive integers), got ${JSON.stringify(header)}`);
  const rows = Number(m[1]), cols = Number(m[2]);
  if (rows < 1 || cols < 1) throw new HttpError(400, 'E_SHAPE', `x-shape must be positive, got ${rows},${cols}`);
  if (cols > MAX_COLS) throw new HttpError(400, 'E_SHAPE', `cols ${cols} is over the limit of ${MAX_COLS}`);
  if (rows * cols * 4 > MAX_BODY) throw new HttpError(413, 'E_TOO_LARGE', `${rows}x${cols} f32 is over the ${MAX_BODY}-byte limit`);
  return [rows, cols];
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > limit) over = true; // keep draining so the connection stays usable
      else chunks.push(c);
    });
    req.on('end', () => (over ? reject(new HttpError(413, 'E_TOO_LARGE', `body over the ${limit}-byte limit`)) : resolve(Buffer.concat(chunks, n))));
    req.on('error', reject);
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
}

/** Every available device: the GPUs when there are any, else every sim device, else the interpreter. */
export function defaultDevices(): Device[] {
  const list = devices().filter((d) => d.available);
  const kind = list.some((d) => d.kind === 'cuda') ? 'cuda' : list.some((d) => d.kind === 'sim') ? 'sim' : 'interpret';
  return list.filter((d) => d.kind === kind).map((d) => getDevice(d.name as never));
}

export async function serve(opts: ServerOptions): Promise<{ port: number; close: () => Promise<void> }> {
  if (endianness() !== 'LE') throw new Error('this example reads and writes little-endian f32 directly');
  const devs = opts.devices;
  if (devs.length === 0) throw new Error('no device to serve on');
  const counts = { requests: 0, ok: 0, badRequest: 0, tooLarge: 0, notFound: 0, serverError: 0, unavailable: 0 };
  const perDevice = new Map<Device, number>(devs.map((d) => [d, 0]));
  const lat = new Latencies();
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

  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(stopping ? { connection: 'close' } : {}) });
    res.end(text);
  };

  function metrics(): unknown {
    const mem = process.memoryUsage();
    return {
      requests: counts, latencyMs: lat.quantiles(), inflight,
      devices: devs.map((d) => ({ name: d.name ?? d.kind, requests: perDevice.get(d), memory: d.memoryStats?.() ?? null })),
      compileCache: (({ memoryHits, diskHits, misses }) => ({ memoryHits, diskHits, misses }))(defaultCompileCache().stats()),
      process: { rss: mem.rss, heapUsed: mem.heapUsed, external: mem.external, arrayBuffers: mem.arrayBuffers },
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/healthz') {
      req.resume();
      return json(res, stopping ? 503 : 200, { ok: !stopping, devices: devs.map((d) => d.name ?? d.kind), inflight });
    }
    if (req.method === 'GET' && url === '/metrics') {
      req.resume();
      return json(res, 200, metrics());
    }
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
      const body = await readBody(req, MAX_BODY);
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
      res.writeHead(200, {
        'content-type': 'application/octet-stream', 'content-length': y.byteLength, 'x-shape': `${rows},${cols}`,
        'x-device': device.name ?? device.kind, ...(stopping ? { connection: 'close' } : {}),
      });
      res.end(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
      counts.ok++;
      lat.add(performance.now() - t0);
    } catch (e) {
      if (e instanceof HttpError) {
        if (e.status === 413) counts.tooLarge++;
        else counts.badRequest++;
        return json(res, e.status, { error: e.message, code: e.code });
      }
      const code = (e as { code?: string }).code ?? 'E_INTERNAL';
      const status = code === 'E_OOM' ? 503 : 500;
      if (status === 503) counts.unavailable++;
      else counts.serverError++;
      return json(res, status, { error: (e as Error).message ?? String(e), code });
    }
  }

  const server = createServer((req, res) => {
    inflight++;
    handle(req, res)
      .catch((e: unknown) => {
        if (!res.headersSent) json(res, 500, { error: String(e), code: 'E_INTERNAL' });
        else res.destroy();
      })
      .finally(() => {
        inflight--;
        if (inflight === 0 && drained) drained();
      });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;

  /** Stops accepting, lets the requests in flight finish, frees every device's memory. */
  async function close(): Promise<void> {
    if (stopping) return;
    stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (inflight > 0) await new Promise<void>((resolve) => (drained = resolve));
    server.closeAllConnections();
    await closed;
    for (const d of devs) {
      await d.synchronize?.();
      d.trimMemory?.();
    }
  }
  return { port, close };
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
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  setDeviceAnnouncer(() => {});
  const devs = parseDevices(values.device);
  const warm = values.warmup === 'none' ? null : (parseShape(values.warmup) as [number, number]);
  const s = await serve({ port, host: values.host!, devices: devs, warmup: warm });
  // compileCache: what the warm-up cost this process (misses = compiles; diskHits: another process compiled it)
  const { misses, diskHits } = defaultCompileCache().stats();
  console.log(JSON.stringify({ event: 'listening', port: s.port, pid: process.pid, devices: devs.map((d) => d.name ?? d.kind), compileCache: { misses, diskHits } }));
  let exiting = false;
  const stop = (signal: string) => {
    if (exiting) return;
    exiting = true;
    s.close().then(
      () => {
        console.log(JSON.stringify({ event: 'stopped', signal, devices: devs.map((d) => ({ name: d.name ?? d.kind, memory: d.memoryStats?.() ?? null })) }));
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
