// The byte-copy kernel the runtime queues for device-to-device copies when the addon has no
// memcpyDtoDAsync (src/runtime/native/driver_seam.ts): hand-written PTX, so it passes the same
// ptxas gate as every kernel we emit (sm_80 and sm_90; a missing ptxas fails the test).
import { describe, expect, it } from 'vitest';
import { findPtxas, runPtxas } from '../../src/codegen/ptxas.js';
import { COPY_KERNEL } from '../../src/runtime/native/driver_seam.js';

describe('the runtime byte-copy kernel', () => {
  it.each(['sm_80', 'sm_90'])('assembles with ptxas for %s', (arch) => {
    const ptxas = findPtxas();
    expect(ptxas, 'ptxas (PATH, CUDA_HOME/bin, /usr/local/cuda/bin)').toBeDefined();
    // The runtime loads the sm_80 text (the driver JITs it forward); sm_90 needs PTX ISA 7.8.
    const ptx = arch === 'sm_80' ? COPY_KERNEL.ptx : COPY_KERNEL.ptx.replace('.target sm_80', '.target sm_90').replace('.version 7.0', '.version 7.8');
    const r = runPtxas(ptx, arch, ptxas!);
    expect(r.cubin?.length ?? 0, r.log).toBeGreaterThan(0);
  });
});
