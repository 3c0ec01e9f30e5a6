// Kernels for the global-memory order tests (test/e2e/global_order.test.ts on sm_80,
// global_order_sm90.test.ts on sm_90): one program reads what its other threads wrote (or
// writes what they read) through global memory. docs/semantics.md promises program order within a
// program, so the compiled code needs a CTA barrier between the two accesses (codegen/global_order.ts).
import { arange, atomicAdd, constexpr, forLoop, ifThenElse, load, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';

/** The reproducer: each iteration reads p and writes it reversed plus one (RAW across the back edge, and WAR). */
export const reverseLoop = kernel(
  { name: 'reverse_loop', params: { p: ptr('i32'), n: 'i32' } },
  ({ p, n }) => {
    const j = arange(0, 128);
    forLoop(0, n, 1, [], () => {
      const x = load(p.add(j));
      store(p.add(j.mul(-1).add(127)), x.add(1));
      return [];
    });
  },
);

/** No loop, read-after-write: store a tile, load a reversed view of it. */
export const storeThenReversed = kernel(
  { name: 'store_then_reversed', params: { p: ptr('i32'), q: ptr('i32'), out: ptr('i32') } },
  ({ p, q, out }) => {
    const j = arange(0, 128);
    store(p.add(j), load(q.add(j)).mul(3));
    store(out.add(j), load(p.add(j.mul(-1).add(127))));
  },
);

/** No loop, write-after-read: load a reversed view, store over the loaded buffer. */
export const reverseInPlace = kernel(
  { name: 'reverse_in_place', params: { p: ptr('i32') } },
  ({ p }) => {
    const j = arange(0, 128);
    const x = load(p.add(j.mul(-1).add(127)));
    store(p.add(j), x.add(1));
  },
);

/** 2-D, every warp: store a B x B tile row-major, read it back transposed. */
export const transposeThroughMemory = kernel(
  { name: 'transpose_through_memory', params: { p: ptr('f32'), q: ptr('f32'), out: ptr('f32'), B: constexpr() } },
  ({ p, q, out, B }) => {
    const b = B as number;
    const r = arange(0, b).expandDims(1), c = arange(0, b).expandDims(0);
    store(p.add(r.mul(b).add(c)), load(q.add(r.mul(b).add(c))).add(1));
    store(out.add(r.mul(b).add(c)), load(p.add(c.mul(b).add(r))));
  },
);

/** The read-after-write inside an `if` on a uniform (scalar) condition. */
export const reverseInIf = kernel(
  { name: 'reverse_in_if', params: { p: ptr('i32'), out: ptr('i32'), flag: 'i32' } },
  ({ p, out, flag }) => {
    const j = arange(0, 128);
    ifThenElse(flag.gt(0), () => {
      store(p.add(j), j.mul(5));
      store(out.add(j), load(p.add(j.mul(-1).add(127))));
    });
  },
);

/** An atomic add, then a plain load of what other threads' atomics wrote. */
export const atomicThenLoad = kernel(
  { name: 'atomic_then_load', params: { p: ptr('i32'), out: ptr('i32') } },
  ({ p, out }) => {
    const j = arange(0, 128);
    atomicAdd(p.add(j), j.add(1000));
    store(out.add(j), load(p.add(j.mul(-1).add(127))));
  },
);

/** The common pattern that needs no barrier: the same pointer tile, same layout, read back. */
export const sameTileReadBack = kernel(
  { name: 'same_tile_read_back', params: { p: ptr('f32'), out: ptr('f32') } },
  ({ p, out }) => {
    const j = arange(0, 128);
    const at = p.add(j);
    store(at, load(at).mul(2));
    store(out.add(j), load(at).add(1));
  },
);

/** One case: the kernel, its args and grid, and whether the analysis must place a barrier. */
export interface OrderCase {
  readonly name: string;
  readonly kernel: typeof reverseLoop;
  readonly args: () => Record<string, unknown>;
  readonly want: (a: Record<string, unknown>) => ArrayLike<number>;
  readonly out: string;
  readonly barrier: boolean;
}

const iota = (n: number, f = (i: number): number => i): Int32Array => Int32Array.from({ length: n }, (_, i) => f(i));

/** Program order in plain JS, for the reproducer: n rounds of p = reverse(p) + 1. */
function reverseRounds(p0: Int32Array, n: number): Int32Array {
  let p = Int32Array.from(p0);
  for (let k = 0; k < n; k++) p = Int32Array.from(p, (_, i) => p[127 - i]! + 1);
  return p;
}

export const ORDER_CASES: readonly OrderCase[] = [
  { name: 'the reproducer: a loop reads what its previous iteration wrote, reversed', kernel: reverseLoop, args: () => ({ p: iota(128), n: 5 }), want: () => reverseRounds(iota(128), 5), out: 'p', barrier: true },
  { name: 'store a tile, then load it reversed (read-after-write)', kernel: storeThenReversed as never, args: () => ({ p: iota(128, () => -1), q: iota(128), out: iota(128, () => -1) }), want: () => iota(128, (i) => 3 * (127 - i)), out: 'out', barrier: true },
  { name: 'load reversed, then store over it (write-after-read)', kernel: reverseInPlace as never, args: () => ({ p: iota(128) }), want: () => iota(128, (i) => 128 - i), out: 'p', barrier: true },
  { name: 'a 2-D tile over every warp, read back transposed', kernel: transposeThroughMemory as never, args: () => ({ p: new Float32Array(32 * 32), q: Float32Array.from({ length: 1024 }, (_, i) => i), out: new Float32Array(1024), B: 32 }), want: () => Float32Array.from({ length: 1024 }, (_, i) => (i % 32) * 32 + Math.floor(i / 32) + 1), out: 'out', barrier: true },
  { name: 'inside an if on a uniform condition', kernel: reverseInIf as never, args: () => ({ p: iota(128, () => -1), out: iota(128, () => -1), flag: 1 }), want: () => iota(128, (i) => 5 * (127 - i)), out: 'out', barrier: true },
  { name: 'an atomic add, then a plain load of the other threads\' results', kernel: atomicThenLoad as never, args: () => ({ p: iota(128, (i) => 10 * i), out: iota(128, () => -1) }), want: () => iota(128, (i) => 11 * (127 - i) + 1000), out: 'out', barrier: true },
  { name: 'the same pointer tile read back in its own layout (no barrier needed)', kernel: sameTileReadBack as never, args: () => ({ p: Float32Array.from({ length: 128 }, (_, i) => i), out: new Float32Array(128) }), want: () => Float32Array.from({ length: 128 }, (_, i) => 2 * i + 1), out: 'out', barrier: false },
];
