// Selection ops (max/min with indices; sort, topk) as kernels over a ragged R x C row-major
// matrix, with plain-JS references. selectSuites holds the suites of select_sm80 / select_sm90
// (the sim as each GPU): every case runs on the interpreter and the sim.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, gather, histogram, load, max, min, programId, ptr, sort, store, topk } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { expectBitwise, lcg, runBoth } from './helpers.js';

export const R = 37, C = 100, BR = 4, BC = 128;
const SANITIZERS = ['racecheck', 'synccheck', 'initcheck'] as const;
export const grid = [Math.ceil(R / BR)];

type Num = 'f32' | 'i32';

const edgeOf = (which: 'max' | 'min', dt: Num): number => (dt === 'f32' ? (which === 'max' ? -Infinity : Infinity) : which === 'max' ? -(2 ** 31) : 2 ** 31 - 1);

/** Row-wise max or min with indices: vals[r], idx[r]. Masked columns read -/+inf (or the i32 edge). */
export const maxMinKernel = (which: 'max' | 'min', dt: Num, tieBreakLeft: boolean) => kernel(
  { name: `${which}_idx_${dt}_${tieBreakLeft ? 'left' : 'fast'}`, params: { x: ptr(dt), vals: ptr(dt), idx: ptr('i32'), R: 'i32', C: 'i32', BR: constexpr(), BC: constexpr() } },
  (a) => {
    const rows = programId(0).mul(a.BR).add(arange(0, a.BR));
    const cols = arange(0, a.BC);
    const rmask = rows.lt(a.R);
    const mask = rmask.expandDims(1).and(cols.expandDims(0).lt(a.C));
    const edge = edgeOf(which, dt);
    const x = load(a.x.add(rows.expandDims(1).mul(a.C).add(cols.expandDims(0))), { mask, other: edge });
    const [v, i] = (which === 'max' ? max : min)(x, 1, { returnIndices: true, tieBreakLeft });
    store(a.vals.add(rows), v, { mask: rmask });
    store(a.idx.add(rows), i, { mask: rmask });
  },
);

/** Inputs with many ties, and for f32 NaNs, infinities and signed zeros. */
export function maxMinInput(dt: Num, seed: number): Float32Array | Int32Array {
  const r = lcg(seed);
  if (dt === 'i32') return Int32Array.from({ length: R * C }, () => Math.floor(r() * 40) - 20 + (r() < 0.05 ? 2 ** 31 - 100 : 0));
  const x = Float32Array.from({ length: R * C }, () => Math.floor(r() * 40) / 4 - 5);
  const specials = [NaN, Infinity, -Infinity, -0, 0];
  for (let i = 0; i < R * C; i++) if (r() < 0.02) x[i] = specials[Math.floor(r() * specials.length)]!;
  for (let c = 0; c < C; c++) { x[5 * C + c] = -Infinity; x[6 * C + c] = 7; } // a row all -inf, a row of one value
  return x;
}

/** Reference: the extreme (NaN counts as the extreme) and the first index holding it. */
export function maxMinRef(which: 'max' | 'min', x: ArrayLike<number>, r: number): { v: number; i: number } {
  let bi = 0;
  for (let c = 1; c < C; c++) {
    const a = x[r * C + c]!, b = x[r * C + bi]!;
    if (Number.isNaN(b)) break;
    if (Number.isNaN(a) || (which === 'max' ? a > b : a < b)) bi = c;
  }
  return { v: x[r * C + bi]!, i: bi };
}

export async function checkMaxMin(which: 'max' | 'min', dt: Num, tieBreakLeft: boolean): Promise<void> {
  const x = maxMinInput(dt, dt === 'f32' ? 11 : 12);
  const Ctor = dt === 'f32' ? Float32Array : Int32Array;
  const k = maxMinKernel(which, dt, tieBreakLeft);
  const res = await runBoth(k, { x, vals: new Ctor(R), idx: new Int32Array(R), R, C, BR, BC }, grid);
  for (const dev of ['interpret', 'sim'] as const) {
    const vals = res[dev].vals as Float32Array | Int32Array, idx = res[dev].idx as Int32Array;
    for (let r = 0; r < R; r++) {
      const want = maxMinRef(which, x, r);
      const what = `${which} ${dt} tieBreakLeft=${tieBreakLeft} on ${dev}, row ${r}`;
      expect(Object.is(vals[r], want.v) || (want.v === 0 && vals[r] === 0), `${what}: value ${vals[r]} vs ${want.v}`).toBe(true);
      if (tieBreakLeft) expect(idx[r], `${what}: index`).toBe(want.i);
      else {
        // any tied index of the padded row (masked columns read the edge value, which can tie)
        const i = idx[r]!;
        expect(i >= 0 && i < BC, `${what}: index ${i} in range`).toBe(true);
        const got = i < C ? x[r * C + i]! : edgeOf(which, dt);
        expect(Number.isNaN(want.v) ? Number.isNaN(got) : got === want.v, `${what}: x[${i}] = ${got} holds ${want.v}`).toBe(true);
      }
    }
  }
  if (tieBreakLeft) expectBitwise(res.sim.idx as Int32Array, res.interpret.idx as Int32Array, `${which} ${dt}: sim vs interpreter indices`);
  expectBitwise(res.sim.vals as Float32Array, res.interpret.vals as Float32Array, `${which} ${dt}: sim vs interpreter values`);
}

// ---- sort / topk --------------------------------------------------------------------------------

export type SortDt = 'f32' | 'f16' | 'f64' | 'i32' | 'i64' | 'u8';
export interface SortCase {
  readonly name: string;
  readonly dt: SortDt;
  readonly descending: boolean;
  readonly indices: boolean;
  /** topk's k (undefined: sort). */
  readonly k?: number;
  readonly rows: number;
  readonly cols: number;
  readonly BR: number;
  readonly BC: number;
  /** Sort along dim 0 of the transposed tile (the columns) instead of the last dim. */
  readonly dim0?: boolean;
  readonly numWarps?: number;
}

const PAD: Record<SortDt, [number | bigint, number | bigint]> = {
  // padding for masked elements: [ascending, descending] (sorts last either way, bar NaNs)
  f32: [Infinity, -Infinity], f16: [Infinity, -Infinity], f64: [Infinity, -Infinity],
  i32: [2 ** 31 - 1, -(2 ** 31)], i64: [2n ** 63n - 1n, -(2n ** 63n)], u8: [255, 0],
};
const ARR: Record<SortDt, new (n: number) => ArrayLike<number | bigint> & { [i: number]: number | bigint }> = {
  f32: Float32Array, f16: Uint16Array, f64: Float64Array, i32: Int32Array, i64: BigInt64Array, u8: Uint8Array,
} as never;
const f16Bits1 = (v: number): number => (v === Infinity ? 0x7c00 : v === -Infinity ? 0xfc00 : 0);

export const sortKernel = (c: SortCase) => kernel(
  { name: `sort_${c.name.replace(/\W+/g, '_')}`, params: { x: ptr(c.dt), out: ptr(c.dt), idx: ptr('i32'), R: 'i32', C: 'i32', BR: constexpr(), BC: constexpr() } },
  (a) => {
    const K = c.k ?? c.BC;
    const rows = programId(0).mul(a.BR).add(arange(0, a.BR));
    const cols = arange(0, a.BC);
    const rmask = rows.lt(a.R);
    const mask = rmask.expandDims(1).and(cols.expandDims(0).lt(a.C));
    const pad = PAD[c.dt][c.descending ? 1 : 0];
    // dim0: the tile is [BC, BR] (x's rows along dim 1) and sorts along dim 0
    const offs = c.dim0 ? rows.expandDims(0).mul(a.C).add(cols.expandDims(1)) : rows.expandDims(1).mul(a.C).add(cols.expandDims(0));
    const x = load(a.x.add(offs), { mask: c.dim0 ? mask.trans() : mask, other: pad as number });
    const opts = { descending: c.descending, returnIndices: c.indices, ...(c.dim0 ? { dim: 0 } : {}) };
    const r = c.k === undefined ? sort(x, opts) : topk(x, c.k, opts);
    const [v, i] = Array.isArray(r) ? r : [r, undefined];
    const kc = arange(0, K);
    const omask = rmask.expandDims(1).and(kc.expandDims(0).lt(a.C));
    const ooffs = c.dim0 ? rows.expandDims(0).mul(K).add(kc.expandDims(1)) : rows.expandDims(1).mul(K).add(kc.expandDims(0));
    store(a.out.add(ooffs), v, { mask: c.dim0 ? omask.trans() : omask });
    if (i) store(a.idx.add(ooffs), i, { mask: c.dim0 ? omask.trans() : omask });
  },
);

/** The ascending-order key of an element (floats: IEEE totalOrder from the bits). */
function refKey(dt: SortDt, x: ArrayLike<number | bigint>, i: number): bigint {
  if (dt === 'f32') {
    const b = BigInt(new Uint32Array(new Float32Array([x[i] as number]).buffer)[0]!);
    return b >= 0x80000000n ? 0xffffffffn - b : b + 0x80000000n;
  }
  if (dt === 'f64') {
    const b = new BigUint64Array(new Float64Array([x[i] as number]).buffer)[0]!;
    return b >= 1n << 63n ? (1n << 64n) - 1n - b : b + (1n << 63n);
  }
  if (dt === 'f16') { const b = BigInt(x[i] as number); return b >= 0x8000n ? 0xffffn - b : b + 0x8000n; }
  return BigInt(x[i]!);
}

export function sortInput(c: SortCase, seed: number): ArrayLike<number | bigint> & { [i: number]: number | bigint } {
  const r = lcg(seed);
  const n = c.rows * c.cols;
  const a = new ARR[c.dt](n);
  for (let i = 0; i < n; i++) {
    const u = r();
    const small = Math.floor(u * 64) - 32; // many ties
    if (c.dt === 'f32' || c.dt === 'f64') a[i] = i % 3 ? small / 8 : (u - 0.5) * 1e6;
    else if (c.dt === 'f16') a[i] = (0x3c00 + small * 37) & 0xffff;
    else if (c.dt === 'i64') a[i] = BigInt(small) * (i % 5 ? 1n : 1n << 40n);
    else if (c.dt === 'u8') a[i] = small & 0xff;
    else a[i] = i % 4 ? small : Math.floor((u - 0.5) * 2 ** 32);
  }
  if (c.dt === 'f32' || c.dt === 'f64') {
    [NaN, Infinity, -Infinity, -0, 0, 1e-40, -0, NaN].forEach((v, j) => { a[(j * 37) % n] = v; });
    if (c.dt === 'f32') new Uint32Array((a as Float32Array).buffer)[(11 * 37) % n] = 0xffc00001; // a NaN with the sign set
  }
  if (c.dt === 'f16') [0x7e00, 0x7c00, 0xfc00, 0x8000, 0x0000, 0x0001, 0xfe00].forEach((v, j) => { a[(j * 41) % n] = v; });
  return a;
}

/** Reference: each padded row sorted by (key, position), first K kept (masked columns not stored). */
export function sortRef(c: SortCase, x: ArrayLike<number | bigint>): { vals: ArrayLike<number | bigint>; idx: Int32Array } {
  const K = c.k ?? c.BC;
  const vals = new ARR[c.dt](c.rows * K);
  const idx = new Int32Array(c.rows * K).fill(-1);
  const pad = PAD[c.dt][c.descending ? 1 : 0];
  const padArr = new ARR[c.dt](1);
  padArr[0] = c.dt === 'f16' ? f16Bits1(pad as number) : pad;
  for (let r = 0; r < c.rows; r++) {
    const keys = Array.from({ length: c.BC }, (_, j) => (j < c.cols ? refKey(c.dt, x, r * c.cols + j) : refKey(c.dt, padArr, 0)));
    const perm = Array.from({ length: c.BC }, (_, j) => j).sort((p, q) => (keys[p] !== keys[q] ? ((keys[p]! < keys[q]!) !== c.descending ? -1 : 1) : p - q));
    for (let j = 0; j < Math.min(K, c.cols); j++) {
      vals[r * K + j] = perm[j]! < c.cols ? x[r * c.cols + perm[j]!]! : padArr[0]!;
      idx[r * K + j] = perm[j]!;
    }
  }
  return { vals, idx };
}

export async function checkSort(c: SortCase): Promise<void> {
  const x = sortInput(c, 31 + c.name.length);
  const K = c.k ?? c.BC;
  const want = sortRef(c, x);
  const out = new ARR[c.dt](c.rows * K);
  const idx = new Int32Array(c.rows * K).fill(-1);
  const res = await runBoth(sortKernel(c), { x, out, idx, R: c.rows, C: c.cols, BR: c.BR, BC: c.BC } as never, [Math.ceil(c.rows / c.BR)], { numWarps: c.numWarps ?? 4 });
  for (const dev of ['interpret', 'sim'] as const) {
    const got = res[dev] as unknown as { out: ArrayBufferView; idx: Int32Array };
    expectBitwise(got.out, want.vals as unknown as ArrayBufferView, `${c.name} on ${dev}: values`);
    if (c.indices) expectBitwise(got.idx, want.idx, `${c.name} on ${dev}: indices`);
  }
}

export const SORT_CASES: SortCase[] = [
  { name: 'f32 ascending, ragged 37x100 in 4x128 tiles', dt: 'f32', descending: false, indices: false, rows: 37, cols: 100, BR: 4, BC: 128 },
  { name: 'f32 descending with indices', dt: 'f32', descending: true, indices: true, rows: 37, cols: 100, BR: 4, BC: 128 },
  { name: 'f16 ascending with indices', dt: 'f16', descending: false, indices: true, rows: 19, cols: 60, BR: 2, BC: 64 },
  { name: 'i32 descending, 32 wide (one lane each)', dt: 'i32', descending: true, indices: true, rows: 21, cols: 32, BR: 8, BC: 32 },
  { name: 'u8 ascending, 8 wide in 1 warp', dt: 'u8', descending: false, indices: false, rows: 13, cols: 7, BR: 16, BC: 8, numWarps: 1 },
  { name: 'f64 ascending with indices', dt: 'f64', descending: false, indices: true, rows: 9, cols: 50, BR: 2, BC: 64 },
  { name: 'i64 descending', dt: 'i64', descending: true, indices: true, rows: 9, cols: 33, BR: 4, BC: 64 },
  { name: 'f32 one 256-long row (8 per thread)', dt: 'f32', descending: false, indices: true, rows: 3, cols: 250, BR: 1, BC: 256 },
  { name: 'f32 along dim 0', dt: 'f32', descending: false, indices: true, rows: 10, cols: 30, BR: 4, BC: 32, dim0: true },
  { name: 'f32 2x128 in 1 warp with indices (the warp tile repeats: high bits in registers)', dt: 'f32', descending: true, indices: true, rows: 5, cols: 120, BR: 2, BC: 128, numWarps: 1 },
  { name: 'i64 1x64 in 1 warp, ascending', dt: 'i64', descending: false, indices: false, rows: 3, cols: 61, BR: 1, BC: 64, numWarps: 1 },
  { name: 'topk 8 of 128, f32, with indices', dt: 'f32', descending: true, indices: true, k: 8, rows: 37, cols: 100, BR: 4, BC: 128 },
  { name: 'topk 16 smallest of 64, i32', dt: 'i32', descending: false, indices: false, k: 16, rows: 11, cols: 64, BR: 2, BC: 64 },
  { name: 'topk 2 of 256, f16', dt: 'f16', descending: true, indices: true, k: 2, rows: 2, cols: 199, BR: 1, BC: 256 },
];

/** Runs a case on the sim under racecheck, synccheck and initcheck (top-k's shared-memory read-out). */
export async function checkSortSanitized(c: SortCase): Promise<void> {
  const x = sortInput(c, 7);
  const K = c.k ?? c.BC;
  const out = new ARR[c.dt](c.rows * K);
  const idx = new Int32Array(c.rows * K).fill(-1);
  await sortKernel(c).run({ x, out, idx, R: c.rows, C: c.cols, BR: c.BR, BC: c.BC } as never, { grid: [Math.ceil(c.rows / c.BR)], device: 'sim', numWarps: c.numWarps ?? 4, sanitize: [...SANITIZERS] });
  const want = sortRef(c, x);
  expectBitwise(out as unknown as ArrayBufferView, want.vals as unknown as ArrayBufferView, `${c.name} under the sanitizers: values`);
}

// ---- gather -------------------------------------------------------------------------------------

export interface GatherCase {
  readonly name: string;
  readonly dt: 'f32' | 'f16' | 'i64' | 'i8';
  readonly it: 'i32' | 'i64' | 'u8';
  /** Tile shapes per program; rows (dim 0) of src beyond `srcRows` and of index beyond `idxRows` are masked (ragged). */
  readonly src: [number, number];
  readonly index: [number, number];
  readonly axis: 0 | 1;
  readonly programs: number;
  readonly srcRows: number;
  readonly idxRows: number;
  readonly numWarps?: number;
}

const GARR = { f32: Float32Array, f16: Uint16Array, i64: BigInt64Array, i8: Int8Array, i32: Int32Array, u8: Uint8Array } as const;

export const gatherKernel = (c: GatherCase) => kernel(
  { name: `gather_${c.name.replace(/\W+/g, '_')}`, params: { x: ptr(c.dt), ix: ptr(c.it), out: ptr(c.dt), SR: 'i32', IR: 'i32' } },
  (a) => {
    const [S0, S1] = c.src, [I0, I1] = c.index;
    const pid = programId(0);
    const tile = (rows: number, cols: number, limit: typeof a.SR) => {
      const r = arange(0, rows), cl = arange(0, cols);
      const offs = pid.mul(rows * cols).add(r.expandDims(1).mul(cols).add(cl.expandDims(0)));
      return { offs, mask: pid.mul(rows).add(r).lt(limit).expandDims(1).and(cl.expandDims(0).lt(cols)) };
    };
    const s = tile(S0, S1, a.SR), i = tile(I0, I1, a.IR);
    const src = load(a.x.add(s.offs), { mask: s.mask, other: 0 });
    const index = load(a.ix.add(i.offs), { mask: i.mask, other: 0 });
    store(a.out.add(i.offs), gather(src, index, c.axis), { mask: i.mask });
  },
);

export async function checkGather(c: GatherCase, sanitize = false): Promise<void> {
  const [S0, S1] = c.src, [I0, I1] = c.index;
  const r = lcg(c.name.length * 7 + 3);
  const ns = c.programs * S0 * S1, ni = c.programs * I0 * I1;
  const x = new GARR[c.dt](ns) as unknown as { [i: number]: number | bigint; length: number };
  for (let i = 0; i < ns; i++) {
    const u = r();
    x[i] = c.dt === 'i64' ? BigInt(Math.floor(u * 2 ** 40)) - (1n << 39n) : c.dt === 'f16' ? Math.floor(u * 0xffff) : c.dt === 'i8' ? Math.floor(u * 256) - 128 : (u - 0.5) * 100;
  }
  if (c.dt === 'f32') new Uint32Array((x as unknown as Float32Array).buffer)[5] = 0x7fa00001; // a NaN payload moves by its bits
  const n = c.src[c.axis];
  const ix = new GARR[c.it](ni) as unknown as { [i: number]: number | bigint; length: number };
  for (let i = 0; i < ni; i++) { const k = Math.floor(r() * n); ix[i] = c.it === 'i64' ? BigInt(k) : k; }
  const out = new GARR[c.dt](ni) as unknown as { [i: number]: number | bigint; length: number };
  const want = new GARR[c.dt](ni) as unknown as { [i: number]: number | bigint; length: number };
  const wantBits = c.dt === 'f32' ? new Uint32Array((want as unknown as Float32Array).buffer) : want;
  const xBits = c.dt === 'f32' ? new Uint32Array((x as unknown as Float32Array).buffer) : x;
  for (let p = 0; p < c.programs; p++) {
    for (let i0 = 0; i0 < I0; i0++) {
      if (p * I0 + i0 >= c.idxRows) continue;
      for (let i1 = 0; i1 < I1; i1++) {
        const k = Number(ix[p * I0 * I1 + i0 * I1 + i1]!);
        const [r0, r1] = c.axis === 0 ? [k, i1] : [i0, k];
        const valid = p * S0 + r0 < c.srcRows;
        wantBits[p * I0 * I1 + i0 * I1 + i1] = valid ? xBits[p * S0 * S1 + r0 * S1 + r1]! : (c.dt === 'i64' ? 0n : 0);
      }
    }
  }
  const args = { x, ix, out, SR: c.srcRows, IR: c.idxRows };
  if (sanitize) {
    await gatherKernel(c).run(args as never, { grid: [c.programs], device: 'sim', numWarps: c.numWarps ?? 4, sanitize: [...SANITIZERS] });
    expectBitwise(out as unknown as ArrayBufferView, want as unknown as ArrayBufferView, `${c.name} under the sanitizers`);
    return;
  }
  const res = await runBoth(gatherKernel(c), args as never, [c.programs], { numWarps: c.numWarps ?? 4 });
  for (const dev of ['interpret', 'sim'] as const) {
    expectBitwise((res[dev] as unknown as { out: ArrayBufferView }).out, want as unknown as ArrayBufferView, `${c.name} on ${dev}`);
  }
}

export const GATHER_CASES: GatherCase[] = [
  { name: 'f32 rows of 32 by i32 (shuffles, one per lane)', dt: 'f32', it: 'i32', src: [4, 32], index: [4, 32], axis: 1, programs: 5, srcRows: 18, idxRows: 19 },
  { name: 'f16 rows of 128 by i64 (shuffles, 4 registers a row)', dt: 'f16', it: 'i64', src: [2, 128], index: [2, 128], axis: 1, programs: 3, srcRows: 5, idxRows: 6 },
  { name: 'i64 along dim 0 (shuffles)', dt: 'i64', it: 'i32', src: [16, 8], index: [16, 8], axis: 0, programs: 2, srcRows: 30, idxRows: 29 },
  { name: 'i64 rows of 128 in 1 warp (the load\'s layout: 2 a lane, repeated twice; shuffles)', dt: 'i64', it: 'i32', src: [2, 128], index: [2, 128], axis: 1, programs: 3, srcRows: 5, idxRows: 6, numWarps: 1 },
  { name: 'i8 16 of 64 per row (shared memory)', dt: 'i8', it: 'u8', src: [8, 64], index: [8, 16], axis: 1, programs: 3, srcRows: 21, idxRows: 22 },
  { name: 'f32 along dim 0, 64 rows from 32 (shared memory)', dt: 'f32', it: 'i32', src: [32, 16], index: [64, 16], axis: 0, programs: 2, srcRows: 60, idxRows: 120 },
  { name: 'f32 512-long rows (shared memory: longer than 256)', dt: 'f32', it: 'i32', src: [2, 512], index: [2, 512], axis: 1, programs: 2, srcRows: 3, idxRows: 4 },
];

// ---- histogram ----------------------------------------------------------------------------------

export interface HistCase {
  readonly name: string;
  readonly dt: 'i32' | 'u8' | 'i64';
  readonly block: number;
  readonly bins: number;
  readonly n: number;
  /** 'bounds': offs < n; 'values': also skip values divisible by 3; 'none': no mask (n a multiple of block). */
  readonly mask: 'bounds' | 'values' | 'none';
  readonly numWarps?: number;
}

export const histKernel = (c: HistCase) => kernel(
  { name: `hist_${c.name.replace(/\W+/g, '_')}`, params: { x: ptr(c.dt), out: ptr('i32'), N: 'i32' } },
  (a) => {
    const offs = programId(0).mul(c.block).add(arange(0, c.block));
    const inb = offs.lt(a.N);
    const x = c.mask === 'none' ? load(a.x.add(offs)) : load(a.x.add(offs), { mask: inb, other: 0 });
    const mask = c.mask === 'none' ? undefined : c.mask === 'bounds' ? inb : inb.and(x.rem(3).ne(0));
    const h = histogram(x, c.bins, mask ? { mask } : undefined);
    store(a.out.add(programId(0).mul(c.bins).add(arange(0, c.bins))), h);
  },
);

export async function checkHistogram(c: HistCase, sanitize = false): Promise<void> {
  const r = lcg(c.bins + c.n);
  const programs = Math.ceil(c.n / c.block);
  const x = new GARR[c.dt](programs * c.block) as unknown as { [i: number]: number | bigint; length: number };
  for (let i = 0; i < x.length; i++) {
    // mostly in range, some negative and some past the last bin (not counted)
    const v = Math.floor(r() * (c.bins + 12)) - (c.dt === 'u8' ? 0 : 5);
    x[i] = c.dt === 'i64' ? BigInt(v) + (i % 17 === 0 ? 1n << 40n : 0n) : v;
  }
  const want = new Int32Array(programs * c.bins);
  for (let i = 0; i < c.n; i++) {
    const v = Number(x[i]!);
    if (c.mask === 'values' && v % 3 === 0) continue;
    if (v >= 0 && v < c.bins) want[Math.floor(i / c.block) * c.bins + v]!++;
  }
  if (sanitize) {
    const out = new Int32Array(programs * c.bins);
    await histKernel(c).run({ x, out, N: c.n } as never, { grid: [programs], device: 'sim', numWarps: c.numWarps ?? 4, sanitize: [...SANITIZERS] });
    expectBitwise(out, want, `${c.name} under the sanitizers`);
    return;
  }
  const res = await runBoth(histKernel(c), { x, out: new Int32Array(programs * c.bins), N: c.n } as never, [programs], { numWarps: c.numWarps ?? 4 });
  for (const dev of ['interpret', 'sim'] as const) expectBitwise((res[dev] as unknown as { out: Int32Array }).out, want, `${c.name} on ${dev}`);
}

export const HIST_CASES: HistCase[] = [
  { name: 'i32 1000 values in 1024-blocks, 64 bins, bounds mask', dt: 'i32', block: 1024, bins: 64, n: 3000, mask: 'bounds' },
  { name: 'u8 256 bins (more bins than threads), no mask', dt: 'u8', block: 512, bins: 256, n: 1024, mask: 'none' },
  { name: 'i64 with a mask on the values, 16 bins', dt: 'i64', block: 128, bins: 16, n: 300, mask: 'values' },
  { name: 'i32 32 values over 4 warps (replicated: each counted once), 8 bins', dt: 'i32', block: 32, bins: 8, n: 70, mask: 'bounds' },
];

/** The suites of select_sm80 / select_sm90: every case on the interpreter and on the sim as `arch` (TESSERA_SIM_ARCH, set by the file). */
export function selectSuites(arch: 'sm_80' | 'sm_90'): void {
  describe(`max/min with returnIndices on the sim as ${arch} and the interpreter`, () => {
    for (const which of ['max', 'min'] as const) {
      for (const dt of ['f32', 'i32'] as const) {
        it(`${which} ${dt}, ties to the left`, () => checkMaxMin(which, dt, true));
        it(`${which} ${dt}, tieBreakLeft: false (any tied index)`, () => checkMaxMin(which, dt, false));
      }
    }
  });

  describe('sort and topk on the sim and the interpreter', () => {
    for (const c of SORT_CASES) it(c.name, () => checkSort(c));
  });

  describe('the shared-memory paths run clean under racecheck, synccheck and initcheck', () => {
    for (const c of SORT_CASES.filter((s) => s.k !== undefined || s.dim0)) it(c.name, () => checkSortSanitized(c));
    for (const c of GATHER_CASES.filter((g) => /shared memory/.test(g.name))) it(`gather: ${c.name}`, () => checkGather(c, true));
    for (const c of HIST_CASES) it(`histogram: ${c.name}`, () => checkHistogram(c, true));
  });

  describe('gather on the sim and the interpreter', () => {
    for (const c of GATHER_CASES) it(c.name, () => checkGather(c));
  });

  describe('histogram on the sim and the interpreter', () => {
    for (const c of HIST_CASES) it(c.name, () => checkHistogram(c));
  });
}
