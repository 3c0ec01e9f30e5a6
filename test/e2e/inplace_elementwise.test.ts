// f32 per-element ops written in place (codegen/lower_elementwise.ts `binary`,
// Lowering.clobberOperand): an add/sub/mul/div/min/max whose operand is a loop-carried tile it is
// the only use of (or the in-place result of such an op) writes into that tile's registers, so a
// carried tile updated by a chain (flash attention's acc * alpha + P V, l * alpha + sum(p)) is
// yielded in its own registers and the back edge copies nothing for it. Where the old value is
// read again (m, a tile read twice), in an inner loop, or swapped with another, it must not be:
// the sim runs each form against the interpreter, bit for bit (the ops are the same IEEE ops).
import { describe, expect, it } from 'vitest';
import type { Func } from '../../src/ir/ops.js';
import { kernel, P } from '../codegen/dsl.js';
import { count, gate } from '../codegen/gate.js';
import { expectBitwise, randF32, runBoth, type Buf } from './helpers.js';

async function bitwise(f: Func, args: (Buf | number)[], outs: number[], numWarps = 4): Promise<void> {
  const r = await runBoth(f, args, 1, { numWarps });
  for (const o of outs) expectBitwise(r.sim[o] as Buf, r.interpret[o] as Buf, `${f.name} out ${o}: sim vs interpreter`);
}

/** The plain loop's body of sm_80 PTX: from its head to its end label. */
function loopOf(ptx: string): string {
  const start = ptx.search(/^\$L_for_\d+:/m), end = ptx.search(/^\$L_endfor_\d+:/m);
  expect(start).toBeGreaterThan(0);
  return ptx.slice(start, end);
}
const BACK_EDGE_MOV = /^\s*mov\.b32 %f\d+, %f\d+;/;

describe('f32 per-element ops in place on loop-carried tiles', () => {
  // acc = acc * a + x, l = l * a + rowsum-like x, m = max(m, x) read twice (m - mNew): as flash's update
  const online = () => kernel('online', [['x', P('f32')], ['o', P('f32')], ['n', 'i32']], (k, [x, o, n]) => {
    const i = k.arange(128);
    const t = (v: number) => k.c(v, 'f32', [128]);
    const [acc, l, m] = k.for(k.c(0), n!, k.c(1), [t(0), t(0), t(-1e30)], (iv, [a, s, mx]) => {
      const v = k.load(k.addptr(x!, k.bin('add', k.splat(k.bin('mul', iv, k.c(128)), [128]), i)));
      const mNew = k.bin('max', mx!, v);
      const alpha = k.bin('sub', mx!, mNew); // m read twice: not in place
      return [k.bin('add', k.bin('mul', a!, alpha), v), k.bin('add', k.bin('mul', s!, t(0.5)), alpha), mNew];
    });
    k.store(k.addptr(o!, i), k.bin('add', k.bin('add', acc!, l!), m!));
  });

  it('the back edge copies only the tile read twice (m); acc and l are updated in their registers', () => {
    const loop = loopOf(gate(online()).sm80.ptx);
    // 128 elements on 4 warps: one register a thread per tile; m's copy is the only mov
    expect(count(loop, BACK_EDGE_MOV)).toBe(1);
  });

  it('computes what the interpreter computes, bit for bit', async () => {
    await bitwise(online(), [randF32(128 * 5, 7), new Float32Array(128), 5], [1]);
  });

  it('swapped carried tiles, each updated in place, and a carried tile used in an inner loop (not in place)', async () => {
    const f = kernel('swap_inner', [['x', P('f32')], ['o', P('f32')], ['n', 'i32']], (k, [x, o, n]) => {
      const i = k.arange(128);
      const t = (v: number) => k.c(v, 'f32', [128]);
      const v = k.load(k.addptr(x!, i));
      const [a, b, c] = k.for(k.c(0), n!, k.c(1), [v, t(2), t(1)], (_iv, [p, q, r]) => {
        // the inner loop runs its body twice per outer iteration: r must survive its first run
        const [inner] = k.for(k.c(0), k.c(2), k.c(1), [t(0)], (_j, [s]) => [k.bin('add', s!, k.bin('mul', r!, t(3)))]);
        return [k.bin('mul', q!, t(1.5)), k.bin('sub', p!, t(0.25)), k.bin('div', inner!, t(7))];
      });
      k.store(k.addptr(o!, i), k.bin('add', k.bin('mul', a!, t(100)), k.bin('add', b!, c!)));
    });
    await bitwise(f, [randF32(128, 9), new Float32Array(128), 5], [1]);
    await bitwise(f, [randF32(128, 9), new Float32Array(128), 4], [1], 2);
  });

  it('a splat operand (one register for every element) is never written in place', async () => {
    const f = kernel('splat_carry', [['o', P('f32')], ['n', 'i32'], ['s', 'f32']], (k, [o, n, s]) => {
      // 512 elements on 4 warps: 4 a thread, where a splat has one register
      const i = k.arange(512);
      const [a] = k.for(k.c(0), n!, k.c(1), [k.splat(s!, [512])], (iv, [p]) => [k.bin('add', p!, k.cast(k.splat(k.bin('add', iv, k.c(1)), [512]), 'f32'))]);
      k.store(k.addptr(o!, i), k.bin('mul', a!, k.cast(i, 'f32')));
    });
    await bitwise(f, [new Float32Array(512), 4, 0.375], [0]);
  });
});
