// Out-of-bounds accesses on both devices. In its own file because a memory fault is sticky on the
// sim context for the rest of the process (as on hardware): nothing may run on the sim after it.
// Both devices must reject the launch and leave every caller array as it was.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, load, programId, ptr, store } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { expectBitwise, simDevice } from './helpers.js';

// Forgot the mask: the last program writes past the end of `out`.
const unmasked = kernel(
  { name: 'copy_unmasked', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } },
  ({ x, out, n, BLOCK }) => {
    const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
    const far = offs.add(n.mul(4096)); // well past the allocation, whatever the allocator's padding
    store(out.add(far), load(x.add(offs), { mask: offs.lt(n), other: 0 }));
  },
);

describe('an out-of-bounds store', () => {
  const n = 100;
  const x = Float32Array.from({ length: n }, (_, i) => i + 1);

  it('is rejected by the interpreter (E_OOB); the arrays are untouched', async () => {
    const out = new Float32Array(n).fill(-1);
    const err = await unmasked.run({ x, out, n, BLOCK: 128 }, { grid: 1, device: 'interpret' }).then(() => undefined, (e: unknown) => e);
    expect((err as { code?: string } | undefined)?.code).toBe('E_OOB');
    expectBitwise(out, new Float32Array(n).fill(-1), 'out after the failed launch');
  });

  // Last on the sim in this process: the context is unusable afterwards.
  it('is rejected by the sim (CUDA_ERROR_ILLEGAL_ADDRESS); the arrays are untouched', async () => {
    simDevice();
    const out = new Float32Array(n).fill(-1);
    const err = await unmasked.run({ x, out, n, BLOCK: 128 }, { grid: 1, device: 'sim' }).then(() => undefined, (e: unknown) => e);
    expect((err as { code?: string } | undefined)?.code).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    // The memory checker's report names the PTX line and, beside it, this file's line of the store.
    const self = fileURLToPath(import.meta.url);
    const storeLine = readFileSync(self, 'utf8').split('\n').findIndex((l) => l.includes('store(out.add(far)')) + 1;
    const message = (err as Error).message;
    expect(message).toMatch(new RegExp(`at PTX line \\d+ \\([^)]*fault\\.test\\.ts:${storeLine}:5\\)`));
    // It leads with that line and the bytes out of bounds; the driver call that returned the fault comes after.
    expect(message.split('\n')[0]).toMatch(new RegExp(`^${self.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${storeLine}:5: tessera-sim: out-of-bounds global access in kernel 'copy_unmasked' .*: 4-byte write at 0x[0-9a-f]+; nearest allocation .* bytes past its end$`));
    // Which driver call sees the sticky fault first depends on when the worker ran the launch.
    expect(message.split('\n')[1]).toMatch(/^cu\w+ failed: CUDA_ERROR_ILLEGAL_ADDRESS/);
    expectBitwise(out, new Float32Array(n).fill(-1), 'out after the failed launch');
    expectBitwise(x, Float32Array.from({ length: n }, (_, i) => i + 1), 'x after the failed launch');
  });
});
