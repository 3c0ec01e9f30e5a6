// FA3-style attention on the sim as an sm_90 (compiled for sm_90a): the KV loop `warpSpecialize:
// true` (bench/fa3_kernels.ts) becomes a producer warpgroup filling a ring whose stages carry a K
// and a V tile (TMA), and two consumer warpgroups of 64 query rows each running S = Q K^T and
// O += P V on wgmma with the online softmax between (pipeline/ws_attention.ts). Each shape is
// checked against an f64 JS reference, the interpreter, and bit for bit against the same kernel
// without the option; ragged tails (L not a multiple of BN or BM), causal and not, D 64 and 128,
// KV loops of one step and of more steps than stages. Then the PTX's structure and ptxas.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { count } from '../codegen/gate.js';
import { expectClose, runOn } from './helpers.js';
import { compileFa3, fa3Attention, fa3Inputs, fa3Want, fa3Bm, fa3Warps, type Fa3Shape } from './fa3_cases.js';

const CASES: [string, Fa3Shape][] = [
  ['D 64, L 300: ragged tail, 3 KV steps through 2 stages', { L: 300, D: 64, BN: 128, stages: 2, causal: false }],
  ['D 64 causal, L 300', { L: 300, D: 64, BN: 128, stages: 2, causal: true }],
  ['D 128 causal, L 300, BN 128', { L: 300, D: 128, BN: 128, stages: 2, causal: true }],
  ['D 128, L 330, BN 64: 6 KV steps through 3 stages', { L: 330, D: 128, BN: 64, stages: 3, causal: false }],
  ['a KV loop of one step: D 64, L 100 (under BN and BM)', { L: 100, D: 64, BN: 128, stages: 2, causal: false }],
  ['a KV loop of one step: D 128 causal, L 100', { L: 100, D: 128, BN: 128, stages: 2, causal: true }],
  // one consumer warpgroup (numWarps 4, BM 64)
  ['1 consumer warpgroup: D 64, L 230, BN 64', { L: 230, D: 64, BN: 64, stages: 2, causal: false, warps: 4 }],
  ['1 consumer warpgroup: D 128 causal, L 200', { L: 200, D: 128, BN: 128, stages: 2, causal: true, warps: 4 }],
];

describe('FA3-style warp-specialized attention on the sim (sm_90a)', () => {
  it.each(CASES)('%s', async (_, s) => {
    const { L, D, BN, stages, causal } = s;
    const [warps, BM] = [fa3Warps(s), fa3Bm(s)];
    const r = compileFa3(s, true);
    const pipeline = r.stages.find((x) => x.name === 'pipeline')!.text;
    expect(pipeline).toMatch(new RegExp(`warp-specialized: 1 producer warpgroup \\(TMA, 2 tile\\(s\\)\\), ${warps / 4} consumer warpgroup\\(s\\)`));
    expect(r.metadata.producerWarps).toBe(4);
    expect(r.ptx).toContain(`.reqntid ${32 * (warps + 4)}, 1, 1`);
    const x = fa3Inputs(L, D, 11 + D + (causal ? 1 : 0));
    const args = { ...x, o: new Float32Array(L * D), L, BM, BN, D, CAUSAL: causal };
    const run = async (dev: 'interpret' | 'sim', ws: boolean): Promise<Float32Array> => {
      const o = new Float32Array(L * D);
      await runOn(dev, fa3Attention, { ...args, o, WS: ws }, [Math.ceil(L / BM)], { numWarps: warps, numStages: stages });
      return o;
    };
    const [interp, sim] = [await run('interpret', true), await run('sim', true)];
    // P is rounded to f16 before P V (as FA3 and Triton's tutorial do): 2e-3 of an f64 reference
    expectClose(interp, fa3Want(x, L, D, causal), 2e-3, 'interpreter vs JS');
    // the sim's exp is ex2.approx: a P near an f16 rounding boundary may round the other way (as
    // the flash tests of matmul_wgmma.test.ts allow); the sim's own bits are pinned just below
    expectClose(sim, interp, 1e-3, 'sim vs interpreter');
    expectClose(sim, fa3Want(x, L, D, causal), 2e-3, 'sim vs JS');
    // bit for bit the same kernel without warp specialization (the same wgmma and softmax, in order)
    expect(Array.from(sim)).toEqual(Array.from(await run('sim', false)));
  });
});

describe('the warp-specialized attention PTX', () => {
  // [D, consumer warps, the consumers' setmaxnreg.inc]: 8 consumer warps + 4 producer warps share 64K registers
  it.each([[64, 8, 232], [128, 8, 232], [64, 4, 256], [128, 4, 256]] as const)('D %i, %i consumer warps: producer partition, setmaxnreg, the K/V mbarrier ring, no bar.sync in the producer; ptxas-clean without spills', (D, warps, inc) => {
    const s = { D, BN: 128, stages: 2, causal: true, warps };
    const r = compileFa3(s, true, true);
    const ptx = r.ptx;
    const at = ptx.indexOf('ws_producer:');
    expect(at).toBeGreaterThan(0);
    const [consumer, producer] = [ptx.slice(0, at), ptx.slice(at)];
    expect(count(ptx, /setmaxnreg\.dec\.sync\.aligned\.u32 40;/)).toBe(1);
    expect(count(ptx, new RegExp(`setmaxnreg\\.inc\.sync\.aligned\.u32 ${inc};`))).toBe(1);
    expect(producer).toMatch(/setmaxnreg\.dec/);
    // the ring: a full (1 arrival + bytes) and an empty (one arrival per consumer thread) mbarrier per stage; Q's own
    expect(count(ptx, /mbarrier\.init\.shared::cta\.b64 \[%r\d+(\+\d+)?\], 1;/)).toBe(3);
    expect(count(ptx, new RegExp(`mbarrier\\.init\\.shared::cta\\.b64 \\[%r\\d+(\\+\\d+)?\\], ${32 * warps};`))).toBe(2);
    // the producer issues K and V of a step on one full mbarrier (K: D*2 bytes a row, V the same)
    expect(producer).toMatch(new RegExp(`mbarrier\\.arrive\\.expect_tx\\.shared::cta\\.b64 _, \\[%r\\d+\\], ${2 * 128 * D * 2};`));
    expect(count(producer, /cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes/)).toBe(2 * (D * 2 / 128));
    expect(count(producer, /mbarrier\.try_wait\.parity/)).toBe(1); // the empty wait
    expect(producer).not.toMatch(/bar\.sync|barrier\.sync|bar\.arrive 1/);
    // the consumers: the full wait in the loop, the release after the body, no shared memory in the loop
    const loop = consumer.slice(consumer.indexOf('// warp-specialized loop (consumers)'));
    const body = loop.slice(0, loop.indexOf('bra.uni $L_wsfor'));
    expect(count(body, /mbarrier\.try_wait\.parity/)).toBe(1);
    expect(count(body, /mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\];/)).toBe(1);
    expect(body).not.toMatch(/st\.shared|ld\.shared|ldmatrix/);
    // S = Q K^T: Q from registers (hoisted before the loop), K^T staged K-major (trans-b 0); P V: P from registers, V MN-major
    expect(count(body, /wgmma\.mma_async\S*m64n128k16\S* \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %p\d+, 1, 1, 0;/)).toBe(D / 16);
    expect(count(body, new RegExp(`wgmma\\.mma_async\\S*m64n${D}k16\\S* \\{[^}]*\\}, \\{%r\\d+, %r\\d+, %r\\d+, %r\\d+\\}, %rd\\d+, %p\\d+, 1, 1, 1;`))).toBe(128 / 16);
    expect(r.metadata.spills, r.metadata.ptxasLog).toBe(0);
    expect(r.metadata.ptxasLog).not.toMatch(/warning/i);
  });
});
