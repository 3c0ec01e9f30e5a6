// Block pointers' front end: every bad argument and unknown option is named at trace time; a loop
// carries a block pointer as its offsets and may only advance it. (Results on the interpreter and
// the sim: test/e2e/block_ptr_sm80.test.ts, block_ptr_sm90.test.ts.)
import { describe, expect, test } from 'vitest';
import { HostMemory, interpret } from '../../src/interpret/index.js';
import {
  advance, arange, defineKernel, forLoop, load, makeBlockPtr, makeTensorDescriptor, ptr, store, whileLoop, type Tile,
} from '../../src/lang/index.js';

type P = { x: Tile; y: Tile; n: Tile };
const traceWith = (body: (p: P) => void) =>
  defineKernel({ name: 'bp', params: { x: ptr('f32'), y: ptr('i32'), n: 'i32' } }, (p) => void body(p as P)).trace({});
const bp2 = (x: Tile, n: Tile | number = 64) => makeBlockPtr(x, [n, n], [n, 1], [0, 0], [16, 16], [1, 0]);

describe('makeBlockPtr, advance, load and store reject bad input by name', () => {
  test.each([
    ['a non-pointer base', ({ n }: P) => makeBlockPtr(n, [1], [1], [0], [16], [0]), /base must be a scalar pointer, got Tile<i32/],
    ['a block shape that is not a power of two', ({ x }: P) => makeBlockPtr(x, [4], [1], [0], [12], [0]), /blockShape must be a non-empty array of powers of two/],
    ['a shape of the wrong length', ({ x }: P) => makeBlockPtr(x, [4, 4], [1], [0], [16], [0]), /shape must be an array of 1 entries/],
    ['a float stride', ({ x }: P) => makeBlockPtr(x, [4], [1.5], [0], [16], [0]), /strides\[0\] must be an integer, got 1.5/],
    ['an order that is not a permutation', ({ x }: P) => makeBlockPtr(x, [4, 4], [4, 1], [0, 0], [16, 16], [1, 1]), /order must be a permutation of 0..1/],
    ['a tile offset', ({ x }: P) => makeBlockPtr(x, [4], [1], [arange(0, 16)], [16], [0]), /offsets\[0\] must be a scalar integer, got Tile<i32\[16\]>/],
    ['advance with too few offsets', ({ x }: P) => advance(bp2(x), [1]), /offsets must be an array of 2 entries/],
    ['advance of a tile', ({ x }: P) => advance(x as never, [1]), /advance needs a block pointer/],
    ['an unknown load option', ({ x }: P) => load(bp2(x), { boundaryChecks: [0] } as never), /unknown load option 'boundaryChecks' for a block pointer \(allowed: boundaryCheck, paddingOption/],
    ['a mask on a block pointer', ({ x }: P) => load(bp2(x), { mask: true } as never), /unknown load option 'mask'.*instead of mask and other/],
    ['a padding option on a store', ({ x }: P) => store(bp2(x), 1, { paddingOption: 'zero' } as never), /unknown store option 'paddingOption'/],
    ['a bad boundaryCheck dim', ({ x }: P) => load(bp2(x), { boundaryCheck: [2] }), /boundaryCheck must be an array of distinct dims in 0..1, got/],
    ['a repeated boundaryCheck dim', ({ x }: P) => load(bp2(x), { boundaryCheck: [0, 0] }), /distinct dims/],
    ['an unknown padding', ({ x }: P) => load(bp2(x), { boundaryCheck: [0], paddingOption: 'one' as never }), /paddingOption must be 'zero' or 'nan', got/],
    ['nan padding of integers', ({ y }: P) => load(bp2(y), { boundaryCheck: [0], paddingOption: 'nan' }), /paddingOption 'nan' needs a float block pointer, got i32/],
    ['a stored value of another dtype', ({ x }: P) => store(bp2(x), arange(0, 16)), /cannot store i32 values through ptr<f32>/],
    ['a loop that replaces its block pointer', ({ x, n }: P) => forLoop(0, 4, 1, [bp2(x)], () => [bp2(x, n)]), /forLoop body value 0 is a different block pointer: a loop may only advance the one it carries/],
    ['an unknown desc.load option', ({ x, n }: P) => makeTensorDescriptor(x, [n], [1], [16]).load([0], { padding: 'nan' } as never), /unknown desc.load option 'padding' \(allowed: paddingOption\)/],
    ['desc.load nan padding of integers', ({ y, n }: P) => makeTensorDescriptor(y, [n], [1], [16]).load([0], { paddingOption: 'nan' }), /paddingOption 'nan' needs a float descriptor .* got i32/],
    ['a bad desc.load padding', ({ x, n }: P) => makeTensorDescriptor(x, [n], [1], [16]).load([0], { paddingOption: 'inf' as never }), /paddingOption must be 'zero' or 'nan'/],
    ['a loop that returns a tile for a block pointer', ({ x }: P) => whileLoop([bp2(x)], () => false, () => [arange(0, 16)]), /whileLoop body value 0 must be a block pointer/],
  ])('%s', (_, body, msg) => {
    expect(() => traceWith(body)).toThrow(msg);
  });
});

describe('block pointers on the interpreter', () => {
  test('a checked dim pads, advance moves the window, a carried pointer comes out advanced', () => {
    const k = defineKernel({ name: 'bpi', params: { x: ptr('i32'), o: ptr('i32'), n: 'i32' } }, ({ x, o, n }) => {
      const p = makeBlockPtr(x, [n], [1], [0], [16], [0]);
      // 3 windows of 16 over n = 40 elements: the last one half out of bounds (padded with 0)
      const [q, total] = forLoop(0, 3, 1, [p, arange(0, 16).mul(0)], (_, q, s) => [advance(q, [16]), s.add(load(q, { boundaryCheck: [0] }))]);
      store(makeBlockPtr(o, [16], [1], [0], [16], [0]), total);
      store(advance(q, [-40]), load(advance(q, [-48]))); // q is at 48: write window 8..23 with 0..15
    });
    const mem = new HostMemory();
    const x = Int32Array.from({ length: 40 }, (_, i) => i + 1);
    const xa = mem.upload(x), oa = mem.upload(new Int32Array(16));
    interpret(k.trace({}), [xa, oa, 40], mem, { grid: [1] });
    const o = new Int32Array(16), x2 = new Int32Array(40);
    mem.download(oa, o);
    mem.download(xa, x2);
    expect([...o]).toEqual(Array.from({ length: 16 }, (_, i) => (i + 1) + (i + 17) + (i + 33 <= 40 ? i + 33 : 0)));
    expect([...x2.subarray(8, 24)]).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });
});
