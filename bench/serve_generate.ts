// `npm run bench:serve -- --generate [--model DIR] [--device D] [--max-tokens N]`: POST /v1/generate of
// examples/server.ts at 1, 8 and 32 concurrent streams. Without --model it generates the tiny random
// Llama (scripts/llm/tiny_llama.py, the project's .venv: torch + transformers). Each stream sends
// ROUNDS requests one after another (prompt of 8 ids, N new tokens, ignore_eos, streamed); printed:
// tokens/s over all streams, time to first token (p50/p99, from the request's send to its first
// `event: token`), and the server's KV pages and device pool after each level (back to baseline).
// Figures on the sim are CPU figures of the simulator (no GPU): they show batching at work, not speed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const SERVER = join(HERE, '..', 'examples', 'server.js');
const LEVELS = [1, 8, 32];
const ROUNDS = 2;

export interface GenerateBenchOptions {
  readonly model?: string;
  readonly device?: string;
  readonly maxTokens?: number;
}

const get = (port: number, path: string): Promise<string> => new Promise((res, rej) => {
  const r = request({ host: '127.0.0.1', port, path, agent: false }, (resp) => {
    let s = '';
    resp.on('data', (c: Buffer) => (s += c.toString()));
    resp.on('end', () => res(s));
  });
  r.on('error', rej);
  r.end();
});

/** One streamed generation: ms to its first token, tokens received. */
function stream(port: number, tokens: number[], maxTokens: number): Promise<{ ttftMs: number; tokens: number }> {
  return new Promise((res, rej) => {
    const t0 = performance.now();
    let ttftMs = -1, n = 0, status = 0, text = '';
    const r = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/generate', agent: false, headers: { 'content-type': 'application/json' } }, (resp) => {
      status = resp.statusCode ?? 0;
      resp.on('data', (c: Buffer) => {
        text += c.toString();
        const k = (c.toString().match(/event: token/g) ?? []).length;
        if (k > 0 && ttftMs < 0) ttftMs = performance.now() - t0;
        n += k;
      });
      resp.on('end', () => (status === 200 && text.includes('event: done') ? res({ ttftMs, tokens: n }) : rej(new Error(`status ${status}: ${text.slice(0, 300)}`))));
    });
    r.on('error', rej);
    r.end(JSON.stringify({ tokens, max_tokens: maxTokens, ignore_eos: true }));
  });
}

const quantile = (v: number[], p: number): number => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};

interface ModelMetrics { device: string; dtype: string; kvCache: { usedBlocks: number; freeBlocks: number }; batcher: { live: number; pending: number }; memory: { inUseBytes: number; allocations: number; frees: number } | null }

export async function benchGenerate(out: (s: string) => void, o: GenerateBenchOptions = {}): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'tessera-bench-generate-'));
  try {
    let model = o.model;
    if (model === undefined) {
      model = join(tmp, 'tiny-llama');
      const py = spawnSync(join(ROOT, '.venv', 'bin', 'python'), [join(ROOT, 'scripts', 'llm', 'tiny_llama.py'), model], { encoding: 'utf8' });
      if (py.status !== 0) throw new Error(`scripts/llm/tiny_llama.py failed (run npm run setup:python, or pass --model DIR): ${py.stderr ?? py.error}`);
    }
    const maxTokens = o.maxTokens ?? 16;
    const device = o.device ?? 'sim:0';
    const child = spawn(process.execPath, [SERVER, '--port', '0', '--device', device, '--warmup', 'none', '--model', model, '--max-batch', '32'], {
      env: { ...process.env, TESSERA_CACHE_DIR: process.env['TESSERA_CACHE_DIR'] ?? join(tmp, 'cache') }, stdio: ['ignore', 'pipe', 'inherit'],
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
      const metrics = async () => (JSON.parse(await get(port, '/metrics')) as { model: ModelMetrics }).model;
      const m0 = await metrics();
      const sim = m0.device.startsWith('sim');
      out(`POST /v1/generate, model ${o.model ?? 'tiny random Llama (2 layers, hidden 64, vocab 256)'} in ${m0.dtype} on ${m0.device}${sim ? ' (sim: CPU figures of the simulator, no GPU)' : ''}\n`);
      out(`  each stream: ${ROUNDS} requests in a row, prompt 8 ids, ${maxTokens} new tokens, streamed\n`);
      const prompt = (s: number, k: number) => Array.from({ length: 8 }, (_, i) => (s * 31 + k * 7 + i * 13 + 1) % 256);
      await Promise.all([0, 1, 2, 3].map((s) => stream(port, prompt(s, 99), 2))); // warm: batched decode shapes compiled
      for (const c of LEVELS) {
        const ttft: number[] = [];
        let tokens = 0;
        const t0 = performance.now();
        await Promise.all(Array.from({ length: c }, async (_, s) => {
          for (let k = 0; k < ROUNDS; k++) {
            const r = await stream(port, prompt(s, k), maxTokens);
            ttft.push(r.ttftMs);
            tokens += r.tokens;
          }
        }));
        const secs = (performance.now() - t0) / 1000;
        const m = await metrics();
        const live = m.memory ? m.memory.allocations - m.memory.frees : NaN;
        out(`  ${String(c).padStart(2)} concurrent: ${(tokens / secs).toFixed(1)} tokens/s (${tokens} tokens in ${secs.toFixed(1)} s, ${(tokens / secs / c).toFixed(1)} per stream); `
          + `time to first token p50 ${quantile(ttft, 0.5).toFixed(0)} ms, p99 ${quantile(ttft, 0.99).toFixed(0)} ms; `
          + `after: KV pages used ${m.kvCache.usedBlocks}, batch ${m.batcher.live}+${m.batcher.pending}, device arrays live ${live}\n`);
      }
    } finally {
      child.kill('SIGTERM');
      out(`  SIGTERM -> exit ${await exit}\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
