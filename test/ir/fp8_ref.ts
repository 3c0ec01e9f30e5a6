// An fp8 reference written from the format definitions alone (OCP FP8, as PTX's .e4m3/.e5m2),
// sharing no code with src/ir/fp8.ts: decoding reads the bit fields; encoding searches all codes
// for the nearest value (ties to the code with an even fraction LSB), saturates past the largest
// finite value (±inf too) and keeps the sign of zero. NaN inputs are left to the caller.
export type Fp8 = 'f8e4m3' | 'f8e5m2';

export const FMT = {
  f8e4m3: { expBits: 4, fracBits: 3, bias: 7, max: 448 },
  f8e5m2: { expBits: 5, fracBits: 2, bias: 15, max: 57344 },
} as const;

/** The value of code `b` (0..255) read from its fields. */
export function refDecode(d: Fp8, b: number): number {
  const { expBits, fracBits, bias } = FMT[d];
  const sign = b >> 7 ? -1 : 1;
  const e = (b >> fracBits) & ((1 << expBits) - 1);
  const m = b & ((1 << fracBits) - 1);
  const eMax = (1 << expBits) - 1;
  if (d === 'f8e4m3' && e === eMax && m === (1 << fracBits) - 1) return NaN; // S.1111.111 only
  if (d === 'f8e5m2' && e === eMax) return m === 0 ? sign * Infinity : NaN; // IEEE-like
  if (e === 0) return sign * (m / 2 ** fracBits) * 2 ** (1 - bias);
  return sign * (1 + m / 2 ** fracBits) * 2 ** (e - bias);
}

/** Whether code `b` is a NaN of `d`. */
export const refIsNaN = (d: Fp8, b: number): boolean => Number.isNaN(refDecode(d, b));

const POSITIVE_FINITE: Record<Fp8, { code: number; v: number }[]> = { f8e4m3: [], f8e5m2: [] };
for (const d of ['f8e4m3', 'f8e5m2'] as const) {
  for (let b = 0; b < 128; b++) {
    const v = refDecode(d, b);
    if (Number.isFinite(v)) POSITIVE_FINITE[d].push({ code: b, v });
  }
}

/** The code `x` (not NaN) converts to: nearest, ties to even, saturating to ±max. */
export function refEncode(d: Fp8, x: number): number {
  if (Number.isNaN(x)) throw new Error('refEncode: NaN has no single expected code');
  const sign = x < 0 || Object.is(x, -0) ? 0x80 : 0;
  const a = Math.abs(x);
  const finite = POSITIVE_FINITE[d];
  if (a >= FMT[d].max) return sign | finite[finite.length - 1]!.code; // satfinite (±inf too)
  let best = POSITIVE_FINITE[d][0]!;
  let bestErr = Infinity;
  for (const c of POSITIVE_FINITE[d]) {
    const err = Math.abs(c.v - a); // exact near any tie (a and both candidates within a few binades)
    if (err < bestErr || (err === bestErr && (c.code & 1) === 0)) {
      best = c;
      bestErr = err;
    }
  }
  return sign | best.code;
}

const F = new Float32Array(1);
const U = new Uint32Array(F.buffer);
/** The f32 next to `x` (an f32) towards +inf (dir 1) or -inf (dir -1), for x > 0. */
function nextF32(x: number, dir: 1 | -1): number {
  F[0] = x;
  U[0] = U[0]! + dir;
  return F[0]!;
}

/**
 * f32 inputs that exercise every rounding decision of `d`: each fp8 value, each midpoint between
 * neighbours (ties) and the f32s just either side of it, the subnormal steps, max and what lies
 * past it, ±0, ±inf, f32 subnormals, and pseudo-random f32 bit patterns; all with both signs.
 * NaN is not included (tests add it with their own expectations).
 */
export function f32Sweep(d: Fp8, randomCount = 1500): Float32Array {
  const out: number[] = [0, Infinity, FMT[d].max * 1.0625, FMT[d].max * 1.125, FMT[d].max * 2, 3.4e38, 1e-45, 1.2e-38, 1e-30];
  const vals = POSITIVE_FINITE[d].map((c) => c.v);
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i]!;
    out.push(v);
    const next = i + 1 < vals.length ? vals[i + 1]! : v + (v - vals[i - 1]!); // past max: the would-be next
    const mid = Math.fround((v + next) / 2);
    out.push(mid, nextF32(mid, 1), nextF32(mid, -1));
  }
  let seed = 12345;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  for (let i = 0; i < randomCount; i++) {
    // exponents concentrated around the fp8 range (2^-24 .. 2^20), a few anywhere
    const e = i % 8 === 0 ? (rnd() % 254) + 1 : 103 + (rnd() % 45);
    U[0] = (e << 23) | (rnd() & 0x7fffff);
    out.push(F[0]!);
  }
  const all = out.flatMap((x) => [x, -x]);
  return Float32Array.from(all);
}
