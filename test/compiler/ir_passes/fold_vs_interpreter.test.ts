// Constant folding must compute exactly what the interpreter (the reference semantics) computes.
// For each op and dtype, one kernel stores op(const, const) for many operand pairs (edge values
// and random ones); it runs on the interpreter before and after canonicalize and the stored
// bytes must be equal. The test also checks that folding happened where it is expected to.
import { describe, expect, test } from 'vitest';
import { canonicalize } from '../../../src/compiler/canonicalize.js';
import type { BinaryFn, CmpPred, ConstValue, Func, UnaryFn, Value } from '../../../src/ir/ops.js';
import { DTYPES, isFloat, isMiniFloat, isInt, ptrOf, tile, type DType } from '../../../src/ir/types.js';
import { intRange, normalizeConst } from '../../../src/ir/numeric.js';
import { verify } from '../../../src/ir/verify.js';
import { arrayCtorFor } from '../../../src/ir/index.js';
import { HostMemory, interpret } from '../../../src/interpret/index.js';
import { TB } from '../../ir/build.js';

function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 2 ** 32;
  };
}

/** Edge values and random values of dtype `d`, in canonical constant form. */
function samples(d: DType, seed: number, n = 18): ConstValue[] {
  const r = xorshift(seed);
  if (d === 'bool') return [false, true];
  let vals: ConstValue[];
  if (isFloat(d)) {
    vals = [0, -0, 1, -1, 0.5, 3, -2.5, NaN, Infinity, -Infinity, 65504, 1e-5, 2049, 1 / 3];
    while (vals.length < n) vals.push((r() - 0.5) * 2 ** Math.floor(r() * 40 - 20));
  } else {
    const [lo, hi] = intRange(d);
    vals = [0n, 1n, 2n, 3n, 7n, lo, hi, hi - 1n, lo + 1n, 31n, 32n];
    if (lo < 0n) vals.push(-1n, -7n, -2n);
    while (vals.length < n) vals.push(lo + BigInt(Math.floor(r() * Number(hi - lo))));
  }
  return vals.map((v) => normalizeConst(d, v));
}

interface Case { readonly resultType: DType; readonly build: (t: TB) => Value }

/** One kernel storing every case's result to out[i]; all results share one dtype. */
function kernel(resultType: DType, cases: Case[]): Func {
  const t = new TB();
  return t.func('fold', [{ name: 'out', type: ptrOf(resultType) }], ([out]) => {
    cases.forEach((c, i) => t.store(t.addptr(out!, t.const(i, 'i32')), c.build(t)));
  });
}

function runBytes(f: Func, d: DType, n: number): Uint8Array {
  const mem = new HostMemory();
  const Ctor = arrayCtorFor(d);
  const buf = new Ctor(n);
  const addr = mem.upload(buf);
  interpret(f, [addr], mem, { grid: [1], onPrint: () => {} });
  mem.download(addr, buf);
  canonicalNaNs(d, buf);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** NaN sign and payload are not semantic (JS and GPUs produce different ones): rewrite every NaN to one pattern. */
function canonicalNaNs(d: DType, buf: ArrayLike<unknown> & { [i: number]: unknown }): void {
  for (let i = 0; i < buf.length; i++) {
    const v = buf[i];
    if (d === 'f32' || d === 'f64') {
      if (Number.isNaN(v)) buf[i] = NaN;
    } else if (d === 'f16' || d === 'bf16') {
      const h = v as number;
      const [expMask, fracMask, nan] = d === 'f16' ? [0x7c00, 0x3ff, 0x7e00] : [0x7f80, 0x7f, 0x7fc0];
      if ((h & expMask) === expMask && (h & fracMask) !== 0) buf[i] = nan;
    } else if (d === 'f8e4m3' || d === 'f8e5m2') {
      const b = v as number;
      if (d === 'f8e4m3' ? (b & 0x7f) === 0x7f : (b & 0x7c) === 0x7c && (b & 3) !== 0) buf[i] = 0x7f;
    }
  }
}

/** Runs before/after canonicalize; returns how many ops were left that are not store/addptr/const. */
function check(resultType: DType, cases: Case[]): number {
  const f = kernel(resultType, cases);
  verify(f);
  const g = canonicalize(f);
  verify(g);
  expect(runBytes(g, resultType, cases.length)).toEqual(runBytes(f, resultType, cases.length));
  return g.body.ops.filter((op) => !['store', 'addptr', 'const', 'return'].includes(op.kind)).length;
}

// fp8 is a storage type: no arithmetic, and casts only to and from f32/f16/bf16/fp8 (the verifier's rule).
const NUMERIC = DTYPES.filter((d) => d !== 'bool' && !isMiniFloat(d));
const FP8_PEERS: readonly DType[] = ['f32', 'f16', 'bf16', 'f8e4m3', 'f8e5m2', 'f8e8m0', 'f4e2m1'];
const castable = (from: DType, to: DType): boolean => !(isMiniFloat(from) || isMiniFloat(to)) || (FP8_PEERS.includes(from) && FP8_PEERS.includes(to));
const INT_BINARY: BinaryFn[] = ['add', 'sub', 'mul', 'div', 'floordiv', 'rem', 'and', 'or', 'xor', 'shl', 'shr', 'min', 'max'];
const FLOAT_BINARY: BinaryFn[] = ['add', 'sub', 'mul', 'div', 'rem', 'min', 'max'];

function pairs(d: DType, seed: number): [ConstValue, ConstValue][] {
  const a = samples(d, seed), b = samples(d, seed + 1);
  const out: [ConstValue, ConstValue][] = [];
  for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j += 4) out.push([a[i]!, b[(i + j) % b.length]!]);
  return out;
}

describe('constant folding agrees with the interpreter', () => {
  for (const d of NUMERIC) {
    const fns = isInt(d) ? INT_BINARY : FLOAT_BINARY;
    test(`binary ops on ${d}`, () => {
      for (const fn of fns) {
        for (const precise of isFloat(d) && fn === 'div' ? [false, true] : [false]) {
          const ps = pairs(d, 10 + fns.indexOf(fn));
          const left = check(d, ps.map(([a, b]) => ({ resultType: d, build: (t) => t.bin(fn, t.const(a, d), t.const(b, d), precise) })));
          // Everything folds except division by zero and out-of-range shifts (ints), approximate
          // division (floats).
          if (fn === 'add' || fn === 'mul' || fn === 'min') expect(left).toBe(0);
          if (isFloat(d) && fn === 'div' && !precise && d !== 'f64') expect(left).toBe(ps.length);
        }
      }
    });

    test(`unary ops and comparisons on ${d}`, () => {
      const vs = samples(d, 20);
      const fns: UnaryFn[] = isInt(d) ? ['neg', 'not', 'abs'] : ['neg', 'abs', 'floor', 'ceil'];
      for (const fn of fns) expect(check(d, vs.map((v) => ({ resultType: d, build: (t) => t.unary(fn, t.const(v, d)) })))).toBe(0);
      if (isFloat(d)) check(d, vs.filter((v) => (v as number) >= 0).map((v) => ({ resultType: d, build: (t) => t.unary('sqrt', t.const(v, d), true) })));
      const preds: CmpPred[] = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
      for (const pred of preds) {
        expect(check('bool', pairs(d, 30).map(([a, b]) => ({ resultType: 'bool', build: (t) => t.cmp(pred, t.const(a, d), t.const(b, d)) })))).toBe(0);
      }
    });

  }
  for (const d of ['i32', 'u32', 'i64'] as DType[]) {
    test(`umulhi on ${d} (unsigned high half) folds as the interpreter computes it`, () => {
      expect(check(d, pairs(d, 50).map(([a, b]) => ({ resultType: d, build: (t) => t.bin('umulhi', t.const(a, d), t.const(b, d)) })))).toBe(0);
    });
  }
  for (const d of [...NUMERIC, 'f8e4m3', 'f8e5m2', 'f8e8m0', 'f4e2m1'] as DType[]) {
    test(`casts from ${d}`, () => {
      const vs = samples(d, 40);
      for (const to of DTYPES.filter((t) => castable(d, t))) {
        const cases = vs.map((v) => ({ resultType: to, build: (t: TB) => t.cast(t.const(v, d), to) }));
        // Float -> int casts of NaN/inf/out-of-range values are not folded; keep those out of the
        // comparison (the interpreter's choice there is not a semantic the compiler relies on).
        const foldable = isFloat(d) && isInt(to)
          ? cases.filter((_, i) => {
            const x = vs[i] as number;
            const [lo, hi] = intRange(to);
            return Number.isFinite(x) && BigInt(Math.trunc(x)) >= lo && BigInt(Math.trunc(x)) <= hi;
          })
          : cases;
        // i64 values beyond 2^53 are not folded into narrow floats (two roundings could differ).
        const big = d === 'i64' && (to === 'f32' || to === 'f16' || to === 'bf16')
          ? vs.filter((v) => (v as bigint) > 2n ** 53n || (v as bigint) < -(2n ** 53n)).length
          : 0;
        expect(check(to, foldable)).toBe(big);
      }
    });
  }

  test('bool ops and select', () => {
    const b = [false, true];
    const cases: Case[] = [];
    for (const x of b) for (const y of b) for (const fn of ['and', 'or', 'xor'] as BinaryFn[]) {
      cases.push({ resultType: 'bool', build: (t) => t.bin(fn, t.const(x, 'bool'), t.const(y, 'bool')) });
    }
    for (const x of b) cases.push({ resultType: 'bool', build: (t) => t.unary('not', t.const(x, 'bool')) });
    expect(check('bool', cases)).toBe(0);
    const sel = b.map((c) => ({ resultType: 'f32' as DType, build: (t: TB) => t.select(t.const(c, 'bool'), t.const(1.5, 'f32'), t.const(-2, 'f32')) }));
    expect(check('f32', sel)).toBe(0);
    // A tile condition: splat of a constant folds too.
    const t2: Case = { resultType: 'f32', build: (t) => {
      const c = t.splat(t.const(true, 'bool'), [4]);
      const v = t.select(c, t.const(1, 'f32', [4]), t.const(2, 'f32', [4]));
      return t.b.op('reduce', [v], [tile('f32')], { axis: 0, kind: 'sum' }, [
        t.b.region([tile('f32'), tile('f32')], ([x, y]) => void t.b.op('yield', [t.bin('add', x!, y!)], [], {})),
      ]).results[0]!;
    } };
    check('f32', [t2]);
  });
});
