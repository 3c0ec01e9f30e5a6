// Reference checks of every op, shared by the per-device test files (sm_80 and sm_90a sim runs).
// Each check runs one op on `device` against a plain-JS f64 reference with a stated bound.
import { expect } from 'vitest';
import { erf } from '../../src/interpret/float.js';
import type { DType } from '../../src/ir/types.js';
import { ops } from '../../src/index.js';
import { getDevice, type Stream } from '../../src/runtime/device.js';
import type { Activation } from '../../src/ops/matmul.js';
import { devArray, expectWithin, randValues, roundTo, TINY, UNIT, values } from './helpers.js';

// ---- matmul: bound per element = the output's rounding (unit u of the result dtype times |ref|)
// plus f32 accumulation, (K + 16) * 2^-23 * sum_k |a_ik b_kj| (the +16 covers the activation's
// own f32 error); inputs are exact values of their dtype.

export function matmulRef(a: ArrayLike<number>, b: ArrayLike<number>, M: number, N: number, K: number, transB: boolean, bias?: ArrayLike<number>, act?: Activation) {
  const value = new Float64Array(M * N), mag = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = bias ? bias[j]! : 0, m = Math.abs(s);
    for (let k = 0; k < K; k++) {
      const p = a[i * K + k]! * (transB ? b[j * K + k]! : b[k * N + j]!);
      s += p;
      m += Math.abs(p);
    }
    if (act === 'relu') s = Math.max(s, 0);
    else if (act === 'silu') s = s / (1 + Math.exp(-s));
    else if (act === 'gelu') s = 0.5 * s * (1 + erf(s / Math.SQRT2));
    value[i * N + j] = s;
    mag[i * N + j] = m;
  }
  return { value, mag };
}

/** Runs one matmul on `device` and checks it against the reference. */
export async function checkMatmul(device: string, dtype: DType, M: number, N: number, K: number, o: { transB?: boolean; bias?: boolean; act?: Activation; outDtype?: 'f16' | 'bf16' | 'f32' } = {}): Promise<void> {
  const transB = o.transB ?? false;
  const av = randValues(M * K, 1 + M, dtype), bv = randValues(K * N, 2 + N, dtype);
  const outDt = o.outDtype ?? (dtype.startsWith('f8') ? 'f16' : dtype);
  const biasDt = dtype.startsWith('f8') ? 'f32' : dtype;
  const biasv = o.bias ? randValues(N, 3, biasDt) : undefined;
  const a = devArray(av, dtype, [M, K], device), b = devArray(bv, dtype, transB ? [N, K] : [K, N], device);
  const bias = biasv ? devArray(biasv, biasDt, [N], device) : undefined;
  const c = await ops.matmul(a, b, { transB, ...(bias ? { bias } : {}), ...(o.act ? { activation: o.act } : {}), ...(o.outDtype ? { outDtype: o.outDtype } : {}) });
  expect(c.shape).toEqual([M, N]);
  expect(c.dtype).toBe(outDt);
  const ref = matmulRef(av, bv, M, N, K, transB, biasv, o.act);
  const u = UNIT[outDt]!, acc = (K + 16) * 2 ** -23;
  expectWithin(await values(c), ref.value, (i) => u * Math.abs(ref.value[i]!) + acc * ref.mag[i]!, `${device} ${dtype} ${M}x${N}x${K} ${JSON.stringify(o)}`);
  for (const x of [a, b, c, bias]) x?.free();
}

// ---- row ops. Bounds: the result's rounding (2u: rmsNorm rounds twice, as HF) plus f32
// accumulation over the row, (D + 16) * 2^-23 relative (sum of squares, sums of exp; the +16
// covers exp/sigmoid's hardware approximations on the sim, <= 2 ulp each).

export async function checkRmsNorm(device: string, dtype: DType, R: number, D: number, weightDt: DType = dtype): Promise<void> {
  const xv = randValues(R * D, 5 + D, dtype), wv = randValues(D, 6, weightDt, 0.5, 1.5), eps = 1e-6;
  const x = devArray(xv, dtype, [R, D], device), w = devArray(wv, weightDt, [D], device);
  const y = await ops.rmsNorm(x, w, { eps });
  expect([y.shape, y.dtype]).toEqual([[R, D], dtype]);
  const want = new Float64Array(R * D);
  for (let r = 0; r < R; r++) {
    let ss = 0;
    for (let c = 0; c < D; c++) ss += xv[r * D + c]! ** 2;
    const rstd = 1 / Math.sqrt(ss / D + eps);
    for (let c = 0; c < D; c++) want[r * D + c] = xv[r * D + c]! * rstd * wv[c]!;
  }
  const rel = 2 * UNIT[dtype]! + (D + 16) * 2 ** -23;
  expectWithin(await values(y), want, (i) => rel * Math.abs(want[i]!) + 1e-30, `rmsNorm ${device} ${dtype} ${R}x${D}`);
}

export async function checkLayerNorm(device: string, dtype: DType, R: number, D: number, withBias: boolean): Promise<void> {
  const xv = randValues(R * D, 7 + D, dtype, 1, 5), wv = randValues(D, 8, dtype, 0.5, 1.5), bv = randValues(D, 9, dtype), eps = 1e-5;
  const x = devArray(xv, dtype, [R, D], device), w = devArray(wv, dtype, [D], device), b = withBias ? devArray(bv, dtype, [D], device) : null;
  const y = await ops.layerNorm(x, w, b, { eps });
  const want = new Float64Array(R * D), mag = new Float64Array(R * D);
  for (let r = 0; r < R; r++) {
    let s = 0, s2 = 0;
    for (let c = 0; c < D; c++) s += xv[r * D + c]!;
    const mean = s / D;
    for (let c = 0; c < D; c++) s2 += (xv[r * D + c]! - mean) ** 2;
    const rstd = 1 / Math.sqrt(s2 / D + eps);
    for (let c = 0; c < D; c++) {
      const xh = (xv[r * D + c]! - mean) * rstd * wv[c]!, bb = withBias ? bv[c]! : 0;
      want[r * D + c] = xh + bb;
      // the mean's f32 error is relative to |x|, then scaled by rstd * w
      mag[r * D + c] = Math.abs(xh) + Math.abs(bb) + Math.abs(xv[r * D + c]!) * rstd * wv[c]!;
    }
  }
  const acc = (D + 16) * 2 ** -23;
  expectWithin(await values(y), want, (i) => UNIT[dtype]! * Math.abs(want[i]!) + acc * mag[i]!, `layerNorm ${device} ${dtype} ${R}x${D} bias=${withBias}`);
}

export async function checkSoftmax(device: string, dtype: DType, R: number, C: number, scale = 2): Promise<void> {
  const xv = randValues(R * C, 11 + C, dtype, -scale, scale);
  const x = devArray(xv, dtype, [R, C], device);
  const y = await ops.softmax(x);
  const want = new Float64Array(R * C);
  for (let r = 0; r < R; r++) {
    let m = -Infinity, s = 0;
    for (let c = 0; c < C; c++) m = Math.max(m, xv[r * C + c]!);
    for (let c = 0; c < C; c++) s += Math.exp(xv[r * C + c]! - m);
    for (let c = 0; c < C; c++) want[r * C + c] = Math.exp(xv[r * C + c]! - m) / s;
  }
  // exp's argument x - max is rounded in f32 (relative error up to 2*scale*2^-24 of the result)
  const rel = UNIT[dtype]! + (C + 16 + 4 * scale) * 2 ** -23;
  expectWithin(await values(y), want, (i) => rel * want[i]! + TINY[dtype]!, `softmax ${device} ${dtype} ${R}x${C}`);
}

/** Greedy sample: exact (the first index of the row maximum), with planted ties. */
export async function checkArgmax(device: string, dtype: DType, B: number, V: number, tieStride?: number): Promise<void> {
  const xv = randValues(B * V, 13 + V, dtype, -8, 8);
  // plant a tie for the maximum in each row: two copies of one value (tieStride apart: a chunk's
  // width puts both in one lane of the kernel's chunk loop)
  for (let r = 0; r < B; r++) {
    const hi = roundTo(dtype, 9 + r / 8), j1 = (r * 37 + 5) % V, j2 = tieStride ? j1 + tieStride : (r * 11 + V - 3) % V;
    xv[r * V + j1] = hi;
    xv[r * V + j2] = hi;
  }
  const x = devArray(xv, dtype, [B, V], device);
  const ids = await ops.sample(x);
  expect([ids.shape, ids.dtype]).toEqual([[B], 'i32']);
  const want = Array.from({ length: B }, (_, r) => {
    let best = 0;
    for (let c = 1; c < V; c++) if (xv[r * V + c]! > xv[r * V + best]!) best = c;
    return best;
  });
  expect(Array.from(await ids.toArray() as Int32Array), `argmax ${device} ${dtype} ${B}x${V}`).toEqual(want);
}

// ---- elementwise ops

export async function checkSwiglu(device: string, dtype: DType, R: number, F: number): Promise<void> {
  const gv = randValues(R * F, 15, dtype, -6, 6), uv = randValues(R * F, 16, dtype);
  const y = await ops.swiglu(devArray(gv, dtype, [R, F], device), devArray(uv, dtype, [R, F], device));
  const want = Float64Array.from(gv, (g, i) => (g / (1 + Math.exp(-g))) * uv[i]!);
  // f32 silu (sigmoid within 2 ulp on the sim) and product, rounded once
  expectWithin(await values(y), want, (i) => (UNIT[dtype]! + 2 ** -20) * Math.abs(want[i]!) + 1e-30, `swiglu ${device} ${dtype} ${R}x${F}`);
}

export async function checkAdd(device: string, dtype: DType, shape: number[], inPlace: boolean): Promise<void> {
  const n = shape.reduce((x, y) => x * y, 1);
  const av = randValues(n, 21, dtype, -8, 8), bv = randValues(n, 22, dtype, -8, 8);
  const a = devArray(av, dtype, shape, device);
  const y = await ops.add(a, devArray(bv, dtype, shape, device), inPlace ? { out: a } : undefined);
  if (inPlace) expect(y).toBe(a);
  expect([y.shape, y.dtype]).toEqual([shape, dtype]);
  const want = Float64Array.from(av, (x, i) => x + bv[i]!);
  // the f32 sum of two values of the dtype is exact for f16/bf16 here; one rounding to the dtype
  expectWithin(await values(y), want, (i) => UNIT[dtype]! * Math.abs(want[i]!) + 1e-30, `add ${device} ${dtype} [${shape}]`);
}

export async function checkEmbedding(device: string, dtype: DType, V: number, D: number, ids: number[]): Promise<void> {
  const tv = randValues(V * D, 17, dtype);
  const table = devArray(tv, dtype, [V, D], device);
  const want = new Float64Array(ids.length * D);
  ids.forEach((id, t) => { if (id >= 0 && id < V) for (let c = 0; c < D; c++) want[t * D + c] = tv[id * D + c]!; });
  const inRange = ids.every((id) => id >= 0 && id < V);
  // in range: both the host path (Int32Array) and device ids; out of range: device ids give zero rows
  if (inRange) expect(Array.from(await values(await ops.embedding(table, Int32Array.from(ids))))).toEqual(Array.from(want));
  const y = await ops.embedding(table, devArray(ids, 'i32', [ids.length], device));
  expect([y.shape, y.dtype]).toEqual([[ids.length, D], dtype]);
  expect(Array.from(await values(y)), `embedding ${device} ${dtype}`).toEqual(Array.from(want));
}

export function ropeRef(xv: ArrayLike<number>, T: number, H: number, Dh: number, pos: ArrayLike<number>, invFreq: Float32Array, interleaved: boolean): Float64Array {
  const out = Float64Array.from(xv), half = Dh / 2;
  for (let t = 0; t < T; t++) for (let h = 0; h < H; h++) for (let i = 0; i < half; i++) {
    const ang = Math.fround(pos[t]! * invFreq[i]!); // an f32 product, as HF
    const c = Math.cos(ang), s = Math.sin(ang);
    const base = (t * H + h) * Dh, i1 = base + (interleaved ? 2 * i : i), i2 = base + (interleaved ? 2 * i + 1 : i + half);
    out[i1] = xv[i1]! * c - xv[i2]! * s;
    out[i2] = xv[i2]! * c + xv[i1]! * s;
  }
  return out;
}

export async function checkRope(device: string, dtype: DType, T: number, H: number, Dh: number, o: { interleaved?: boolean; theta?: number; invFreq?: 'host' | 'device'; offset?: number; stream?: Stream } = {}): Promise<void> {
  const xv = randValues(T * H * Dh, 19 + Dh, dtype);
  const pos = Array.from({ length: T }, (_, t) => (o.offset ?? 0) + t * 7);
  const theta = o.theta ?? 10000;
  const inv = o.invFreq ? Float32Array.from({ length: Dh / 2 }, (_, i) => Math.fround(0.25 / theta ** ((2 * i) / Dh))) : ops.ropeInvFreq(Dh, theta);
  const x = devArray(xv, dtype, [T, H, Dh], device), p = devArray(pos, 'i32', [T], device);
  const invOpt = o.invFreq === 'host' ? { invFreq: inv } : o.invFreq === 'device' ? { invFreq: devArray(inv, 'f32', [Dh / 2], device) } : o.theta !== undefined ? { theta } : {};
  // inputs were written on the default stream: another stream is ordered after them only by a wait
  if (o.stream) await getDevice(device as never).synchronize!();
  const r = await ops.rope(x, p, { interleaved: o.interleaved ?? false, ...invOpt, ...(o.stream ? { stream: o.stream } : {}) });
  expect(r).toBe(x); // in place
  if (o.stream) await getDevice(device as never).synchronize!();
  const want = ropeRef(xv, T, H, Dh, pos, inv, o.interleaved ?? false);
  // f32 rotation of f32-rounded cos/sin: a few f32 ulps of |x1| + |x2|, then the result's rounding
  const mag = (i: number): number => {
    const base = i - (i % Dh), j = i % Dh, half = Dh / 2;
    const mate = o.interleaved ? base + (j ^ 1) : base + (j < half ? j + half : j - half);
    return Math.abs(xv[i]!) + Math.abs(xv[mate]!);
  };
  expectWithin(await values(x), want, (i) => UNIT[dtype]! * Math.abs(want[i]!) + 2 ** -21 * mag(i), `rope ${device} ${dtype} ${JSON.stringify({ ...o, stream: o.stream ? 'a stream' : undefined })}`);
}

// ---- topk: exact (values are the inputs; indices by the stated order: value desc, index asc)

export function topkRef(xv: ArrayLike<number>, R: number, N: number, k: number): { values: number[]; indices: number[] } {
  const values: number[] = [], indices: number[] = [];
  for (let r = 0; r < R; r++) {
    const idx = Array.from({ length: N }, (_, i) => i).sort((a, b) => (xv[r * N + b]! - xv[r * N + a]!) || a - b).slice(0, k);
    for (const i of idx) { indices.push(i); values.push(xv[r * N + i]!); }
  }
  return { values, indices };
}

export async function checkTopk(device: string, dtype: DType, R: number, N: number, k: number): Promise<void> {
  // a coarse grid of values: many ties, which must go to the lower index
  const xv = randValues(R * N, 23 + N, dtype, -4, 4).map((v) => roundTo(dtype, Math.round(v * 4) / 4));
  const x = devArray(xv, dtype, [R, N], device);
  const { values: v, indices: i } = await ops.topk(x, k);
  expect([v.shape, v.dtype, i.shape, i.dtype]).toEqual([[R, k], dtype, [R, k], 'i32']);
  const want = topkRef(xv, R, N, k);
  expect(Array.from(await i.toArray()), `topk indices ${device} ${dtype} ${R}x${N} k=${k}`).toEqual(want.indices);
  expect(Array.from(await values(v))).toEqual(want.values);
}

// ---- sample at temperature > 0: by its distribution. B rows of the same logits (each row its own
// stretch of the Philox stream) give token counts; each frequency is within 5 standard deviations
// (plus 1/B) of the renormalised probability, and tokens outside the top-k / nucleus never appear.

/** Hugging Face's order: temperature, top-k, then top-p over the top-k's softmax (min 1 token kept). */
export function sampleProbs(logits: readonly number[], T: number, topK?: number, topP?: number): number[] {
  const V = logits.length;
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => logits[b]! - logits[a]! || a - b);
  const kept = order.slice(0, topK ?? V);
  const m = logits[kept[0]!]! / T;
  const e = new Map(kept.map((i) => [i, Math.exp(logits[i]! / T - m)]));
  let total = 0;
  for (const v of e.values()) total += v;
  const probs = new Array<number>(V).fill(0);
  let before = 0;
  for (const [n, i] of kept.entries()) {
    const p = e.get(i)! / total;
    if (topP !== undefined && n > 0 && before >= topP) continue;
    probs[i] = p;
    before += p;
  }
  const s = probs.reduce((a, b) => a + b, 0);
  return probs.map((p) => p / s);
}

export async function checkSampleDistribution(device: string, dtype: DType, B: number, logits: number[], o: { temperature: number; topK?: number; topP?: number; seed?: number }): Promise<void> {
  const V = logits.length;
  const lv = logits.map((v) => roundTo(dtype, v));
  const x = devArray(Array.from({ length: B }, () => lv).flat(), dtype, [B, V], device);
  const ids = Array.from(await (await ops.sample(x, { ...o, seed: o.seed ?? 1234 })).toArray());
  const want = sampleProbs(lv, o.temperature, o.topK, o.topP);
  const counts = new Array<number>(V).fill(0);
  for (const t of ids) counts[t]!++;
  for (let j = 0; j < V; j++) {
    const p = want[j]!, f = counts[j]! / B;
    if (p === 0) expect(counts[j], `token ${j} is outside the sampled set (${JSON.stringify(o)})`).toBe(0);
    else expect(Math.abs(f - p), `token ${j}: frequency ${f}, probability ${p} (${JSON.stringify(o)}) on ${device}`).toBeLessThanOrEqual(5 * Math.sqrt((p * (1 - p)) / B) + 1 / B);
  }
}

// ---- cosineTopK: each returned score within the bound of its row's exact cosine, scores
// descending, and nothing left out scores more than the last one kept (beyond the bound: near-ties
// may go either way). Bound: (D + 16) * 2^-23 (f32 dot and norms) plus the inputs' rounding is exact.

export async function checkCosineTopK(device: string, dtype: DType, Q: number, N: number, D: number, k: number): Promise<void> {
  const qv = randValues(Q * D, 29, dtype), mv = randValues(N * D, 31, dtype);
  for (let c = 0; c < D; c++) mv[3 * D + c] = 0; // a zero row: score 0
  const { indices, scores } = await ops.cosineTopK(devArray(qv, dtype, [Q, D], device), devArray(mv, dtype, [N, D], device), k);
  expect([indices.shape, indices.dtype, scores.shape, scores.dtype]).toEqual([[Q, k], 'i32', [Q, k], 'f32']);
  const idx = Array.from(await indices.toArray()), sc = Array.from(await scores.toArray());
  const tol = (D + 16) * 2 ** -23;
  for (let q = 0; q < Q; q++) {
    const exact = Array.from({ length: N }, (_, n) => {
      let d = 0, a = 0, b = 0;
      for (let c = 0; c < D; c++) { d += qv[q * D + c]! * mv[n * D + c]!; a += qv[q * D + c]! ** 2; b += mv[n * D + c]! ** 2; }
      return b === 0 ? 0 : d / Math.sqrt(a * b);
    });
    const got = idx.slice(q * k, (q + 1) * k);
    expect(new Set(got).size, `query ${q}: distinct indices`).toBe(k);
    got.forEach((n, j) => {
      expect(Math.abs(sc[q * k + j]! - exact[n]!), `query ${q} rank ${j} (row ${n})`).toBeLessThanOrEqual(tol);
      if (j > 0) expect(sc[q * k + j]!).toBeLessThanOrEqual(sc[q * k + j - 1]!);
    });
    const last = Math.min(...got.map((n) => exact[n]!));
    for (let n = 0; n < N; n++) if (!got.includes(n)) expect(exact[n]!, `query ${q}: row ${n} left out`).toBeLessThanOrEqual(last + 2 * tol);
  }
}
