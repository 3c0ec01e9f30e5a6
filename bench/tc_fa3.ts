// The FA3-style attention row of `npm run bench:tc -- --target sm_90a`: Tessera's attention with
// the KV loop `warpSpecialize: true` (bench/fa3_kernels.ts: a producer warpgroup fills the K/V
// ring by TMA, two consumer warpgroups of 64 query rows ping-pong their wgmma against each other's
// softmax; src/codegen/pipeline/ws_pingpong.ts) and its plain form (the TMA ring, every warp loads
// and computes), beside Triton 3.8's flash-attention forward for cc 90 at the same tile (tutorial
// 06's structure in our own words: Q in registers, a tl.dot flash loop over key blocks, the online
// softmax, keys past L masked as ours are), with `warp_specialize=True` on its KV loop and without.
// D = 128, BM = BN = 128, 8 warps (Tessera: consumers, + the producer warpgroup), 2 stages. Static
// figures from ptxas; each kernel that takes plain pointers or Tessera's own launch also runs on the
// sim: one program (128 query rows) over L = 512 keys, against an f64 JS reference, with the sim's
// warp instructions per output tile (they count the mbarrier spin loops too: not a kernel figure
// alone) and global load requests.
// On sm_100a (`benchFlashD128`, the flash_d128 table) at the same tile: ours
// plain (its dots on tcgen05, accumulators in TMEM; the ping-pong is sm_90a's; its K/V loads on
// the TMA ring, pipeline/lower_tma_ring.ts) and bench/kernels.ts's flash (pointer loads on the
// cp.async ring; no key mask, L being a multiple of BN), Triton's for
// GPUTarget('cuda', 100, 32) with its `.version` rewritten for ptxas 13.0 beside them, all run on the
// sim as an sm_100; the columns count tcgen05.mma and the TMEM columns allocated instead of wgmma.
import { compile, type CompileResult } from '../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../src/ir/half.js';
import { DeviceArray } from '../src/runtime/device_array.js';
import { loadModule } from '../src/runtime/native/foreign_module.js';
import type { NativeRuntimeDevice } from '../src/runtime/native/runtime-device.js';
import { fa3Attention } from './fa3_kernels.js';
import { flashAttention } from './kernels.js';
import { count, figureTable, forPtxas13, relErr, tmemColumns, type Column, type Row, type SimFigures, type WsTools } from './tc_figure_table.js';

const TILE = { BM: 128, BN: 128, D: 128 };
const NUM_WARPS = 8;
const STAGES = 2;
/** The sim's problem: one program of BM query rows over L keys. */
const L = 512;

/** Triton's flash forward (one head, Q/K/V f16 [L, D], O f32), keys past L masked; `ws`: warp_specialize on the KV loop. */
const tritonSrc = (ws: boolean): string => `import triton
import triton.language as tl

@triton.jit
def flash_fwd(q, k, v, o, L, scale, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    dd = tl.arange(0, D)
    qv = tl.load(q + rows[:, None] * D + dd[None, :], mask=rows[:, None] < L, other=0.0)
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for j in tl.range(0, L, BN${ws ? ', warp_specialize=True' : ''}):
        kn = j + cols
        kt = tl.load(k + kn[None, :] * D + dd[:, None], mask=kn[None, :] < L, other=0.0)
        vv = tl.load(v + kn[:, None] * D + dd[None, :], mask=kn[:, None] < L, other=0.0)
        s = tl.where(kn[None, :] < L, tl.dot(qv, kt) * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), vv)
        m_i = m_new
    tl.store(o + rows[:, None] * D + dd[None, :], acc / l_i[:, None], mask=rows[:, None] < L)
`;
const SIGNATURE = { q: '*fp16', k: '*fp16', v: '*fp16', o: '*fp32', L: 'i32', scale: 'fp32', BM: 'constexpr', BN: 'constexpr', D: 'constexpr' };

const structure = (ptx: string): string => {
  const inc = /setmaxnreg\.inc\.sync\.aligned\.u32 (\d+)/.exec(ptx)?.[1], dec = /setmaxnreg\.dec\.sync\.aligned\.u32 (\d+)/.exec(ptx)?.[1];
  const threads = /\.reqntid (\d+)/.exec(ptx)?.[1] ?? /\.maxntid (\d+)/.exec(ptx)?.[1] ?? '?';
  const pp = count(ptx, /\bbar\.arrive\b/);
  return `${threads} threads, setmaxnreg ${dec || inc ? `dec ${dec ?? '-'} / inc ${inc ?? '-'}` : 'none'}, ${count(ptx, /mbarrier\.try_wait/)} mbarrier wait sites${pp ? `, ping-pong (${pp} bar.arrive)` : ''}`;
};

interface Inputs { q: Uint16Array; k: Uint16Array; v: Uint16Array; scale: number; want: Float64Array }

/** Random f16 Q, K, V [L, D] and the f64 reference of the first program's BM rows. */
function inputs(): Inputs {
  const { BM, D } = TILE;
  let x = 5;
  const rnd = (): Uint16Array => f16Array(Float32Array.from({ length: L * D }, () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32) * 4 - 2));
  const [q, k, v] = [rnd(), rnd(), rnd()];
  const [fq, fk, fv] = [q, k, v].map(f16ToFloat32) as [Float32Array, Float32Array, Float32Array];
  const scale = 1 / Math.sqrt(D);
  const want = new Float64Array(BM * D);
  const s = new Float64Array(L);
  for (let i = 0; i < BM; i++) {
    let mx = -Infinity;
    for (let j = 0; j < L; j++) {
      let d = 0;
      for (let c = 0; c < D; c++) d += fq[i * D + c]! * fk[j * D + c]!;
      mx = Math.max(mx, (s[j] = d * scale));
    }
    let sum = 0;
    for (let j = 0; j < L; j++) sum += (s[j] = Math.exp(s[j]! - mx));
    for (let c = 0; c < D; c++) {
      let a = 0;
      for (let j = 0; j < L; j++) a += s[j]! * fv[j * D + c]!;
      want[i * D + c] = a / sum;
    }
  }
  return { q, k, v, scale, want };
}

/** Tessera's kernel (its tensor maps encoded by its own launch), one program. */
function simTessera(sim: NativeRuntimeDevice, r: CompileResult, x: Inputs): SimFigures {
  const dev = sim.native;
  const bufs = [x.q, x.k, x.v].map((a) => dev.alloc(a.byteLength));
  const bo = dev.alloc(L * TILE.D * 4);
  try {
    [x.q, x.k, x.v].forEach((a, i) => dev.upload(bufs[i]!, a));
    dev.upload(bo, new Float32Array(L * TILE.D));
    dev.launch(r, [...bufs, bo, L, x.scale], [1, 1, 1]);
    dev.synchronize();
    const ctr = dev.simCounters();
    const o = new Float32Array(L * TILE.D);
    dev.download(bo, o);
    return { err: relErr(o.subarray(0, TILE.BM * TILE.D), x.want), ...(ctr ? { warpInstrs: ctr.warpInstructions, loads: ctr.globalLoadRequests } : {}) };
  } finally {
    for (const p of [...bufs, bo]) dev.free(p);
  }
}

/** Triton's PTX through the foreign-module launch (plain pointers; its trailing scratch pointers get 0), one program. */
async function simTriton(sim: NativeRuntimeDevice, ptx: string, shared: number, x: Inputs): Promise<SimFigures> {
  const fn = loadModule(ptx, { device: sim }).getFunction('flash_fwd');
  const arrays = [...[x.q, x.k, x.v].map((a) => DeviceArray.from(a, 'f16', { device: sim })), DeviceArray.from(new Float32Array(L * TILE.D), 'f32', { device: sim })];
  const user = [...arrays, L, x.scale];
  try {
    await fn.launch({ grid: [1, 1, 1], block: NUM_WARPS * 32, sharedBytes: shared, args: fn.params.map((_, i) => (i < user.length ? user[i] : 0)) });
    const ctr = sim.native.simCounters();
    const o = (await arrays[3]!.toArray()) as Float32Array;
    return { err: relErr(o.subarray(0, TILE.BM * TILE.D), x.want), ...(ctr ? { warpInstrs: ctr.warpInstructions, loads: ctr.globalLoadRequests } : {}) };
  } finally {
    for (const a of arrays) a.free();
  }
}

/** A row and its sim run (an Error where it did not run). */
interface FaRow extends Row { readonly sim: SimFigures | Error }
/** The sim's columns: warp instructions and global load requests ('n/a' where it did not run). */
const SIM_COLUMNS: readonly Column<FaRow>[] = [
  { head: 'warp instrs', width: 13, cell: (_, __, r) => (r.sim instanceof Error ? 'n/a' : r.sim.warpInstrs ?? 'n/a') },
  { head: 'ld reqs', width: 9, cell: (_, __, r) => (r.sim instanceof Error ? 'n/a' : r.sim.loads ?? 'n/a') },
];
const TMA: Column<FaRow> = { head: 'TMA', width: 5, cell: (_, f) => f.tma };
/** The tensor-core columns: wgmma on sm_90a; tcgen05.mma and the TMEM columns allocated on sm_100a. */
const FLASH_COLUMNS_SM90: readonly Column<FaRow>[] = [{ head: 'wgmma', width: 7, cell: (_, f) => f.wgmma }, TMA, ...SIM_COLUMNS];
const FLASH_COLUMNS_SM100: readonly Column<FaRow>[] = [
  { head: 'mma', width: 5, cell: (ptx) => count(ptx, /tcgen05\.mma\.cta_group/) },
  { head: 'TMEM', width: 6, cell: (ptx) => tmemColumns(ptx) },
  TMA, ...SIM_COLUMNS,
];

/** Prints the table; sets process.exitCode = 1 when a result is wrong. */
export const benchFa3 = (out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): Promise<void> => flashTable('sm_90a', out, sim, tools);
/** sm_100a's flash_d128 table: the plain kernels on tcgen05; sets process.exitCode = 1 when a result is wrong. */
export const benchFlashD128 = (out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): Promise<void> => flashTable('sm_100a', out, sim, tools);

async function flashTable(target: 'sm_90a' | 'sm_100a', out: (s: string) => void, sim: NativeRuntimeDevice, tools: WsTools): Promise<void> {
  const bw = target === 'sm_100a';
  const cx = { ...TILE, CAUSAL: false };
  out(bw
    ? `\nflash_d128 (flash attention forward on tcgen05, TMEM accumulators): D=${TILE.D} BM=${TILE.BM} BN=${TILE.BN}, ${NUM_WARPS} warps, numStages ${STAGES}; figures from ptxas -arch sm_100a, no GPU\n`
    : `\nfa3 attention (FA3-style, warp-specialized with the consumers' ping-pong): D=${TILE.D} BM=${TILE.BM} BN=${TILE.BN}, ${NUM_WARPS} warps (Tessera: consumers; + a producer warpgroup), numStages ${STAGES}\n`);
  const ours = (ws: boolean): CompileResult => compile(fa3Attention.trace({ ...cx, WS: ws }), { target, numWarps: NUM_WARPS, numStages: STAGES, ptxas: false });
  const tk = (ws: boolean) => ({ key: 'fa', name: 'flash_fwd', src: tritonSrc(ws), signature: SIGNATURE, constexprs: TILE, num_warps: NUM_WARPS, num_stages: STAGES, divisible: ['q', 'k', 'v', 'o', 'L'] });
  // separately (the same key, so the PTX differ only where the kernels do): Triton's warp
  // specialization may fail where its plain kernel compiles
  const [triWs, tri] = [tools.triton([tk(true)]), tools.triton([tk(false)])];
  // ptxas 13.0 takes Triton's cc 100 PTX at `.version 9.0`
  const tptx = (p: string | undefined): string | undefined => (bw ? forPtxas13(p) : p);
  const oplain = ours(false);
  // the warp-specialized ping-pong is sm_90a's (codegen/pipeline/ws_attention.ts)
  const ows = bw ? undefined : ours(true);
  type TableRow = [string, string | undefined, number, string, 'tessera' | 'triton', CompileResult?];
  const rows: TableRow[] = [
    ...(ows ? [['tessera warpSpecialize + ping-pong', ows.ptx, ows.metadata.sharedBytes, 'tessera_fa3_ws', 'tessera', ows] satisfies TableRow] : []),
    [bw ? 'tessera plain (TMA, tcgen05)' : 'tessera plain (TMA ring)', oplain.ptx, oplain.metadata.sharedBytes, 'tessera_fa3_plain', 'tessera', oplain],
  ];
  if (bw) {
    // bench/kernels.ts's flash (pointer loads, which the cp.async ring pipelines; no key mask: L is a multiple of BN here)
    const spec = Object.fromEntries(['q', 'k', 'v', 'o', 'L'].map((n) => [n, { divisibleBy16: true }]));
    const ring = compile(flashAttention.f16.trace({ BM: TILE.BM, BN: TILE.BN, D: TILE.D }), { target, numWarps: NUM_WARPS, numStages: STAGES, ptxas: false, specialization: spec });
    rows.push(['tessera flash (cp.async ring)', ring.ptx, ring.metadata.sharedBytes, 'tessera_flash_ring', 'tessera', ring]);
  }
  if (triWs instanceof Error) out(`  Triton warp_specialize=True failed: ${triWs.message.trim().split('\n').slice(-2).join(' | ')}\n`);
  else rows.push([`triton ${triWs.version} warp_specialize`, tptx(triWs.ptx['fa']), triWs.shared['fa']!, 'triton_fa_ws', 'triton']);
  if (tri instanceof Error) out(`  Triton failed: ${tri.message.trim().split('\n').slice(-2).join(' | ')}\n`);
  else rows.push([`triton ${tri.version} plain`, tptx(tri.ptx['fa']), tri.shared['fa']!, 'triton_fa_plain', 'triton']);
  const x = inputs();
  const print = figureTable<FaRow>(out, tools, 36, bw ? FLASH_COLUMNS_SM100 : FLASH_COLUMNS_SM90, 'structure');
  for (const [name, ptx, shared, file, who, r] of rows) {
    if (!ptx) continue;
    let s: SimFigures | Error;
    try {
      s = who === 'tessera' ? simTessera(sim, r!, x) : await simTriton(sim, ptx, shared, x);
    } catch (e) {
      s = e as Error;
    }
    const ok = !(s instanceof Error) && s.err <= 2e-3;
    if (who === 'tessera' && !ok) process.exitCode = 1;
    const note = (p: string): string => `${structure(p)}${s instanceof Error ? `; sim: ${s.message.split('\n')[0]}` : `; vs JS ${s.err.toExponential(1)}${ok ? '' : '  MISMATCH'}`}`;
    print([{ name, ptx, shared, file, note, sim: s }]);
  }
  if (!(triWs instanceof Error) && !(tri instanceof Error)) {
    // the code, without the debug sections (they name each compile's temporary directory)
    const code = (ptx = ''): string => ptx.slice(0, ptx.indexOf('\t.file') >>> 0);
    const same = code(triWs.ptx['fa']) === code(tri.ptx['fa']);
    const noop = !/setmaxnreg/.test(triWs.ptx['fa'] ?? '');
    out(`  Triton's warp_specialize=True on the KV loop: ${same ? 'the same code as without the flag' : 'a different PTX'}${noop ? (same ? ', no setmaxnreg and no producer partition: a no-op here' : ', without setmaxnreg') : ''}\n`);
  }
  out(`  sim: one program (${TILE.BM} query rows, one ${TILE.BM}x${TILE.D} output tile) over L ${L} keys (${L / TILE.BN} KV steps); warp instructions include the mbarrier spin loops\n`);
  out(bw
    ? "  registers: ptxas's count per thread; no GPU was used: every figure comes from ptxas -arch sm_100a and the sim (as an sm_100)\n"
    : "  registers: ptxas's launch count (.maxnreg for Tessera's warp-specialized kernel; its consumers run at the setmaxnreg.inc count)\n");
}
