// The addon's serving methods (ordinals, pool, peers, capture/graphs) on two sim devices, called
// directly: results, driver error names, and every bad input refused with a named error (never a
// crash of the host process).
import { afterAll, describe, expect, it } from 'vitest';
import { loadAddon, type Driver } from '../../src/runtime/native/addon.js';
import { codeOf, simLibrary } from './sim-helpers.js';

process.env['TESSERA_SIM_DEVICES'] = '2'; // read at the sim's first cuInit in this process

const lib = simLibrary();
const addon = loadAddon();
const opened: Driver[] = [];
const open = (ordinal: number): Driver => {
  const d = addon.open(lib, ordinal);
  opened.push(d);
  return d;
};
afterAll(() => {
  for (const d of opened) {
    try {
      d.close();
    } catch {
      // already closed
    }
  }
});

describe('addon: ordinals', () => {
  it('deviceCount and open(lib, ordinal)', () => {
    expect(addon.deviceCount(lib)).toBe(2);
    const d0 = open(0), d1 = open(1);
    expect(d0.ordinal()).toBe(0);
    expect(d1.ordinal()).toBe(1);
    expect(codeOf(() => addon.open(lib, 2))).toBe('E_DEVICE');
    expect(codeOf(() => addon.open(lib, -1))).toBe('E_RANGE');
    expect(codeOf(() => addon.open(lib, 'one' as never))).toBe('E_ARG');
    expect(codeOf(() => addon.deviceCount('/nonexistent/libcuda.so'))).toBe('E_NO_DRIVER');
  });
});

describe('addon: pool', () => {
  it('allocates from the pool in stream order, frees back to it, reports and trims', () => {
    const d = open(0);
    const s = d.streamCreate();
    const p = d.memAllocAsync(1000, s);
    expect(p.bytes).toBe(1000);
    expect(d.memPoolStats()).toMatchObject({ used: 1024, reserved: 1024 });
    d.memsetD8Async(p, 9, 1000, 0, s);
    const back = new Uint8Array(1000);
    d.streamSynchronize(s);
    d.memcpyDtoH(back, p);
    expect(back[999]).toBe(9);
    expect(codeOf(() => d.memcpyDtoH(new Uint8Array(1024), p))).toBe('E_RANGE'); // the request's size, not the block's
    d.memFreeAsync(p, s);
    expect(codeOf(() => d.memFreeAsync(p, s))).toBe('E_FREED');
    d.streamSynchronize(s);
    expect(d.memPoolStats()).toMatchObject({ used: 0, reserved: 1024, usedHigh: 1024 });
    d.memPoolTrim();
    expect(d.memPoolStats().reserved).toBe(0);
    expect(codeOf(() => d.memAllocAsync(0, null))).toBe('E_RANGE');
    expect(codeOf(() => d.memAllocAsync(-5, null))).toBe('E_RANGE');
    expect(codeOf(() => d.memAllocAsync(2 ** 45, null))).toBe('CUDA_ERROR_OUT_OF_MEMORY');
    expect(codeOf(() => d.memAllocAsync(16, {} as never))).toBe('E_ARG');
    expect(codeOf(() => d.memFreeAsync({} as never, null))).toBe('E_ARG');
    expect(codeOf(() => d.memPoolTrim('all' as never))).toBe('E_ARG');
    d.streamDestroy(s);
  });
});

describe('addon: peers', () => {
  it('copies between devices; spans, foreign libraries and freed pointers are refused', () => {
    const d0 = open(0), d1 = open(1);
    expect(d0.canAccessPeer(d1)).toBe(false);
    const a = d0.memAlloc(64), b = d1.memAlloc(64);
    d0.memsetD8(a, 5);
    d1.memcpyPeerAsync(b, a, 32, null, 16, 0);
    const out = new Uint8Array(64);
    d1.synchronize();
    d1.memcpyDtoH(out, b);
    expect(out[15]).toBe(0);
    expect(out[16]).toBe(5);
    expect(out[47]).toBe(5);
    expect(out[48]).toBe(0);
    expect(codeOf(() => d1.memcpyPeerAsync(b, a, 65, null))).toBe('E_RANGE');
    expect(codeOf(() => d1.memcpyPeerAsync(b, a, 8, null, 60))).toBe('E_RANGE');
    expect(codeOf(() => d1.memcpyPeerAsync(a, b, 8, null))).toBe('E_ARG'); // dst must be this driver's
    expect(codeOf(() => d1.memcpyPeerAsync(b, {} as never, 8, null))).toBe('E_ARG');
    expect(codeOf(() => d0.canAccessPeer({} as never))).toBe('E_ARG');
    d0.memFree(a);
    expect(codeOf(() => d1.memcpyPeerAsync(b, a, 8, null))).toBe('E_FREED');
    d1.memFree(b);
  });
});

describe('addon: capture and graphs', () => {
  it('captures, replays, and refuses misuse with the driver error names', () => {
    const d = open(0);
    const s = d.streamCreate();
    const p = d.memAlloc(256);
    d.memsetD8(p, 0);
    expect(codeOf(() => d.streamEndCapture(s))).toBe('CUDA_ERROR_ILLEGAL_STATE');
    d.streamBeginCapture(s);
    expect(d.streamIsCapturing(s)).toBe('active');
    expect(codeOf(() => d.streamBeginCapture(s))).toBe('CUDA_ERROR_ILLEGAL_STATE');
    d.memsetD8Async(p, 3, 128, 0, s);
    const g = d.streamEndCapture(s);
    expect(d.streamIsCapturing(s)).toBe('none');
    const out = new Uint8Array(256);
    d.streamSynchronize(s);
    d.memcpyDtoH(out, p);
    expect(out[0]).toBe(0); // recorded, not run
    d.graphLaunch(g, s);
    d.streamSynchronize(s);
    d.memcpyDtoH(out, p);
    expect(out[0]).toBe(3);
    expect(out[128]).toBe(0);
    // a wait inside a capture: refused, the capture invalidated, the stream usable again
    d.streamBeginCapture(s);
    expect(codeOf(() => d.streamSynchronize(s))).toBe('CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED');
    expect(d.streamIsCapturing(s)).toBe('invalidated');
    expect(codeOf(() => d.streamEndCapture(s))).toBe('CUDA_ERROR_STREAM_CAPTURE_INVALIDATED');
    d.streamSynchronize(s);
    d.graphDestroy(g);
    expect(codeOf(() => d.graphLaunch(g, s))).toBe('E_FREED');
    expect(codeOf(() => d.graphDestroy(g))).toBe('E_FREED');
    expect(codeOf(() => d.graphLaunch({} as never, s))).toBe('E_ARG');
    expect(codeOf(() => d.streamBeginCapture(null as never))).toBe('E_ARG');
    const other = open(1);
    const s1 = other.streamCreate();
    other.streamBeginCapture(s1);
    const g1 = other.streamEndCapture(s1);
    expect(codeOf(() => d.graphLaunch(g1, s))).toBe('E_ARG'); // another driver's graph
    other.graphDestroy(g1);
    expect(typeof d.simDeviceSyncs()).toBe('number');
    d.memFree(p);
  });
});
