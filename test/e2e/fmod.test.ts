// Float `rem` is C fmod, exactly (docs/semantics.md), including the cases a - trunc(a/b)*b gets
// wrong: huge quotients (65504 rem 1e-40), infinite divisors, subnormals, signed zeros. JS `%` is
// fmod, so it is the reference; the sim must equal it and the interpreter bit for bit.
import { describe, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { bf16Bits, f16Bits } from '../../src/ir/half.js';
import { kernel, P } from '../codegen/dsl.js';
import { CTOR, expectSame, runBoth, type Buf } from './helpers.js';

const PAIRS: [number, number][] = [
  [65504, 1e-40], [108, -Infinity], [-108, Infinity], [5.5, 2], [-5.5, 2], [5.5, -2], [1e30, 3], [3e38, 1.17e-38],
  [1e-40, 3e-42], [7e-45, 1e-45], [-0, 3], [0, -3], [3, 0], [Infinity, 2], [NaN, 2], [2, NaN], [-3, 3], [1, 3],
  [0.1, 1e-7], [16777217, 3], [2 ** 100, 2 ** -100 * 3], [-(2 ** 60) + 12345, 1.5], [1e300, 1e-300], [1e-310, 7e-320],
];
const N = 32;

const remKernel = (t: DType) => kernel(`fmod_${t}`, [['x', P(t)], ['y', P(t)], ['o', P(t)]], (k, [x, y, o]) => {
  const i = k.arange(N);
  k.store(k.addptr(o!, i), k.bin('rem', k.load(k.addptr(x!, i)), k.load(k.addptr(y!, i))));
});

const enc = (t: DType, v: number): number => (t === 'f16' ? f16Bits(v) : t === 'bf16' ? bf16Bits(v) : v);
const dec = (t: DType, v: number): number => (t === 'f32' ? Math.fround(v) : v);

describe('float rem is exact fmod on the sim', () => {
  it.each(['f32', 'f64', 'f16', 'bf16'] as DType[])('%s', async (t) => {
    const x = new CTOR[t](N), y = new CTOR[t](N);
    const xs = x as unknown as number[], ys = y as unknown as number[];
    PAIRS.forEach(([a, b], i) => { xs[i] = enc(t, a); ys[i] = enc(t, b); });
    for (let i = PAIRS.length; i < N; i++) { xs[i] = enc(t, i * 1.25); ys[i] = enc(t, 0.75); }
    const r = await runBoth(remKernel(t), [x, y, new CTOR[t](N)], 1);
    expectSame(t, r.sim[2] as Buf, r.interpret[2] as Buf, `rem ${t}: sim vs interpreter`);
    if (t === 'f32' || t === 'f64') {
      const want = new CTOR[t](N) as unknown as number[];
      for (let i = 0; i < N; i++) want[i] = dec(t, xs[i]! % ys[i]!);
      expectSame(t, r.sim[2] as Buf, want as unknown as Buf, `rem ${t}: sim vs JS %`);
    }
  });
});
