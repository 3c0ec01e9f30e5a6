// RMSNorm forward and backward over 4 host devices (XLA_FLAGS=--xla_force_host_platform_device_count=4):
// the typed-FFI custom calls with sdy.sharding_rule, num_batch_dims and batch_dims are split by
// XLA's partitioner along the batch dim — no all-gather, each device's call sees its shard, the
// weight gradient is summed by one all-reduce — and the results match numpy.
import { describe, expect, it } from 'vitest';
import { runPython } from './helpers.js';

interface Out {
  devices: number;
  all_gather: boolean;
  all_reduce: boolean;
  custom_calls: string[];
  errors: Record<string, number>;
}

describe('sharded RMSNorm', () => {
  it('compiles with no all-gather, runs per shard and matches', () => {
    const out = runPython<Out>('sharded.py', { B: 8, S: 6, E: 16, part: 2, eps: 1e-5 }, { XLA_FLAGS: '--xla_force_host_platform_device_count=4' });
    expect(out.devices).toBe(4);
    expect(out.all_gather).toBe(false);
    expect(out.all_reduce).toBe(true);
    expect(out.custom_calls.length).toBe(2);
    expect(out.custom_calls[0]).toMatch(/^%\S+ = \(f32\[2,6,16\]\{2,1,0\}, f32\[2,6\]\{1,0\}\) custom-call\(.*tessera_rms_norm_fwd_cpu/);
    expect(out.custom_calls[1]).toMatch(/^%\S+ = \(f32\[2,6,16\]\{2,1,0\}, f32\[2,16\]\{1,0\}, f32\[2,2,16\]\{2,1,0\}\) custom-call\(.*tessera_rms_norm_bwd_cpu/);
    for (const [name, e] of Object.entries(out.errors)) expect(e, name).toBeLessThanOrEqual(2e-5);
  });
});
