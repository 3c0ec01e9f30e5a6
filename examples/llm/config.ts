// A Llama-architecture checkpoint's config.json, read and checked, with the fields the runner honours:
// sizes, num_key_value_heads (GQA), head_dim, rms_norm_eps, tie_word_embeddings, and RoPE's
// frequencies (rope_theta, rope_scaling). transformers >= 5 writes RoPE as `rope_parameters`
// ({ rope_type, rope_theta, ... }); older checkpoints have a top-level `rope_theta` and an optional
// `rope_scaling` ({ rope_type | type, ... }): both are read. A config we would run wrongly (another
// activation, biases, an unknown RoPE type) is a named error rather than a silently wrong model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TesseraError } from '../../src/index.js';

export class ConfigError extends TesseraError {}

export interface RopeScaling {
  readonly type: 'default' | 'linear' | 'llama3';
  readonly factor?: number;
  readonly lowFreqFactor?: number;
  readonly highFreqFactor?: number;
  readonly originalMaxPositionEmbeddings?: number;
}

export interface LlamaConfig {
  readonly vocabSize: number;
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKVHeads: number;
  readonly headDim: number;
  readonly rmsNormEps: number;
  readonly ropeTheta: number;
  readonly ropeScaling: RopeScaling;
  readonly tieWordEmbeddings: boolean;
  readonly maxPositionEmbeddings: number;
  readonly bosTokenId?: number;
  readonly eosTokenIds: readonly number[];
}

const MODEL_TYPES = new Set(['llama', 'mistral']);

/** Reads DIR/config.json. */
export function readConfig(dir: string): LlamaConfig {
  let text: string;
  try {
    text = readFileSync(join(dir, 'config.json'), 'utf8');
  } catch (e) {
    throw new ConfigError('E_CONFIG_IO', `cannot read ${join(dir, 'config.json')}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError('E_CONFIG', `config.json is not JSON: ${(e as Error).message}`);
  }
  return parseConfig(json);
}

const bad = (msg: string): never => {
  throw new ConfigError('E_CONFIG', `config.json: ${msg}`);
};

/** Checks a parsed config.json and fills the defaults transformers' LlamaConfig uses. */
export function parseConfig(json: unknown): LlamaConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return bad('not a JSON object');
  const c = json as Record<string, unknown>;
  const int = (k: string, dflt?: number): number => {
    const v = c[k] ?? dflt;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) return bad(`${k} must be a positive integer, got ${JSON.stringify(c[k])}`);
    return v;
  };
  const num = (v: unknown, k: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return bad(`${k} must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  };
  if (c.model_type !== undefined && !MODEL_TYPES.has(c.model_type as string)) bad(`model_type ${JSON.stringify(c.model_type)} is not a Llama architecture (llama, mistral)`);
  const act = c.hidden_act ?? 'silu';
  if (act !== 'silu') bad(`hidden_act ${JSON.stringify(act)}: only silu (SwiGLU) is supported`);
  if (c.attention_bias === true || c.mlp_bias === true) bad('attention_bias / mlp_bias are not supported');
  if (c.sliding_window !== undefined && c.sliding_window !== null) bad('sliding_window attention is not supported');
  const hiddenSize = int('hidden_size');
  const numHeads = int('num_attention_heads');
  const numKVHeads = int('num_key_value_heads', numHeads);
  if (numHeads % numKVHeads !== 0) bad(`num_attention_heads ${numHeads} is not a multiple of num_key_value_heads ${numKVHeads}`);
  if (c.head_dim === undefined && hiddenSize % numHeads !== 0) bad(`hidden_size ${hiddenSize} is not a multiple of num_attention_heads ${numHeads}`);
  const headDim = int('head_dim', hiddenSize / numHeads);
  if (headDim % 2 !== 0) bad(`head_dim ${headDim} must be even (RoPE rotates pairs)`);

  // RoPE: transformers 5's rope_parameters, or the older rope_theta + rope_scaling.
  const rp = (c.rope_parameters ?? c.rope_scaling ?? null) as Record<string, unknown> | null;
  if (rp !== null && (typeof rp !== 'object' || Array.isArray(rp))) bad('rope_parameters / rope_scaling must be an object');
  const ropeTheta = num(rp?.rope_theta ?? c.rope_theta ?? 10000, 'rope_theta');
  const type = (rp?.rope_type ?? rp?.type ?? 'default') as string;
  let ropeScaling: RopeScaling;
  if (type === 'default') ropeScaling = { type };
  else if (type === 'linear') ropeScaling = { type, factor: num(rp!.factor, 'rope_scaling.factor') };
  else if (type === 'llama3') {
    ropeScaling = {
      type,
      factor: num(rp!.factor, 'rope_scaling.factor'),
      lowFreqFactor: num(rp!.low_freq_factor, 'rope_scaling.low_freq_factor'),
      highFreqFactor: num(rp!.high_freq_factor, 'rope_scaling.high_freq_factor'),
      originalMaxPositionEmbeddings: num(rp!.original_max_position_embeddings, 'rope_scaling.original_max_position_embeddings'),
    };
    if (ropeScaling.highFreqFactor! <= ropeScaling.lowFreqFactor!) bad('rope_scaling: high_freq_factor must exceed low_freq_factor');
  } else return bad(`rope type ${JSON.stringify(type)} is not supported (default, linear, llama3)`);

  const eos = c.eos_token_id;
  const eosTokenIds = eos === undefined || eos === null ? [] : Array.isArray(eos) ? eos.map(Number) : [Number(eos)];
  const bos = c.bos_token_id;
  return {
    vocabSize: int('vocab_size'),
    hiddenSize,
    intermediateSize: int('intermediate_size'),
    numLayers: int('num_hidden_layers'),
    numHeads,
    numKVHeads,
    headDim,
    rmsNormEps: num(c.rms_norm_eps ?? 1e-6, 'rms_norm_eps'),
    ropeTheta,
    ropeScaling,
    tieWordEmbeddings: c.tie_word_embeddings === true,
    maxPositionEmbeddings: int('max_position_embeddings', 2048),
    ...(typeof bos === 'number' ? { bosTokenId: bos } : {}),
    eosTokenIds,
  };
}

/**
 * RoPE's inverse frequencies [headDim/2] as transformers computes them (f32): theta^(-2i/d), then
 * the scaling: linear divides by factor; llama3 divides the low frequencies (wavelength above
 * original_max_position_embeddings / low_freq_factor) by factor, keeps the high ones (wavelength below
 * .../high_freq_factor) and blends between them.
 */
export function ropeInvFreq(cfg: Pick<LlamaConfig, 'headDim' | 'ropeTheta' | 'ropeScaling'>): Float32Array {
  const d = cfg.headDim;
  const f = Math.fround;
  const inv = new Float32Array(d / 2);
  for (let i = 0; i < d / 2; i++) inv[i] = f(1 / f(Math.pow(cfg.ropeTheta, f((2 * i) / d))));
  const s = cfg.ropeScaling;
  if (s.type === 'linear') for (let i = 0; i < inv.length; i++) inv[i] = inv[i]! / s.factor!;
  if (s.type === 'llama3') {
    const factor = s.factor!, lo = s.lowFreqFactor!, hi = s.highFreqFactor!, old = s.originalMaxPositionEmbeddings!;
    const lowFreqWavelen = old / lo, highFreqWavelen = old / hi;
    for (let i = 0; i < inv.length; i++) {
      const w = (2 * Math.PI) / inv[i]!;
      if (w > lowFreqWavelen) inv[i] = inv[i]! / factor;
      else if (w >= highFreqWavelen) {
        const smooth = (old / w - lo) / (hi - lo);
        inv[i] = (1 - smooth) * (inv[i]! / factor) + smooth * inv[i]!;
      }
    }
  }
  return inv;
}
