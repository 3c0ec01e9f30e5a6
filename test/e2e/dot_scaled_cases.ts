// dotScaled kernels and their plain-JS reference (test/e2e/dot_scaled*.test.ts): one program
// computes c[M, N] = acc + (a scaled) · (b scaled) over a [BM, BN] tile, K in steps of BK, with
// masked loads for ragged M, N, K. The reference decodes with src/ir's MX helpers, scales in f32
// and sums in k order in f64, checking that every partial sum is exact in f32 (then the f32 dot on
// any device, in any order, gives exactly that sum).
import { arange, dotScaled, forLoop, load, ptr, store, zeros, type Tile } from '../../src/lang/index.js';
import type { ScaledFormat } from '../../src/lang/dot_scaled.js';
import { kernel, type Kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../../src/ir/half.js';
import { f8e4m3Value, f8e5m2Value } from '../../src/ir/fp8.js';
import { e8m0Value, mxValue, packE2M1, ue4m3Value } from '../../src/ir/mx.js';
import { lcg } from './helpers.js';

export const FORMATS: readonly ScaledFormat[] = ['e4m3', 'e5m2', 'e2m3', 'e3m2', 'e2m1', 'bf16', 'fp16'];
export type ScaleKind = 'e8m0' | 'ue4m3' | 'none';

export interface Case {
  readonly fa: ScaledFormat;
  readonly fb: ScaledFormat;
  readonly M: number; readonly N: number; readonly K: number;
  readonly BM: number; readonly BN: number; readonly BK: number;
  readonly acc?: boolean;
  /** nvfp4 (ue4m3 scales per 16) for e2m1 operands */
  readonly nvfp4?: boolean;
  /** the MX dtypes: e2m1 operands as f4e2m1 tiles (one code per byte, unpacked), e8m0 scales as f8e8m0 */
  readonly mxDtypes?: boolean;
}

const hasScale = (f: ScaledFormat) => f !== 'bf16' && f !== 'fp16';
export const scaleKind = (c: Case, f: ScaledFormat): ScaleKind => (!hasScale(f) ? 'none' : c.nvfp4 && f === 'e2m1' ? 'ue4m3' : 'e8m0');
const group = (k: ScaleKind) => (k === 'ue4m3' ? 16 : 32);
const ptrDtype = (c: Case, f: ScaledFormat) => (f === 'e4m3' ? 'f8e4m3' : f === 'e5m2' ? 'f8e5m2' : f === 'bf16' ? 'bf16' : f === 'fp16' ? 'f16' : f === 'e2m1' && c.mxDtypes ? 'f4e2m1' : 'u8');
const scaleDtype = (c: Case, k: ScaleKind) => (k === 'ue4m3' ? 'f8e4m3' : c.mxDtypes ? 'f8e8m0' : 'u8');
const packed = (c: Case, f: ScaledFormat) => (f === 'e2m1' && !c.mxDtypes ? 2 : 1);

/** The value of one (unpacked) element code of format f. */
export function elemValue(f: ScaledFormat, code: number): number {
  switch (f) {
    case 'e4m3': return f8e4m3Value(code);
    case 'e5m2': return f8e5m2Value(code);
    case 'bf16': return bf16Value(code);
    case 'fp16': return f16Value(code);
    default: return mxValue(f, code);
  }
}
const scaleValue = (k: ScaleKind, code: number) => (k === 'ue4m3' ? ue4m3Value(code) : e8m0Value(code));

/** All codes of format f whose values lie in [lo, hi) in magnitude (and zero). */
function codesIn(f: ScaledFormat, lo: number, hi: number): number[] {
  const out: number[] = [];
  const n = f === 'bf16' || f === 'fp16' ? 65536 : f === 'e2m1' ? 16 : f === 'e2m3' || f === 'e3m2' ? 64 : 256;
  for (let c = 0; c < n; c++) {
    const v = Math.abs(elemValue(f, c));
    // bf16/fp16: only values with at most 4 fraction bits (like the 8-bit formats), so sums stay exact
    const few = (f !== 'bf16' && f !== 'fp16') || Number.isInteger(v * 16);
    if (v === 0 || (v >= lo && v < hi && few)) out.push(c);
  }
  if (out.length < 2) throw new Error(`no ${f} values in [${lo}, ${hi})`);
  return out;
}

export interface Data {
  /** element codes, unpacked, a [M, K] and b [K, N] row-major */
  readonly aCodes: number[]; readonly bCodes: number[];
  /** scale codes, a [M, K/g], b [N, K/g] */
  readonly aScale: number[]; readonly bScale: number[];
  readonly acc: Float32Array;
}

export interface DataOptions {
  /** element magnitudes drawn from [lo, hi) (default [0.5, 4): partial sums stay exact) */
  readonly lo?: number; readonly hi?: number;
  /** a's range alone (default lo/hi) */
  readonly aLo?: number; readonly aHi?: number;
  /** scale codes drawn from these (default e8m0 126..128, ue4m3 codes of 0.5..2) */
  readonly aScales?: readonly number[]; readonly bScales?: readonly number[];
}

export function makeData(c: Case, seed: number, o: DataOptions = {}): Data {
  const r = lcg(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const ca = codesIn(c.fa, o.aLo ?? o.lo ?? 0.5, o.aHi ?? o.hi ?? 4), cb = codesIn(c.fb, o.lo ?? 0.5, o.hi ?? 4);
  const scales = (k: ScaleKind) => (k === 'ue4m3' ? [0x30, 0x34, 0x38, 0x3c, 0x40] : [126, 127, 128]);
  const ka = scaleKind(c, c.fa), kb = scaleKind(c, c.fb);
  return {
    aCodes: Array.from({ length: c.M * c.K }, () => pick(ca)),
    bCodes: Array.from({ length: c.K * c.N }, () => pick(cb)),
    aScale: ka === 'none' ? [] : Array.from({ length: c.M * (c.K / group(ka)) }, () => pick(o.aScales ?? scales(ka))),
    bScale: kb === 'none' ? [] : Array.from({ length: c.N * (c.K / group(kb)) }, () => pick(o.bScales ?? scales(kb))),
    acc: Float32Array.from({ length: c.M * c.N }, () => (c.acc ? Math.floor(r() * 16 - 8) / 4 : 0)),
  };
}

/** f32 scaled values, a [M, K] and b [K, N]. */
function scaled(c: Case, d: Data): { a: Float32Array; b: Float32Array } {
  const ka = scaleKind(c, c.fa), kb = scaleKind(c, c.fb);
  const a = new Float32Array(c.M * c.K), b = new Float32Array(c.K * c.N);
  for (let m = 0; m < c.M; m++) for (let k = 0; k < c.K; k++) {
    const s = ka === 'none' ? 1 : scaleValue(ka, d.aScale[m * (c.K / group(ka)) + Math.floor(k / group(ka))]!);
    a[m * c.K + k] = elemValue(c.fa, d.aCodes[m * c.K + k]!) * s;
  }
  for (let k = 0; k < c.K; k++) for (let n = 0; n < c.N; n++) {
    const s = kb === 'none' ? 1 : scaleValue(kb, d.bScale[n * (c.K / group(kb)) + Math.floor(k / group(kb))]!);
    b[k * c.N + n] = elemValue(c.fb, d.bCodes[k * c.N + n]!) * s;
  }
  return { a, b };
}

/**
 * acc + a·b in k order. `exact`: whether every partial sum was an f32 value (then every device
 * must give exactly `c`, bit for bit).
 */
export function reference(c: Case, d: Data): { c: Float32Array; exact: boolean } {
  const { a, b } = scaled(c, d);
  const out = new Float32Array(c.M * c.N);
  let exact = true;
  for (let m = 0; m < c.M; m++) for (let n = 0; n < c.N; n++) {
    let s = d.acc[m * c.N + n]!;
    for (let k = 0; k < c.K; k++) {
      s += a[m * c.K + k]! * b[k * c.N + n]!;
      if (Number.isFinite(s) && Math.fround(s) !== s) exact = false;
    }
    out[m * c.N + n] = s;
  }
  return { c: out, exact };
}

/** Device arrays: operands in their storage form (e2m1 packed along K, low nibble first). */
export function deviceArgs(c: Case, d: Data): RunArgs {
  const store = (f: ScaledFormat, codes: number[]) => (f === 'bf16' || f === 'fp16' ? Uint16Array.from(codes) : Uint8Array.from(codes));
  let a: Uint8Array | Uint16Array = store(c.fa, d.aCodes), b: Uint8Array | Uint16Array = store(c.fb, d.bCodes);
  if (c.fa === 'e2m1' && !c.mxDtypes) a = packE2M1(d.aCodes); // rows of K: consecutive k pairs share a byte
  if (c.fb === 'e2m1' && !c.mxDtypes) {
    // b [K, N] packed along K: byte (k/2, n) holds rows 2i (low) and 2i+1 (high)
    const bytes = new Uint8Array((c.K / 2) * c.N);
    for (let k = 0; k < c.K; k++) for (let n = 0; n < c.N; n++) bytes[(k >> 1) * c.N + n]! |= (d.bCodes[k * c.N + n]! & 0xf) << (4 * (k & 1));
    b = bytes;
  }
  return { a, b, as: Uint8Array.from(d.aScale.length ? d.aScale : [0]), bs: Uint8Array.from(d.bScale.length ? d.bScale : [0]), c: d.acc.slice() };
}

export { bf16Bits, f16Bits };

/** The kernel of a case: one program, masked loads of the [BM, BK] / [BK, BN] tiles and scales. */
export function scaledKernel(c: Case, name: string): Kernel {
  const ka = scaleKind(c, c.fa), kb = scaleKind(c, c.fb);
  const pa = packed(c, c.fa), pb = packed(c, c.fb);
  return kernel(
    { name, params: { a: ptr(ptrDtype(c, c.fa)), b: ptr(ptrDtype(c, c.fb)), as: ptr(scaleDtype(c, ka)), bs: ptr(scaleDtype(c, kb)), c: ptr('f32') } },
    ({ a, b, as, bs, c: cp }) => {
      const rm = arange(0, c.BM).expandDims(1), rn = arange(0, c.BN).expandDims(0);
      const cMask = rm.lt(c.M).and(rn.lt(c.N));
      const acc0: Tile = c.acc ? load(cp.add(rm.mul(c.N).add(rn)), { mask: cMask, other: 0 }) : zeros([c.BM, c.BN], 'f32');
      const [acc] = forLoop(0, Math.ceil(c.K / c.BK), 1, [acc0], (it, acc) => {
        const k0 = it.mul(c.BK);
        // a [BM, BK/pa] at columns k0/pa
        const ac = arange(0, c.BK / pa).expandDims(0).add(it.mul(c.BK / pa));
        const ta = load(a.add(rm.mul(c.K / pa).add(ac)), { mask: rm.lt(c.M).and(ac.lt(c.K / pa)), other: 0 });
        const br = arange(0, c.BK / pb).expandDims(1).add(it.mul(c.BK / pb));
        const tb = load(b.add(br.mul(c.N).add(rn)), { mask: br.lt(c.K / pb).and(rn.lt(c.N)), other: 0 });
        const scaleTile = (p: typeof as, k: ScaleKind, rows: Tile, R: number) => {
          if (k === 'none') return null;
          const g = group(k), sc = arange(0, c.BK / g).expandDims(0).add(k0.floordiv(g));
          return load(p.add(rows.mul(c.K / g).add(sc)), { mask: rows.lt(R).and(sc.lt(c.K / g)), other: 127 });
        };
        const sa = scaleTile(as, ka, rm, c.M);
        const sb = scaleTile(bs, kb, arange(0, c.BN).expandDims(1), c.N);
        return [dotScaled(ta, sa, c.fa, tb, sb, c.fb, { acc: acc! })];
      });
      store(cp.add(rm.mul(c.N).add(rn)), acc!, { mask: cMask });
    },
  );
}
