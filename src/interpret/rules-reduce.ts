// reduce, scan and dot. Reduce and scan call their combine region; when the region holds only
// lane-wise ops it runs once over all lanes of a step instead of once per element (same results,
// since each lane is computed independently). The combination order is part of the semantics:
//   reduce (axis length n, a power of two): halving tree. While n > 1: h = n/2 and
//     v[i] = combine(v[i], v[i + h]) for i < h.  Other lengths: left fold combine(combine(x0, x1), x2)...
//   scan: sequential, out[0] = x[0], out[k] = combine(out[k-1], x[k]); reverse walks from the end.
//   dot: for each (m, n), acc = fma(a[m,k], b[k,n], acc) for k = 0..K-1, rounded to the acc dtype each step
//   (f32 inputs with inputPrecision 'tf32': a and b rounded to tf32 first, ties away from zero).
import type { Op } from '../ir/ops.js';
import { isFloat, isPow2, numel, type DType, type ElemType } from '../ir/types.js';
import { bf16Bits, bf16Value, f16Bits, f16Value } from '../ir/half.js';
import { bitsOf, gather, newArray, splatTo, type Lanes } from './arrays.js';
import type { CompiledBlock, Rule, RunCtx } from './context.js';
import { unsupported } from './errors.js';
import { addRoundToOdd, fmaF64 } from './float.js';
import type { ElemArray } from '../ir/dtype_arrays.js';
import { floatDecoder } from './scalar.js';
import { roundTF32 } from '../ir/numeric.js';

/** Runs a combine region over `lanes` lanes; `types` are the result element types. */
function callRegion(cb: CompiledBlock, cx: RunCtx, args: ElemArray[], lanes: number, types: ElemType[]): ElemArray[] {
  if (cb.lanewise) return cb.run(cx, args).map((r) => splatTo(r, lanes));
  const outs = types.map((t) => newArray(t, lanes));
  const outBits: Lanes[] = outs.map(bitsOf);
  for (let l = 0; l < lanes; l++) {
    const res = cb.run(cx, args.map((a) => a.subarray(l, l + 1) as ElemArray));
    res.forEach((r, j) => { outBits[j]![l] = (bitsOf(r) as Lanes)[0]; });
  }
  return outs;
}

/** Splits `shape` around `axis` into [outer, n, inner]. */
function around(shape: readonly number[], axis: number): [number, number, number] {
  return [numel(shape.slice(0, axis)), shape[axis]!, numel(shape.slice(axis + 1))];
}

/** Lanes [outer, k0..k0+h, inner] of an [outer, n, inner] array, as a contiguous array. */
function slab(t: ElemType, x: ElemArray, outer: number, n: number, inner: number, k0: number, h: number): ElemArray {
  return gather(t, x, outer * h * inner, (i) => {
    const o = Math.floor(i / (h * inner));
    const r = i - o * h * inner;
    return (o * n + k0) * inner + r;
  });
}

/** What reduce and scan share: the axis checked, the combine region compiled, the shape split. */
function combineSetup(op: Op<'reduce'> | Op<'scan'>, c: Parameters<Rule<'reduce'>>[1]) {
  const { axis } = op.attrs;
  const shape = op.operands[0]!.type.shape;
  if (!Number.isInteger(axis) || axis < 0 || axis >= shape.length) {
    throw unsupported(c.kernel, op, `axis ${axis} is out of range for rank ${shape.length}`);
  }
  const region = op.regions[0];
  if (!region) throw unsupported(c.kernel, op, 'missing combine region');
  const [outer, n, inner] = around(shape, axis);
  return {
    shape, outer, n, inner,
    cb: c.compileBlock(region),
    ins: op.operands.map((v) => v.id),
    types: op.operands.map((v) => v.type.elem),
    outIds: op.results.map((v) => v.id),
  };
}

export const reduceRule: Rule<'reduce'> = (op, c) => {
  const { outer, n, inner, cb, ins, types, outIds } = combineSetup(op, c);
  return (cx) => {
    let cur = ins.map((id) => cx.env[id]!);
    if (isPow2(n)) {
      for (let len = n; len > 1; len >>= 1) {
        const h = len >> 1;
        const lo = cur.map((x, j) => slab(types[j]!, x, outer, len, inner, 0, h));
        const hi = cur.map((x, j) => slab(types[j]!, x, outer, len, inner, h, h));
        cur = callRegion(cb, cx, [...lo, ...hi], outer * h * inner, types);
      }
    } else {
      let acc = cur.map((x, j) => slab(types[j]!, x, outer, n, inner, 0, 1));
      for (let k = 1; k < n; k++) {
        const xs = cur.map((x, j) => slab(types[j]!, x, outer, n, inner, k, 1));
        acc = callRegion(cb, cx, [...acc, ...xs], outer * inner, types);
      }
      cur = acc;
    }
    outIds.forEach((id, j) => { cx.env[id] = cur[j]!; });
  };
};

export const scanRule: Rule<'scan'> = (op, c) => {
  const { reverse } = op.attrs;
  const { shape, outer, n, inner, cb, ins, types, outIds } = combineSetup(op, c);
  const total = numel(shape);
  return (cx) => {
    const xs = ins.map((id) => cx.env[id]!);
    const outs = types.map((t) => newArray(t, total));
    const outBits: Lanes[] = outs.map(bitsOf);
    const put = (k: number, vals: ElemArray[]) => {
      vals.forEach((v, j) => {
        const b: Lanes = bitsOf(v);
        for (let o = 0; o < outer; o++) {
          for (let i = 0; i < inner; i++) outBits[j]![(o * n + k) * inner + i] = b[o * inner + i];
        }
      });
    };
    const first = reverse ? n - 1 : 0;
    const dir = reverse ? -1 : 1;
    let acc = xs.map((x, j) => slab(types[j]!, x, outer, n, inner, first, 1));
    put(first, acc);
    for (let s = 1; s < n; s++) {
      const k = first + dir * s;
      const cur = xs.map((x, j) => slab(types[j]!, x, outer, n, inner, k, 1));
      acc = callRegion(cb, cx, [...acc, ...cur], outer * inner, types);
      put(k, acc);
    }
    outIds.forEach((id, j) => { cx.env[id] = outs[j]!; });
  };
};

/** acc := a*b + acc rounded once to the accumulator dtype (on decoded JS numbers). */
function dotStep(acc: DType, inputs: DType): ((a: number, b: number, c: number) => number) | undefined {
  switch (acc) {
    case 'f64': return fmaF64;
    // f32/f16/bf16 inputs: a*b is exact in double; round-to-odd then one rounding to the acc dtype.
    case 'f32': return inputs === 'f64' ? (a, b, c) => Math.fround(fmaF64(a, b, c)) : (a, b, c) => Math.fround(addRoundToOdd(a * b, c));
    case 'f16': return (a, b, c) => f16Value(f16Bits(addRoundToOdd(a * b, c)));
    case 'bf16': return (a, b, c) => bf16Value(bf16Bits(addRoundToOdd(a * b, c)));
    case 'i32': case 'u32': case 'i16': case 'i8': case 'u8': return (a, b, c) => (c + Math.imul(a, b)) | 0;
    default: return undefined;
  }
}

export const dotRule: Rule<'dot'> = (op, c) => {
  const [a, b, acc] = op.operands as [typeof op.operands[0], typeof op.operands[0], typeof op.operands[0]];
  const rank = a?.type.shape.length;
  if (!a || !b || !acc || (rank !== 2 && rank !== 3) || b.type.shape.length !== rank) {
    throw unsupported(c.kernel, op, 'dot needs a [M,K], b [K,N] and acc [M,N] (or [B,M,K], [B,K,N], [B,M,N])');
  }
  // a batched dot is BT independent products, stored one after another (row-major [B, ...])
  const BT = rank === 3 ? a.type.shape[0]! : 1;
  const [M, K] = a.type.shape.slice(-2) as [number, number];
  const [K2, N] = b.type.shape.slice(-2) as [number, number];
  if (K !== K2 || acc.type.shape[rank - 2] !== M || acc.type.shape[rank - 1] !== N || (rank === 3 && (b.type.shape[0] !== BT || acc.type.shape[0] !== BT))) {
    throw unsupported(c.kernel, op, `shape mismatch: [${a.type.shape.join(', ')}] x [${b.type.shape.join(', ')}] + [${acc.type.shape.join(', ')}]`);
  }
  const outT = op.results[0]!.type.elem as DType;
  const inT = a.type.elem as DType;
  const id = op.results[0]!.id;
  if (outT === 'i64') {
    return (cx) => {
      const A = toBig(cx.env[a.id]!), B = toBig(cx.env[b.id]!);
      const out = BigInt64Array.from(toBig(cx.env[acc.id]!));
      for (let q = 0; q < BT; q++) {
        const oa = q * M * K, ob = q * K * N, oc = q * M * N;
        for (let m = 0; m < M; m++) {
          for (let n = 0; n < N; n++) {
            let s = out[oc + m * N + n]!;
            for (let k = 0; k < K; k++) s = BigInt.asIntN(64, s + A[oa + m * K + k]! * B[ob + k * N + n]!);
            out[oc + m * N + n] = s;
          }
        }
      }
      cx.env[id] = out;
    };
  }
  const step = dotStep(outT, inT);
  if (!step || isFloat(inT) !== isFloat(outT)) throw unsupported(c.kernel, op, `dot of ${inT} into ${outT} is not supported`);
  // 64-bit integer inputs into a 32-bit (or narrower) accumulator: the products' low 32 bits
  // depend only on the inputs' low 32 bits, taken exactly (a Number of a large i64 is not)
  const low32 = (t: DType): ((x: ElemArray) => Float64Array) | undefined =>
    t === 'i64' ? (x) => Float64Array.from(toBig(x), (v) => Number(BigInt.asIntN(32, v))) : undefined;
  const decA = low32(inT) ?? decoder(inT), decB = low32(b.type.elem as DType) ?? decoder(b.type.elem as DType), decC = decoder(outT);
  // inputPrecision 'tf32' (f32 inputs): every input element is rounded to tf32 first
  const tf32 = inT === 'f32' && op.attrs.inputPrecision === 'tf32';
  const rnd = (x: Float64Array): Float64Array => (tf32 ? x.map(roundTF32) : x);
  return (cx) => {
    const A = rnd(decA(cx.env[a.id]!)), B = rnd(decB(cx.env[b.id]!)), C = decC(cx.env[acc.id]!);
    const res = new Float64Array(BT * M * N);
    for (let q = 0; q < BT; q++) {
      const oa = q * M * K, ob = q * K * N, oc = q * M * N;
      for (let m = 0; m < M; m++) {
        for (let n = 0; n < N; n++) {
          let s = C[oc + m * N + n]!;
          for (let k = 0; k < K; k++) s = step(A[oa + m * K + k]!, B[ob + k * N + n]!, s);
          res[oc + m * N + n] = s;
        }
      }
    }
    const out: Lanes = newArray(outT, BT * M * N);
    const enc = outT === 'f16' ? f16Bits : outT === 'bf16' ? bf16Bits : undefined;
    for (let i = 0; i < res.length; i++) out[i] = enc ? enc(res[i]!) : res[i];
    cx.env[id] = out as ElemArray;
  };
};

/** Lanes as exact JS numbers (f16/bf16 decoded). */
function decoder(t: DType): (x: ElemArray) => Float64Array {
  const dec = floatDecoder(t);
  return (x) => {
    const out = new Float64Array(x.length);
    const l: Lanes = x;
    for (let i = 0; i < x.length; i++) out[i] = dec ? dec(l[i]) : Number(l[i]);
    return out;
  };
}

function toBig(x: ElemArray): BigInt64Array {
  if (x instanceof BigInt64Array) return x;
  const out = new BigInt64Array(x.length);
  const l: Lanes = x;
  for (let i = 0; i < x.length; i++) out[i] = BigInt(l[i]);
  return out;
}
