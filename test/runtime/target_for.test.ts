// Which PTX target the cuda/sim devices compile for, by compute capability.
import { describe, expect, it } from 'vitest';
import { targetFor } from '../../src/runtime/native/runtime-device.js';

describe('targetFor(major, minor)', () => {
  it('sm_90a on 9.0 only (its arch-specific features do not carry to other GPUs)', () => {
    expect(targetFor(9, 0)).toBe('sm_90a');
    expect(targetFor(9, 1)).toBe('sm_90');
  });
  it('sm_100a (tcgen05) on 10.0 only; sm_100 (the portable Blackwell path) on other 10.x', () => {
    expect(targetFor(10, 0)).toBe('sm_100a');
    expect(targetFor(10, 3)).toBe('sm_100');
  });
  it('sm_89 (fp8 cvt) on 8.9; sm_80 PTX on 8.0, 8.6, 8.7 and, JIT-compiled by the driver, newer GPUs', () => {
    expect(targetFor(8, 9)).toBe('sm_89');
    for (const [a, b] of [[8, 0], [8, 6], [8, 7], [12, 0]] as const) expect(targetFor(a, b)).toBe('sm_80');
  });
});
