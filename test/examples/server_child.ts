// examples/server.ts as a child process for the server tests (server.test.ts, server_attack.test.ts):
// the built dist/examples/server.js spawned on an ephemeral port with two sim devices, its port read
// from its "listening" event, plain HTTP calls to it, raw f32 bodies and the row softmax it serves
// as the JS reference.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join, resolve } from 'node:path';

export const SERVER = join(resolve(__dirname, '../..'), 'dist', 'examples', 'server.js');

export interface Started { child: ChildProcess; port: number; lines: string[]; exit: Promise<number | null> }

/** Spawns the server with `args` (its compile cache in `cacheDir`; the child pushed on `children` for the file's cleanup); resolves once it listens. */
export function startServer(args: string[], cacheDir: string, children: ChildProcess[]): Promise<Started> {
  const child = spawn(process.execPath, [SERVER, '--port', '0', ...args], {
    env: { ...process.env, TESSERA_SIM_DEVICES: '2', TESSERA_CACHE_DIR: cacheDir, TESSERA_SIM_THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let err = '';
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolvePort, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        const m = /"event":"listening","port":(\d+)/.exec(line);
        if (m) resolvePort({ child, port: Number(m[1]), lines, exit });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    void exit.then((code) => reject(new Error(`server exited (${code}) before listening: ${err}`)));
  });
}

export interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** One HTTP request to the server on `port` (no keep-alive): its status, headers and body. */
export function call(port: number, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((res, rej) => {
    const r = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (resp) => {
      const chunks: Buffer[] = [];
      resp.on('data', (c: Buffer) => chunks.push(c));
      resp.on('end', () => res({ status: resp.statusCode!, headers: resp.headers, body: Buffer.concat(chunks) }));
    });
    r.on('error', rej);
    r.end(body);
  });
}

export const f32Body = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
export const f32Of = (b: Buffer): Float32Array => {
  const out = new Float32Array(b.length / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
};

/** softmax over each of R rows of C, in f64. */
export function refSoftmax(x: Float32Array, R: number, C: number): Float64Array {
  const out = new Float64Array(R * C);
  for (let r = 0; r < R; r++) {
    let m = -Infinity;
    for (let c = 0; c < C; c++) m = Math.max(m, x[r * C + c]!);
    let s = 0;
    for (let c = 0; c < C; c++) s += Math.exp(x[r * C + c]! - m);
    for (let c = 0; c < C; c++) out[r * C + c] = Math.exp(x[r * C + c]! - m) / s;
  }
  return out;
}

/** Polls `ok` every 20 ms until it holds, for at most `ms` (a bound on a hang, never a timing): whether it held. */
export async function until(ok: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await ok()) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * After a SIGTERM: whether the server `s` stops accepting connections within `ms`, while its
 * process still runs (its drain holds it; a refusal because it exited does not count). The child
 * handles the signal when its event loop next turns (later on a loaded machine), so a request may
 * still be served first; it is asked again until a connection is refused.
 */
export const stopsAccepting = (s: Started, ms: number): Promise<boolean> =>
  until(() => call(s.port, 'GET', '/healthz').then(
    () => false,
    (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED' && s.child.exitCode === null && s.child.signalCode === null,
  ), ms);
