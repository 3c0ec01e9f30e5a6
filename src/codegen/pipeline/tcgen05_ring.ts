// The TMA ring of a K loop whose tcgen05 dot stays in flight (sm_100a), as Triton's cc 100
// pipeline runs it: the loop's only dot accumulates in TMEM (tensor_cores/tcgen05_resident.ts)
// and reads both operands from the ring, so nothing in the iteration needs its MMAs done. Each
// stage has two mbarriers: FULL (TMA's expect_tx, as lower_tma_ring.ts) and EMPTY, which the
// stage's MMAs commit to (tcgen05.commit completes when they, and every earlier tcgen05 op of
// the thread, have run). S stages, tiles issued D = S-1 iterations ahead:
//
//   prologue:    bar.sync; issue iterations 0..D-1 into stages 0..D-1
//   iteration i: wait FULL[i%S]
//                the dot: fence::before_thread_sync, bar.sync, fence::after_thread_sync (every
//                warp past its waits: no thread falls two phases behind a barrier), thread 0's
//                MMAs on stage i%S, tcgen05.commit -> EMPTY[i%S]; no wait
//                i > 0: wait EMPTY[(i-1)%S] (the MMAs of i-1, while those of i run)
//                issue iteration i+D into stage (i+D)%S = (i-1)%S (skipped past the end)
//   after:       wait EMPTY[(n-1)%S] once (the final commit: every MMA done), then
//                fence::after_thread_sync; tcgen05_resident.ts reads the accumulator back
// Every commit is waited for exactly once (in the next iteration or after the loop), so each
// stage's parity bits stay in step with its barriers across runs of the loop.
import type { Op } from '../../ir/ops.js';
import { movFor, type Lowering } from '../context.js';
import { backEdge, hoistConversions } from '../lower_control.js';
import { elected, mapAddress, newBarriers, waitBarrier } from '../async/lower_tma.js';
import { tensorMaps } from '../async/tensor_map.js';
import { regKind } from '../ptx_types.js';
import { setInflight } from '../tensor_cores/tcgen05_inflight.js';
import { residentSlot } from '../tensor_cores/tcgen05_resident.js';
import { issueStage, lowerRingBody, planTmaRings, type TmaRingLoop } from './lower_tma_ring.js';
import { fenceGlobalWrites } from '../async/proxy_fence.js';
import { issuePairStage, pairLoop, pairRegs, pairRing, peerHandshake } from './tcgen05_pair.js';

type Rule = (cx: Lowering, op: Op) => void;

/** Marks the waits (comments in the PTX; test/e2e/tcgen05_ring.test.ts finds them). */
export const EMPTY_WAIT = '// tcgen05 ring: wait for the MMAs that read the stage before refilling it';
export const FINAL_WAIT = "// tcgen05 ring: the final commit's wait, before the accumulator is read";

/** The ring's dot when it can stay in flight: the loop's resident tcgen05 dot, both operands ring tiles. */
export function inflightDot(cx: Lowering, l: TmaRingLoop): Op | undefined {
  if (cx.target !== 'sm_100a') return undefined;
  const slot = residentSlot(cx, l.loop);
  if (!slot) return undefined;
  const staged = new Set(l.tiles.map((t) => t.value.id));
  const [a, b] = slot.dot.operands;
  if (!staged.has(a!.id) || !staged.has(b!.id)) return undefined;
  // every ring tile feeds this dot only (ringable: tiles are read by dots of the body alone)
  const dots = l.loop.regions[0]!.ops.filter((o) => o.kind === 'dot');
  return dots.length === 1 ? slot.dot : undefined;
}

/** `rules.for` lowers the TMA ring loops whose tcgen05 dot can stay in flight (after withTmaRing). */
export function withTcgen05Ring(rules: Record<string, Rule>, cx: Lowering, numStages: number, skipLoops: (op: Op) => boolean): void {
  if (cx.target !== 'sm_100a') return;
  const plan = planTmaRings(cx, numStages, skipLoops);
  const inner = rules.for!;
  rules.for = (c, op) => {
    const l = plan.get(op);
    const dot = l && inflightDot(c, l);
    if (l && dot) tcgen05RingFor(c, op, l, dot);
    else inner(c, op);
  };
}

function tcgen05RingFor(cx: Lowering, op: Op, l: TmaRingLoop, dot: Op): void {
  const [lb, ub] = [0, 1].map((i) => cx.regs(op.operands[i]!)[0]!) as [string, string];
  const ivT = op.operands[0]!.type.elem;
  const ty = regKind(ivT) === 'b64' ? 's64' : 's32';
  const S = l.numStages;
  const SB = l.stageBytes;
  const D = S - 1;
  const carried = op.operands.slice(3).map((v, k) => cx.copy(v.type.elem, cx.regsIn(v, cx.layoutOf(op.results[k]!))));
  hoistConversions(cx, op);
  cx.emit(`// TMA ring: ${S} stages of ${SB} bytes, ${l.tiles.length} tile(s), full and empty mbarriers per stage, issued ${D} ahead; the tcgen05 MMAs stay in flight (tcgen05_ring.ts)`);
  const maps = l.tiles.map((t) => mapAddress(cx, tensorMaps(cx).mapFor(t.load, t.g)));
  const { bar: full0, phase: fullPh } = newBarriers(cx, S); // bit k: the parity stage k's FULL waits for next
  const { bar: empty0, phase: emptyPh } = newBarriers(cx, S); // bit k: the same for EMPTY
  elected(cx);
  // a 2-CTA pair (tcgen05_pair.ts): PEER barriers, B's half per CTA, the leader issues
  const pair = pairLoop(cx, op);
  const pr = pair && pairRing(cx, S);
  const issue = (iv: string, stage: string, bar: string): void =>
    pair ? issuePairStage(cx, l, pair, maps, ub, iv, stage, bar) : issueStage(cx, l, maps, ub, iv, stage, bar);
  const r = (): string => cx.reg('b32');
  const ring0 = r(), ringEnd = r();
  cx.emit(`mov.u32 ${ring0}, ${cx.smemSymbol()};`);
  cx.emit(`add.u32 ${ringEnd}, ${ring0}, ${S * SB};`);
  fenceGlobalWrites(cx, op); // the program's writes before the loop, for the ring's TMA reads
  cx.barrier(); // an earlier run of a ring (or the scratch) may still be reading these bytes

  for (let j = 0; j < D; j++) {
    const ivj = cx.newRegs(ivT, 1)[0]!;
    const st = r(), bj = r();
    cx.emit(`add.${ty} ${ivj}, ${lb}, ${j * l.step};`);
    cx.emit(`add.u32 ${st}, ${ring0}, ${j * SB};`);
    cx.emit(`add.u32 ${bj}, ${full0}, ${8 * j};`);
    issue(ivj, st, bj);
  }

  // rd: the stage read now; wr: the stage filled now (= the previous one); idx: rd's number
  const [rd, wr, fullRd, fullWr, emptyRd, emptyPrev, idx, prevIdx] = Array.from({ length: 8 }, r) as [string, string, string, string, string, string, string, string];
  cx.emit(`mov.u32 ${rd}, ${ring0};`);
  cx.emit(`add.u32 ${wr}, ${ring0}, ${D * SB};`);
  cx.emit(`mov.u32 ${fullRd}, ${full0};`);
  cx.emit(`add.u32 ${fullWr}, ${full0}, ${8 * D};`);
  cx.emit(`mov.u32 ${emptyRd}, ${empty0};`);
  cx.emit(`mov.u32 ${emptyPrev}, ${empty0};`);
  cx.emit(`mov.u32 ${idx}, 0;`);
  cx.emit(`mov.u32 ${prevIdx}, 0;`);
  const pending = cx.reg('pred'); // MMAs committed and not yet waited for
  cx.emit(`setp.ne.b32 ${pending}, 0, 0;`);
  /** Waits for the phase of barrier `bar` whose parity is bit `k` of `bits`; flips the bit. */
  const waitBit = (bar: string, bits: string, k: string): void => {
    const parity = r(), bit = r();
    cx.emit(`bfe.u32 ${parity}, ${bits}, ${k}, 1;`);
    waitBarrier(cx, bar, parity);
    cx.emit(`shl.b32 ${bit}, 1, ${k};`);
    cx.emit(`xor.b32 ${bits}, ${bits}, ${bit};`);
  };
  const waitPrevMma = (marker: string): void => {
    const skip = cx.e.label('mma_none');
    cx.emit(marker);
    cx.emit(`@!${pending} bra.uni ${skip};`);
    waitBit(emptyPrev, emptyPh, prevIdx);
    cx.e.placeLabel(skip);
  };

  const iv = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`${movFor(ivT)} ${iv}, ${lb};`);
  const top = cx.e.label('tcfor');
  const end = cx.e.label('endtcfor');
  const done = cx.reg('pred');
  cx.e.placeLabel(top);
  cx.emit(`setp.ge.${ty} ${done}, ${iv}, ${ub};`);
  cx.emit(`@${done} bra.uni ${end};`);
  waitBit(fullRd, fullPh, idx);
  if (pair) peerHandshake(cx, pr!, pair, idx);
  const pairIssue = pair ? { pair: { issuer: pairRegs(cx).issuer, mask: pairRegs(cx).mask } } : {};
  setInflight(cx, dot, { commitTo: emptyRd, ...pairIssue });
  let yields: string[][];
  try {
    yields = lowerRingBody(cx, op, l, iv, carried, rd);
  } finally {
    setInflight(cx, dot, undefined);
  }
  waitPrevMma(EMPTY_WAIT);
  const ivn = cx.newRegs(ivT, 1)[0]!;
  cx.emit(`add.${ty} ${ivn}, ${iv}, ${D * l.step};`);
  issue(ivn, wr, fullWr);
  backEdge(cx, op, carried, yields);
  // this iteration's commit is the one the next waits for; every pointer advances one stage
  cx.emit(`mov.u32 ${emptyPrev}, ${emptyRd};`);
  cx.emit(`mov.u32 ${prevIdx}, ${idx};`);
  cx.emit(`setp.ne.b32 ${pending}, 1, 0;`);
  const wrap = (x: string, stepBy: number, first: string, past: string): void => {
    const q = cx.reg('pred');
    cx.emit(`add.u32 ${x}, ${x}, ${stepBy};`);
    cx.emit(`setp.eq.u32 ${q}, ${x}, ${past};`);
    cx.emit(`selp.b32 ${x}, ${first}, ${x}, ${q};`);
  };
  const fullEnd = r(), emptyEnd = r(), zero = r(), nS = r();
  cx.emit(`add.u32 ${fullEnd}, ${full0}, ${8 * S};`);
  cx.emit(`add.u32 ${emptyEnd}, ${empty0}, ${8 * S};`);
  cx.emit(`mov.u32 ${zero}, 0;`);
  cx.emit(`mov.u32 ${nS}, ${S};`);
  wrap(rd, SB, ring0, ringEnd);
  wrap(wr, SB, ring0, ringEnd);
  wrap(fullRd, 8, full0, fullEnd);
  wrap(fullWr, 8, full0, fullEnd);
  wrap(emptyRd, 8, empty0, emptyEnd);
  wrap(idx, 1, zero, nS);
  cx.emit(`add.${ty} ${iv}, ${iv}, ${l.step};`);
  cx.emit(`bra.uni ${top};`);
  cx.e.placeLabel(end);
  waitPrevMma(FINAL_WAIT);
  cx.emit('tcgen05.fence::after_thread_sync;');
  op.results.forEach((res, k) => cx.define(res, carried[k]!));
}
