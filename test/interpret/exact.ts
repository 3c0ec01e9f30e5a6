// Exact reference for f32 fused multiply-add, with BigInt arithmetic (independent of the
// interpreter's round-to-odd implementation). Valid for operands whose bits lie above 2^-300.
const SCALE = 2 ** 300;
const big = (x: number): bigint => BigInt(x * SCALE); // exact for our ranges (power-of-two scaling)

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function nextF32(x: number, up: boolean): number {
  f32[0] = x;
  if (x === 0) return up ? 2 ** -149 : -(2 ** -149);
  if (x > 0 === up) u32[0]! += 1;
  else u32[0]! -= 1;
  return f32[0]!;
}

/** The f32 nearest to a*b + c (ties to even), a, b, c being f32 values. */
export function exactFmaF32(a: number, b: number, c: number): number {
  const s = big(a * b) + big(c); // a*b is exact in double for f32 inputs
  const guess = Math.fround(Number(s) / SCALE);
  let best = guess;
  let bestErr = -1n;
  for (const cand of [nextF32(guess, false), guess, nextF32(guess, true)]) {
    const d = big(cand) - s;
    const err = d < 0n ? -d : d;
    f32[0] = cand;
    const even = (u32[0]! & 1) === 0;
    if (bestErr < 0n || err < bestErr || (err === bestErr && even)) {
      best = cand;
      bestErr = err;
    }
  }
  return best;
}
