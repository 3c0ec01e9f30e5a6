// A Hugging Face Llama-architecture checkpoint run on tessera/ops:
//   const model = await loadModel('path/to/checkpoint', { device: 'cuda', dtype: 'f16' });
//   for await (const id of model.generate([1, 2, 3], { maxNewTokens: 16 })) ...
//   const rows = await model.logits([1, 2, 3]);  // one Float32Array of vocab logits per token
//
// The weights are read from config.json + model.safetensors (or shards with their index), converted
// on the host to the dtype asked for, and uploaded once. A prompt runs as one prefill (every layer:
// rmsNorm, q/k/v matmuls, rope, ops.attention over the prompt, appendKV into a PagedKVCache, o
// matmul, residual, rmsNorm, gate/up matmuls, swiglu, down matmul, residual); each later token is a
// decode step whose attention is ops.pagedAttention over the sequence's cached pages. decodeStep()
// takes several sequences at once (one token each): what a server batches.
import { basename } from 'node:path';
import {
  bf16Array, bf16ToFloat32, DeviceArray, f16Array, f16ToFloat32, getDevice, ops, TesseraError, type Device, type DeviceName,
} from '../../src/index.js';
import { readConfig, ropeInvFreq, type LlamaConfig } from './config.js';
import { Checkpoint, type RawTensor } from './safetensors.js';
import { byteTokenizer, type Tokenizer } from './tokenizer.js';

export class ModelError extends TesseraError {}

export type ModelDType = 'f32' | 'f16' | 'bf16';
const MODEL_DTYPES: readonly ModelDType[] = ['f32', 'f16', 'bf16'];

export interface LoadOptions {
  /** Where the model runs (default: the runtime's default device). */
  readonly device?: DeviceName | Device;
  /** The weights' and activations' dtype (default: the checkpoint's; f32 when it is f32). */
  readonly dtype?: ModelDType;
  /** Tokens the KV cache holds over all live sequences (default 4096). */
  readonly kvCacheTokens?: number;
  /** Tokens per KV page (default 16). */
  readonly blockSize?: number;
}

export interface GenerateOptions {
  readonly maxNewTokens: number;
  /** 0 or absent: greedy. */
  readonly temperature?: number;
  readonly topK?: number;
  readonly topP?: number;
  readonly seed?: number;
  /** Keep going past an end-of-sequence token (default: stop after emitting one). */
  readonly ignoreEos?: boolean;
}

interface Layer {
  readonly attnNorm: DeviceArray;
  readonly q: DeviceArray;
  readonly k: DeviceArray;
  readonly v: DeviceArray;
  readonly o: DeviceArray;
  readonly mlpNorm: DeviceArray;
  readonly gate: DeviceArray;
  readonly up: DeviceArray;
  readonly down: DeviceArray;
}

const ST_TO_DTYPE: Record<string, ModelDType> = { F32: 'f32', F16: 'f16', BF16: 'bf16' };

/** A checkpoint tensor's values converted to `dtype`'s storage (f16/bf16 as bit patterns). */
function convert(t: RawTensor, name: string, dtype: ModelDType): Float32Array | Uint16Array {
  const from = ST_TO_DTYPE[t.dtype];
  if (!from) throw new ModelError('E_MODEL_DTYPE', `${name} is ${t.dtype}: only F32, F16 and BF16 weights are supported`);
  const b = t.bytes;
  const n = b.length / (from === 'f32' ? 4 : 2);
  // copy into an aligned buffer (safetensors offsets need not be aligned); little-endian as the host
  const aligned = new Uint8Array(b.length);
  aligned.set(b);
  const src = from === 'f32' ? new Float32Array(aligned.buffer, 0, n) : new Uint16Array(aligned.buffer, 0, n);
  if (from === dtype) return src;
  const f32 = from === 'f32' ? (src as Float32Array) : from === 'f16' ? f16ToFloat32(src) : bf16ToFloat32(src);
  if (dtype === 'f32') return f32;
  return dtype === 'f16' ? f16Array(f32) : bf16Array(f32);
}

export class LlamaModel {
  readonly #layers: Layer[];
  readonly #embed: DeviceArray;
  readonly #norm: DeviceArray;
  readonly #lmHead: DeviceArray;
  readonly #invFreq: DeviceArray;
  readonly cache: ops.PagedKVCache;
  #nextSeq = 0;
  #disposed = false;

  constructor(
    readonly config: LlamaConfig, readonly device: Device, readonly dtype: ModelDType, readonly tokenizer: Tokenizer | undefined,
    weights: { layers: Layer[]; embed: DeviceArray; norm: DeviceArray; lmHead: DeviceArray }, kv: { tokens: number; blockSize: number },
  ) {
    this.#layers = weights.layers;
    this.#embed = weights.embed;
    this.#norm = weights.norm;
    this.#lmHead = weights.lmHead;
    this.#invFreq = DeviceArray.from(ropeInvFreq(config), 'f32', { device });
    this.cache = new ops.PagedKVCache(device, {
      numLayers: config.numLayers, numBlocks: Math.ceil(kv.tokens / kv.blockSize), blockSize: kv.blockSize,
      numKVHeads: config.numKVHeads, headDim: config.headDim, dtype,
    });
  }

  /** A fresh sequence id for the KV cache. */
  newSequence(): number {
    return this.#nextSeq++;
  }

  /**
   * Runs the prompt of a new sequence `seq` (its tokens go into the KV cache) and returns the
   * logits of every prompt position [T, V] in the model's dtype.
   */
  async prefill(seq: number, tokenIds: readonly number[]): Promise<DeviceArray> {
    this.#live();
    const c = this.config;
    const T = tokenIds.length;
    const ids = this.#checkTokens(tokenIds);
    if (this.cache.length(seq) !== 0) throw new ModelError('E_MODEL_ARG', `prefill: sequence ${seq} already has tokens`);
    this.cache.allocate(seq, T);
    const positions = DeviceArray.from(Int32Array.from({ length: T }, (_, i) => i), 'i32', { device: this.device });
    const slots = this.cache.slotMapping(seq, 0, T);
    try {
      const x = await ops.embedding(this.#embed, ids);
      for (let l = 0; l < c.numLayers; l++) {
        const L = this.#layers[l]!;
        const h = await ops.rmsNorm(x, L.attnNorm, { eps: c.rmsNormEps });
        const [q, k, v] = await this.#qkv(h, L, T, positions);
        await ops.appendKV(this.cache.kCache(l), this.cache.vCache(l), k, v, slots);
        const a = await ops.attention(q, k, v, { causal: true });
        await this.#attnOutAndMlp(x, a, L, T);
        for (const t of [h, q, k, v, a]) t.free();
      }
      return await this.#head(x);
    } catch (e) {
      this.cache.free(seq);
      throw e;
    } finally {
      positions.free();
      slots.free();
    }
  }

  /**
   * One decode step for several live sequences, one new token each (token `tokenIds[b]` of
   * sequence `seqs[b]`, at the position after its cached ones); returns the logits [B, V].
   */
  async decodeStep(seqs: readonly number[], tokenIds: readonly number[]): Promise<DeviceArray> {
    this.#live();
    const c = this.config;
    const B = seqs.length;
    if (B === 0 || tokenIds.length !== B) throw new ModelError('E_MODEL_ARG', `decodeStep: ${B} sequences and ${tokenIds.length} tokens`);
    if (new Set(seqs).size !== B) throw new ModelError('E_MODEL_ARG', 'decodeStep: a sequence is listed twice');
    const ids = this.#checkTokens(tokenIds);
    const pos = new Int32Array(B);
    const slotHost = new Int32Array(B);
    seqs.forEach((s) => {
      if (this.cache.length(s) === 0) throw new ModelError('E_MODEL_ARG', `decodeStep: sequence ${s} has no prompt (prefill it first)`);
    });
    // grow every sequence by one token; on a full cache, undo what this step took
    const grown: number[] = [];
    try {
      for (const s of seqs) {
        this.cache.allocate(s, 1);
        grown.push(s);
      }
    } catch (e) {
      for (const s of grown) this.#shrink(s);
      throw e;
    }
    seqs.forEach((s, b) => {
      const p = this.cache.length(s) - 1;
      const blocks = this.cache.blocks(s);
      pos[b] = p;
      slotHost[b] = blocks[Math.floor(p / this.cache.blockSize)]! * this.cache.blockSize + (p % this.cache.blockSize);
    });
    const positions = DeviceArray.from(pos, 'i32', { device: this.device });
    const slots = DeviceArray.from(slotHost, 'i32', { device: this.device });
    const table = this.cache.blockTable(seqs);
    const lens = this.cache.seqLens(seqs);
    try {
      const x = await ops.embedding(this.#embed, ids);
      for (let l = 0; l < c.numLayers; l++) {
        const L = this.#layers[l]!;
        const h = await ops.rmsNorm(x, L.attnNorm, { eps: c.rmsNormEps });
        const [q, k, v] = await this.#qkv(h, L, B, positions);
        await ops.appendKV(this.cache.kCache(l), this.cache.vCache(l), k, v, slots);
        const a = await ops.pagedAttention(q, this.cache.kCache(l), this.cache.vCache(l), table, lens, { scale: 1 / Math.sqrt(c.headDim) });
        await this.#attnOutAndMlp(x, a, L, B);
        for (const t of [h, q, k, v, a]) t.free();
      }
      return await this.#head(x);
    } finally {
      for (const t of [positions, slots, table, lens]) t.free();
    }
  }

  /** Releases a sequence's KV pages. */
  release(seq: number): void {
    this.cache.free(seq);
  }

  /** The logits of every position of `tokenIds` (one Float32Array of vocabSize per token). */
  async logits(tokenIds: readonly number[]): Promise<Float32Array[]> {
    const seq = this.newSequence();
    try {
      const out = await this.prefill(seq, tokenIds);
      const rows = await toF32Rows(out);
      out.free();
      return rows;
    } finally {
      this.release(seq);
    }
  }

  /** New token ids after `tokenIds`, one at a time (greedy unless a temperature is given). */
  async *generate(tokenIds: readonly number[], opts: GenerateOptions): AsyncGenerator<number, void, undefined> {
    const o = checkGenerate(opts);
    if (o.maxNewTokens === 0) return;
    const seq = this.newSequence();
    try {
      let logits = await this.prefill(seq, tokenIds);
      for (let step = 0; ; step++) {
        const last = logits.shape[0]! === 1 ? logits : logits.slice([logits.shape[0]! - 1, logits.shape[0]!], null).clone();
        const picked = await ops.sample(last, {
          temperature: o.temperature ?? 0,
          ...(o.topK !== undefined ? { topK: o.topK } : {}),
          ...(o.topP !== undefined ? { topP: o.topP } : {}),
          seed: o.seed ?? 0, offset: step,
        });
        const id = (await picked.toArray())[0]!;
        picked.free();
        if (last !== logits) last.free();
        logits.free();
        yield id;
        if (step + 1 >= o.maxNewTokens) return;
        if (!o.ignoreEos && this.config.eosTokenIds.includes(id)) return;
        logits = await this.decodeStep([seq], [id]);
      }
    } finally {
      this.release(seq);
    }
  }

  /** Frees the weights and the KV cache. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const seen = new Set<DeviceArray>();
    for (const L of this.#layers) for (const a of Object.values(L)) seen.add(a);
    for (const a of [this.#embed, this.#norm, this.#lmHead, this.#invFreq]) seen.add(a);
    for (const a of seen) a.free();
    this.cache.dispose();
  }

  // q [T,Hq,Dh], k and v [T,Hkv,Dh] of the normed hidden rows h [T,D], q and k rotated.
  async #qkv(h: DeviceArray, L: Layer, T: number, positions: DeviceArray): Promise<[DeviceArray, DeviceArray, DeviceArray]> {
    const c = this.config;
    const q = (await ops.matmul(h, L.q, { transB: true })).reshape([T, c.numHeads, c.headDim]);
    const k = (await ops.matmul(h, L.k, { transB: true })).reshape([T, c.numKVHeads, c.headDim]);
    const v = (await ops.matmul(h, L.v, { transB: true })).reshape([T, c.numKVHeads, c.headDim]);
    await ops.rope(q, positions, { invFreq: this.#invFreq });
    await ops.rope(k, positions, { invFreq: this.#invFreq });
    return [q, k, v];
  }

  // x += o_proj(a); x += down(swiglu(gate(norm(x)), up(norm(x))))
  async #attnOutAndMlp(x: DeviceArray, a: DeviceArray, L: Layer, T: number): Promise<void> {
    const c = this.config;
    const o = await ops.matmul(a.reshape([T, c.numHeads * c.headDim]), L.o, { transB: true });
    await ops.add(x, o, { out: x });
    const h = await ops.rmsNorm(x, L.mlpNorm, { eps: c.rmsNormEps });
    const g = await ops.matmul(h, L.gate, { transB: true });
    const u = await ops.matmul(h, L.up, { transB: true });
    const s = await ops.swiglu(g, u);
    const d = await ops.matmul(s, L.down, { transB: true });
    await ops.add(x, d, { out: x });
    for (const t of [o, h, g, u, s, d]) t.free();
  }

  // final norm and lm_head: logits [T, V]; frees x
  async #head(x: DeviceArray): Promise<DeviceArray> {
    const h = await ops.rmsNorm(x, this.#norm, { eps: this.config.rmsNormEps });
    const logits = await ops.matmul(h, this.#lmHead, { transB: true });
    h.free();
    x.free();
    return logits;
  }

  #checkTokens(tokenIds: readonly number[]): Int32Array {
    if (!Array.isArray(tokenIds) || tokenIds.length === 0) throw new ModelError('E_MODEL_ARG', 'token ids: expected a non-empty array');
    const V = this.config.vocabSize;
    const bad = tokenIds.findIndex((t) => !Number.isInteger(t) || t < 0 || t >= V);
    if (bad >= 0) throw new ModelError('E_MODEL_ARG', `token ids[${bad}] = ${String(tokenIds[bad])} is not in 0..${V - 1}`);
    return Int32Array.from(tokenIds);
  }

  // Undo one allocate(seq, 1): free and re-allocate one token fewer (the cache has no shrink; the
  // pages' contents stay, they are ours again right away).
  #shrink(seq: number): void {
    const n = this.cache.length(seq) - 1;
    this.cache.free(seq);
    if (n > 0) this.cache.allocate(seq, n);
  }

  #live(): void {
    if (this.#disposed) throw new ModelError('E_MODEL_DISPOSED', 'the model was disposed');
  }
}

function checkGenerate(opts: GenerateOptions): GenerateOptions {
  if (typeof opts !== 'object' || opts === null) throw new ModelError('E_MODEL_ARG', 'generate: options { maxNewTokens } are required');
  const { maxNewTokens, temperature, topK, topP, seed } = opts;
  if (!Number.isSafeInteger(maxNewTokens) || maxNewTokens < 0) throw new ModelError('E_MODEL_ARG', `generate: maxNewTokens must be an integer >= 0, got ${String(maxNewTokens)}`);
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0)) throw new ModelError('E_MODEL_ARG', `generate: temperature must be >= 0, got ${String(temperature)}`);
  if (topK !== undefined && !(Number.isSafeInteger(topK) && topK >= 1)) throw new ModelError('E_MODEL_ARG', `generate: topK must be an integer >= 1, got ${String(topK)}`);
  if (topP !== undefined && !(Number.isFinite(topP) && topP > 0 && topP <= 1)) throw new ModelError('E_MODEL_ARG', `generate: topP must be in (0, 1], got ${String(topP)}`);
  if (seed !== undefined && !(Number.isSafeInteger(seed) && seed >= 0)) throw new ModelError('E_MODEL_ARG', `generate: seed must be an integer >= 0, got ${String(seed)}`);
  return opts;
}

/** A [T, V] float array's rows as Float32Arrays. */
export async function toF32Rows(a: DeviceArray): Promise<Float32Array[]> {
  const [T, V] = a.shape as [number, number];
  const raw = await a.toArray();
  const f = a.dtype === 'f32' ? (raw as Float32Array) : a.dtype === 'f16' ? f16ToFloat32(raw as Uint16Array) : bf16ToFloat32(raw as Uint16Array);
  return Array.from({ length: T }, (_, t) => f.slice(t * V, (t + 1) * V));
}

/** Loads a Llama-architecture checkpoint directory onto a device. */
export async function loadModel(dir: string, opts: LoadOptions = {}): Promise<LlamaModel> {
  const config = readConfig(dir);
  if (opts.dtype !== undefined && !MODEL_DTYPES.includes(opts.dtype)) throw new ModelError('E_MODEL_ARG', `dtype must be one of ${MODEL_DTYPES.join(', ')}, got ${String(opts.dtype)}`);
  const kvTokens = opts.kvCacheTokens ?? 4096;
  if (!Number.isSafeInteger(kvTokens) || kvTokens < 1) throw new ModelError('E_MODEL_ARG', `kvCacheTokens must be a positive integer, got ${String(kvTokens)}`);
  const device = getDevice(opts.device);
  const ckpt = Checkpoint.open(dir);
  const uploaded: DeviceArray[] = [];
  try {
    const c = config;
    const embedName = 'model.embed_tokens.weight';
    const dtype: ModelDType = opts.dtype ?? ST_TO_DTYPE[ckpt.info(embedName).dtype] ?? 'f32';
    const load = (name: string, shape: readonly number[]): DeviceArray => {
      const info = ckpt.info(name);
      if (info.shape.length !== shape.length || info.shape.some((d, i) => d !== shape[i])) {
        throw new ModelError('E_MODEL_SHAPE', `${basename(dir)}: ${name} is [${info.shape.join(', ')}], config.json implies [${shape.join(', ')}]`);
      }
      const a = DeviceArray.from(convert(ckpt.read(name), name, dtype), dtype, { device, shape });
      uploaded.push(a);
      return a;
    };
    const D = c.hiddenSize, F = c.intermediateSize, qDim = c.numHeads * c.headDim, kvDim = c.numKVHeads * c.headDim;
    const embed = load(embedName, [c.vocabSize, D]);
    const layers: Layer[] = [];
    for (let l = 0; l < c.numLayers; l++) {
      const p = `model.layers.${l}.`;
      layers.push({
        attnNorm: load(`${p}input_layernorm.weight`, [D]),
        q: load(`${p}self_attn.q_proj.weight`, [qDim, D]),
        k: load(`${p}self_attn.k_proj.weight`, [kvDim, D]),
        v: load(`${p}self_attn.v_proj.weight`, [kvDim, D]),
        o: load(`${p}self_attn.o_proj.weight`, [D, qDim]),
        mlpNorm: load(`${p}post_attention_layernorm.weight`, [D]),
        gate: load(`${p}mlp.gate_proj.weight`, [F, D]),
        up: load(`${p}mlp.up_proj.weight`, [F, D]),
        down: load(`${p}mlp.down_proj.weight`, [D, F]),
      });
    }
    const norm = load('model.norm.weight', [D]);
    // tied: lm_head is the embedding matrix (transformers saves no lm_head.weight then)
    const lmHead = c.tieWordEmbeddings ? embed : load('lm_head.weight', [c.vocabSize, D]);
    return new LlamaModel(config, device, dtype, c.vocabSize >= 256 ? byteTokenizer(c.vocabSize) : undefined, { layers, embed, norm, lmHead }, { tokens: kvTokens, blockSize: opts.blockSize ?? 16 });
  } catch (e) {
    for (const a of uploaded) a.free();
    throw e;
  } finally {
    ckpt.close();
  }
}
