// examples/server.ts as a program (the built dist/examples/server.js, spawned on an ephemeral port
// with two sim devices): good requests against a JS reference, round-robin over the devices, bad
// requests answered 400 with { error, code } while it keeps serving, /healthz, /metrics, and a
// SIGTERM that lets the request in flight finish and exits 0.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, f32Body, f32Of, refSoftmax, SERVER, startServer, stopsAccepting, until, type Reply, type Started } from './server_child.js';

const cacheDir = mkdtempSync(join(tmpdir(), 'tessera-serve-test-'));
const children: ChildProcess[] = [];

const start = (args: string[]): Promise<Started> => startServer(args, cacheDir, children);

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('examples/server.ts', () => {
  let s: Started;
  beforeAll(async () => {
    expect(existsSync(SERVER), 'dist/ is built by npm install / npm run build:ts').toBe(true);
    s = await start(['--device', 'sim:0,sim:1', '--warmup', '3,100']);
  }, 120_000);

  it('answers the row softmax as raw f32, spreading requests over both devices', async () => {
    const R = 3, C = 100;
    const x = Float32Array.from({ length: R * C }, (_, i) => Math.sin(i * 0.37) * 5);
    const want = refSoftmax(x, R, C);
    const used: string[] = [];
    for (let k = 0; k < 4; k++) {
      const r = await call(s.port, 'POST', '/v1/softmax', f32Body(x), { 'x-shape': `${R},${C}` });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/octet-stream');
      expect(r.headers['x-shape']).toBe(`${R},${C}`);
      used.push(String(r.headers['x-device']));
      const y = f32Of(r.body);
      expect(y.length).toBe(R * C);
      for (let i = 0; i < R * C; i++) expect(Math.abs(y[i]! - want[i]!)).toBeLessThan(1e-6);
    }
    expect(new Set(used)).toEqual(new Set(['sim:0', 'sim:1']));
  });

  it('bad requests are 400 (or 404/405/413) with { error, code }, and the server keeps serving', async () => {
    const good = f32Body(new Float32Array([1, 2, 3, 4]));
    const bad: [string, Promise<Reply>, number, string][] = [
      ['no shape', call(s.port, 'POST', '/v1/softmax', good), 400, 'E_SHAPE'],
      ['bad shape', call(s.port, 'POST', '/v1/softmax', good, { 'x-shape': '2x2' }), 400, 'E_SHAPE'],
      ['zero rows', call(s.port, 'POST', '/v1/softmax', good, { 'x-shape': '0,4' }), 400, 'E_SHAPE'],
      ['too many cols', call(s.port, 'POST', '/v1/softmax', Buffer.alloc(4 * 9000), { 'x-shape': '1,9000' }), 400, 'E_SHAPE'],
      ['wrong size', call(s.port, 'POST', '/v1/softmax', good, { 'x-shape': '2,3' }), 400, 'E_SIZE'],
      ['odd bytes', call(s.port, 'POST', '/v1/softmax', Buffer.alloc(15), { 'x-shape': '1,4' }), 400, 'E_SIZE'],
      ['NaN', call(s.port, 'POST', '/v1/softmax', f32Body(new Float32Array([1, NaN, 3, 4])), { 'x-shape': '2,2' }), 400, 'E_NONFINITE'],
      ['Infinity', call(s.port, 'POST', '/v1/softmax', f32Body(new Float32Array([1, 2, 3, -Infinity])), { 'x-shape': '1,4' }), 400, 'E_NONFINITE'],
      ['too large', call(s.port, 'POST', '/v1/softmax', Buffer.alloc(4), { 'x-shape': '8192,8192' }), 413, 'E_TOO_LARGE'],
      ['GET', call(s.port, 'GET', '/v1/softmax'), 405, 'E_METHOD'],
      ['unknown path', call(s.port, 'POST', '/v2/nope', good), 404, 'E_NOT_FOUND'],
    ];
    for (const [what, p, status, code] of bad) {
      const r = await p;
      expect(r.status, what).toBe(status);
      expect(r.headers['content-type']).toBe('application/json');
      const j = JSON.parse(r.body.toString()) as { error: string; code: string };
      expect(j.code, what).toBe(code);
      expect(j.error.length, what).toBeGreaterThan(0);
    }
    const ok = await call(s.port, 'POST', '/v1/softmax', good, { 'x-shape': '2,2' });
    expect(ok.status).toBe(200);
    const y = f32Of(ok.body);
    expect(y[0]! + y[1]!).toBeCloseTo(1, 6);
  });

  it('/healthz and /metrics (counts, latency quantiles, each device memoryStats, process memory)', async () => {
    const h = await call(s.port, 'GET', '/healthz');
    expect(h.status).toBe(200);
    expect(JSON.parse(h.body.toString())).toMatchObject({ ok: true, devices: ['sim:0', 'sim:1'] });
    const m = JSON.parse((await call(s.port, 'GET', '/metrics')).body.toString());
    expect(m.requests.ok).toBe(5);
    expect(m.requests.badRequest).toBe(8);
    expect(m.requests.tooLarge).toBe(1);
    expect(m.latencyMs.count).toBe(5);
    expect(m.latencyMs.p50).toBeGreaterThan(0);
    expect(m.latencyMs.p99).toBeGreaterThanOrEqual(m.latencyMs.p50);
    expect(m.devices.map((d: { name: string }) => d.name)).toEqual(['sim:0', 'sim:1']);
    for (const d of m.devices) {
      expect(d.memory.inUseBytes).toBe(0); // every request freed what it allocated
      expect(d.memory.allocations).toBe(d.memory.frees);
      expect(d.memory.allocations).toBeGreaterThanOrEqual(2 * (1 + d.requests));
    }
    expect(m.process.rss).toBeGreaterThan(0);
  });

  it('SIGTERM: stops accepting, finishes the request in flight, frees everything, exits 0', async () => {
    const R = 64, C = 1000;
    const x = Float32Array.from({ length: R * C }, (_, i) => (i % 17) * 0.25);
    const body = f32Body(x);
    // A request whose body is only half sent is in flight; then the signal; then the rest.
    const reply = new Promise<Reply>((res, rej) => {
      const r = request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/v1/softmax', agent: false, headers: { 'x-shape': `${R},${C}`, 'content-length': body.length } }, (resp) => {
        const chunks: Buffer[] = [];
        resp.on('data', (c: Buffer) => chunks.push(c));
        resp.on('end', () => res({ status: resp.statusCode!, headers: resp.headers, body: Buffer.concat(chunks) }));
      });
      r.on('error', rej);
      r.write(body.subarray(0, body.length / 2));
      (globalThis as { finishBody?: () => void }).finishBody = () => r.end(body.subarray(body.length / 2));
    });
    const inflight = async () => (JSON.parse((await call(s.port, 'GET', '/healthz')).body.toString()) as { inflight: number }).inflight;
    expect(await until(async () => (await inflight()) >= 2, 15_000)).toBe(true); // this health check and the half-sent request
    s.child.kill('SIGTERM');
    expect(await stopsAccepting(s, 15_000), 'no longer accepting').toBe(true);
    (globalThis as { finishBody?: () => void }).finishBody!();
    const r = await reply;
    expect(r.status).toBe(200);
    const y = f32Of(r.body);
    const want = refSoftmax(x, R, C);
    for (let i = 0; i < R * C; i += 997) expect(Math.abs(y[i]! - want[i]!)).toBeLessThan(1e-6);
    expect(await s.exit).toBe(0);
    const stopped = JSON.parse(s.lines.find((l) => l.includes('"event":"stopped"'))!) as { devices: { memory: { inUseBytes: number; reservedBytes: number } }[] };
    for (const d of stopped.devices) expect(d.memory).toMatchObject({ inUseBytes: 0, reservedBytes: 0 });
  }, 60_000);
});
