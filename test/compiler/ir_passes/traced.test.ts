// The IR passes on kernels traced by the real front end: the optimized Func must compute exactly
// what the traced one computes (bit for bit, on the interpreter) and must not grow.
import { describe, expect, test } from 'vitest';
import { runIRPasses } from '../../../src/compiler/ir_passes.js';
import type { Func } from '../../../src/ir/ops.js';
import { walkOps } from '../../../src/ir/walk.js';
import { HostMemory, interpret } from '../../../src/interpret/index.js';
import * as L from '../../../src/lang/index.js';
import { arange, constexpr, defineKernel, forLoop, full, ifThenElse, load, programId, ptr, store } from '../../../src/lang/index.js';
import type { KernelDef } from '../../../src/lang/index.js';
import { randF32, randI32, rng } from '../../lang/run.js';

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

const countOps = (f: Func): number => {
  let n = 0;
  walkOps(f.body, () => void n++);
  return n;
};

/** Traces `def`, runs the passes, runs both Funcs on the same inputs and compares the bytes. */
function checkSame(def: KernelDef, constexprs: Record<string, number>, bufs: () => Buf[], scalars: number[], grid: number[]): { before: number; after: number } {
  const traced = def.trace(constexprs);
  const optimized = runIRPasses(traced);
  const want = run(traced, bufs(), scalars, grid);
  const got = run(optimized, bufs(), scalars, grid);
  got.forEach((g, i) => expect(new Uint8Array(g.buffer)).toEqual(new Uint8Array(want[i]!.buffer)));
  const counts = { before: countOps(traced), after: countOps(optimized) };
  expect(counts.after).toBeLessThanOrEqual(counts.before);
  return counts;
}

describe('IR passes on traced kernels keep results bit-exact', () => {
  test('vector add with a ragged edge', () => {
    const add = defineKernel({ name: 'add', params: { x: ptr('f32'), y: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
      ({ x, y, out, n, BLOCK }) => {
        const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
        const mask = offs.lt(n);
        store(out.add(offs), load(x.add(offs), { mask }).mul(1).add(load(y.add(offs), { mask, other: 0 })), { mask });
      });
    const r = rng(1);
    const x = randF32(r, 100), y = randF32(r, 100);
    const { before, after } = checkSame(add, { BLOCK: 32 }, () => [x.slice(), y.slice(), new Float32Array(100)], [100], [4]);
    expect(after).toBeLessThan(before); // x*1 is gone
  });

  test('constant arithmetic folds with the interpreter\'s dtype semantics', () => {
    const consts = defineKernel({ name: 'consts', params: { out: ptr('i32'), fout: ptr('f32'), BLOCK: constexpr() } },
      ({ out, fout, BLOCK }) => {
        const i = arange(0, BLOCK);
        const big = full([BLOCK], 2147483647, 'i32').add(1);                     // wraps
        const fd = L.floordiv(full([BLOCK], -7, 'i32'), 2);
        const r = L.rem(full([BLOCK], -7, 'i32'), 3);
        const sh = L.shr(full([BLOCK], -64, 'i32'), 3);
        const c8 = L.cast(full([BLOCK], 300, 'i32'), 'i8');
        store(out.add(i), big.add(fd).add(r).add(sh).add(L.cast(c8, 'i32')).add(i.mul(0)));
        const h = L.cast(L.cast(full([BLOCK], 2049.0, 'f32'), 'f16'), 'f32');      // 2048
        const b = L.cast(L.cast(full([BLOCK], 1.00390625, 'f32'), 'bf16'), 'f32');
        const s = full([BLOCK], 0.1, 'f32').add(0.2).mul(3).sub(L.cast(i, 'f32').mul(0));
        store(fout.add(i), h.add(b).add(s));
      });
    const { before, after } = checkSame(consts, { BLOCK: 16 }, () => [new Int32Array(16), new Float32Array(16)], [], [1]);
    expect(after).toBeLessThan(before);
  });

  test('a row sum with a device loop, invariant index math and an if', () => {
    const rowSum = defineKernel({ name: 'row_sum', params: { x: ptr('f32'), out: ptr('f32'), cols: 'i32', BLOCK: constexpr(), SCALE: constexpr() } },
      ({ x, out, cols, BLOCK, SCALE }) => {
        const row = programId(0);
        const [acc] = forLoop(0, cols, BLOCK, [L.zeros([BLOCK], 'f32')], (k, acc) => {
          const offs = programId(0).mul(cols).add(k).add(arange(0, BLOCK));
          const mask = arange(0, BLOCK).add(k).lt(cols);
          return [acc!.add(load(x.add(offs), { mask, other: 0 }))];
        });
        const total = L.sum(acc!, 0);
        const [scaled] = ifThenElse(SCALE > 1, () => [total.mul(SCALE)], () => [total]);
        const [sign] = ifThenElse(total.lt(0), () => [scaled!.mul(-1)], () => [scaled!]);
        store(out.add(row), sign!);
      });
    const r = rng(2);
    const x = randF32(r, 8 * 50);
    checkSame(rowSum, { BLOCK: 16, SCALE: 2 }, () => [x.slice(), new Float32Array(8)], [50], [8]);
    checkSame(rowSum, { BLOCK: 16, SCALE: 1 }, () => [x.slice(), new Float32Array(8)], [50], [8]);
  });

  test('integer kernel with masks and where', () => {
    const k = defineKernel({ name: 'ints', params: { a: ptr('i32'), out: ptr('i32'), n: 'i32', BLOCK: constexpr() } },
      ({ a, out, n, BLOCK }) => {
        const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
        const mask = offs.lt(n);
        const v = load(a.add(offs), { mask, other: 0 });
        const w = L.where(offs.rem(2).eq(0), v.mul(3).add(0), v.sub(0).mul(1));
        store(out.add(offs), w.add(programId(0).mul(BLOCK)), { mask });
      });
    const a = randI32(rng(3), 77);
    checkSame(k, { BLOCK: 32 }, () => [a.slice(), new Int32Array(77)], [77], [3]);
  });
});
