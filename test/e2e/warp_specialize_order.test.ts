// Program order around a warp-specialized K loop (docs/semantics.md: a load sees every earlier
// store of its program). The producer warpgroup starts issuing the loop's TMA loads as soon as the
// partitions part, while the consumers still run the code before the loop; when that code writes
// a tensor the loop reads (a pointer store or a descriptor store into a's first K block), the
// loads must see the writes. Checked on the sim against the interpreter and a JS reference (small
// integers: exact), for the plain form and the persistent form (a write before the tile loop).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { arange, cdiv, constexpr, dot, forLoop, load, makeTensorDescriptor, persistentTiles, programId, ptr, store, Tile, zeros } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { f16Array } from '../../src/ir/half.js';
import { runOn, simDevice } from './helpers.js';
import { wsMatmul } from './ws_cases.js';

const T = 64; // the tile: BM = BN = BK

/** Writes x (a T x T tile) over a's first K block of row block 0 the way `MODE` says. */
const preWrite = (a: Tile, x: Tile, K: Tile, mode: string): void => {
  const r = arange(0, T);
  // x by TMA: the consumers wait on an mbarrier (and a barrier) before they write, so the producer runs first
  const tile = makeTensorDescriptor(x, [T, T], [T, 1], [T, T]).load([0, 0]);
  if (mode === 'ptr') store(a.add(r.expandDims(1).mul(K)).add(r.expandDims(0)), tile);
  else makeTensorDescriptor(a, [T, K], [K, 1], [T, T]).store([0, 0], tile);
};

// c = a b after a's first block is overwritten by x; one program per T-row block, N = T
const plainForm = kernel(
  { name: 'ws_order_plain', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), x: ptr('f16'), M: 'i32', K: 'i32', MODE: constexpr(), WS: constexpr() } },
  ({ a, b, c, x, M, K, MODE, WS }) => {
    preWrite(a, x, K, String(MODE));
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [T, T]);
    const db = makeTensorDescriptor(b, [K, T], [T, 1], [T, T]);
    const om = programId(0).mul(T);
    const [acc] = forLoop(0, K, T, [zeros([T, T], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })], { warpSpecialize: Boolean(WS) });
    makeTensorDescriptor(c, [M, T], [T, 1], [T, T]).store([om, 0], acc!);
  },
);

// the same with the K loop in a persistent tile loop (ws_tiles.ts); the write is before the tile loop
const persistentForm = kernel(
  { name: 'ws_order_persistent', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), x: ptr('f16'), M: 'i32', K: 'i32', MODE: constexpr(), WS: constexpr() } },
  ({ a, b, c, x, M, K, MODE, WS }) => {
    preWrite(a, x, K, String(MODE));
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [T, T]);
    const db = makeTensorDescriptor(b, [K, T], [T, 1], [T, T]);
    const dc = makeTensorDescriptor(c, [M, T], [T, 1], [T, T]);
    persistentTiles(cdiv(M, T), (tile) => {
      const om = tile.mul(T);
      const [acc] = forLoop(0, K, T, [zeros([T, T], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })], { warpSpecialize: Boolean(WS) });
      dc.store([om, 0], acc!);
    });
  },
);

const [M, K] = [2 * T, 4 * T];
const ints = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => ((i * 7 + seed * 13) % 5) - 2);
const A = ints(M * K, 1), B = ints(K * T, 2), X = Float32Array.from({ length: T * T }, (_, i) => (i % 3) + 1);

/** The program-order result: a's first block replaced by x, then c = a b. */
function want(): Float32Array {
  const a = A.slice();
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) a[i * K + j] = X[i * T + j]!;
  const c = new Float32Array(M * T);
  for (let i = 0; i < M; i++) for (let j = 0; j < T; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[i * K + k]! * B[k * T + j]!;
    c[i * T + j] = s;
  }
  return c;
}

const pipelineText = (k: typeof plainForm, mode: string): string =>
  compile(k, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { MODE: mode, WS: true } }).stages.find((s) => s.name === 'pipeline')!.text;

async function run(k: typeof plainForm, dev: 'interpret' | 'sim', mode: string, ws: boolean, grid: number): Promise<Float32Array> {
  const c = new Float32Array(M * T);
  await runOn(dev, k, { a: f16Array(A), b: f16Array(B), c, x: f16Array(X), M, K, MODE: mode, WS: ws }, [grid, 1], { numWarps: 4, numStages: 3 });
  return c;
}

describe.each([
  ['a warp-specialized K loop at the top level', plainForm, M / T],
  ['a warp-specialized K loop in a persistent tile loop (one program, two tiles)', persistentForm, 1],
] as const)('%s after a write of the tensor it loads', (_, k, grid) => {
  it.each(['ptr', 'desc'])('%s store before the loop: the loop loads what it wrote (sim = interpreter = JS)', async (mode) => {
    // warp-specialized (no fallback), the producer behind the writes
    expect(pipelineText(k, mode)).toMatch(new RegExp(`loop %\\d+: warp-specialized: .*the producer starts after the consumers' writes before the loop \\(${mode === 'ptr' ? 'store' : 'desc_store'}\\)`));
    const interp = await run(k, 'interpret', mode, true, grid);
    expect(Array.from(interp)).toEqual(Array.from(want()));
    expect(Array.from(await run(k, 'sim', mode, true, grid))).toEqual(Array.from(interp));
    // the plain TMA ring (no producer) agrees
    expect(Array.from(await run(k, 'sim', mode, false, grid))).toEqual(Array.from(interp));
  });
});

describe('under racecheck, synccheck and initcheck', () => {
  it.each([['top level', plainForm, M / T], ['persistent', persistentForm, 1]] as const)('%s, desc store before the loop: clean, the program-order result', async (_, k, grid) => {
    const c = new Float32Array(M * T);
    await k.run({ a: f16Array(A), b: f16Array(B), c, x: f16Array(X), M, K, MODE: 'desc', WS: true } as never, { grid: [grid, 1], device: 'sim', numWarps: 4, numStages: 3, sanitize: ['racecheck', 'synccheck', 'initcheck'] });
    expect(Array.from(c)).toEqual(Array.from(want()));
  });
});

// The structure, and the PTX without the producer's wait for the consumers' writes: a wrong result
// on the sim (the loads pass the writes), never a pass.
describe('the producer waits for the consumers\' writes before the loop', () => {
  const built = compile(plainForm, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { MODE: 'ptr', WS: true } });
  const launch = (ptx: string): Float32Array => {
    const dev = simDevice().native;
    const bufs = [f16Array(A), f16Array(B), new Float32Array(M * T), f16Array(X)].map((h) => {
      const p = dev.alloc(h.byteLength);
      dev.upload(p, h);
      return p;
    });
    try {
      dev.launch({ ...built, ptx }, [...bufs, M, K], [M / T, 1, 1]);
      dev.synchronize();
      return dev.download(bufs[2]!, new Float32Array(M * T));
    } finally {
      bufs.forEach((p) => dev.free(p));
    }
  };
  const WAIT = /(\/\/ the consumers' writes before the loop first[^\n]*)\n\s*\$L_tma_wait_\d+:\n\s*mbarrier\.try_wait[^\n]*\n\s*@!%p\d+ bra\.uni \$L_tma_wait_\d+;/;

  it('the note, the fence and arrival of the consumers, the producer\'s wait', () => {
    const text = built.stages.find((s) => s.name === 'pipeline')!.text;
    expect(text).toMatch(/loop %\d+: warp-specialized: .*; the producer starts after the consumers' writes before the loop \(store\): program order/);
    const [consumers, producer] = [built.ptx.slice(0, built.ptx.indexOf('ws_producer:')), built.ptx.slice(built.ptx.indexOf('ws_producer:'))];
    expect(consumers).toMatch(/fence\.proxy\.async\.global;\n\s*mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\];/);
    expect(producer).toMatch(WAIT);
    // a kernel without writes before its loop has none of it
    const none = compile(wsMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } });
    expect(none.ptx).not.toContain('fence.proxy.async.global');
    expect(none.stages.find((s) => s.name === 'pipeline')!.text).not.toMatch(/the producer starts after/);
  });
  it('the PTX as compiled: the program-order result; without the producer\'s wait: a wrong one', () => {
    expect(Array.from(launch(built.ptx))).toEqual(Array.from(want()));
    const cut = built.ptx.replace(WAIT, '$1');
    expect(cut).not.toBe(built.ptx);
    expect(Array.from(launch(cut))).not.toEqual(Array.from(want()));
  });
});

// The plain TMA ring (no producer) and a lone descriptor load after a write of the program: the
// writers' fence.proxy.async.global before the barrier the issuing thread passes (async/proxy_fence.ts).
// The sim makes global writes visible to every proxy at once, so this is checked on the PTX here,
// and by racecheck in proxy_fence_sabotage.test.ts (the fence cut out: a proxy hazard).
describe('TMA loads after generic-proxy global writes get fence.proxy.async.global', () => {
  const ptx = (k: typeof plainForm, mode: string): string =>
    compile(k, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: true, constexprs: { MODE: mode, WS: false } }).ptx; // ptxas: the fence assembles
  it.each(['ptr', 'desc'])('%s store, then the ring: the fence before the ring\'s opening barrier; x\'s load (nothing before it) has none', (mode) => {
    const p = ptx(plainForm, mode);
    expect(p).toMatch(/fence\.proxy\.async\.global;\n\s*bar\.sync 0;\n(?:(?!cp\.async\.bulk\.tensor)[\s\S])*?cp\.async\.bulk\.tensor/);
    expect(p.match(/fence\.proxy\.async\.global;/g)).toHaveLength(1);
    const ring = p.indexOf('// TMA ring:');
    expect(p.indexOf('fence.proxy.async.global;')).toBeGreaterThan(ring);
  });
  it('a ring in a tile loop that stores after it: the next tile\'s loads follow that store (fenced)', () => {
    expect(ptx(persistentForm, 'ptr').match(/fence\.proxy\.async\.global;/g)).toHaveLength(1);
  });
  it('the same on sm_100a (the tcgen05 ring)', () => {
    const p = compile(plainForm, { target: 'sm_100a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { MODE: 'ptr', WS: false } }).ptx;
    expect(p).toContain('the tcgen05 MMAs stay in flight');
    expect(p).toMatch(/fence\.proxy\.async\.global;\n\s*bar\.sync 0;/);
  });
  it('no write before the loads: no fence', () => {
    const none = compile(wsMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, WS: false } });
    expect(none.ptx).toContain('// TMA ring:');
    expect(none.ptx).not.toContain('fence.proxy.async.global');
  });
});

// a lone descriptor load of what the program just stored through a pointer
const storeThenLoad = kernel({ name: 'ws_order_store_load', params: { a: ptr('f16'), c: ptr('f16'), x: ptr('f16') } }, ({ a, c, x }) => {
  const r = arange(0, T);
  const at = r.expandDims(1).mul(T).add(r.expandDims(0));
  store(a.add(at), load(x.add(at)));
  store(c.add(at), makeTensorDescriptor(a, [T, T], [T, 1], [T, T]).load([0, 0]));
});

describe('a lone descriptor load after a pointer store of its tensor', () => {
  it('is fenced (ptxas-clean for sm_90a) and reads the stored tile on the sim', async () => {
    const r = compile(storeThenLoad, { target: 'sm_90a', numWarps: 4, ptxas: true });
    expect(r.ptx).toMatch(/fence\.proxy\.async\.global;\n\s*fence\.proxy\.async\.shared::cta;\n\s*bar\.sync 0;/);
    const out = async (dev: 'interpret' | 'sim'): Promise<Uint16Array> => {
      const c = new Uint16Array(T * T);
      await runOn(dev, storeThenLoad, { a: f16Array(A.subarray(0, T * T)), c, x: f16Array(X) }, [1, 1]);
      return c;
    };
    expect(Array.from(await out('sim'))).toEqual(Array.from(f16Array(X)));
    expect(Array.from(await out('interpret'))).toEqual(Array.from(f16Array(X)));
  });
});
