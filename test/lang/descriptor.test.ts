// Tensor descriptors in the language (makeTensorDescriptor, desc.load, desc.store): the IR they
// trace to, and every bad descriptor rejected at trace time by name (E_DESCRIPTOR / E_TYPE), with
// the kernel, the op and the user's line.
import { describe, expect, it } from 'vitest';
import { TesseraError } from '../../src/ir/index.js';
import { verify } from '../../src/ir/verify.js';
import { arange, constexpr, defineKernel, KernelError, makeTensorDescriptor, programId, tensorDesc, type Tile } from '../../src/lang/index.js';
import { opsOf, traceBody } from './helpers.js';

function traceErr(body: Parameters<typeof traceBody>[0]): KernelError {
  try {
    traceBody(body, 'bad');
  } catch (e) {
    expect(e).toBeInstanceOf(TesseraError);
    expect(e).toBeInstanceOf(KernelError);
    const k = e as KernelError;
    expect(k.kernel).toBe('bad');
    expect(k.message).toMatch(/descriptor\.test\.ts:\d+:\d+\)$/);
    return k;
  }
  throw new Error('expected an error');
}

describe('makeTensorDescriptor', () => {
  it('traces desc_load / desc_store with base, shape, strides and offsets as i32 scalars', () => {
    const f = traceBody(({ xf, n }) => {
      const d = makeTensorDescriptor(xf, [n, 64], [64, 1], [16, 32]);
      d.store([programId(0).mul(16), 0], d.load([programId(0).mul(16), 32]).mul(2));
    });
    verify(f);
    const [ld] = opsOf(f, 'desc_load');
    const [st] = opsOf(f, 'desc_store');
    expect(ld!.attrs.block).toEqual([16, 32]);
    expect(ld!.operands).toHaveLength(7);
    expect(ld!.results[0]!.type).toEqual({ elem: 'f32', shape: [16, 32] });
    expect(st!.operands).toHaveLength(8);
    expect(ld!.operands.slice(1).every((v) => v.type.elem === 'i32' && v.type.shape.length === 0)).toBe(true);
  });

  it('casts i64 shapes and offsets to i32 and broadcasts a scalar stored value', () => {
    const f = traceBody(({ xh, n }) => {
      const d = makeTensorDescriptor(xh, [n.to('i64'), 8], [8, 1], [4, 8]);
      d.store([0, 0], 1.5);
    });
    verify(f);
    expect(opsOf(f, 'desc_store')[0]!.operands.at(-1)!.type).toEqual({ elem: 'f16', shape: [4, 8] });
  });

  const bad: [string, Parameters<typeof traceBody>[0], string, RegExp][] = [
    ['a last stride other than the literal 1', ({ xf, n }) => makeTensorDescriptor(xf, [n, n], [n, n], [16, 16]), 'E_DESCRIPTOR', /last stride must be the literal 1/],
    ['a block dim that is not a power of two', ({ xf, n }) => makeTensorDescriptor(xf, [n, n], [n, 1], [12, 16]), 'E_DESCRIPTOR', /block dim 0 must be a power of two in 1\.\.256/],
    ['a block dim above 256 (the TMA box limit)', ({ xf, n }) => makeTensorDescriptor(xf, [n, n], [n, 1], [512, 16]), 'E_DESCRIPTOR', /block dim 0 must be a power of two in 1\.\.256/],
    ['a last block dim of fewer than 16 bytes', ({ xf, n }) => makeTensorDescriptor(xf, [n, n], [n, 1], [16, 2]), 'E_DESCRIPTOR', /at least 16 bytes/],
    ['a constant stride that is not a multiple of 16 bytes', ({ xf, n }) => makeTensorDescriptor(xf, [n, n], [6, 1], [16, 16]), 'E_DESCRIPTOR', /strides\[0\] = 6 elements is 24 bytes, not a multiple of 16/],
    ['shape and block ranks that differ', ({ xf, n }) => makeTensorDescriptor(xf, [n], [1], [16, 16]), 'E_DESCRIPTOR', /shape must be an array of 2 entries/],
    ['a rank above 5', ({ xf, n }) => makeTensorDescriptor(xf, [n, n, n, n, n, n], [n, n, n, n, n, 1], [1, 1, 1, 1, 1, 16]), 'E_DESCRIPTOR', /rank 1\.\.5/],
    ['a tile of pointers as the base', ({ xf, n }) => makeTensorDescriptor(xf.add(arange(0, 16)), [n], [1], [16]), 'E_DESCRIPTOR', /base must be a scalar pointer/],
    ['a bool tensor', ({ xb, n }) => makeTensorDescriptor(xb, [n], [1], [16]), 'E_DESCRIPTOR', /cannot hold bool/],
    ['a float shape', ({ xf, f }) => makeTensorDescriptor(xf, [f as Tile], [1], [16]), 'E_DESCRIPTOR', /shape\[0\] must be a scalar integer/],
    ['a zero constant shape', ({ xf }) => makeTensorDescriptor(xf, [0], [1], [16]), 'E_DESCRIPTOR', /shape\[0\] must be at least 1/],
    ['offsets of the wrong rank', ({ xf, n }) => makeTensorDescriptor(xf, [n, n], [n, 1], [16, 16]).load([0]), 'E_DESCRIPTOR', /offsets must be an array of 2 entries/],
    ['a tile offset', ({ xf, n }) => makeTensorDescriptor(xf, [n], [1], [16]).load([arange(0, 16)]), 'E_DESCRIPTOR', /offsets\[0\] must be a scalar integer/],
    ['storing another dtype', ({ xf, xh, n }) => makeTensorDescriptor(xf, [n], [1], [16]).store([0], makeTensorDescriptor(xh, [n], [1], [16]).load([0])), 'E_TYPE', /cannot store f16 values through a descriptor of f32/],
  ];
  for (const [what, body, code, re] of bad) {
    it(`rejects ${what}`, () => {
      const e = traceErr(body);
      expect(e.code).toBe(code);
      expect(e.detail).toMatch(re);
    });
  }

  describe('tensorDesc parameters (host-side descriptors)', () => {
    it('travel as base, shape and outer strides, and give the kernel a descriptor', () => {
      const k = defineKernel({ name: 'hd', params: { x: tensorDesc('f32', ['B', 16]), B: constexpr() } }, ({ x }) => {
        x.store([0, 0], x.load([programId(0), 0]));
      });
      expect(k.runtimeParams.map((p) => [p.name, p.type, p.desc?.role])).toEqual([
        ['x', 'ptr<f32>', 'base'], ['x_shape0', 'i32', 'shape'], ['x_shape1', 'i32', 'shape'], ['x_stride0', 'i32', 'stride'],
      ]);
      const f = k.trace({ B: 8 });
      verify(f);
      expect(opsOf(f, 'desc_load')[0]!.attrs.block).toEqual([8, 16]);
    });

    it('reject a block dim naming no constexpr, a clash with a part name, and a bad block shape', () => {
      const code = (fn: () => unknown): string | undefined => {
        try { fn(); } catch (e) { return (e as KernelError).code + ': ' + (e as KernelError).detail; }
        return undefined;
      };
      expect(code(() => defineKernel({ name: 'hd', params: { x: tensorDesc('f32', ['B', 16]) } }, () => {}))).toMatch(/E_ARG: tensor descriptor 'x': block dim 'B' is not a constexpr parameter/);
      expect(code(() => defineKernel({ name: 'hd', params: { x: tensorDesc('f32', [16]), x_shape0: 'i32' } }, () => {}))).toMatch(/collides with a part of tensor descriptor 'x'/);
      expect(code(() => tensorDesc('bool', [16]))).toMatch(/^E_DESCRIPTOR/);
      expect(code(() => defineKernel({ name: 'hd', params: { x: tensorDesc('f32', [12]) } }, () => {}).trace({}))).toMatch(/E_DESCRIPTOR: block dim 0 must be a power of two/);
    });
  });
});
