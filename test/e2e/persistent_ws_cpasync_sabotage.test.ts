// Sabotage of the cp.async producer across a persistent tile loop (ws_tiles.ts, ws_cpasync.ts):
// the epilogue's pointer store makes the tile loop ordered, so the producer issues no copy of the
// next tile before the consumers' `tile done`; the epilogue's scratch (a 128x256 f32 layout
// conversion, 128 KiB) then shares the idle ring's bytes. A producer that skips that wait
// overwrites the ring under the epilogue: racecheck reports it (the intact kernel runs clean); and
// where the epilogue stores into the next tile's input (c passed as a's own buffer), the next
// tile's copies read stale rows.
// Broken on purpose: left out of test/sanitize/suite.test.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { afterEach, describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array } from '../../src/ir/half.js';
import { DeviceArray } from '../../src/runtime/device_array.js';
import type { SanitizeCheck } from '../../src/runtime/device.js';
import { simDevice } from './helpers.js';
import { wsPtrPersistent, wsPtrPersistent16 } from './ws_cpasync_cases.js';
import { ints, launch, neverOrdered, reference, tileOrder } from './persistent_ws_cases.js';
import { smallInts } from './ws_cpasync_helpers.js';

const [M, N, K] = [256, 512, 256];
const SPEC = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } };

/** Runs `ptx` (one program: 4 tiles) with `sanitize`; resolves to the error, or undefined when clean. */
async function run(r: CompileResult, ptx: string, sanitize: SanitizeCheck[]): Promise<(Error & { code?: string }) | undefined> {
  const dev = simDevice();
  const a = DeviceArray.from(f16Array(smallInts(M * K, 51)), 'f16', { device: dev });
  const b = DeviceArray.from(f16Array(smallInts(K * N, 52)), 'f16', { device: dev });
  const c = DeviceArray.zeros([M * N], 'f32', { device: dev });
  const fn = dev.loadModule(ptx).getFunction(r.metadata.name);
  const block = Number(/\.reqntid (\d+),/.exec(ptx)![1]);
  try {
    await fn.launch({ grid: 1, block, sharedBytes: r.metadata.sharedBytes, args: [a, b, c, M, N, K], sanitize });
    return undefined;
  } catch (e) {
    return e as Error & { code?: string };
  }
}

afterEach(() => simDevice().setSanitize([]));

describe('the producer that skips the tile-done wait (persistent cp.async producer)', () => {
  it('128x256x64, 8 warps: its copies land in the ring under the epilogue\'s scratch: racecheck reports it', async () => {
    const r = compile(wsPtrPersistent, { target: 'sm_90a', numWarps: 8, numStages: 3, ptxas: false, specialization: SPEC as never, constexprs: { BM: 128, BN: 256, BK: 64, WS: true } });
    expect(r.metadata.sharedBytes).toBeLessThan(3 * 48 * 1024 + 128 * 1024); // the epilogue's tile shares the ring's bytes
    expect(await run(r, r.ptx, ['racecheck', 'synccheck', 'initcheck'])).toBeUndefined();
    const skip = /@!%p\d+ (bra\.uni \$L_wstile_go_\d+;)/;
    expect(r.ptx).toMatch(skip);
    const e = await run(r, r.ptx.replace(skip, '$1'), ['racecheck']);
    expect(e, 'a racecheck report').toBeDefined();
    expect(e!.code).toBe('E_HAZARD');
    expect(e!.message).toMatch(/tessera-sim: racecheck hazard in kernel 'ws_ptr_persistent': .*hazard on shared memory/);
  });
});

describe('the producer that skips the tile-done wait, c on a\'s own buffer', () => {
  it('tile 1 reads the rows before tile 0 stored them: a wrong result or a named fault, never a pass', () => {
    const [M, N, K] = [256, 128, 64];
    const a = ints(M * K, 21), b = ints(K * N, 22, 1 / 8);
    const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 1), true);
    const r = compile(wsPtrPersistent16, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, specialization: SPEC as never, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } });
    const got = launch(r, neverOrdered(r.ptx), a, b, M, N, K, 1, true);
    if (got instanceof Error) expect(got.message).toMatch(/tessera-sim: /);
    else expect(Array.from(got)).not.toEqual(Array.from(want));
  });
});
