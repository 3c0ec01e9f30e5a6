// Warp grids of tensor-core dots (compiler/mma_warps.ts + layout.ts mmaLayout) and what they buy
// flash attention: chained dots and dots reduced along N put their warps along M, so the online
// softmax's row max/sum are lane shuffles and the row statistics (m_i, l_i, alpha) stay in the
// accumulator's row layout across the loop's back edge. Checked on the layouts, on the PTX and
// with the sim's counters (barriers and bank conflicts per loop iteration). Numerical results of
// flash attention: test/e2e/matmul_tc.test.ts.
import { describe, expect, it } from 'vitest';
import type { Func, Op } from '../../src/ir/ops.js';
import { compile } from '../../src/compiler/compile.js';
import { mmaLayout } from '../../src/compiler/layout.js';
import { dotWarpPrefs } from '../../src/compiler/mma_warps.js';
import { flashAttention } from '../../bench/kernels.js';
import { simDevice } from '../e2e/helpers.js';
import { count, gate } from './gate.js';
import { kernel, P } from './dsl.js';

const dotsOf = (f: Func): Op[] => {
  const out: Op[] = [];
  const walk = (ops: readonly Op[]): void => ops.forEach((op) => (op.kind === 'dot' ? out.push(op) : op.regions.forEach((r) => walk(r.ops))));
  walk(f.body.ops);
  return out;
};

/** c = reduce(dot(a, b), axis) stored, or the dot itself when axis is undefined. */
const reducedDot = (axis: 0 | 1 | undefined) => kernel(`mm_red${axis ?? 'none'}`, [['a', P('f16')], ['b', P('f16')], ['c', P('f32')]], (k, [a, b, c]) => {
  const idx = (R: number, C: number) => k.bin('add', k.broadcast(k.bin('mul', k.expand(k.arange(R), 1), k.c(C, 'i32', [R, 1])), [R, C]), k.broadcast(k.expand(k.arange(C), 0), [R, C]));
  const d = k.dot(k.load(k.addptr(a!, idx(64, 32))), k.load(k.addptr(b!, idx(32, 64))), k.c(0, 'f32', [64, 64]));
  if (axis === undefined) k.store(k.addptr(c!, idx(64, 64)), d);
  else k.store(k.addptr(c!, k.arange(64)), k.reduce(d, axis, 'max'));
});

const flash = (t: 'f16' | 'bf16', cx = { BM: 64, BN: 64, D: 64 }) => flashAttention[t].trace(cx);

/** The loop body of the (only) loop in `ptx`. */
const loopBody = (ptx: string): string => ptx.slice(ptx.indexOf('$L_for_0:'), ptx.indexOf('$L_endfor_1:'));

describe('warp grids of mma layouts', () => {
  it("balanced rule (Triton's MMAv2): warps double along the dim with more m16 / n8 tiles per warp", () => {
    expect(mmaLayout(64, 64, 4)?.warpsPerCTA).toEqual([2, 2]);
    expect(mmaLayout(128, 32, 4)?.warpsPerCTA).toEqual([4, 1]);
    expect(mmaLayout(64, 32, 4)?.warpsPerCTA).toEqual([2, 2]);
    expect(mmaLayout(16, 64, 8)?.warpsPerCTA).toEqual([1, 8]);
    expect(mmaLayout(128, 128, 8)?.warpsPerCTA).toEqual([2, 4]); // 8 x 16 tiles: N, M, N
    expect(mmaLayout(16, 8, 4)).toBeUndefined();
  });

  it("'M' and 'N' put as many warps along that dim as tile", () => {
    expect(mmaLayout(64, 64, 4, 'M')?.warpsPerCTA).toEqual([4, 1]);
    expect(mmaLayout(32, 64, 4, 'M')?.warpsPerCTA).toEqual([2, 2]); // 32 rows: two m16 warps at most
    expect(mmaLayout(64, 64, 4, 'N')?.warpsPerCTA).toEqual([1, 4]);
    expect(mmaLayout(64, 16, 4, 'N')?.warpsPerCTA).toEqual([2, 2]);
  });

  it('dotWarpPrefs: chained dots (attention) and row-reduced dots want M, column-reduced N, plain balanced', () => {
    const prefs = (f: Func) => { const p = dotWarpPrefs(f); return dotsOf(f).map((d) => p.get(d)); };
    expect(prefs(flash('f16'))).toEqual(['M', 'M']);
    expect(prefs(reducedDot(1))).toEqual(['M']);
    expect(prefs(reducedDot(0))).toEqual(['N']);
    expect(prefs(reducedDot(undefined))).toEqual(['balanced']);
  });

  it('flash attention: both dots [4, 1]; the loop carries m_i, l_i and acc in the accumulator layout', () => {
    const r = compile(flash('f16'), { target: 'sm_80', numWarps: 4, ptxas: false });
    const layouts = r.stages.find((s) => s.name === 'layouts')!.text;
    const mma41 = 'tpw=[8,4] wpc=[4,1]';
    expect(layouts.split('\n').filter((l) => / = dot\(/.test(l)).every((l) => l.includes(mma41))).toBe(true);
    const forLine = layouts.split('\n').find((l) => / = for\(/.test(l))!;
    expect(forLine.split(mma41).length - 1).toBe(3); // slice(m_i), slice(l_i), acc
    // inside the loop no float value changes layout but splats (recomputed, as is the index math)
    const splats = new Set(layouts.split('\n').filter((l) => / = splat\(/.test(l)).map((l) => l.trim().split(':')[0]));
    const body = layouts.slice(layouts.indexOf(forLine)).split('\n').filter((l) => l.startsWith('    ')); // the loop's ops
    const converted = body.flatMap((l) => [...l.matchAll(/convert\((%\d+) -> /g)].map((m) => m[1]!));
    const floats = new Set(layouts.split('\n').filter((l) => /: f(16|32)\[/.test(l)).map((l) => l.trim().split(':')[0]));
    expect(converted.filter((v) => floats.has(v) && !splats.has(v))).toEqual([]);
  });

  it.each(['f16', 'bf16'] as const)('%s flash attention (64 x 64 x 64, 4 warps): row reductions by shuffles, 2 barriers per dot per iteration (ptxas sm_80/sm_90)', (t) => {
    const { sm80, sm90 } = gate(flash(t), { numWarps: 4 });
    for (const r of [sm80, sm90]) {
      const body = loopBody(r.ptx);
      expect(count(body, /bar\.sync/)).toBe(4);
      // max and sum over 4 lanes of a row: 2 butterfly steps x 2 rows per thread, each
      expect(count(body, /shfl\.sync\.bfly/)).toBe(8);
    }
  });

  it('flash attention on the sim: 4 barriers per loop iteration, fewer bank conflicts than the 2 x 2 grid', () => {
    const dev = simDevice().native;
    const r = compile(flash('f16'), { target: 'sm_80', numWarps: 4, ptxas: false });
    const run = (L: number) => {
      const bufs = [dev.alloc(64 * 64 * 2), dev.alloc(L * 64 * 2), dev.alloc(L * 64 * 2), dev.alloc(64 * 64 * 4)];
      try {
        dev.launch(r, [...bufs, L, 0.125], 1);
        dev.synchronize();
        return dev.simCounters()!;
      } finally {
        for (const b of bufs) dev.free(b);
      }
    };
    const one = run(128), two = run(256); // 2 and 4 iterations
    expect((two.barriers - one.barriers) / 2).toBe(4); // CTA barriers: 2 per dot (staging)
    // 1152 with the 2 x 2 grid; what remains is K^T's staging: 32 16-bit stores a thread, the 8
    // lanes holding different k of a column 8 rows (8 x 144 bytes) apart, one bank: 7 extra x 32 x 4 warps
    const perIter = (two.sharedBankConflicts - one.sharedBankConflicts) / 2;
    expect(perIter).toBeLessThanOrEqual(7 * 32 * 4);
  });
});

describe('A operand of a chained dot from registers', () => {
  it.each(['f16', 'bf16'] as const)('%s flash attention 64 x 64 x 64: P is packed from the accumulator (no st.shared of P, half the ldmatrix)', (t) => {
    const { sm80, sm90 } = gate(flash(t), { numWarps: 4 });
    for (const r of [sm80, sm90]) {
      const body = loopBody(r.ptx);
      // dot 1 reads Q with ldmatrix (4 k-steps, one m16 tile a warp); dot 2 reads no a fragment
      expect(count(body, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(4);
      // what is stored to shared memory is Q, K^T and V (64 x 64 halves each over 128 threads,
      // 16-bit stores without specialization); P's f16x2 words are not
      expect(count(body, /st\.shared\.b16/)).toBe(3 * 32);
      expect(count(body, /st\.shared\.(b32|v2|v4)/)).toBe(0);
      // one b32 per A register: 4 k-steps x 4 registers, each packing two rounded halves
      expect(count(body, /mov\.b32 %r\d+, \{%(h|rs)\d+, %(h|rs)\d+\};/)).toBe(16);
    }
  });

  it('a dot whose a is in a 2 x 2 accumulator layout still stages it (BM = 32 on 4 warps)', () => {
    const r = compile(flash('f16', { BM: 32, BN: 32, D: 32 }), { target: 'sm_80', numWarps: 4, ptxas: false });
    // 32 rows fit two m16 warps only: the grid is 2 x 2, P goes through shared memory (ldmatrix for both dots)
    expect(count(loopBody(r.ptx), /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(2 * 2);
  });
});
