// rand / randint / randn / randint4x: Philox4x32-10 streams bit-identical to Triton's. Three
// references: (1) a plain-JS Philox4x32 written here from the definition (Salmon et al., SC'11),
// itself checked against Random123's known-answer vectors; (2) Triton 3.8's own streams, taken
// from its interpreter mode by golden/triton_random.py (golden/triton_random.json); (3) the
// interpreter and the sim compiled for sm_80 and sm_90a must equal both, bit for bit (randn, which
// goes through log/sqrt/cos, within their error bounds).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, load, ptr, rand, randint, randint4x, randn, randn4x, rand4x, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import type { DType } from '../../src/ir/types.js';
import { expectBitwise, expectClose, simDevice } from './helpers.js';
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';

// ---- reference: Philox4x32 from its definition ------------------------------------------------

const M0 = 0xd2511f53n, M1 = 0xcd9e8d57n, W0 = 0x9e3779b9n, W1 = 0xbb67ae85n;
const U32 = (v: bigint): bigint => BigInt.asUintN(32, v);

/** Philox4x32-R: each round multiplies words 0 and 2, swaps the pairs and xors in the key. */
function philox(ctr: readonly bigint[], key: readonly bigint[], rounds = 10): bigint[] {
  let [c0, c1, c2, c3] = ctr as [bigint, bigint, bigint, bigint];
  let [k0, k1] = key as [bigint, bigint];
  for (let r = 0; r < rounds; r++) {
    const p0 = M0 * c0, p1 = M1 * c2; // 64-bit products
    [c0, c1, c2, c3] = [U32((p1 >> 32n) ^ c1 ^ k0), U32(p1), U32((p0 >> 32n) ^ c3 ^ k1), U32(p0)];
    k0 = U32(k0 + W0);
    k1 = U32(k1 + W1);
  }
  return [c0, c1, c2, c3];
}

/**
 * Triton's layout: key = the seed widened to 64 bits, sign-extended when signed (lo, hi); counter =
 * (offset lo, offset hi, 0, 0), where 32-bit offsets (`wide` false: i32, wrapping) have hi = 0.
 */
const stream = (seed: bigint, offset: bigint, wide: boolean, rounds = 10): bigint[] =>
  philox([U32(offset), wide ? U32(offset >> 32n) : 0n, 0n, 0n], [U32(seed), U32(seed >> 32n)], rounds);

/** u32 -> [0, 1): read as i32, ~x for negatives, times f32(4.6566127342e-10), in f32. */
function uniform(x: bigint): number {
  const i = Number(BigInt.asIntN(32, x));
  return Math.fround(Math.fround(i < 0 ? ~i : i) * Math.fround(4.6566127342e-10));
}
const normal = (a: bigint, b: bigint): number => {
  const u1 = Math.max(Math.fround(1e-7), uniform(a)), th = Math.fround(uniform(b) * Math.fround(6.283185307179586));
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(th);
};

/** The dtype Triton (and our literals) give an integer: i32, else u32 below 2^32, else i64. */
const dtypeOf = (v: bigint): DType => (v >= -(2n ** 31n) && v < 2n ** 31n ? 'i32' : v >= 0n && v < 2n ** 32n ? 'u32' : 'i64');

const f32Bits = (v: number): number => new Uint32Array(Float32Array.of(v).buffer)[0]!;

it('the JS Philox4x32-10 reproduces Random123 known-answer vectors', () => {
  const hex = (v: bigint[]) => v.map((x) => x.toString(16).padStart(8, '0')).join(' ');
  expect(hex(philox([0n, 0n, 0n, 0n], [0n, 0n]))).toBe('6627e8d5 e169c58d bc57ac4c 9b00dbd8');
  const ff = 0xffffffffn;
  expect(hex(philox([ff, ff, ff, ff], [ff, ff]))).toBe('408f276d 41c83b0e a20bc7c6 6d5451fd');
  expect(hex(philox([0x243f6a88n, 0x85a308d3n, 0x13198a2en, 0x03707344n], [0xa4093822n, 0x299f31d0n]))).toBe('d16cfe09 94fdcceb 5001e420 24126ea1');
});

// ---- Triton's own streams ----------------------------------------------------------------------

interface Golden { seed: string; base: string; r0: number[]; r1: number[]; r2: number[]; r3: number[]; ri: number[]; u: number[]; n: number[] }
const GOLD = JSON.parse(readFileSync(new URL('./golden/triton_random.json', import.meta.url), 'utf8')) as { n: number; cases: Golden[] };
const N = GOLD.n;

it('the JS reference equals Triton 3.8 streams (randint4x, randint, rand bit for bit; randn within 1e-6)', () => {
  for (const g of GOLD.cases) {
    const seed = BigInt(g.seed), base = BigInt(g.base);
    for (let i = 0; i < N; i++) {
      const s = stream(seed, base + BigInt(i), dtypeOf(base) === 'i64');
      const what = `seed ${g.seed}, offset ${base + BigInt(i)}`;
      expect([g.r0[i], g.r1[i], g.r2[i], g.r3[i]], what).toEqual(s.map(Number));
      expect(g.ri[i], what).toBe(Number(s[0]));
      expect(g.u[i], what).toBe(f32Bits(uniform(s[0]!)));
      expect(Math.abs(new Float32Array(Uint32Array.of(g.n[i]!).buffer)[0]! - normal(s[0]!, s[1]!)), what).toBeLessThan(1e-6 * 8);
    }
  }
});

// ---- our kernels ------------------------------------------------------------------------------

const streams = (sd: DType, bd: DType) => kernel(
  {
    name: `rng_${sd}_${bd}`,
    params: {
      seed: sd, base: bd, r0: ptr('u32'), r1: ptr('u32'), r2: ptr('u32'), r3: ptr('u32'), ri: ptr('u32'), u: ptr('f32'), n: ptr('f32'),
      u4: ptr('f32'), n4: ptr('f32'), BLOCK: constexpr(),
    },
  },
  ({ seed, base, r0, r1, r2, r3, ri, u, n, u4, n4, BLOCK }) => {
    const i = arange(0, BLOCK as number);
    const offs = i.add(base);
    const r = randint4x(seed, offs);
    [r0, r1, r2, r3].forEach((p, k) => store(p.add(i), r[k]!));
    store(ri.add(i), randint(seed, offs));
    store(u.add(i), rand(seed, offs));
    store(n.add(i), randn(seed, offs));
    const us = rand4x(seed, offs), ns = randn4x(seed, offs);
    for (let k = 0; k < 4; k++) {
      store(u4.add(i.mul(4).add(k)), us[k]!);
      store(n4.add(i.mul(4).add(k)), ns[k]!);
    }
  },
);

it('the sim pretends to be an sm_90 (both sm_80 and sm_90a code run on it)', () => {
  expect(simDevice().target).toBe('sm_90a');
});

describe.each(GOLD.cases.map((g) => [g.seed, g.base, g] as const))('seed %s, offsets %s + arange', (seedS, baseS, g) => {
  it('randint4x, randint, rand equal Triton bit for bit, randn within the math bounds; rand4x/randn4x are the per-output maps', async () => {
    const seed = BigInt(seedS), base = BigInt(baseS);
    const sd = dtypeOf(seed), bd = dtypeOf(base);
    const arg = (t: DType, v: bigint) => (t === 'i64' ? v : Number(v));
    const u32 = () => new Uint32Array(N), f32 = (k = 1) => new Float32Array(N * k);
    const out = await runEverywhere(streams(sd, bd), {
      seed: arg(sd, seed), base: arg(bd, base), r0: u32(), r1: u32(), r2: u32(), r3: u32(), ri: u32(), u: f32(), n: f32(), u4: f32(4), n4: f32(4), BLOCK: N,
    }, 1);
    const ref = Array.from({ length: N }, (_, i) => stream(seed, base + BigInt(i), bd === 'i64'));
    for (const where of ['interpret', ...SIM_TARGETS] as const) {
      const o = out[where] as Record<string, Uint32Array | Float32Array>;
      (['r0', 'r1', 'r2', 'r3'] as const).forEach((k, w) => expectBitwise(o[k]!, Uint32Array.from(g[k]), `${where}: randint4x output ${w}`));
      expectBitwise(o.ri!, Uint32Array.from(g.ri), `${where}: randint`);
      expectBitwise(new Uint32Array(o.u!.buffer), Uint32Array.from(g.u), `${where}: rand`);
      expectClose(o.n as Float32Array, new Float32Array(Uint32Array.from(g.n).buffer), 4e-6, `${where}: randn vs Triton`);
      expectClose(o.n as Float32Array, ref.map((s) => normal(s[0]!, s[1]!)), 4e-6, `${where}: randn vs JS`);
      expectBitwise(o.u4!, Float32Array.from(ref.flatMap((s) => s.map(uniform))), `${where}: rand4x`);
      expectClose(o.n4 as Float32Array, ref.flatMap((s) => [normal(s[0]!, s[1]!), normal2(s[0]!, s[1]!), normal(s[2]!, s[3]!), normal2(s[2]!, s[3]!)]), 4e-6, `${where}: randn4x`);
      for (const v of o.u!) expect(v >= 0 && v < 1, `${where}: rand ${v} in [0, 1)`).toBe(true);
    }
  });
});

/** The sine branch of Box-Muller (randn4x's second and fourth outputs). */
function normal2(a: bigint, b: bigint): number {
  const u1 = Math.max(Math.fround(1e-7), uniform(a)), th = Math.fround(uniform(b) * Math.fround(6.283185307179586));
  return Math.sqrt(-2 * Math.log(u1)) * Math.sin(th);
}

describe('options and errors', () => {
  const rounds = kernel(
    { name: 'rng_rounds', params: { o: ptr('u32'), BLOCK: constexpr(), R: constexpr() } },
    ({ o, BLOCK, R }) => {
      const i = arange(0, BLOCK as number);
      store(o.add(i), randint(7, i, { nRounds: R as number }));
    },
  );
  it('{ nRounds } picks the number of Philox rounds (Triton\'s n_rounds)', async () => {
    const out = await runEverywhere(rounds, { o: new Uint32Array(N), BLOCK: N, R: 7 }, 1);
    const want = Uint32Array.from({ length: N }, (_, i) => Number(stream(7n, BigInt(i), false, 7)[0]));
    for (const where of ['interpret', ...SIM_TARGETS] as const) expectBitwise(out[where].o as Uint32Array, want, where);
  });

  const bad = (f: () => unknown) => () => kernel({ name: 'bad', params: { x: ptr('f32') } }, () => { f(); }).trace();
  it('rejects float offsets or seeds, unknown options and bad round counts, by name', () => {
    expect(bad(() => rand(1, arange(0, 8).to('f32')))).toThrow(/rand.*offsets must be integers, got f32/);
    expect(bad(() => randn(1.5, arange(0, 8)))).toThrow(/seed must be integers, got f32/);
    expect(bad(() => randint(1, arange(0, 8), { nRound: 3 } as never))).toThrow(/unknown option 'nRound' \(allowed: nRounds\)/);
    expect(bad(() => randint4x(1, arange(0, 8), { nRounds: 0 }))).toThrow(/nRounds must be an integer in 1\.\.64, got 0/);
    expect(bad(() => rand(arange(0, 4), arange(0, 8)))).toThrow(/cannot broadcast/);
  });
});
