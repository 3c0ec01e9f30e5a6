// Compares a kernel's output with its reference under the case's tolerance.
export type Tolerance = ['exact'] | ['ulp', number] | ['close', number, number];

const FLOAT: Record<string, { bytes: number; toF64: (bits: bigint) => number }> = {
  f16: { bytes: 2, toF64: (b) => halfToF64(Number(b)) },
  bf16: { bytes: 2, toF64: (b) => new Float32Array(new Uint32Array([Number(b) << 16]).buffer)[0]! },
  f32: { bytes: 4, toF64: (b) => new Float32Array(new Uint32Array([Number(b)]).buffer)[0]! },
  f64: { bytes: 8, toF64: (b) => new Float64Array(new BigUint64Array([b]).buffer)[0]! },
};
const INT_BYTES: Record<string, number> = { i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8 };

export const elementBytes = (dtype: string): number => FLOAT[dtype]?.bytes ?? INT_BYTES[dtype] ?? fail(dtype);

function fail(dtype: string): never {
  throw new Error(`unknown corpus dtype '${dtype}'`);
}

function halfToF64(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function bitsAt(bytes: Uint8Array, i: number, width: number): bigint {
  let v = 0n;
  for (let k = width - 1; k >= 0; k--) v = (v << 8n) | BigInt(bytes[i * width + k]!);
  return v;
}

/** Ordered integer image of a float's bits, so that adjacent floats differ by one. */
function ordered(bits: bigint, width: number): bigint {
  const sign = 1n << BigInt(width * 8 - 1);
  return bits & sign ? -(bits & (sign - 1n)) : bits;
}

/** The first mismatches (at most `limit`), each described; [] when the output matches. */
export function mismatches(dtype: string, got: Uint8Array, want: Uint8Array, tol: Tolerance, limit = 5): string[] {
  const width = elementBytes(dtype);
  const count = want.length / width;
  const out: string[] = [];
  let bad = 0;
  const fl = FLOAT[dtype];
  for (let i = 0; i < count; i++) {
    const g = bitsAt(got, i, width);
    const w = bitsAt(want, i, width);
    if (g === w) continue;
    let ok = false;
    if (fl && tol[0] !== 'exact') {
      const gv = fl.toF64(g);
      const wv = fl.toF64(w);
      if (Number.isNaN(gv) && Number.isNaN(wv)) ok = true;
      else if (tol[0] === 'ulp') {
        const d = ordered(g, width) - ordered(w, width);
        ok = (d < 0n ? -d : d) <= BigInt(tol[1]);
      } else ok = Math.abs(gv - wv) <= tol[2] + tol[1] * Math.abs(wv);
    } else if (fl && Number.isNaN(fl.toF64(g)) && Number.isNaN(fl.toF64(w))) ok = true;
    if (ok) continue;
    bad++;
    if (out.length < limit) {
      const show = (b: bigint) => (fl ? `${fl.toF64(b)} (0x${b.toString(16)})` : `0x${b.toString(16)}`);
      out.push(`[${i}] got ${show(g)} want ${show(w)}`);
    }
  }
  if (bad > limit) out.push(`... ${bad} of ${count} elements differ`);
  return out;
}
