// POST /v1/generate of examples/server.ts, in process (serve() with a Batcher over the tiny random
// Llama that transformers writes: scripts/llm/tiny_llama.py, as in llm.test.ts), on sim:0: streamed
// tokens equal transformers' greedy tokens, concurrent requests share decode steps and each gets the
// tokens it gets alone, a client that disconnects mid-stream gets its sequence cancelled and its KV
// pages back, bad bodies are 400 naming the field before anything runs, no model is 404, and many
// requests leave the KV cache, the batcher and the device pool where they started (count-based):
// the 1,000 (about a minute on the sim; TESSERA_SERVE_REQUESTS=N runs another count).
// Bounded waits only stop a hang; no timing is asserted.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Batcher } from '../../examples/llm/batcher.js';
import { loadModel, type LlamaModel } from '../../examples/llm/model.js';
import { serve } from '../../examples/server.js';
import { getDevice, type Device } from '../../src/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PYTHON = join(ROOT, '.venv', 'bin', 'python');
const DEVICE = 'sim:0';
const dir = mkdtempSync(join(tmpdir(), 'tessera-gen-'));
const ckpt = join(dir, 'f32');

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: string }
interface Event { event: string; data: Record<string, unknown> }

let model: LlamaModel;
let batcher: Batcher;
let device: Device;
let server: Awaited<ReturnType<typeof serve>>;
let reference: { prompt: number[]; greedy: number[] };

beforeAll(async () => {
  expect(existsSync(PYTHON), 'no .venv: run `npm run setup:python` (torch + transformers)').toBe(true);
  const r = spawnSync(PYTHON, [join(ROOT, 'scripts', 'llm', 'tiny_llama.py'), ckpt], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`tiny_llama.py exited with ${r.status ?? r.signal}:\n${r.stderr}`);
  reference = JSON.parse(readFileSync(join(ckpt, 'reference.json'), 'utf8')) as typeof reference;
  device = getDevice(DEVICE);
  // 64 pages of 4 tokens: small enough that the admission limit and page counts are visible
  model = await loadModel(ckpt, { device: DEVICE, kvCacheTokens: 256, blockSize: 4 });
  batcher = new Batcher(model, 32);
  server = await serve({ port: 0, host: '127.0.0.1', devices: [device], warmup: null, generate: { batcher, maxTokens: 64 } });
}, 320_000);

afterAll(async () => {
  await server?.close();
  model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function call(port: number, method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((res, rej) => {
    const r = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (resp) => {
      const chunks: Buffer[] = [];
      resp.on('data', (c: Buffer) => chunks.push(c));
      resp.on('end', () => res({ status: resp.statusCode!, headers: resp.headers, body: Buffer.concat(chunks).toString() }));
    });
    r.on('error', rej);
    r.end(body);
  });
}

const generate = (body: unknown): Promise<Reply> => call(server.port, 'POST', '/v1/generate', JSON.stringify(body), { 'content-type': 'application/json' });

function events(text: string): Event[] {
  return text.split('\n\n').filter((b) => b.trim() !== '').map((block) => {
    const lines = block.split('\n');
    const ev = lines.find((l) => l.startsWith('event: '))!.slice(7);
    const data = JSON.parse(lines.find((l) => l.startsWith('data: '))!.slice(6)) as Record<string, unknown>;
    return { event: ev, data };
  });
}

const streamedTokens = (r: Reply): number[] => events(r.body).filter((e) => e.event === 'token').map((e) => e.data['token'] as number);

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok(), what).toBe(true);
}

const liveBytes = () => {
  const m = device.memoryStats!();
  return { inUseBytes: m.inUseBytes, live: m.allocations - m.frees };
};

describe('POST /v1/generate (sim:0, tiny Llama from transformers)', () => {
  it('streams transformers\' greedy tokens as server-sent events, then done; stream:false answers one JSON', async () => {
    const r = await generate({ tokens: reference.prompt, max_tokens: 6 });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream');
    const ev = events(r.body);
    expect(ev.map((e) => e.event)).toEqual([...Array<string>(6).fill('token'), 'done']);
    expect(ev.slice(0, 6).map((e) => e.data['index'])).toEqual([0, 1, 2, 3, 4, 5]);
    expect(streamedTokens(r)).toEqual(reference.greedy.slice(0, 6));
    expect(ev[6]!.data).toEqual({ finish_reason: 'length', prompt_tokens: reference.prompt.length, completion_tokens: 6 });

    const j = await generate({ tokens: reference.prompt, max_tokens: 4, stream: false });
    expect(j.status).toBe(200);
    expect(j.headers['content-type']).toBe('application/json');
    expect(JSON.parse(j.body)).toEqual({ tokens: reference.greedy.slice(0, 4), finish_reason: 'length', prompt_tokens: reference.prompt.length, completion_tokens: 4 });

    // text in (the byte-level tokenizer): the same tokens as those bytes' ids, and the text out
    const alone: number[] = [];
    for await (const t of model.generate([104, 105], { maxNewTokens: 3, ignoreEos: true })) alone.push(t);
    const t = JSON.parse((await generate({ prompt: 'hi', max_tokens: 3, stream: false, ignore_eos: true })).body) as { tokens: number[]; text: string; prompt_tokens: number };
    expect(t.tokens).toEqual(alone);
    expect(t.prompt_tokens).toBe(2);
    expect(t.text).toBe(new TextDecoder().decode(new Uint8Array(alone)));

    // sampling: the same seed gives the same tokens
    const s = { tokens: reference.prompt, max_tokens: 5, temperature: 1.5, top_k: 50, top_p: 0.95, seed: 11, stream: false, ignore_eos: true };
    const a = JSON.parse((await generate(s)).body) as { tokens: number[] };
    expect(JSON.parse((await generate(s)).body)).toMatchObject({ tokens: a.tokens });
    expect(a.tokens.length).toBe(5);
    expect(model.cache.stats().usedBlocks).toBe(0);
  });

  it('concurrent requests are batched into shared decode steps; each gets the tokens it gets alone', async () => {
    const prompts = Array.from({ length: 8 }, (_, i) => [1 + i, 7, 42 + 3 * i, 200 - i]);
    const alone: number[][] = [];
    for (const p of prompts) {
      const got: number[] = [];
      for await (const t of model.generate(p, { maxNewTokens: 4, ignoreEos: true })) got.push(t);
      alone.push(got);
    }
    const sizes: number[] = [];
    const decodeStep = model.decodeStep.bind(model);
    model.decodeStep = (seqs, ids) => (sizes.push(seqs.length), decodeStep(seqs, ids));
    try {
      const replies = await Promise.all(prompts.map((p) => generate({ tokens: p, max_tokens: 4, ignore_eos: true })));
      expect(replies.map((r) => r.status)).toEqual(prompts.map(() => 200));
      expect(replies.map(streamedTokens)).toEqual(alone);
    } finally {
      model.decodeStep = decodeStep;
    }
    expect(Math.max(...sizes)).toBeGreaterThan(1); // several sequences in one decode step
    expect(batcher.load).toEqual({ live: 0, pending: 0 });
    expect(model.cache.stats().usedBlocks).toBe(0);
  });

  it('a client that disconnects mid-stream cancels its sequence: the free KV pages return to their initial count', async () => {
    const initial = model.cache.stats().freeBlocks;
    const before = JSON.parse((await call(server.port, 'GET', '/metrics')).body) as { requests: { clientAborted: number }; model: { cancelled: number } };
    let seen = 0;
    let usedWhileStreaming = 0;
    let steps = 0;
    const decodeStep = model.decodeStep.bind(model);
    model.decodeStep = (seqs, ids) => (steps++, decodeStep(seqs, ids));
    await new Promise<void>((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/v1/generate', agent: false, headers: { 'content-type': 'application/json' } }, (resp) => {
        resp.on('data', (c: Buffer) => {
          seen += (c.toString().match(/event: token/g) ?? []).length;
          if (seen >= 2 && usedWhileStreaming === 0) {
            usedWhileStreaming = model.cache.stats().usedBlocks;
            r.destroy(); // the client goes away with 62 tokens still to come
            resolve();
          }
        });
      });
      r.on('error', reject);
      r.end(JSON.stringify({ tokens: reference.prompt, max_tokens: 64, ignore_eos: true }));
    });
    expect(usedWhileStreaming).toBeGreaterThan(0);
    try {
      await until('the cancelled sequence left the batch', () => batcher.load.live === 0 && batcher.load.pending === 0);
    } finally {
      model.decodeStep = decodeStep;
    }
    expect(steps).toBeLessThan(40); // it stopped, rather than running its 64 tokens to the end
    expect(model.cache.stats()).toEqual({ usedBlocks: 0, freeBlocks: initial, sequences: 0 });
    expect(batcher.reservedPages).toBe(0);
    type After = typeof before & { model: { kvCache: { freeBlocks: number }; batcher: { live: number } } };
    let after = before as After;
    for (let i = 0; i < 1500 && after.model.cancelled === before.model.cancelled; i++) {
      await new Promise((r) => setTimeout(r, 10));
      after = JSON.parse((await call(server.port, 'GET', '/metrics')).body) as After;
    }
    expect(after.model.cancelled).toBe(before.model.cancelled + 1);
    expect(after.requests.clientAborted).toBe(before.requests.clientAborted + 1);
    expect(after.model.kvCache.freeBlocks).toBe(initial);
    expect(after.model.batcher.live).toBe(0);
  });

  it('requests whose pages together exceed the KV cache wait for room instead of failing the batch', async () => {
    // each needs ceil((40 + 10 - 1) / 4) = 13 of the 64 pages: four fit at once, the fifth waits
    const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => generate({ tokens: Array.from({ length: 40 }, (_, t) => (t * 7 + i) % 256), max_tokens: 10, ignore_eos: true, stream: false })));
    for (const r of replies) {
      expect(r.status, r.body).toBe(200);
      expect((JSON.parse(r.body) as { tokens: number[] }).tokens.length).toBe(10);
    }
    expect(batcher.reservedPages).toBe(0);
    expect(model.cache.stats().usedBlocks).toBe(0);
  });

  it('bad input is 400 naming the field, before anything runs; over 1 MiB is 413; GET is 405', async () => {
    let submitted = 0;
    const submit = batcher.submit.bind(batcher);
    batcher.submit = (p, o) => (submitted++, submit(p, o));
    try {
      const cases: [string, string | Buffer, number, string, string | null][] = [
        ['not JSON', '{"tokens":[1,2', 400, 'E_JSON', null],
        ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 400, 'E_JSON', null],
        ['an array', '[1,2,3]', 400, 'E_JSON', null],
        ['no prompt', '{"max_tokens":2}', 400, 'E_FIELD', 'tokens'],
        ['both', '{"tokens":[1],"prompt":"a"}', 400, 'E_FIELD', 'tokens'],
        ['tokens not an array', '{"tokens":"1,2"}', 400, 'E_FIELD', 'tokens'],
        ['empty tokens', '{"tokens":[]}', 400, 'E_FIELD', 'tokens'],
        ['out of vocab', '{"tokens":[1,256]}', 400, 'E_FIELD', 'tokens'],
        ['negative id', '{"tokens":[-1]}', 400, 'E_FIELD', 'tokens'],
        ['fractional id', '{"tokens":[1.5]}', 400, 'E_FIELD', 'tokens'],
        ['string id', '{"tokens":["1"]}', 400, 'E_FIELD', 'tokens'],
        ['empty prompt', '{"prompt":""}', 400, 'E_FIELD', 'prompt'],
        ['max_tokens 0', '{"tokens":[1],"max_tokens":0}', 400, 'E_FIELD', 'max_tokens'],
        ['max_tokens negative', '{"tokens":[1],"max_tokens":-3}', 400, 'E_FIELD', 'max_tokens'],
        ['max_tokens over the cap', '{"tokens":[1],"max_tokens":65}', 400, 'E_FIELD', 'max_tokens'],
        ['max_tokens a string', '{"tokens":[1],"max_tokens":"4"}', 400, 'E_FIELD', 'max_tokens'],
        ['past the context', JSON.stringify({ tokens: Array(250).fill(1), max_tokens: 10 }), 400, 'E_FIELD', 'max_tokens'],
        ['prompt the whole context', JSON.stringify({ tokens: Array(256).fill(1) }), 400, 'E_FIELD', 'tokens'],
        ['temperature negative', '{"tokens":[1],"temperature":-1}', 400, 'E_FIELD', 'temperature'],
        ['top_k 0', '{"tokens":[1],"top_k":0}', 400, 'E_FIELD', 'top_k'],
        ['top_p 0', '{"tokens":[1],"top_p":0}', 400, 'E_FIELD', 'top_p'],
        ['top_p 1.5', '{"tokens":[1],"top_p":1.5}', 400, 'E_FIELD', 'top_p'],
        ['seed negative', '{"tokens":[1],"seed":-1}', 400, 'E_FIELD', 'seed'],
        ['stream a string', '{"tokens":[1],"stream":"yes"}', 400, 'E_FIELD', 'stream'],
        ['unknown field', '{"tokens":[1],"max_token":4}', 400, 'E_FIELD', 'max_token'],
      ];
      for (const [what, body, status, code, field] of cases) {
        const r = await call(server.port, 'POST', '/v1/generate', body, { 'content-type': 'application/json' });
        expect(r.status, what).toBe(status);
        const j = JSON.parse(r.body) as { error: string; code: string; field: string | null };
        expect(j.code, what).toBe(code);
        expect(j.field, what).toBe(field);
        if (field) expect(j.error, what).toContain(field);
      }
      const big = await call(server.port, 'POST', '/v1/generate', Buffer.alloc((1 << 20) + 1, 0x20), { 'content-type': 'application/json' });
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body)).toMatchObject({ code: 'E_TOO_LARGE' });
      expect((await call(server.port, 'GET', '/v1/generate')).status).toBe(405);
    } finally {
      batcher.submit = submit;
    }
    expect(submitted).toBe(0);
    expect(model.cache.stats().usedBlocks).toBe(0);
    // and it keeps serving
    expect(streamedTokens(await generate({ tokens: reference.prompt, max_tokens: 2 }))).toEqual(reference.greedy.slice(0, 2));
  });

  const N = Number(process.env['TESSERA_SERVE_REQUESTS'] ?? 1000);
  it(`${N} requests (1-2 tokens each, 32 at a time, streamed and not, some cancelled): KV pages, batcher and device pool back at their baseline`, async () => {
    const cacheBase = model.cache.stats();
    const poolBase = liveBytes();
    expect(batcher.load).toEqual({ live: 0, pending: 0 });
    const CONCURRENCY = 32;
    let next = 0, ok = 0, aborted = 0;
    const worker = async () => {
      while (next < N) {
        const i = next++;
        const body = JSON.stringify({ tokens: [1 + (i % 250), 7, (i * 13) % 256], max_tokens: 1 + (i % 2), ignore_eos: true, stream: i % 3 !== 0, ...(i % 5 === 0 ? { temperature: 1, seed: i } : {}) });
        if (i % 25 === 12) {
          // a client that goes away after its first token, its sequence in the batch with more to come
          await new Promise<void>((resolve, reject) => {
            const r = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/v1/generate', agent: false }, () => {
              r.destroy();
              resolve();
            });
            r.on('error', reject);
            r.end(JSON.stringify({ tokens: [5, i % 256], max_tokens: 8, ignore_eos: true }));
          });
          aborted++;
          continue;
        }
        const r = await call(server.port, 'POST', '/v1/generate', body);
        expect(r.status).toBe(200);
        ok++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(ok + aborted).toBe(N);
    await until('every request left the batch', () => batcher.load.live === 0 && batcher.load.pending === 0);
    expect(model.cache.stats()).toEqual(cacheBase);
    expect(batcher.reservedPages).toBe(0);
    await device.synchronize?.();
    expect(liveBytes()).toEqual(poolBase);
  }, 480_000);
});

describe('the server command with --model', () => {
  it('loads the checkpoint, serves /v1/generate, reports the model in /metrics, exits 0 on SIGTERM; a bad flag is named', async () => {
    const SERVER = join(ROOT, 'dist', 'examples', 'server.js');
    expect(existsSync(SERVER), 'dist/ is built by npm install / npm run build:ts').toBe(true);
    const env = { ...process.env, TESSERA_SIM_THREADS: '1' };
    const bad = spawnSync(process.execPath, [SERVER, '--port', '0', '--device', DEVICE, '--warmup', 'none', '--model', ckpt, '--dtype', 'f64'], { encoding: 'utf8', env, timeout: 60_000 });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--dtype/);
    const child = spawn(process.execPath, [SERVER, '--port', '0', '--device', DEVICE, '--warmup', 'none', '--model', ckpt, '--max-tokens', '8'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exit = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    let text = '';
    const port = await new Promise<number>((res, rej) => {
      child.stdout!.on('data', (d: Buffer) => {
        text += d.toString();
        const m = /"event":"listening","port":(\d+)/.exec(text);
        if (m) res(Number(m[1]));
      });
      void exit.then((c) => rej(new Error(`server exited with ${c}`)));
    });
    const r = await call(port, 'POST', '/v1/generate', JSON.stringify({ tokens: reference.prompt, max_tokens: 3, stream: false }));
    expect(JSON.parse(r.body)).toMatchObject({ tokens: reference.greedy.slice(0, 3) });
    expect((await call(port, 'POST', '/v1/generate', '{"tokens":[1],"max_tokens":9}')).status).toBe(400); // over --max-tokens
    const m = JSON.parse((await call(port, 'GET', '/metrics')).body) as { model: { device: string; dtype: string; kvCache: { usedBlocks: number } } };
    expect(m.model).toMatchObject({ device: DEVICE, dtype: 'f32', kvCache: { usedBlocks: 0 } });
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(text).toMatch(/"event":"stopped"/);
  }, 120_000);
});

describe('POST /v1/generate without a model', () => {
  it('is 404 E_NO_MODEL saying how to load one', async () => {
    const s = await serve({ port: 0, host: '127.0.0.1', devices: [getDevice('interpret')], warmup: null });
    try {
      const r = await call(s.port, 'POST', '/v1/generate', '{"tokens":[1]}');
      expect(r.status).toBe(404);
      const j = JSON.parse(r.body) as { error: string; code: string };
      expect(j.code).toBe('E_NO_MODEL');
      expect(j.error).toMatch(/--model/);
      const m = JSON.parse((await call(s.port, 'GET', '/metrics')).body) as { model: unknown };
      expect(m.model).toBeNull();
    } finally {
      await s.close();
    }
  });
});
