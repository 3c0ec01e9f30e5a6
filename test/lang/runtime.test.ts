// The language through the runtime's user-facing `kernel(...).run(...)` on the interpret device.
import { describe, expect, it } from 'vitest';
import { kernel } from '../../src/runtime/index.js';
import { arange, cdiv, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { closeTo, randF32, rng } from './run.js';

describe('kernel(...).run on the interpreter', () => {
  it('vector add with a ragged last block', async () => {
    const add = kernel({ name: 'add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
      ({ x, y, out, n, BLOCK }) => {
        const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
        const mask = offs.lt(n);
        store(out.add(offs), load(x.add(offs), { mask }).add(load(y.add(offs), { mask, other: 0 })), { mask });
      });
    const n = 1000, x = randF32(rng(1), n), y = randF32(rng(2), n), out = new Float32Array(n);
    await add.run({ x, y, out, n, BLOCK: 256 }, { grid: (a) => cdiv(a.n as number, a.BLOCK as number), device: 'interpret' });
    expect(Array.from(out)).toEqual(Array.from(x, (v, i) => Math.fround(v + y[i]!)));
  });

  it('row softmax', async () => {
    const softmax = kernel({ name: 'softmax', params: { x: ptr('f32'), out: ptr('f32'), C: 'i32', B: constexpr() } }, ({ x, out, C, B }) => {
      const row = programId(0), c = arange(0, B), m = c.lt(C);
      const v = load(x.add(row.mul(C)).add(c), { mask: m, other: -Infinity });
      const e = v.sub(v.max(0)).exp();
      store(out.add(row.mul(C)).add(c), e.div(e.sum(0)), { mask: m });
    });
    const R = 5, C = 100, x = randF32(rng(3), R * C), out = new Float32Array(R * C);
    await softmax.run({ x, out, C, B: 128 }, { grid: R, device: 'interpret' });
    const want: number[] = [];
    for (let r = 0; r < R; r++) {
      const row = Array.from(x.slice(r * C, (r + 1) * C));
      const mx = Math.max(...row), ex = row.map((v) => Math.exp(v - mx)), s = ex.reduce((p, q) => p + q);
      want.push(...ex.map((v) => v / s));
    }
    closeTo(out, want, 1e-5, 1e-7);
  });
});
