import { describe, expect, it } from 'vitest';
import { kernel, P } from './dsl.js';
import { count, gate } from './gate.js';

/** Row softmax: one program per row of N elements. */
const softmax = (N: number) =>
  kernel('softmax', [['x', P('f32')], ['out', P('f32')], ['n', 'i32'], ['stride', 'i32']], (k, [x, out, n, stride]) => {
    const row = k.pid();
    const base = k.bin('mul', row, stride!);
    const cols = k.arange(N);
    const mask = k.cmp('lt', cols, k.splat(n!, [N]));
    const offs = k.bin('add', k.splat(base, [N]), cols);
    const v = k.load(k.addptr(x!, offs), mask, k.c(-Infinity, 'f32', [N]));
    const m = k.reduce(v, 0, 'max');
    const e = k.un('exp', k.bin('sub', v, k.splat(m, [N])));
    const s = k.reduce(e, 0, 'add');
    k.store(k.addptr(out!, offs), k.bin('div', e, k.splat(s, [N])), mask);
  });

/** 2-D tile [M, N]: offsets built with expand_dims/broadcast, row sums, normalized rows. */
const rowNorm = (M: number, N: number) =>
  kernel('row_norm', [['x', P('f32')], ['out', P('f32')], ['sums', P('f32')]], (k, [x, out, sums]) => {
    const rm = k.expand(k.arange(M), 1);
    const cn = k.expand(k.arange(N), 0);
    const offs = k.bin('add', k.broadcast(k.bin('mul', rm, k.c(N, 'i32', [M, 1])), [M, N]), k.broadcast(cn, [M, N]));
    const v = k.load(k.addptr(x!, offs));
    const s = k.reduce(v, 1, 'add');
    k.store(k.addptr(sums!, k.arange(M)), s);
    const norm = k.bin('div', v, k.broadcast(k.expand(s, 1), [M, N]));
    k.store(k.addptr(out!, offs), norm);
  });

describe('reductions', () => {
  it('softmax: butterfly shuffles within warps, shared memory across warps, no conversions', () => {
    for (const r of Object.values(gate(softmax(1024)))) {
      expect(count(r.ptx, /shfl\.sync\.bfly\.b32/)).toBe(2 * 5); // max and sum, 5 lane bits each
      expect(count(r.ptx, /st\.shared/)).toBe(2); // one partial per reduction (the result is a scalar)
      expect(r.ptx).not.toMatch(/convert_layout/);
      expect(r.ptx).toMatch(/ex2\.approx\.f32/);
      expect(r.metadata.sharedBytes).toBeGreaterThan(0);
    }
  });
  it('softmax on a short row needs no cross-warp step', () => {
    const { sm80 } = gate(softmax(32), { numWarps: 1 });
    expect(sm80.ptx).not.toMatch(/st\.shared/);
    expect(sm80.ptx).not.toMatch(/bar\.sync/);
  });
  it('2-D row sums: expand_dims of slices and broadcasts stay in registers', () => {
    const spec = { x: { divisibleBy16: true }, out: { divisibleBy16: true } };
    const { sm80, sm90 } = gate(rowNorm(64, 64), { specialization: spec });
    for (const r of [sm80, sm90]) {
      // the only conversion: the row sums (a slice of the 2-D layout) stored through a 1-D pointer tile
      expect(count(r.ptx, /convert_layout/)).toBe(1);
      expect(count(r.ptx, /ld\.global\.v4\.f32/)).toBe(8); // 4096 / 128 threads / 4
      expect(count(r.ptx, /st\.global\.v4\.f32/)).toBe(8);
    }
  });
  it('argmax with a two-value combiner', () => {
    const f = kernel('argmax', [['x', P('f32')], ['out', P('i32')]], (k, [x, out]) => {
      const i = k.arange(256);
      const [, idx] = k.argmax(k.load(k.addptr(x!, i)), i, 0);
      k.store(out!, idx);
    });
    const { sm90 } = gate(f);
    expect(count(sm90.ptx, /shfl\.sync\.bfly\.b32/)).toBe(2 * 5);
  });
  it('reduces i64 and f16 tiles', () => {
    for (const t of ['i64', 'f16', 'u8'] as const) {
      const f = kernel(`sum_${t}`, [['x', P(t)], ['out', P(t)]], (k, [x, out]) => {
        const s = k.reduce(k.load(k.addptr(x!, k.arange(512))), 0, 'add');
        k.store(out!, s);
      });
      gate(f);
    }
  });
});
