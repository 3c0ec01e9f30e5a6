// Warp-specialized attention on sm_90a (FlashAttention-3's structure; bench/fa3_kernels.ts): a KV
// loop whose body holds S = Q K^T (K loaded [BN, D] and transposed: staged K-major), the online
// softmax (row max and row sum: reductions), and O += P V (P from registers) rides the warp-
// specialized ring of lower_warp_specialize.ts: one stage carries the iteration's K and V tiles.
// Two consumer warpgroups ping-pong their wgmma against each other's softmax (ws_pingpong.ts).
import type { Op } from '../../ir/ops.js';

/** A reduction or scan: its region is a combine function, not control flow (the body stays straight-line). */
export const isCombiner = (o: Op): boolean => o.kind === 'reduce' || o.kind === 'scan';
