// The sim's instruction budget turns a kernel that never ends into CUDA_ERROR_LAUNCH_TIMEOUT
// (own file: the error is sticky for the context).
import { describe, expect, it } from 'vitest';
import { NativeDeviceError } from '../../src/runtime/native/errors.js';
import { SPIN_PTX } from './fixtures.js';
import { openSimDevice } from './sim-helpers.js';

describe('sim: instruction budget', () => {
  it('stops a spinning kernel with CUDA_ERROR_LAUNCH_TIMEOUT', async () => {
    const dev = openSimDevice();
    dev.setInstructionBudget(100_000);
    const spin = { ptx: SPIN_PTX, metadata: { name: 'spin', numWarps: 1, sharedBytes: 0, params: [] } };
    let err: unknown;
    try {
      dev.launch(spin, [], 1);
      await dev.synchronizeAsync();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NativeDeviceError);
    expect((err as NativeDeviceError).code).toBe('CUDA_ERROR_LAUNCH_TIMEOUT');
    expect((err as NativeDeviceError).call).toBe('cuCtxSynchronize');
  });
});
