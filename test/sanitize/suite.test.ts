// Every kernel the suite runs on the sim, again with racecheck, synccheck and initcheck on
// (TESSERA_SIM_*CHECK=1, read by the sim at cuInit, so every launch of the child run is checked):
// the e2e and codegen kernels, the runtime/native/pallas tests' kernels, the foreign corpus
// (Triton's and nvcc's PTX) and the fuzzer's kernels. A hazard fails a launch with E_HAZARD (or
// CUDA_ERROR_LAUNCH_FAILED on the raw driver API) and its report, so the child run passes only when
// no kernel has one. Left out: this directory, the sanitizer tests themselves (they cause hazards
// on purpose), the pipeliner's sabotage test (broken kernels: test/e2e/sanitize.test.ts checks that
// racecheck catches them), the corpus's sabotaged sm_90a kernels and the TMA sabotage tests
// (broken on purpose; under the checkers a skipped mbarrier wait is an initcheck report instead
// of a wrong result or a fault) and the warp-specialization (sm_90a and sm_100a, the multicast skew file, the FA3-style attention's producer and consumers) and tcgen05-ring sabotages (racecheck reports the
// refilled stage under an MMA in flight, which is the point), the missing-proxy-fence sabotage (racecheck's
// report is its expected result) and the corpus's block-scaled kernel without
// its scale-store wait (initcheck/racecheck report it: a launch failure instead of a wrong result), the
// in-flight dotScaled ring with one scale-column set (racecheck's report is its expected result), the pipelined wgmma without its wait (test/codegen/wgmma.test.ts:
// racecheck reports the cp.async copies that overwrite operands of wgmmas in flight), nvcc's
// TMA-fed tcgen05 kernel without its TMA wait (racecheck reports the MMA reading copies in
// flight, which corpus-sm100.test.ts checks on its own), the flash kernel whose P is stored to
// tensor memory without tcgen05.wait::st (test/e2e/tcgen05_tmem_a.test.ts), timing and
// GC tests (no kernels of their own), and the XLA tests (jax). The corpus's cluster kernel
// (cu90_cluster_dsmem: distributed shared memory and barrier.cluster) is checked like the rest.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

it('the suite\'s sim kernels are free of races, barrier misuse and uninitialised reads', () => {
  const args = [
    join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run',
    'test/e2e', 'test/codegen', 'test/corpus', 'test/fuzz', 'test/native', 'test/runtime', 'test/pallas',
    '--exclude', 'test/e2e/sanitize.test.ts', '--exclude', 'test/e2e/futures.test.ts', '--exclude', 'test/e2e/gc.test.ts',
    '--exclude', 'test/e2e/tma_sabotage.test.ts', '--exclude', 'test/e2e/proxy_fence_sabotage.test.ts',
    '--exclude', 'test/e2e/warp_specialize_sabotage_consumer.test.ts', '--exclude', 'test/e2e/warp_specialize_sabotage_producer.test.ts',
    '--exclude', 'test/e2e/ws_tcgen05_sabotage_mma.test.ts', '--exclude', 'test/e2e/ws_tcgen05_sabotage_epilogue.test.ts',
    '--exclude', 'test/e2e/ws_tcgen05_sabotage_acc_empty.test.ts', '--exclude', 'test/e2e/ws_multicast_skew.test.ts',
    '--exclude', 'test/e2e/fa3_sabotage_producer.test.ts', '--exclude', 'test/e2e/fa3_sabotage_consumer.test.ts',
    '--exclude', 'test/e2e/fa3_pingpong_sabotage_turn.test.ts', '--exclude', 'test/e2e/fa3_pingpong_sabotage_count.test.ts',
    '--exclude', 'test/e2e/ws_multicast_persistent_skew.test.ts', '--exclude', 'test/e2e/persistent_deferred_store_sabotage.test.ts',
    '--exclude', 'test/e2e/warp_specialize_cpasync_sabotage_consumer.test.ts', '--exclude', 'test/e2e/warp_specialize_cpasync_sabotage_producer.test.ts',
    '--exclude', 'test/e2e/warp_specialize_cpasync_sabotage_count.test.ts', '--exclude', 'test/e2e/tcgen05_2cta_sabotage.test.ts',
    '--exclude', 'test/e2e/dot_scaled_native_sabotage.test.ts', '--exclude', 'test/e2e/persistent_ws_cpasync_sabotage.test.ts',
    '--exclude', 'test/e2e/tcgen05_2cta_ws_sabotage.test.ts', '--exclude', 'test/e2e/tcgen05_2cta_ws_persistent_sabotage.test.ts',
    '--exclude', 'test/e2e/dot_scaled_ring_sabotage.test.ts', '--exclude', 'test/e2e/dot_scaled_ring_inflight_sabotage.test.ts', '--exclude', 'test/e2e/tcgen05_epilogue_sabotage.test.ts',
    '--exclude', 'test/e2e/tcgen05_flash_tma_ring_sabotage.test.ts',
    '-t', '^(?!.*(each way of breaking the wait or the barrier does not|sabotaged sm_90a kernels fail on the sim|sabotage: without the mbarrier wait|pipelined without the wait in the loop|without the fence.proxy.async fences: a wrong result|releasing a stage while its wgmma is still in flight|a stage refilled without waiting for the MMAs that read it|tcgen05.ld above the final commit|the block-scaled MMA reads stale scales|TMA-fed MMA without the wait for the tensor copies|tcgen05.st not waited for before the MMA)).*$',
  ];
  const r = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    env: { ...process.env, TESSERA_SIM_RACECHECK: '1', TESSERA_SIM_SYNCCHECK: '1', TESSERA_SIM_INITCHECK: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const hazards = [...new Set(out.split('\n').filter((l) => /tessera-sim: \w+ hazard in kernel/.test(l)).map((l) => l.trim()))];
  const failed = out.split('\n').filter((l) => /^\s*(FAIL|×)/.test(l)).map((l) => l.trim());
  expect(hazards, 'hazard reports').toEqual([]);
  expect(failed, 'tests failing under the sanitizers').toEqual([]);
  expect(r.status, out.slice(-4000)).toBe(0);
  // the child really ran the suite (a pattern that matched nothing would also exit 0)
  const tests = /Tests\s+(\d+) passed/.exec(out);
  expect(Number(tests?.[1] ?? 0)).toBeGreaterThan(500);
}, 30 * 60_000);
