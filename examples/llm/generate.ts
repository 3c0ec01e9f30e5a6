// Generates tokens from a Hugging Face Llama-architecture checkpoint on tessera/ops:
//
//   node dist/examples/llm/generate.js --model DIR (--tokens 1,2,3 | --prompt TEXT) --max-new-tokens N
//        [--device cuda|cuda:N|sim|sim:N|interpret] [--dtype f32|f16|bf16]
//        [--temperature T --top-k K --top-p P --seed S] [--ignore-eos] [--json]
//
// Greedy unless --temperature is given. --json prints {"tokens":[...]} (the new token ids) once
// done; without it the tokens stream as they come (decoded as text with --prompt: the byte-level
// tokenizer, see examples/llm/tokenizer.ts). Bad arguments exit 2 with a line saying which.
import { parseArgs } from 'node:util';
import type { DeviceName } from '../../src/index.js';
import { loadModel, type ModelDType } from './model.js';

function usage(msg: string): never {
  process.stderr.write(`generate: ${msg}\nusage: generate.js --model DIR (--tokens 1,2,3 | --prompt TEXT) --max-new-tokens N [--device D] [--dtype f32|f16|bf16] [--temperature T] [--top-k K] [--top-p P] [--seed S] [--ignore-eos] [--json]\n`);
  process.exit(2);
}

function num(name: string, v: string | undefined, int: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (int && !Number.isSafeInteger(n))) usage(`--${name} must be ${int ? 'an integer' : 'a number'}, got ${JSON.stringify(v)}`);
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        model: { type: 'string' }, tokens: { type: 'string' }, prompt: { type: 'string' }, 'max-new-tokens': { type: 'string' },
        device: { type: 'string' }, dtype: { type: 'string' }, temperature: { type: 'string' }, 'top-k': { type: 'string' },
        'top-p': { type: 'string' }, seed: { type: 'string' }, 'ignore-eos': { type: 'boolean' }, json: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (e) {
    usage((e as Error).message);
  }
  if (!values.model) usage('--model DIR is required');
  if ((values.tokens === undefined) === (values.prompt === undefined)) usage('give --tokens or --prompt (one of them)');
  let tokens: number[] | undefined;
  if (values.tokens !== undefined) {
    tokens = values.tokens.split(',').map((t) => {
      if (!/^\s*\d+\s*$/.test(t)) usage(`--tokens must be comma-separated token ids, got ${JSON.stringify(t)}`);
      return Number(t);
    });
  }
  const maxNewTokens = num('max-new-tokens', values['max-new-tokens'], true);
  if (maxNewTokens === undefined || maxNewTokens < 0) usage('--max-new-tokens N (>= 0) is required');
  if (values.dtype !== undefined && !['f32', 'f16', 'bf16'].includes(values.dtype)) usage(`--dtype must be f32, f16 or bf16, got ${JSON.stringify(values.dtype)}`);
  const temperature = num('temperature', values.temperature, false);
  const topK = num('top-k', values['top-k'], true);
  const topP = num('top-p', values['top-p'], false);
  const seed = num('seed', values.seed, true);

  const model = await loadModel(values.model, {
    ...(values.device !== undefined ? { device: values.device as DeviceName } : {}),
    ...(values.dtype !== undefined ? { dtype: values.dtype as ModelDType } : {}),
  });
  try {
    if (tokens === undefined) {
      if (!model.tokenizer) usage('--prompt needs a tokenizer; this model has none: give --tokens');
      tokens = model.tokenizer.encode(values.prompt!);
    }
    const out: number[] = [];
    const gen = model.generate(tokens, {
      maxNewTokens,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(topK !== undefined ? { topK } : {}),
      ...(topP !== undefined ? { topP } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(values['ignore-eos'] ? { ignoreEos: true } : {}),
    });
    for await (const id of gen) {
      out.push(id);
      if (!values.json) process.stdout.write(values.prompt !== undefined && model.tokenizer ? model.tokenizer.decode([id]) : `${id}\n`);
    }
    if (values.json) process.stdout.write(`${JSON.stringify({ tokens: out })}\n`);
    else if (values.prompt !== undefined) process.stdout.write('\n');
  } finally {
    model.dispose();
  }
}

main().catch((e: unknown) => {
  const err = e as { code?: string; message?: string };
  process.stderr.write(`generate: ${err.code ? `${err.code}: ` : ''}${err.message ?? String(e)}\n`);
  process.exit(1);
});
