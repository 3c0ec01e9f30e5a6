// umulhi, truncDiv and truncRem (Triton's umulhi and its integer // and %) on the interpreter and
// on the sim compiled for sm_80 and sm_90a, against plain-JS (BigInt) references: C division
// truncates toward zero, the remainder has the dividend's sign, x / 0 = -1 and x % 0 = x
// (docs/semantics.md); umulhi is the high half of the unsigned product of the bit patterns.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, floordiv, load, ptr, store, truncDiv, truncRem, umulhi } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import type { DType } from '../../src/ir/types.js';
import { expectBitwise, lcg, simDevice } from './helpers.js';
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';
import { compile } from '../../src/compile/compile.js';
import { count } from '../codegen/gate.js';

const N = 64;
type IntT = 'i32' | 'u32' | 'i64';

const ops = (t: IntT) => kernel(
  { name: `intops_${t}`, params: { x: ptr(t), y: ptr(t), q: ptr(t), r: ptr(t), h: ptr(t), BLOCK: constexpr() } },
  ({ x, y, q, r, h, BLOCK }) => {
    const i = arange(0, BLOCK as number);
    const a = load(x.add(i)), b = load(y.add(i));
    store(q.add(i), truncDiv(a, b));
    store(r.add(i), truncRem(a, b));
    store(h.add(i), umulhi(a, b));
  },
);

const BITS: Record<IntT, number> = { i32: 32, u32: 32, i64: 64 };
const wrap = (t: IntT, v: bigint): bigint => (t === 'u32' ? BigInt.asUintN(32, v) : BigInt.asIntN(BITS[t], v));
const unsigned = (t: IntT, v: bigint): bigint => BigInt.asUintN(BITS[t], v);
const refDiv = (t: IntT, a: bigint, b: bigint): bigint => (b === 0n ? wrap(t, -1n) : wrap(t, a / b)); // BigInt `/` truncates
const refRem = (t: IntT, a: bigint, b: bigint): bigint => (b === 0n ? a : wrap(t, a % b));
const refHi = (t: IntT, a: bigint, b: bigint): bigint => wrap(t, (unsigned(t, a) * unsigned(t, b)) >> BigInt(BITS[t]));

/** Edge pairs first (signs mixed, MIN / -1, zero divisors, exact quotients), then random ones. */
function inputs(t: IntT): [bigint[], bigint[]] {
  const max = t === 'u32' ? 2n ** 32n - 1n : 2n ** BigInt(BITS[t] - 1) - 1n;
  const min = t === 'u32' ? 0n : -max - 1n;
  const edges: [bigint, bigint][] = t === 'u32'
    ? [[7n, 2n], [7n, 0n], [max, 2n], [max, max], [0n, 5n], [max, 1n], [2n ** 31n, 3n], [12n, 4n]]
    : [[7n, 2n], [-7n, 2n], [7n, -2n], [-7n, -2n], [-1n, 3n], [5n, 0n], [-5n, 0n], [min, -1n], [min, 1n], [max, -1n],
      [min, min], [max, max], [-8n, 4n], [-1n, -1n], [min, 2n], [-12n, 5n]];
  const r = lcg(BITS[t] + (t === 'u32' ? 1 : 0));
  const rnd = (): bigint => {
    const hi = BigInt(Math.floor(r() * 2 ** 32)), lo = BigInt(Math.floor(r() * 2 ** 32));
    const v = wrap(t, (hi << 32n) | lo);
    return r() < 0.3 ? wrap(t, v >> BigInt(Math.floor(r() * BITS[t]))) : v; // small magnitudes too
  };
  const xs = edges.map((e) => e[0]), ys = edges.map((e) => e[1]);
  while (xs.length < N) { xs.push(rnd()); ys.push(rnd()); }
  return [xs, ys];
}

const arr = (t: IntT, vs: bigint[]) => (t === 'i64' ? BigInt64Array.from(vs) : t === 'u32' ? Uint32Array.from(vs.map(Number)) : Int32Array.from(vs.map(Number)));
const big = (a: unknown): bigint[] => Array.from(a as ArrayLike<number | bigint>, (v) => BigInt(v));

it('the sim pretends to be an sm_90 (both sm_80 and sm_90a code run on it)', () => {
  expect(simDevice().target).toBe('sm_90a');
});

describe.each(['i32', 'u32', 'i64'] as IntT[])('%s', (t) => {
  it('truncDiv, truncRem and umulhi equal the BigInt references on the interpreter, sm_80 and sm_90a', async () => {
    const [xs, ys] = inputs(t);
    const out = await runEverywhere(ops(t), { x: arr(t, xs), y: arr(t, ys), q: arr(t, xs.map(() => 0n)), r: arr(t, xs.map(() => 0n)), h: arr(t, xs.map(() => 0n)), BLOCK: N }, 1);
    const want = {
      q: arr(t, xs.map((a, i) => refDiv(t, a, ys[i]!))),
      r: arr(t, xs.map((a, i) => refRem(t, a, ys[i]!))),
      h: arr(t, xs.map((a, i) => refHi(t, a, ys[i]!))),
    };
    for (const where of ['interpret', ...SIM_TARGETS] as const) {
      for (const k of ['q', 'r', 'h'] as const) expectBitwise(out[where][k] as ArrayBufferView, want[k], `${t} ${k} on ${where}`);
    }
    // the identity that defines C division, where it does not overflow
    const q = big(out.sm_80.q), r = big(out.sm_80.r);
    xs.forEach((a, i) => { if (ys[i] !== 0n) expect(wrap(t, q[i]! * ys[i]! + r[i]!), `${a} vs ${ys[i]}`).toBe(a); });
  });
});

describe('literals and mixed signs', () => {
  const k = kernel(
    { name: 'intops_lit', params: { x: ptr('i32'), q: ptr('i32'), f: ptr('i32'), r: ptr('i32'), h: ptr('i32'), BLOCK: constexpr() } },
    ({ x, q, f, r, h, BLOCK }) => {
      const i = arange(0, BLOCK as number);
      const a = load(x.add(i));
      store(q.add(i), truncDiv(a, -3));
      store(f.add(i), floordiv(a, -3));
      store(r.add(i), truncRem(a, -3));
      store(h.add(i), umulhi(a, -0x61c88647)); // the bits of 0x9e3779b9 as an i32 literal
    },
  );
  it('truncDiv(x, -3) and floordiv(x, -3) differ exactly where the remainder is nonzero; umulhi multiplies the bit patterns unsigned', async () => {
    const xs = Int32Array.from({ length: N }, (_, i) => (i - 32) * 7 + (i % 3));
    const z = () => new Int32Array(N);
    const out = await runEverywhere(k, { x: xs, q: z(), f: z(), r: z(), h: z(), BLOCK: N }, 1);
    for (const where of ['interpret', ...SIM_TARGETS] as const) {
      const o = out[where] as Record<string, Int32Array>;
      xs.forEach((a, i) => {
        expect(o.q![i], `${where}: truncDiv(${a}, -3)`).toBe(Math.trunc(a / -3) | 0);
        expect(o.f![i], `${where}: floordiv(${a}, -3)`).toBe(Math.floor(a / -3) | 0);
        expect(o.r![i], `${where}: truncRem(${a}, -3)`).toBe(a % -3 === 0 ? 0 : a % -3);
        expect(o.h![i], `${where}: umulhi(${a}, -0x61c88647)`).toBe(Number(BigInt.asIntN(32, (BigInt(a >>> 0) * 0x9e3779b9n) >> 32n)));
      });
    }
  });
});

describe('masks built from truncDiv', () => {
  // d = truncDiv(offs - 8, 4) is -2, -1, -1, -1 on offs 0..3: not constant over aligned groups of 4
  // (floor division would be), so the compiler must not use one predicate per vector of 4.
  const k = kernel(
    { name: 'truncdiv_mask', params: { x: ptr('f32'), o: ptr('f32'), BLOCK: constexpr() } },
    ({ x, o, BLOCK }) => {
      const offs = arange(0, BLOCK as number);
      const mask = truncDiv(offs.sub(8), 4).eq(-1);
      store(o.add(offs), load(x.add(offs), { mask, other: 0 }), { mask });
    },
  );
  it('a masked vector load and store keep the per-element mask', async () => {
    const M = 512; // 4 elements a thread at 4 warps: vectors of 4 where the facts allow
    const x = Float32Array.from({ length: M }, (_, i) => i + 1);
    const out = await runEverywhere(k, { x, o: new Float32Array(M).fill(-1), BLOCK: M }, 1);
    const want = Float32Array.from({ length: M }, (_, i) => (Math.trunc((i - 8) / 4) === -1 ? i + 1 : -1));
    for (const where of ['interpret', ...SIM_TARGETS] as const) expectBitwise(out[where].o as Float32Array, want, `${where}`);
  });
});

it('umulhi rejects narrow and float operands, truncDiv/truncRem floats, by name', () => {
  const bad = (t: DType, f: (a: ReturnType<typeof load>) => unknown) => kernel({ name: 'bad', params: { x: ptr(t) } }, ({ x }) => { f(load(x)); }).trace();
  expect(() => bad('i16', (a) => umulhi(a, a))).toThrow(/umulhi needs i32, u32 or i64 operands, got i16/);
  expect(() => bad('f32', (a) => umulhi(a, a))).toThrow(/umulhi needs i32, u32 or i64 operands, got f32/);
  expect(() => bad('f32', (a) => truncDiv(a, 2))).toThrow(/truncDiv needs integer operands/);
  expect(() => bad('f32', (a) => truncRem(a, 2))).toThrow(/truncRem needs integer operands/);
  expect(() => bad('i32', (a) => truncDiv(a, a.to('u32')))).toThrow(/different signedness/);
});

it('umulhi is one mul.hi.u32 / mul.hi.u64 per element, whatever the sign of the dtype', () => {
  for (const [t, insn] of [['i32', 'mul.hi.u32'], ['u32', 'mul.hi.u32'], ['i64', 'mul.hi.u64']] as const) {
    const ptx = compile(ops(t).trace({ BLOCK: 128 }), { target: 'sm_80', ptxas: false, numWarps: 4 }).ptx;
    expect(count(ptx, new RegExp(`\\b${insn.replace(/\./g, '\\.')}\\b`)), `${t}: ${insn}`).toBe(1); // 128 elements, 128 threads
  }
});
