// callCustomCall against a tiny library of our own (native/cuda/tests/custom_call_probe.cc): the
// probe checks that stream, buffers and opaque arrive as encoded, and reports through
// tessera_xla_last_error, so a wrong call fails these tests.
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { customCallProbePath } from '../../src/runtime/native/addon.js';
import { codeOf, openSimDriver } from './sim-helpers.js';

const drv = openSimDriver();
afterAll(() => drv.close());
const lib = customCallProbePath();

function encode(stream: bigint, buffers: readonly bigint[]): Uint8Array {
  const out = new Uint8Array(16 + 8 * buffers.length);
  const v = new DataView(out.buffer);
  v.setBigUint64(0, stream, true);
  v.setBigUint64(8, BigInt(buffers.length), true);
  buffers.forEach((b, i) => v.setBigUint64(16 + 8 * i, b, true));
  return out;
}

describe('callCustomCall', () => {
  it('the probe library was built by cmake', () => {
    expect(existsSync(lib)).toBe(true);
  });

  it('passes buffers and opaque through the legacy GPU ABI', () => {
    const a = drv.memAlloc(64), b = drv.memAlloc(64);
    const buffers = [a.address, b.address, a.address + 16n];
    drv.callCustomCall(lib, 'tessera_probe_expect', null, buffers, encode(0n, buffers));
    // The probe notices a mismatch: proof that it really checks what arrived.
    let err: unknown;
    try {
      drv.callCustomCall(lib, 'tessera_probe_expect', null, buffers, encode(0n, [a.address, a.address, a.address]));
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('E_CUSTOM_CALL');
    expect((err as Error).message).toMatch(/buffer 1 is 0x[0-9a-f]+, expected 0x/);
    drv.memFree(a);
    drv.memFree(b);
  });

  it('passes a stream, and reports the library error message', () => {
    const s = drv.streamCreate();
    // The stream's native handle is not visible to JS: the probe reports it as a mismatch against 0.
    expect(codeOf(() => drv.callCustomCall(lib, 'tessera_probe_expect', s, [], encode(0n, [])))).toBe('E_CUSTOM_CALL');
    drv.streamDestroy(s);
    expect(() => drv.callCustomCall(lib, 'tessera_probe_fail', null, [], new Uint8Array(0))).toThrow(/probe asked to fail/);
  });

  it('rejects bad input with clear errors', () => {
    expect(codeOf(() => drv.callCustomCall('/nonexistent/lib.so', 'f', null, [], new Uint8Array(0)))).toBe('E_NO_LIBRARY');
    expect(codeOf(() => drv.callCustomCall(lib, 'no_such_symbol', null, [], new Uint8Array(0)))).toBe('E_NO_SYMBOL');
    expect(codeOf(() => drv.callCustomCall(lib, 'tessera_probe_expect', null, [1 as never], new Uint8Array(16)))).toBe('E_ARG');
    expect(codeOf(() => drv.callCustomCall(lib, 'tessera_probe_expect', null, 'x' as never, new Uint8Array(16)))).toBe('E_ARG');
    expect(codeOf(() => drv.callCustomCall(lib, 'tessera_probe_expect', null, [], 'x' as never))).toBe('E_ARG');
    expect(codeOf(() => drv.callCustomCall(lib, 'tessera_probe_expect', null, [-1n], new Uint8Array(16)))).toBe('E_RANGE');
  });
});
