// Sabotages of the deferred epilogue-store wait (codegen/async/deferred_store_wait.ts) and the
// plain ring's next-tile prefetch (codegen/pipeline/ring_prefetch.ts), by string surgery on the
// PTX: each gives a wrong result (or a named fault) on the sim, never a silent pass. The sim reads
// a bulk store's shared source when its group is waited for and writes global memory at a full
// wait, as hardware may. Broken on purpose: left out of the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { expectBitwise } from './helpers.js';
import { build, ints, launch, reference, tileOrder, type Tile } from './persistent_ws_cases.js';
import { alwaysPrefetch, dropOrderedWait, dropReuseWait } from './deferred_store_cases.js';

const T128: Tile = { BM: 128, BN: 128, BK: 64, numWarps: 4 };

const broken = (got: Uint16Array | Error, want: Uint16Array): void => {
  if (got instanceof Error) expect(got.message).toMatch(/tessera-sim: /);
  else expect(Array.from(got)).not.toEqual(Array.from(want));
};

describe.each([['warp-specialized', true], ['plain ring', false]] as const)('%s', (_, ws) => {
  const r = build(T128, ws);
  it('without the wait before the epilogue rewrites its shared tile, an earlier tile stores a later one\'s values', () => {
    const [M, N, K] = [256, 256, 128];
    const a = ints(M * K, 61), b = ints(K * N, 62);
    const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 2));
    const control = launch(r, r.ptx, a, b, M, N, K, 1);
    if (control instanceof Error) throw control;
    expectBitwise(control, want, 'control');
    broken(launch(r, dropReuseWait(r.ptx), a, b, M, N, K, 1), want);
  });
  // c [256, 128] on a [256, 64]'s own buffer: tile 1 reads the rows tile 0 stores
  const [M, N, K] = [256, 128, 64];
  const a = ints(M * K, 51), b = ints(K * N, 52, 1 / 8);
  const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 1), true);
  if (ws)
    it('c aliasing a: without the full wait before the tile-done arrival, the next tile reads stale rows', () => {
      broken(launch(r, dropOrderedWait(r.ptx), a, b, M, N, K, 1, true), want);
    });
  else
    it('c aliasing a: prefetching the next tile even where a store overlaps an input reads stale rows', () => {
      broken(launch(r, alwaysPrefetch(r.ptx), a, b, M, N, K, 1, true), want);
    });
});
