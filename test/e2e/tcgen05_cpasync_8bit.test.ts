// 1-byte operands (fp8 e4m3/e5m2, s8) and masked loads on the cp.async ring of a tcgen05 dot
// (sm_100a; compiler/ring_8bit_tcgen05.ts, pipeline/lower_pipeline.ts): 16-byte cp.async of the
// byte rows straight into the swizzled stages, masked-off chunks zero-filled (src-size 0), b
// loaded [K, N] staged [K, N] and read MN-major (kind::f8f6f4 / kind::i8 take 8-bit MN-major
// operands), b loaded k-fastest staged transposed (K-major); the MMAs stay in flight on the
// stages' EMPTY barriers. Small integer inputs: every product and partial sum is exact, so the
// sim (as a B200), the interpreter and a JS reference agree bit for bit. PTX: the loop copies
// with cp.async and stores no operand with st.shared; where a 1-byte tile cannot ride the ring
// the 'pipeline' stage says why and the result is still exact.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import type { DType } from '../../src/ir/types.js';
import { f8e4m3Bits, f8e5m2Bits } from '../../src/ir/fp8.js';
import { bf16Array, f16Array } from '../../src/ir/half.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { EMPTY_WAIT, FINAL_WAIT } from '../../src/codegen/pipeline/tcgen05_ring.js';
import { count, gateTargets } from '../codegen/gate.js';
import { expectBitwise, lcg, runOn, simDevice } from './helpers.js';
import { ptrMatmul } from './tcgen05_cpasync_8bit_cases.js';

type In = 'f8e4m3' | 'f8e5m2' | 'i8' | 'f16' | 'bf16';
const enc = (t: In, vals: number[]): ArrayBufferView => {
  if (t === 'i8') return Int8Array.from(vals);
  if (t === 'f16') return f16Array(Float32Array.from(vals));
  if (t === 'bf16') return bf16Array(Float32Array.from(vals));
  return Uint8Array.from(vals, (v) => (t === 'f8e4m3' ? f8e4m3Bits(v) : f8e5m2Bits(v)));
};

interface Problem { args: Record<string, unknown>; want: Float32Array | Int32Array; grid: [number, number] }
function problem(ta: In, tb: In, acc: 'f32' | 'i32', BM: number, BN: number, BK: number, M: number, N: number, K: number, BT: number, MASKED: number): Problem {
  const r = lcg(M * 7 + N * 3 + K + BT);
  const small = (): number => Math.floor(r() * 7) - 3;
  const av = Array.from({ length: M * K }, small), bv = Array.from({ length: K * N }, small); // bv[k * N + n]
  const bStored = BT ? Array.from({ length: N * K }, (_, i) => bv[(i % K) * N + Math.floor(i / K)]!) : bv; // bt [N, K]
  const want = acc === 'f32' ? new Float32Array(M * N) : new Int32Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += av[i * K + k]! * bv[k * N + j]!;
    want[i * N + j] = s;
  }
  const c = acc === 'f32' ? new Float32Array(M * N) : new Int32Array(M * N);
  return { args: { a: enc(ta, av), b: enc(tb, bStored), c, M, N, K, BM, BN, BK, BT, MASKED }, want, grid: [Math.ceil(M / BM), Math.ceil(N / BN)] };
}

/** The PTX and pipeline stage of the kernel as a launch with `args` specializes it. */
function compiled(ta: In, tb: In, acc: 'f32' | 'i32', args: Record<string, unknown>, numWarps: number, numStages: number, target: 'sm_100a' | 'sm_90a' = 'sm_100a') {
  const k = ptrMatmul(ta as DType, tb as DType, acc);
  const cx: Record<string, number> = {};
  for (const n of k.def.constexprNames) cx[n] = args[n] as number;
  const f = k.trace(cx);
  const positional = k.def.runtimeParams.map((p) => args[p.name] as LaunchArg);
  const r = gateTargets(f, [target], { numWarps, numStages, specialization: launchSpecialization(f, positional) })[target]!;
  return { ptx: r.ptx, pipeline: r.stages.find((s) => s.name === 'pipeline')!.text };
}

/** The body of the pipelined loop (from its label to the loop's end label). */
const loopOf = (ptx: string): string => {
  const at = ptx.search(/\n\$L_pfor_?\d*:/);
  expect(at, 'a pipelined (cp.async ring) loop').toBeGreaterThan(0);
  return ptx.slice(at, ptx.search(/\n\$L_endpfor_?\d*:/));
};

async function runAll(ta: In, tb: In, acc: 'f32' | 'i32', p: Problem, numWarps: number, numStages: number): Promise<void> {
  const k = ptrMatmul(ta as DType, tb as DType, acc);
  for (const dev of ['sim', 'interpret'] as const) {
    const args = { ...p.args, c: acc === 'f32' ? new Float32Array(p.want.length) : new Int32Array(p.want.length) };
    await runOn(dev, k, args as never, p.grid, { numWarps, numStages });
    expectBitwise(args.c, p.want, `${dev} vs JS`);
  }
}

type Case = [ta: In, tb: In, acc: 'f32' | 'i32', BM: number, BN: number, BK: number, numWarps: number, M: number, N: number, K: number, BT: number, MASKED: number, stages: number];
const ONE_BYTE: Case[] = [
  // ta, tb, acc, BM, BN, BK, warps, M, N, K, BT, MASKED, stages
  ['f8e4m3', 'f8e4m3', 'f32', 128, 128, 128, 4, 128, 128, 384, 0, 0, 3],
  ['f8e4m3', 'f8e4m3', 'f32', 128, 128, 128, 4, 128, 256, 256, 1, 0, 2],
  ['f8e5m2', 'f8e4m3', 'f32', 128, 256, 128, 8, 128, 256, 256, 0, 0, 3],
  ['f8e5m2', 'f8e5m2', 'f32', 128, 256, 128, 8, 256, 256, 128, 1, 0, 2],
  // ragged M, N and K (K not a multiple of the tile: the last k-tile partly zero-filled)
  ['f8e4m3', 'f8e4m3', 'f32', 128, 128, 128, 4, 200, 144, 208, 0, 1, 3],
  ['f8e4m3', 'f8e5m2', 'f32', 128, 128, 128, 4, 144, 176, 336, 1, 1, 2],
  ['f8e5m2', 'f8e4m3', 'f32', 128, 256, 128, 8, 144, 272, 336, 0, 1, 3],
  ['i8', 'i8', 'i32', 128, 128, 128, 4, 200, 144, 208, 0, 1, 3],
];

describe('1-byte operands on the tcgen05 cp.async ring', () => {
  it('the sim is an sm_100', () => expect(simDevice().target).toBe('sm_100a'));

  it.each(ONE_BYTE)('%s x %s -> %s, %dx%dx%d on %d warps, M %d N %d K %d, BT %d, masked %d, %d stages: sim = interpreter = JS; cp.async, no st.shared in the loop', async (ta, tb, acc, BM, BN, BK, numWarps, M, N, K, BT, MASKED, S) => {
    const p = problem(ta, tb, acc, BM, BN, BK, M, N, K, BT, MASKED);
    await runAll(ta, tb, acc, p, numWarps, S);
    const { ptx, pipeline } = compiled(ta, tb, acc, p.args, numWarps, S);
    expect(pipeline).toMatch(new RegExp(`load %\\d+: ${ta}\\[${BM}x${BK}\\] cp\\.async 16 bytes${MASKED ? ' zero-fill' : ''} `));
    expect(pipeline).toMatch(new RegExp(`load %\\d+: ${tb}\\[${BK}x${BN}\\] cp\\.async 16 bytes${MASKED ? ' zero-fill' : ''}${BT ? ' staged transposed' : ''} `));
    expect(ptx).toContain('the tcgen05 MMAs stay in flight, committed to an empty mbarrier per stage');
    expect(ptx).toContain(EMPTY_WAIT);
    expect(ptx).toContain(FINAL_WAIT);
    const loop = loopOf(ptx);
    expect(count(loop, /cp\.async\.cg\.shared\.global \[[^\]]+\], \[[^\]]+\], 16/)).toBeGreaterThan(0);
    if (MASKED) expect(loop).toMatch(/selp\.u32 %r\d+, 16, 0, %p\d+;/); // masked-off chunks: src-size 0
    expect(loop).not.toMatch(/\bst\.shared/); // no operand stored from registers
    expect(count(loop, new RegExp(`tcgen05\\.mma\\.cta_group::1\\.kind::${acc === 'f32' ? 'f8f6f4' : 'i8'} `))).toBe(BK / 32);
  });
});

describe('1-byte tiles the ring leaves alone say why, and stay exact', () => {
  it('a K not provably a multiple of 16 (K 200): no 4-byte aligned runs; staged from registers', async () => {
    const p = problem('f8e4m3', 'f8e4m3', 'f32', 128, 128, 128, 200, 144, 200, 0, 1);
    await runAll('f8e4m3', 'f8e4m3', 'f32', p, 4, 3);
    const { pipeline } = compiled('f8e4m3', 'f8e4m3', 'f32', p.args, 4, 3);
    expect(pipeline).toMatch(/load %\d+ not pipelined: AxisInfo proves no 4-byte aligned, uniformly masked runs along dim 1/);
  });

  it('b rows of 16 bytes (BN 16, [K, N]) are narrower than the swizzle: b staged from registers, a on the ring', async () => {
    const p = problem('f8e4m3', 'f8e4m3', 'f32', 128, 16, 64, 128, 32, 128, 0, 0);
    await runAll('f8e4m3', 'f8e4m3', 'f32', p, 4, 2);
    const { pipeline } = compiled('f8e4m3', 'f8e4m3', 'f32', p.args, 4, 2);
    expect(pipeline).toMatch(/load %\d+ not pipelined: its staged rows of 16 bytes are not a multiple of the 32-byte swizzle tcgen05 reads/);
    expect(pipeline).toMatch(/load %\d+: f8e4m3\[128x64\] cp\.async 16 bytes/);
  });

  it('on sm_90a (wgmma reads 8-bit B K-major only, from registers) the tiles stay off the cp.async ring', () => {
    const p = problem('f8e4m3', 'f8e4m3', 'f32', 64, 64, 64, 64, 64, 128, 0, 0);
    const { pipeline } = compiled('f8e4m3', 'f8e4m3', 'f32', p.args, 4, 3, 'sm_90a');
    expect(pipeline).toMatch(/not pipelined: f8e4m3 is not a 2-byte dtype \(1-byte tiles ride the ring for tcgen05 dots only, on sm_100a\)/);
  });
});

// masked 16-bit loads already ride the ring (zero-fill) where AxisInfo proves 16-byte chunks
// uniformly masked: ragged M, N and K (K not a multiple of the tile), 2 and 3 stages
const MASKED_16: Case[] = [
  ['f16', 'f16', 'f32', 128, 128, 64, 4, 200, 144, 208, 0, 1, 3],
  ['bf16', 'bf16', 'f32', 128, 128, 64, 4, 200, 144, 208, 0, 1, 2],
  ['f16', 'f16', 'f32', 128, 256, 64, 8, 136, 272, 176, 0, 1, 2],
  ['bf16', 'bf16', 'f32', 128, 256, 64, 8, 136, 272, 176, 1, 1, 3],
];

describe('masked 16-bit loads on the tcgen05 cp.async ring', () => {
  it.each(MASKED_16)('%s x %s -> %s, %dx%dx%d on %d warps, M %d N %d K %d, BT %d, masked %d, %d stages: sim = interpreter = JS; zero-filled cp.async', async (ta, tb, acc, BM, BN, BK, numWarps, M, N, K, BT, MASKED, S) => {
    const p = problem(ta, tb, acc, BM, BN, BK, M, N, K, BT, MASKED);
    await runAll(ta, tb, acc, p, numWarps, S);
    const { ptx } = compiled(ta, tb, acc, p.args, numWarps, S);
    const loop = loopOf(ptx);
    expect(ptx).toContain(EMPTY_WAIT);
    expect(loop).toMatch(/selp\.u32 %r\d+, 16, 0, %p\d+;/);
    expect(loop).not.toMatch(/\bst\.shared/);
  });
});

describe('the sanitizers find nothing on the 1-byte ring', () => {
  it.each([
    ['f8e4m3', 'f8e4m3', 'f32', 128, 128, 128, 4, 200, 144, 208, 0, 1, 3],
    ['f8e5m2', 'f8e4m3', 'f32', 128, 256, 128, 8, 128, 256, 256, 1, 0, 2],
  ] as Case[])('%s x %s -> %s, %dx%dx%d tiles: racecheck, synccheck, initcheck clean', async (ta, tb, acc, BM, BN, BK, numWarps, M, N, K, BT, MASKED, S) => {
    const p = problem(ta, tb, acc, BM, BN, BK, M, N, K, BT, MASKED);
    const c = new Float32Array(M * N);
    await ptrMatmul(ta as DType, tb as DType, acc).run({ ...p.args, c } as never, { grid: p.grid, device: 'sim', numWarps, numStages: S, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    expectBitwise(c, p.want, 'under the sanitizers');
  });
});
