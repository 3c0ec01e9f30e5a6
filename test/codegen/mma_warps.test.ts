// Warp grids of tensor-core dots (compiler/mma_warps.ts + layout.ts mmaLayout) and what they buy
// flash attention: chained dots and dots reduced along N put their warps along M, so the online
// softmax's row max/sum are lane shuffles and the row statistics (m_i, l_i, alpha) stay in the
// accumulator's row layout across the loop's back edge. Checked on the layouts, on the PTX and
// with the sim's counters (barriers and bank conflicts per loop iteration). Numerical results of
// flash attention: test/e2e/matmul_tc.test.ts.
import { describe, expect, it } from 'vitest';
import type { Func, Op } from '../../src/ir/ops.js';
import { compile } from '../../src/compile/compile.js';
import { mmaLayout } from '../../src/compiler/layout.js';
import { dotWarpPrefs } from '../../src/compiler/mma_warps.js';
import { flashAttention } from '../../bench/kernels.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { expectClose, randF32, runBoth, simDevice } from '../e2e/helpers.js';
import { attentionRef } from '../e2e/tc_matmul_cases.js';
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

/** Largest |a - b| relative to the largest |b|. */
const maxErr = (a: Float32Array, b: Float64Array): number => {
  const big = b.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0) / big;
};

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

  // Q's fragments are loaded once, before the loop (mma_a_hoist.ts). Specialized, K^T and V are
  // pipelined (a cp.async ring: two barriers per iteration, one after the copies land and one
  // before they overwrite the stage just read); unspecialized, K^T and V stage from registers
  // (two barriers each)
  it.each([[false, 4], [true, 2]] as const)('flash attention on the sim (specialized %s): %i barriers and no bank conflicts per loop iteration, output right', (specialized, barriers) => {
    const dev = simDevice().native;
    // specialized as the launcher does for aligned inputs (the bench's PTX): 16-byte K^T rows
    const spec = specialized ? Object.fromEntries(['q', 'k', 'v', 'o', 'L'].map((n) => [n, { divisibleBy16: true }])) : undefined;
    const r = compile(flash('f16'), { target: 'sm_80', numWarps: 4, ptxas: false, ...(spec ? { specialization: spec } : {}) });
    const D = 64, scale = 0.125;
    const run = (L: number) => {
      const x = [64 * D, L * D, L * D].map((n, i) => f16Array(randF32(n, 50 + i)));
      const bufs = [...x.map((a) => dev.alloc(a.byteLength)), dev.alloc(64 * D * 4)];
      try {
        x.forEach((a, i) => dev.upload(bufs[i]!, a));
        dev.launch(r, [...bufs, L, scale], 1);
        dev.synchronize();
        const o = dev.download(bufs[3]!) as Uint8Array;
        const out = new Float32Array(o.buffer, o.byteOffset, 64 * D);
        const [q, k, v] = x.map((a) => f16ToFloat32(a));
        return { c: dev.simCounters()!, err: maxErr(out, attentionRef(q!, k!, v!, L, D, scale, false, 64)) };
      } finally {
        for (const b of bufs) dev.free(b);
      }
    };
    const one = run(128), two = run(256); // 2 and 4 iterations
    expect(Math.max(one.err, two.err)).toBeLessThan(4e-3);
    expect((two.c.barriers - one.c.barriers) / 2).toBe(barriers); // CTA barriers: 2 per staged dot
    // 1152 with the 2 x 2 grid; K^T, contiguous along k, is staged as [BN, D] (rows along k)
    expect((two.c.sharedBankConflicts - one.c.sharedBankConflicts) / 2).toBe(0);
  });
});

describe('A operand of a chained dot from registers', () => {
  it.each(['f16', 'bf16'] as const)('%s flash attention 64 x 64 x 64: P is packed from the accumulator (no st.shared of P, half the ldmatrix)', (t) => {
    const { sm80, sm90 } = gate(flash(t), { numWarps: 4 });
    for (const r of [sm80, sm90]) {
      const body = loopBody(r.ptx);
      // non-.trans ldmatrix: K^T (staged as [BN, D], 4 pairs of n8 tiles a k-step); Q's 4 are
      // before the loop; dot 2 reads no a fragment (P staged would add 4), V with .trans
      expect(count(body, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(16);
      expect(count(r.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(4 + 16);
      expect(count(body, /ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16/)).toBe(16);
      // what the loop stores to shared memory is K^T and V (64 x 64 halves each over 128 threads,
      // 16-bit stores without specialization); Q once before the loop; P's f16x2 words not at all
      expect(count(body, /st\.shared\.b16/)).toBe(2 * 32);
      expect(count(r.ptx, /st\.shared\.b16/)).toBe(3 * 32);
      expect(count(body, /st\.shared\.(b32|v2|v4)/)).toBe(0);
      // one b32 per A register: 4 k-steps x 4 registers, each the word one cvt.rn.{f16,bf16}x2.f32
      // rounded two elements of P into (no packing of halves, no scalar cvt to f16)
      expect(count(body, new RegExp(`cvt\\.rn\\.${t}x2\\.f32 %r\\d+, %f\\d+, %f\\d+;`))).toBe(16);
      expect(count(body, /mov\.b32 %r\d+, \{%(h|rs)\d+, %(h|rs)\d+\};/)).toBe(0);
      expect(body).not.toMatch(new RegExp(`cvt\\.rn\\.${t}\\.f32`));
    }
  });

  it('a dot whose a is in a 2 x 2 accumulator layout still stages it (BM = 32 on 4 warps)', () => {
    const r = compile(flash('f16', { BM: 32, BN: 32, D: 32 }), { target: 'sm_80', numWarps: 4, ptxas: false });
    // 32 rows fit two m16 warps only: the grid is 2 x 2, P goes through shared memory; per k-step
    // (2) one ldmatrix each for K^T (one pair of n8 tiles a warp) and P (Q's before the loop)
    expect(count(loopBody(r.ptx), /ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/)).toBe(2 * 2);
  });

  it('b = trans(a [N, K] tile) is staged as [N, K] and read with plain ldmatrix (x2 for one n8 tile), right on the sim', async () => {
    // c [16, 8] = a [16, 16] @ trans(bt [8, 16]) on one warp: one n8 tile, so the b read is an x2
    const f = kernel('mm_bt', [['a', P('f16')], ['bt', P('f16')], ['c', P('f32')]], (k, [a, bt, c]) => {
      const idx = (R: number, C: number) => k.bin('add', k.broadcast(k.bin('mul', k.expand(k.arange(R), 1), k.c(C, 'i32', [R, 1])), [R, C]), k.broadcast(k.expand(k.arange(C), 0), [R, C]));
      const d = k.dot(k.load(k.addptr(a!, idx(16, 16))), k.trans(k.load(k.addptr(bt!, idx(8, 16)))), k.c(0, 'f32', [16, 8]));
      k.store(k.addptr(c!, idx(16, 8)), d);
    });
    const { sm80 } = gate(f, { numWarps: 1 });
    expect(count(sm80.ptx, /ldmatrix\.sync\.aligned\.m8n8\.x2\.shared\.b16/)).toBe(1);
    expect(sm80.ptx).not.toMatch(/\.trans/);
    const a = f16Array(randF32(16 * 16, 61)), bt = f16Array(randF32(8 * 16, 62));
    const r = await runBoth(f, [a, bt, new Float32Array(16 * 8)], 1, { numWarps: 1 });
    const [fa, fb] = [f16ToFloat32(a), f16ToFloat32(bt)];
    const want = Array.from({ length: 16 * 8 }, (_, i) => { let s = 0; for (let x = 0; x < 16; x++) s += fa[Math.floor(i / 8) * 16 + x]! * fb[(i % 8) * 16 + x]!; return s; });
    expectClose(r.sim[2] as Float32Array, r.interpret[2] as Float32Array, 1e-6, 'sim vs interpreter');
    expectClose(r.sim[2] as Float32Array, want, 1e-5, 'sim vs JS');
  });
});
