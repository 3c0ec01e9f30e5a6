// The examples/ programs, unmodified, on each device. They pick their device the documented way
// (TESSERA_DEVICE, read by getDevice on every run), so each case sets it for the duration of a call.
// Each device's result is checked against plain JS, and the two devices against each other.
import { afterEach, describe, expect, it } from 'vitest';
import { addKernel, vectorAdd, vectorAddPallas } from '../../examples/vector_add.js';
import { softmax, softmaxKernel, softmaxPallas, softmaxRef } from '../../examples/softmax.js';
import { addTwice } from '../../examples/device_chain.js';
import { saxpy } from '../../examples/foreign_ptx.js';
import { gate } from '../codegen/gate.js';
import { getDevice } from '../../src/runtime/device.js';
import { DEVICES, type E2EDevice, expectBitwise, expectClose, randF32, simDevice } from './helpers.js';

const saved = process.env['TESSERA_DEVICE'];
afterEach(() => {
  if (saved === undefined) delete process.env['TESSERA_DEVICE'];
  else process.env['TESSERA_DEVICE'] = saved;
});

async function onDevice<T>(dev: E2EDevice, fn: () => Promise<T>): Promise<T> {
  if (dev === 'sim') simDevice(); // fails (not skips) when the sim is missing
  process.env['TESSERA_DEVICE'] = dev;
  expect(getDevice().kind, 'the device the examples will use').toBe(dev);
  try {
    return await fn();
  } finally {
    delete process.env['TESSERA_DEVICE'];
  }
}

const results = new Map<string, ArrayLike<number>>();

describe.each(DEVICES)('examples on %s', (dev) => {
  const n = 1000; // not a multiple of the block: the last program is masked
  const x = randF32(n, 21), y = randF32(n, 22);
  const sum = x.map((v, i) => v + y[i]!);

  it('vector_add, Triton style', async () => {
    const out = await onDevice(dev, () => vectorAdd(x, y, 256));
    expectBitwise(out, sum, 'vs JS');
    results.set(`add/${dev}`, out);
  });

  it('device_chain: two kernels on device arrays (the README example)', async () => {
    const out = await onDevice(dev, () => addTwice(x, y, 256));
    expectBitwise(out, sum.map((v, i) => Math.fround(v + y[i]!)), 'vs JS');
  });

  if (dev === 'sim') {
    it('foreign_ptx: a hand-written PTX kernel through loadModule / getFunction / launch', async () => {
      const out = await onDevice(dev, () => saxpy(2.5, x, y));
      expectBitwise(out, x.map((v, i) => Math.fround(2.5 * v + y[i]!)), 'vs JS (fma: one rounding)');
    });
  }

  it('vector_add, Pallas style', async () => {
    const out = await onDevice(dev, () => vectorAddPallas(x, y));
    expectBitwise(out, sum, 'vs JS');
  });

  const rows = 7, cols = 300;
  const m = randF32(rows * cols, 23, -5, 5);
  it('softmax, Triton style', async () => {
    const out = await onDevice(dev, () => softmax(m, rows, cols));
    expectClose(out, softmaxRef(m, rows, cols), 1e-4, 'vs JS');
    results.set(`softmax/${dev}`, out);
  });

  it('softmax, Pallas style', async () => {
    const out = await onDevice(dev, () => softmaxPallas(m, rows, cols));
    expectClose(out, softmaxRef(m, rows, cols), 1e-4, 'vs JS');
    results.set(`softmax-pallas/${dev}`, out);
  });
});

describe('sim agrees with the interpreter on the examples', () => {
  it.each(['add', 'softmax', 'softmax-pallas'])('%s', (name) => {
    const a = results.get(`${name}/sim`), b = results.get(`${name}/interpret`);
    expect(a, 'the sim run stored its output').toBeInstanceOf(Float32Array);
    expect(b, 'the interpreter run stored its output').toBeInstanceOf(Float32Array);
    expectClose(a!, b!, 1e-5, `${name}: sim vs interpreter`);
  });
});

it('the Triton-style example kernels assemble with ptxas (sm_80, sm_90)', () => {
  gate(addKernel.trace({ BLOCK: 256 }));
  gate(softmaxKernel.trace({ BLOCK: 512 }));
});
