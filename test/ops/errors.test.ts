// Bad arguments are named errors (OpsError, code E_OPS_SHAPE / E_OPS_DTYPE / E_OPS_DEVICE /
// E_OPS_ARG, the message naming op and argument), thrown before anything is queued: the output
// array given as `out` is left as it was.
import { describe, expect, it } from 'vitest';
import { ops } from '../../src/index.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import { devArray } from './helpers.js';

const dev = 'interpret';
const f32 = (shape: number[], device = dev): DeviceArray => DeviceArray.zeros(shape, 'f32', { device: device as never });
const f16 = (shape: number[]): DeviceArray => DeviceArray.zeros(shape, 'f16', { device: dev });
const i32 = (shape: number[]): DeviceArray => DeviceArray.zeros(shape, 'i32', { device: dev });

function expectOpsError(fn: () => unknown, code: string, message: RegExp): void {
  let err: unknown;
  try { fn(); } catch (e) { err = e; }
  expect(err, 'expected a synchronous OpsError').toBeInstanceOf(ops.OpsError);
  expect(err).toMatchObject({ code, message: expect.stringMatching(message) });
}

describe('ops argument errors', () => {
  it('matmul: inner dims, dtypes, rank, transB layout, bias, activation, out, unknown option', () => {
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([5, 6])), 'E_OPS_SHAPE', /ops\.matmul: b: \[K, N\] has K = 5, a \[M, K\] has K = 4/);
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([6, 5]), { transB: true }), 'E_OPS_SHAPE', /b: \[N, K\] \(transB\) has K = 5/);
    expectOpsError(() => ops.matmul(f32([3, 4]), f16([4, 6])), 'E_OPS_DTYPE', /ops\.matmul: b: has dtype f16, a has f32/);
    expectOpsError(() => ops.matmul(i32([3, 4]), i32([4, 6])), 'E_OPS_DTYPE', /ops\.matmul: a: expected f32 or f16 or bf16 or f8e4m3 or f8e5m2, got i32/);
    expectOpsError(() => ops.matmul(f32([3, 4, 1]), f32([4, 6])), 'E_OPS_SHAPE', /ops\.matmul: a: expected rank 2, got shape \[3, 4, 1\]/);
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([4, 6]), { bias: f32([5]) }), 'E_OPS_SHAPE', /ops\.matmul: bias: expected shape \[6\], got \[5\]/);
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([4, 6]), { activation: 'tanh' as never }), 'E_OPS_ARG', /activation: expected gelu, silu, relu, got tanh/);
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([4, 6]), { out: f32([3, 5]) }), 'E_OPS_SHAPE', /ops\.matmul: out: expected shape \[3, 6\], got \[3, 5\]/);
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([4, 6]), { out: f16([3, 6]) }), 'E_OPS_DTYPE', /ops\.matmul: out: expected f32, got f16/);
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([4, 6]), { transpose: true } as never), 'E_OPS_ARG', /unknown option 'transpose'/);
    expectOpsError(() => ops.matmul(new Float32Array(12) as never, f32([4, 6])), 'E_OPS_ARG', /ops\.matmul: a: expected a DeviceArray, got a Float32Array/);
    expectOpsError(() => ops.matmul(f32([4, 3]).transpose(), f32([4, 6])), 'E_OPS_SHAPE', /a: expected a contiguous \(row-major\) array/);
  });

  it('arrays on two devices are E_OPS_DEVICE naming both', () => {
    expectOpsError(() => ops.matmul(f32([3, 4]), f32([4, 6], 'sim:0')), 'E_OPS_DEVICE', /ops\.matmul: b: is on device 'sim:0', a on 'interpret:0'/);
    expectOpsError(() => ops.rmsNorm(f32([2, 8]), f32([8], 'sim:0')), 'E_OPS_DEVICE', /ops\.rmsNorm: weight: is on device 'sim:0'/);
  });

  it('a freed array is named', () => {
    const a = f32([3, 4]);
    a.free();
    expectOpsError(() => ops.softmax(a), 'E_OPS_ARG', /ops\.softmax: x: .*freed/);
  });

  it('row ops, swiglu, embedding, rope, sample', () => {
    expectOpsError(() => ops.rmsNorm(f32([2, 8]), f32([7])), 'E_OPS_SHAPE', /ops\.rmsNorm: weight: expected shape \[8\], got \[7\]/);
    expectOpsError(() => ops.rmsNorm(f32([2, 8]), f32([8]), { eps: -1 }), 'E_OPS_ARG', /ops\.rmsNorm: eps: expected a finite number >= 0, got number -1/);
    expectOpsError(() => ops.layerNorm(f32([2, 8]), f32([8]), undefined as never), 'E_OPS_ARG', /ops\.layerNorm: bias: expected a DeviceArray or null/);
    expectOpsError(() => ops.softmax(f32([8])), 'E_OPS_SHAPE', /ops\.softmax: x: expected rank 2/);
    expectOpsError(() => ops.add(f32([2, 8]), f32([2, 9])), 'E_OPS_SHAPE', /ops\.add: b: expected shape \[2, 8\], got \[2, 9\]/);
    expectOpsError(() => ops.add(f32([2, 8]), f16([2, 8])), 'E_OPS_DTYPE', /ops\.add: b: expected f32, got f16/);
    expectOpsError(() => ops.swiglu(f32([2, 8]), f32([2, 9])), 'E_OPS_SHAPE', /ops\.swiglu: up: expected shape \[2, 8\], got \[2, 9\]/);
    expectOpsError(() => ops.swiglu(f32([2, 8]), f16([2, 8])), 'E_OPS_DTYPE', /ops\.swiglu: up: expected f32, got f16/);
    expectOpsError(() => ops.embedding(f32([10, 4]), Int32Array.from([1, 10])), 'E_OPS_ARG', /ops\.embedding: ids: ids\[1\] = 10 is out of range for a table of 10 rows/);
    expectOpsError(() => ops.embedding(f32([10, 4]), f32([3])), 'E_OPS_DTYPE', /ops\.embedding: ids: expected i32, got f32/);
    expectOpsError(() => ops.rope(f32([3, 2, 8]), i32([4])), 'E_OPS_SHAPE', /ops\.rope: positions: expected shape \[3\], got \[4\]/);
    expectOpsError(() => ops.rope(f32([3, 2, 7]), i32([3])), 'E_OPS_SHAPE', /ops\.rope: x: head dim 7 is odd/);
    expectOpsError(() => ops.rope(f32([3, 2, 8]), i32([3]), { invFreq: new Float32Array(3) }), 'E_OPS_SHAPE', /ops\.rope: invFreq: expected 4 frequencies/);
    expectOpsError(() => ops.rope(f32([3, 2, 8]), i32([3]), { theta: 0 }), 'E_OPS_ARG', /ops\.rope: theta: expected a positive number/);
    expectOpsError(() => ops.sample(f32([2, 0])), 'E_OPS_SHAPE', /ops\.sample: logits: has no columns/);
    expectOpsError(() => ops.sample(f32([2, 5]), { temperature: -1 }), 'E_OPS_ARG', /ops\.sample: temperature: expected a finite number >= 0/);
    expectOpsError(() => ops.sample(f32([2, 5]), { temperature: 1, topK: 0 }), 'E_OPS_ARG', /ops\.sample: topK: expected an integer in 1\.\.1024, got number 0/);
    expectOpsError(() => ops.sample(f32([2, 5]), { temperature: 1, topP: 1.5 }), 'E_OPS_ARG', /ops\.sample: topP: expected a number in \(0, 1\]/);
    expectOpsError(() => ops.sample(f32([2, 5]), { seed: -1 }), 'E_OPS_ARG', /ops\.sample: seed: expected an integer in 0\.\.inf/);
    expectOpsError(() => ops.sample(f32([1, 2000]), { temperature: 1, topP: 0.9 }), 'E_OPS_ARG', /ops\.sample: topP: top-p over rows of 2000 logits needs topK/);
    expectOpsError(() => ops.topk(f32([2, 5]), 6), 'E_OPS_ARG', /ops\.topk: k: expected an integer in 1\.\.5, got number 6/);
    expectOpsError(() => ops.topk(f32([2, 5]), 2, { outIndices: f32([2, 2]) }), 'E_OPS_DTYPE', /ops\.topk: outIndices: expected i32, got f32/);
  });

  it('nothing is written when the check fails: out keeps its contents', async () => {
    const out = devArray([7, 7, 7, 7, 7, 7], 'f32', [2, 3], dev);
    expectOpsError(() => ops.matmul(f32([2, 4]), f32([5, 3]), { out }), 'E_OPS_SHAPE', /K = 5/);
    expect(Array.from(await out.toArray() as Float32Array)).toEqual([7, 7, 7, 7, 7, 7]);
  });
});
