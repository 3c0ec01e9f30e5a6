// dotScaled (Triton's tl.dot_scaled) on the interpreter and on the sim compiled for sm_80 and
// sm_90a: every format pair, ragged M/N/K, an accumulator, nvfp4, scale extremes (2^-127, 2^127,
// NaN) and a 128x128x128 tile, each bit for bit against the JS reference of the MX formats
// (dot_scaled_cases.ts) where every partial sum is exact, and against the interpreter always.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { runEverywhere, SIM_TARGETS } from './lang_targets.js';
import { deviceArgs, FORMATS, makeData, reference, scaledKernel, type Case, type DataOptions } from './dot_scaled_cases.js';

const WHERE = ['interpret', ...SIM_TARGETS] as const;
let n = 0;

async function check(c: Case, seed: number, o: DataOptions = {}, exactRef = true, numWarps = 4): Promise<Record<string, Float32Array>> {
  const d = makeData(c, seed, o);
  const ref = reference(c, d);
  if (exactRef) expect(ref.exact, 'test data: every partial sum is an f32 value').toBe(true);
  const out = await runEverywhere(scaledKernel(c, `ds_${c.fa}_${c.fb}_${n++}`), deviceArgs(c, d), 1, numWarps);
  const got: Record<string, Float32Array> = {};
  for (const w of WHERE) {
    got[w] = out[w].c as Float32Array;
    if (ref.exact) expect(Array.from(got[w]), `${w} ${c.fa} x ${c.fb}`).toEqual(Array.from(ref.c));
  }
  return got;
}

describe('dotScaled, every format pair (32x32, K = 64 in steps of 32; ragged M = 30, N = 17)', () => {
  for (const fa of FORMATS) {
    it(`${fa} x every format`, async () => {
      for (const fb of FORMATS) await check({ fa, fb, M: 30, N: 17, K: 64, BM: 32, BN: 32, BK: 32 }, 7 + FORMATS.indexOf(fb));
    });
  }
});

describe('dotScaled shapes and options', () => {
  it('ragged K (K = 96 in 64-wide steps) with an accumulator', async () => {
    await check({ fa: 'e4m3', fb: 'e2m1', M: 20, N: 48, K: 96, BM: 32, BN: 64, BK: 64, acc: true }, 3);
    await check({ fa: 'e2m1', fb: 'e5m2', M: 64, N: 9, K: 96, BM: 64, BN: 16, BK: 64, acc: true }, 4);
  });

  it('nvfp4: e2m1 with ue4m3 scales per 16 elements', async () => {
    await check({ fa: 'e2m1', fb: 'e2m1', M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 64, nvfp4: true }, 5);
    await check({ fa: 'e2m1', fb: 'e4m3', M: 17, N: 32, K: 64, BM: 32, BN: 32, BK: 32, nvfp4: true, acc: true }, 6);
  });

  it('an autotuner-sized tile: 128x128x128 on 8 warps, K in two 64-wide steps (mxfp8 and mxfp4)', async () => {
    await check({ fa: 'e4m3', fb: 'e4m3', M: 128, N: 128, K: 128, BM: 128, BN: 128, BK: 64 }, 8, {}, true, 8);
    await check({ fa: 'e2m1', fb: 'e2m1', M: 128, N: 128, K: 128, BM: 128, BN: 128, BK: 64, acc: true }, 9, {}, true, 8);
  });
});

describe('dotScaled on the MX dtypes (f4e2m1 operands, f8e8m0 scales)', () => {
  it('mxfp4 and mixed mxfp8 x mxfp4 as the u8 forms, ragged M/N, an accumulator; nvfp4 on f4e2m1', async () => {
    await check({ fa: 'e2m1', fb: 'e2m1', M: 30, N: 17, K: 64, BM: 32, BN: 32, BK: 32, acc: true, mxDtypes: true }, 21);
    await check({ fa: 'e4m3', fb: 'e2m1', M: 20, N: 48, K: 96, BM: 32, BN: 64, BK: 32, mxDtypes: true }, 22);
    await check({ fa: 'e2m1', fb: 'e5m2', M: 32, N: 9, K: 64, BM: 32, BN: 16, BK: 32, mxDtypes: true }, 23);
    await check({ fa: 'e2m1', fb: 'e2m1', M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 64, nvfp4: true, mxDtypes: true }, 24);
  });

  it('f8e8m0 scale extremes (2^-127, 2^127 neighbours) and a NaN scale code give what the u8 codes give', async () => {
    const o = { aScales: [0, 1, 0xff], bScales: [252, 253], lo: 0.5, hi: 2 };
    const c: Case = { fa: 'e2m1', fb: 'e4m3', M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 32 };
    const u8 = await check(c, 25, o, false), mx = await check({ ...c, mxDtypes: true }, 25, o, false);
    for (const w of WHERE) expect(Array.from(mx[w]!), w).toEqual(Array.from(u8[w]!));
    expect(Array.from(u8['interpret']!).some(Number.isNaN)).toBe(true);
  });
});

describe('dotScaled scale extremes', () => {
  it('2^-127..2^-124 on a and 2^123..2^126 on b: subnormal scaled values stay exact (tf32 / bf16 / f32 paths)', async () => {
    const o = { aScales: [0, 1, 2, 3], bScales: [250, 251, 252, 253], lo: 0.5, hi: 2 };
    for (const [fa, fb] of [['e4m3', 'e4m3'], ['e5m2', 'e2m1'], ['e2m1', 'e3m2'], ['e2m3', 'fp16'], ['e5m2', 'e5m2']] as const) {
      await check({ fa, fb, M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 32 }, 11, o);
    }
  });

  it('the smallest e4m3/e5m2 values times 2^-127 (below bf16 / tf32 granularity) stay exact', async () => {
    // a's scaled values reach 2^-136 (e4m3) and 2^-143 (e5m2): a bf16 path would lose the first,
    // a tf32 path the second; b's scales 2^126..2^127 bring the products back to ~2^-11..2^-4
    const o = { aScales: [0, 1], bScales: [253, 254], lo: 0.5, hi: 2 };
    await check({ fa: 'e4m3', fb: 'e2m1', M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 32 }, 13, { ...o, aLo: 2 ** -9, aHi: 2 ** -6 });
    await check({ fa: 'e5m2', fb: 'e2m1', M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 32 }, 14, { ...o, aLo: 2 ** -16, aHi: 2 ** -13 });
    await check({ fa: 'e5m2', fb: 'e4m3', M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 32 }, 15, { ...o, aLo: 2 ** -16, aHi: 2 ** -13 });
  });

  it('a NaN scale (0xFF) makes its row (a) or column (b) NaN; 2^127 overflows to inf as in f32', async () => {
    const c: Case = { fa: 'e4m3', fb: 'e2m1', M: 32, N: 32, K: 64, BM: 32, BN: 32, BK: 32 };
    const d = makeData(c, 12);
    const aScale = d.aScale.slice(), bScale = d.bScale.slice();
    aScale[3 * 2 + 1] = 0xff; // row 3, second block
    bScale[5 * 2] = 0xff; // column 5, first block
    aScale[7 * 2] = 254; // row 7: 2^127 times values >= 0.5: some products overflow
    const dd = { ...d, aScale, bScale };
    const ref = reference(c, dd);
    const out = await runEverywhere(scaledKernel(c, `ds_nan_${n++}`), deviceArgs(c, dd), 1);
    for (const w of WHERE) {
      const got = out[w].c as Float32Array;
      for (let m = 0; m < 32; m++) for (let j = 0; j < 32; j++) {
        const g = got[m * 32 + j]!, want = ref.c[m * 32 + j]!;
        if (m === 3 || j === 5) expect(Number.isNaN(g), `${w} [${m},${j}] NaN`).toBe(true);
        else if (m === 7) expect(Object.is(g, want) || (Number.isNaN(g) && Number.isNaN(want)), `${w} [${m},${j}] ${g} vs ${want}`).toBe(true);
        else expect(g, `${w} [${m},${j}]`).toBe(want);
      }
    }
  });
});
