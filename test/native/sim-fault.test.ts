// A faulting kernel on the sim: the error carries the driver's name and the sim's report. In its
// own file (own process): the fault is sticky and poisons the context, as on hardware.
import { describe, expect, it } from 'vitest';
import { NativeDeviceError } from '../../src/runtime/native/errors.js';
import { OOB_PTX } from './fixtures.js';
import { openSimDevice } from './sim-helpers.js';

describe('sim: kernel faults', () => {
  it('reports an out-of-bounds store as CUDA_ERROR_ILLEGAL_ADDRESS with the fault report', () => {
    const dev = openSimDevice();
    const buf = dev.alloc(16);
    const kernel = { ptx: OOB_PTX, metadata: { name: 'oob', numWarps: 1, sharedBytes: 0, params: [{ name: 'p', type: 'ptr<f32>', offset: 0, size: 8 }] } };
    let err: unknown;
    try {
      dev.launch(kernel, [buf], 1);
      dev.synchronize();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NativeDeviceError);
    expect((err as NativeDeviceError).code).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    const report = dev.lastFault();
    expect(report).not.toBeNull();
    expect(report).toContain('oob');
    expect((err as Error).message).toContain(report!.split('\n')[0]!);
    // sticky: later calls fail too
    expect(() => dev.synchronize()).toThrow(/CUDA_ERROR_ILLEGAL_ADDRESS/);
  });
});
