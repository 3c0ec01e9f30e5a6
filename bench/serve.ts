// `npm run bench:serve`: examples/server.ts under load, on the sim. autocannon (pinned
// devDependency) at concurrency 64 for 10,000 POST /v1/softmax requests:
//   1. one server process on one sim device: requests/s, p50/p99/p99.9 latency, the device's
//      memoryStats() and the process's memory before and after (flat: no leak);
//   2. four worker processes (node:cluster), one per sim device (TESSERA_SIM_DEVICES=4), sharing
//      one on-disk compile cache: the first worker compiles, the other three load its result.
// Every figure is a CPU figure of the simulator (no GPU is used). Not a test.
// `npm run bench:serve -- --generate`: POST /v1/generate at 1/8/32 streams instead (bench/serve_generate.ts).
import cluster, { type Worker } from 'node:cluster';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchGenerate } from './serve_generate.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; p99_9: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, '..', 'examples', 'server.js');
const ROWS = 4, COLS = 256, CONNECTIONS = 64, AMOUNT = 10_000;
const body = (() => {
  const x = Float32Array.from({ length: ROWS * COLS }, (_, i) => Math.sin(i) * 3);
  return Buffer.from(x.buffer);
})();

const get = (port: number, path: string): Promise<string> => new Promise((res, rej) => {
  const r = request({ host: '127.0.0.1', port, path, agent: false }, (resp) => {
    let s = '';
    resp.on('data', (c: Buffer) => (s += c.toString()));
    resp.on('end', () => res(s));
  });
  r.on('error', rej);
  r.end();
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const load = (port: number, amount: number): Promise<AutocannonResult> => autocannon({
  url: `http://127.0.0.1:${port}/v1/softmax`, method: 'POST', headers: { 'x-shape': `${ROWS},${COLS}`, 'content-type': 'application/octet-stream' },
  body, connections: CONNECTIONS, amount, timeout: 60,
});

const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;

function printLoad(out: (s: string) => void, r: AutocannonResult): void {
  out(`  ${r.requests.total} requests in ${r.duration.toFixed(1)} s: ${r.requests.average.toFixed(0)} req/s; latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, p99.9 ${r.latency.p99_9} ms, max ${r.latency.max} ms; non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}\n`);
}

interface Metrics {
  devices: { name: string; requests: number; memory: { inUseBytes: number; reservedBytes: number; peakInUseBytes: number; allocations: number; frees: number } }[];
  process: { rss: number; heapUsed: number; external: number };
}

function printMemory(out: (s: string) => void, label: string, m: Metrics): void {
  for (const d of m.devices) {
    out(`  ${label} ${d.name}: in use ${kib(d.memory.inUseBytes)}, reserved ${kib(d.memory.reservedBytes)}, peak ${kib(d.memory.peakInUseBytes)}, allocations ${d.memory.allocations}, frees ${d.memory.frees}\n`);
  }
  out(`  ${label} host: rss ${mib(m.process.rss)}, heap ${mib(m.process.heapUsed)}, external ${mib(m.process.external)}\n`);
}

/** One server process on sim:0. */
async function single(out: (s: string) => void, cacheDir: string): Promise<void> {
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--device', 'sim:0', '--warmup', `${ROWS},${COLS}`], {
    env: { ...process.env, TESSERA_SIM_DEVICES: '1', TESSERA_CACHE_DIR: cacheDir }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  try {
    const port = await new Promise<number>((res, rej) => {
      let buf = '';
      child.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /"event":"listening","port":(\d+)/.exec(buf);
        if (m) res(Number(m[1]));
      });
      void exit.then((c) => rej(new Error(`server exited with ${c}`)));
    });
    await load(port, 500); // warm: the pool holds what a request needs, V8 has compiled the path
    const before = JSON.parse(await get(port, '/metrics')) as Metrics;
    const r = await load(port, AMOUNT);
    const after = JSON.parse(await get(port, '/metrics')) as Metrics;
    // a second run of the same size: memory that only grew to a high-water mark stays there
    const r2 = await load(port, AMOUNT);
    const after2 = JSON.parse(await get(port, '/metrics')) as Metrics;
    out(`single process, device ${before.devices.map((d) => d.name).join(', ')} (sim: CPU figures, no GPU), concurrency ${CONNECTIONS}, ${ROWS}x${COLS} f32 per request\n`);
    printLoad(out, r);
    printLoad(out, r2);
    printMemory(out, 'before     ', before);
    printMemory(out, 'after 10k  ', after);
    printMemory(out, 'after 20k  ', after2);
  } finally {
    child.kill('SIGTERM');
    const code = await exit;
    out(`  SIGTERM -> exit ${code}\n`);
  }
}

/** Four cluster workers, one per sim device, one compile cache on disk. */
async function clustered(out: (s: string) => void, cacheDir: string): Promise<void> {
  const port = await freePort();
  const workers: { w: Worker; device: string; listening: { compileCache: { misses: number; diskHits: number } } | undefined; exit: Promise<number | null> }[] = [];
  const startWorker = (i: number) => new Promise<void>((res, rej) => {
    cluster.setupPrimary({ exec: SERVER, args: ['--port', String(port), '--device', `sim:${i}`, '--warmup', `${ROWS},${COLS}`], silent: true });
    const w = cluster.fork({ TESSERA_SIM_DEVICES: '4', TESSERA_CACHE_DIR: cacheDir });
    const rec = { w, device: `sim:${i}`, listening: undefined as (typeof workers)[number]['listening'], exit: new Promise<number | null>((r) => w.on('exit', (c) => r(c))) };
    workers.push(rec);
    let buf = '';
    w.process.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.includes('"event":"listening"'));
      if (line && !rec.listening) {
        rec.listening = JSON.parse(line);
        res();
      }
    });
    w.process.stderr!.on('data', (d: Buffer) => process.stderr.write(d));
    void rec.exit.then((c) => rej(new Error(`worker ${i} exited with ${c}`)));
  });
  try {
    await startWorker(0); // the first worker compiles and writes the disk cache ...
    await Promise.all([1, 2, 3].map((i) => startWorker(i))); // ... the others load it
    await load(port, 500);
    const r = await load(port, AMOUNT);
    out(`node:cluster, 4 workers, one per sim device (sim: CPU figures, no GPU), concurrency ${CONNECTIONS}\n`);
    printLoad(out, r);
    let compiles = 0;
    for (const x of workers) {
      const c = x.listening!.compileCache;
      compiles += c.misses;
      out(`  worker ${x.w.process.pid} on ${x.device}: ${c.misses} compile(s), ${c.diskHits} from the shared disk cache\n`);
    }
    out(`  compiles in total: ${compiles}\n`);
  } finally {
    for (const x of workers) x.w.process.kill('SIGTERM');
    const codes = await Promise.all(workers.map((x) => x.exit));
    out(`  SIGTERM -> exits ${codes.join(', ')}\n`);
  }
}

export async function benchServe(out: (s: string) => void): Promise<void> {
  const dirs = [mkdtempSync(join(tmpdir(), 'tessera-bench-serve-')), mkdtempSync(join(tmpdir(), 'tessera-bench-serve-'))];
  try {
    await single(out, dirs[0]!);
    out('\n');
    await clustered(out, dirs[1]!);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // --generate [--model DIR] [--device D] [--max-tokens N]: POST /v1/generate instead (bench/serve_generate.ts)
  const { values } = parseArgs({ options: { generate: { type: 'boolean' }, model: { type: 'string' }, device: { type: 'string' }, 'max-tokens': { type: 'string' } } });
  const maxTokens = values['max-tokens'] === undefined ? undefined : Number(values['max-tokens']);
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1)) throw new Error(`--max-tokens must be a positive integer, got ${values['max-tokens']}`);
  const run = values.generate
    ? benchGenerate((s) => process.stdout.write(s), { ...(values.model ? { model: values.model } : {}), ...(values.device ? { device: values.device } : {}), ...(maxTokens ? { maxTokens } : {}) })
    : benchServe((s) => process.stdout.write(s));
  run.catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
