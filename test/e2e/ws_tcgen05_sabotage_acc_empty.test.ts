// The persistent warp-specialized tcgen05 matmul's PTX with the MMA thread's ACC_EMPTY wait cut
// out (it reuses an accumulator buffer before the epilogue warps have read it) must not pass on
// the sim: a wrong result or a named fault. Here the MMA thread runs ahead and completes a
// buffer's ACC_FULL phase twice before the epilogue waits for the first, so the epilogue never
// sees its phase: the sim ends the launch at its instruction budget (lowered for this file, so
// the hang is reported in seconds). Its own file: a fault ends the context. Sabotage test:
// excluded from the sanitized suite.
process.env['TESSERA_SIM_ARCH'] = 'sm_100';
process.env['TESSERA_SIM_BUDGET'] = String(2 ** 27);
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { expectBitwise } from './helpers.js';
import { ints, launch, persistentWsMatmul, reference, tileOrder } from './persistent_ws_cases.js';
import { ACC_EMPTY_WAIT } from '../../src/codegen/pipeline/ws_tcgen05.js';

const [M, N, K] = [256, 384, 320];
const ws = compile(persistentWsMatmul, { target: 'sm_100a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { BM: 128, BN: 128, BK: 64, GROUP_M: 2, WS: true } });
const a = ints(M * K, 21), b = ints(K * N, 22);
const want = reference(a, b, M, N, K, 128, 128, tileOrder(2, 3));

describe('persistent warp-specialized tcgen05 sabotage on the sim as sm_100: the accumulator buffers', () => {
  it('the unsabotaged PTX is right within the lowered budget (the control: 6 tiles on one program)', () => {
    const got = launch(ws, ws.ptx, a, b, M, N, K, 1);
    if (got instanceof Error) throw got;
    expectBitwise(got, want, 'sim vs JS');
  });
  it('an MMA thread that reuses a buffer without its ACC_EMPTY wait: a wrong result or a named fault', () => {
    const wait = new RegExp(`${ACC_EMPTY_WAIT.replace(/[()]/g, '\\$&')}\\n\\s*\\$L_tma_wait_\\d+:\\n[^\\n]*\\n[^\\n]*\\n`);
    const ptx = ws.ptx.replace(wait, '');
    expect(ptx).not.toBe(ws.ptx);
    let got: Uint16Array | Error;
    try {
      got = launch(ws, ptx, a, b, M, N, K, 1);
    } catch (e) {
      got = e as Error; // the fault surfaces at the launch helper's cuMemFree (the context is gone)
    }
    if (got instanceof Error) return expect(got.message).toMatch(/CUDA_ERROR_LAUNCH_TIMEOUT/);
    expect(got.some((x, i) => x !== want[i]), 'a wrong result').toBe(true);
  });
});
