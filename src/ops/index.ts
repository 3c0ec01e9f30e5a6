// tessera ops: ready kernels a server needs (docs/ops.md), each a Tessera kernel tuned per target,
// on DeviceArrays of any device, returning a Future. One export line per op, alphabetical.
export { OpsError, type OpOptions, type OpsErrorCode } from './check.js';
export { add, type AddOptions } from './add.js';
export { appendKV } from './append_kv.js';
export { attention, type AttentionOptions } from './attention.js';
export { ATTENTION_TUNING, DECODE_TUNING } from './attention_tuning.js';
export { cosineTopK, type CosineTopKResult } from './cosine_topk.js';
export { embedding, type EmbeddingOptions } from './embedding.js';
export { matmul, MATMUL_TUNING, type Activation, type MatmulOptions } from './matmul.js';
export { layerNorm, rmsNorm, type LayerNormOptions, type RmsNormOptions } from './norm.js';
export { pagedAttention, type PagedAttentionOptions } from './paged_attention.js';
export { KVCacheFullError, PagedKVCache, type PagedKVCacheOptions, type SeqId } from './paged_kv.js';
export { rope, ropeInvFreq, type RopeOptions } from './rope.js';
export { ROW_TUNING } from './rows.js';
export { sample, type SampleOptions } from './sample.js';
export { softmax, type SoftmaxOptions } from './softmax.js';
export { ELEMENTWISE_TUNING, swiglu, type SwigluOptions } from './swiglu.js';
export { MAX_TOPK, topk, type TopkOptions, type TopkResult } from './topk.js';
export { opsTarget, type OpsTarget } from './tuning.js';
