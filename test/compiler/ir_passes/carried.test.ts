// The 'carried' pass (compiler/carried_induction.ts): in a dot loop, loop-carried pointers and
// integers advanced by a loop-invariant amount are read in the body as closed forms of the
// induction variable; the values after the loop stay right (bit for bit on the interpreter, before
// and after the passes); loops that write memory and amounts that vary with the iteration are left.
import { describe, expect, it } from 'vitest';
import { runIRPasses } from '../../../src/compiler/ir_passes.js';
import type { Block, Func, Op } from '../../../src/ir/ops.js';
import { HostMemory, interpret } from '../../../src/interpret/index.js';
import { arange, constexpr, defineKernel, dot, forLoop, load, programId, ptr, store, zeros } from '../../../src/lang/index.js';
import { randF32, rng } from '../../lang/run.js';

type Buf = Float32Array | Int32Array;
function run(f: Func, bufs: Buf[], scalars: number[], grid: number[]): Buf[] {
  const mem = new HostMemory();
  const addrs = bufs.map((b) => mem.upload(b));
  interpret(f, [...addrs, ...scalars], mem, { grid, onPrint: () => {} });
  return bufs.map((b, i) => {
    const out = new (b.constructor as new (n: number) => Buf)(b.length);
    mem.download(addrs[i]!, out);
    return out;
  });
}

/** Whether some load in the (first) loop body reads, through its pointer or mask, a loop-carried value. */
function loadsReadCarried(f: Func): boolean {
  let loop: Op | undefined;
  const find = (b: Block): void => b.ops.forEach((o) => { if (o.kind === 'for' && !loop) loop = o; o.regions.forEach(find); });
  find(f.body);
  const body = loop!.regions[0]!;
  const carried = new Set(body.args.slice(1).map((a) => a.id));
  const def = new Map<number, Op>();
  body.ops.forEach((o) => o.results.forEach((r) => def.set(r.id, o)));
  const reads = (id: number, seen = new Set<number>()): boolean => {
    if (carried.has(id)) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    const d = def.get(id);
    return !!d && d.operands.some((v) => reads(v.id, seen));
  };
  return body.ops.some((o) => o.kind === 'load' && o.operands.slice(0, 2).some((v) => reads(v.id)));
}

/**
 * c = a @ b with walked pointers and a walked integer offset; after the loop it also stores the
 * final offsets (kout) and the last tile of a read through the final pointer (a - BK), so the
 * values the loop returns are checked. `mode`: 'invariant' amounts, a 'variant' amount for pa, or
 * a 'store' in the body.
 */
const walked = (mode: 'invariant' | 'variant' | 'store') => defineKernel(
  { name: `walked_${mode}`, params: { a: ptr('f32'), b: ptr('f32'), c: ptr('f32'), kout: ptr('i32'), N: 'i32', K: 'i32', B: constexpr() } },
  ({ a, b, c, kout, N, K, B }) => {
    const r = arange(0, B as number);
    const rm = programId(0).mul(B).add(r);
    const pa0 = a.add(rm.expandDims(1).mul(K).add(r.expandDims(0)));
    const pb0 = b.add(r.expandDims(1).mul(N).add(r.expandDims(0)));
    const [acc, pa, , ko] = forLoop(0, K, B as number, [zeros([B as number, B as number], 'f32'), pa0, pb0, r], (k, acc, pa, pb, ko) => {
      const tb = load(pb!, { mask: ko!.expandDims(1).lt(K).logicalAnd(r.expandDims(0).lt(N)), other: 0 });
      const next = dot(load(pa!), tb, { acc: acc! });
      if (mode === 'store') store(c.add(rm.expandDims(1).mul(N).add(r.expandDims(0))), next);
      return [next, pa!.add(mode === 'variant' ? k.sub(k).add(B) : B), pb!.add(N.mul(B)), ko!.add(B)];
    });
    store(kout.add(programId(0).mul(B).add(r)), ko!);
    const last = load(pa!.sub(B));
    store(c.add(rm.expandDims(1).mul(N).add(r.expandDims(0))), acc!.add(last));
  },
);

describe("the 'carried' IR pass", () => {
  const B = 8, N = 8, K = 24, M = 16;
  const r = rng(3);
  const a = randF32(r, M * K), b = randF32(r, K * N);
  const bufs = (): Buf[] => [a.slice(), b.slice(), new Float32Array(M * N), new Int32Array(M)];

  it.each(['invariant', 'variant', 'store'] as const)('%s: the results (after the loop too) are bit-exact', (mode) => {
    const traced = walked(mode).trace({ B });
    const want = run(traced, bufs(), [N, K], [M / B]);
    const got = run(runIRPasses(traced), bufs(), [N, K], [M / B]);
    got.forEach((g, i) => expect(new Uint8Array(g.buffer)).toEqual(new Uint8Array(want[i]!.buffer)));
    expect(Array.from(want[3] as Int32Array).slice(0, B)).toEqual(Array.from({ length: B }, (_, i) => i + K)); // ko after 3 steps
  });

  it('loop-invariant amounts: no load reads a carried value any more; before the pass they did', () => {
    const traced = walked('invariant').trace({ B });
    expect(loadsReadCarried(traced)).toBe(true);
    expect(loadsReadCarried(runIRPasses(traced))).toBe(false);
  });

  it('an amount that varies with the iteration, or a loop that stores, keeps the carried form', () => {
    expect(loadsReadCarried(runIRPasses(walked('store').trace({ B })))).toBe(true);
    const v = runIRPasses(walked('variant').trace({ B }));
    expect(loadsReadCarried(v)).toBe(true);
  });
});
