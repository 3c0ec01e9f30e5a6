// 2-CTA tcgen05 MMA on the persistent warp-specialized sm_100a loop (ws_tcgen05.ts with
// ws_tcgen05_pair.ts; the accumulator double-buffered in TMEM): bench/ws_cluster_kernels.ts's
// matmul with CX 2, CY 1, whose tile loop walks pair tiles (programId(2) stepping by
// numPrograms(2)) on a grid [2, 1, programs] launched in [2, 1, 1] clusters, each CTA's rows offset
// by programId(0). Per tile the even CTA's MMA warp issues the 256-row pair MMAs into buffer t%2 of
// both CTAs' TMEM and commits ACC_FULL to both; before it reuses a buffer it waits its own
// epilogue's ACC_EMPTY and the odd CTA's, relayed by the odd CTA's MMA warp (ACC_PEER). Small-integer
// inputs (exact sums, exact f16): bit for bit a JS reference, the interpreter and the same kernel
// on cta_group::1, at 1, 2 and 3+ pair tiles per cluster (both buffers reused), a program count
// that does not divide the tiles, ragged M/N/K (a CTA past M runs its tiles with its peer).
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { ACC_EMPTY_WAIT, WS_MMA } from '../../src/codegen/pipeline/ws_tcgen05.js';
import { PAIR_RELAY } from '../../src/codegen/pipeline/ws_tcgen05_pair.js';
import { persistentWsMatmul } from '../../bench/ws_kernels.js';
import { count } from '../codegen/gate.js';
import { expectBitwise } from './helpers.js';
import { ints, reference } from './persistent_ws_cases.js';
import { clusterPersistentWsMatmul } from './ws_multicast_persistent_cases.js';

interface Tile { BN: number; numWarps: number }
const T128: Tile = { BN: 128, numWarps: 4 };
const T256: Tile = { BN: 256, numWarps: 8 };
const CLUSTER = [2, 1, 1] as [number, number, number];
const constexprs = (t: Tile) => ({ BM: 128, BN: t.BN, BK: 64, GROUP_M: 2, CX: 2, CY: 1, WS: true });
const pipelineNote = (r: CompileResult): string => r.stages.find((s) => s.name === 'pipeline')!.text;
const build = (t: Tile, twoCta: boolean, ptxas = false): CompileResult =>
  compile(clusterPersistentWsMatmul, { target: 'sm_100a', numWarps: t.numWarps, numStages: 3, ptxas, clusterDims: CLUSTER, ...(twoCta ? { twoCta: true } : {}), constexprs: constexprs(t) });

/** c's f16 bits from a run through the runtime on a grid [2, 1, programs] in [2, 1, 1] clusters. */
async function run(device: 'sim' | 'interpret', t: Tile, twoCta: boolean, a: Uint16Array, b: Uint16Array, M: number, N: number, K: number, programs: number): Promise<Uint16Array> {
  const c = new Uint16Array(M * N).fill(0x7e00); // NaN: a tile never stored shows
  await clusterPersistentWsMatmul.run({ a, b, c, M, N, K, ...constexprs(t) } as never, {
    grid: [2, 1, programs], device, numWarps: t.numWarps, numStages: 3, clusterDims: CLUSTER, ...(twoCta ? { twoCta: true } : {}),
  });
  return c;
}
const allTiles = (M: number, N: number, BN: number): [number, number][] =>
  Array.from({ length: Math.ceil(M / 128) * Math.ceil(N / BN) }, (_, i) => [Math.floor(i / Math.ceil(N / BN)), i % Math.ceil(N / BN)]);

// name, tile, M, N, K, program counts (grid z): pair tiles per cluster 1, 2, 3+ and uneven
const CASES: [string, Tile, number, number, number, number[]][] = [
  ['128x128x64 per CTA, 4 warps: 4x3 tiles = 6 pair tiles, K 320 (5 steps > 3 stages)', T128, 512, 384, 320, [6, 2, 1, 4]],
  ['ragged: M 328 (a CTA past M), N 200, K 200 (the last step partial)', T128, 328, 200, 200, [2, 1]],
  ['128x256x64 per CTA, 8 warps (TMEM 2 x 256 columns): 4x2 tiles, K 64 (a K loop of 1)', T256, 512, 512, 64, [2, 1]],
];

describe('2-CTA persistent warp-specialized tcgen05 matmul, the accumulator double-buffered in TMEM (sim, sm_100a)', () => {
  it.each(CASES)('%s', async (_, t, M, N, K, programs) => {
    const r = build(t, true);
    expect(pipelineNote(r)).toMatch(/inside tile loop %\d+, which the load and MMA warps run too: the accumulator double-buffered/);
    expect(pipelineNote(r)).toContain('twoCta: the warp-specialized K loop runs as one 256-row tcgen05.mma.cta_group::2');
    expect(count(r.ptx, /tcgen05\.[a-z_]+\.cta_group::1/)).toBe(0);
    expect(r.ptx).toMatch(new RegExp(`tcgen05\\.alloc\\.cta_group::2\\.sync\\.aligned\\.shared::cta\\.b32 \\[%r\\d+\\], ${2 * t.BN};`));
    expect(count(r.ptx, /mbarrier\.init/)).toBe(3 * 3 + 4 + 1 + 2); // full, empty, PEER per stage; ACC_FULL/ACC_EMPTY per buffer; tile done; ACC_PEER per buffer
    const mma = r.ptx.slice(r.ptx.indexOf(`${WS_MMA}:`), r.ptx.indexOf(`${PAIR_RELAY}:`));
    const relay = r.ptx.slice(r.ptx.indexOf(`${PAIR_RELAY}:`));
    // the leader: its ACC_EMPTY wait, then the odd CTA's (ACC_PEER); ACC_FULL committed to both CTAs
    const accEmpty = mma.indexOf(ACC_EMPTY_WAIT);
    expect(accEmpty).toBeGreaterThan(0);
    expect(mma.slice(accEmpty).search(/ACC_PEER/)).toBeGreaterThan(0);
    expect(count(mma, /tcgen05\.commit\.cta_group::2\.mbarrier::arrive::one\.shared::cluster\.multicast::cluster/)).toBe(2);
    // the relay: stage-fulls and the buffer's ACC_EMPTY, both to the leader
    expect(count(relay, /mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64/)).toBe(2);
    expect(count(relay, /tcgen05/)).toBe(0);
    const a = ints(M * K, 21), b = ints(K * N, 22);
    const want = reference(a, b, M, N, K, 128, t.BN, allTiles(M, N, t.BN));
    for (const p of programs) {
      const per = Math.ceil(Math.ceil(Math.ceil(M / 128) / 2) * Math.ceil(N / t.BN) / p);
      expectBitwise(await run('sim', t, true, a, b, M, N, K, p), want, `pair, ${p} clusters (up to ${per} pair tiles each) vs JS`);
    }
    const p = programs[programs.length - 1]!;
    expectBitwise(await run('sim', t, false, a, b, M, N, K, p), want, 'the same kernel on cta_group::1 vs JS');
    expectBitwise(await run('interpret', t, false, a, b, M, N, K, p), want, 'interpreter vs JS');
  });

  it.each([['128x128x64 per CTA, 4 warps', T128], ['128x256x64 per CTA, 8 warps', T256]] as const)('%s: ptxas for sm_100a clean, no spills', (_, t) => {
    const r = build(t, true, true);
    expect(r.ptx).toContain(`${PAIR_RELAY}:`);
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(r.metadata.ptxasLog).not.toMatch(/warning/i);
  });

  it('the sim sanitizers (racecheck, synccheck, initcheck): clean, 3 pair tiles per cluster', async () => {
    const [M, N, K] = [512, 384, 192];
    const a = ints(M * K, 31), b = ints(K * N, 32);
    const c = new Uint16Array(M * N).fill(0x7e00);
    await clusterPersistentWsMatmul.run({ a, b, c, M, N, K, ...constexprs(T128) } as never, {
      grid: [2, 1, 2], device: 'sim', numWarps: 4, numStages: 3, clusterDims: CLUSTER, twoCta: true, sanitize: ['racecheck', 'synccheck', 'initcheck'],
    });
    expectBitwise(c, reference(a, b, M, N, K, 128, 128, allTiles(M, N, 128)), 'sanitized pair vs JS');
  });

  it("a tile loop over programId(0) (persistentTiles' default) keeps cta_group::1 and says why", () => {
    const r = compile(persistentWsMatmul, { target: 'sm_100a', numWarps: 4, numStages: 3, ptxas: false, twoCta: true, clusterDims: CLUSTER, constexprs: { BM: 128, BN: 128, BK: 64, GROUP_M: 2, WS: true } });
    expect(pipelineNote(r)).toMatch(/twoCta: kept cta_group::1: the persistent tile loop's bounds or step may differ between the two CTAs of a pair/);
    expect(r.ptx).not.toMatch(/cta_group::2/);
  });
});
