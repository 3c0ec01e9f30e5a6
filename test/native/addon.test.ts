// The addon loads and rejects bad input with clear, coded errors, without any driver present.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { addonPath, loadAddon } from '../../src/runtime/native/addon.js';
import { NativeDeviceError } from '../../src/runtime/native/errors.js';
import { NativeDevice } from '../../src/runtime/native/native-device.js';

const addon = loadAddon();

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  throw new Error('expected a throw');
}

describe('addon', () => {
  it('exports open and the Driver class', () => {
    expect(typeof addon.open).toBe('function');
    expect(addon.abiVersion).toBe(1);
    const raw = createRequire(import.meta.url)(addonPath()) as { Driver: new (...a: unknown[]) => unknown };
    expect(typeof raw.Driver).toBe('function');
    expect(() => new raw.Driver()).toThrow(/use open/);
    expect(codeOf(() => new raw.Driver({}))).toBe('E_ARG');
  });

  it('reports a missing library as E_NO_DRIVER with the dlerror text', () => {
    let err: (Error & { code?: string }) | undefined;
    try {
      addon.open('/nonexistent/dir/libcuda-missing.so');
    } catch (e) {
      err = e as Error & { code?: string };
    }
    expect(err?.code).toBe('E_NO_DRIVER');
    expect(err?.message).toContain('/nonexistent/dir/libcuda-missing.so');
    expect(err?.message).toMatch(/cannot open shared object file/);
  });

  it('reports a library that is not a CUDA driver as E_NO_SYMBOL', () => {
    let err: (Error & { code?: string }) | undefined;
    try {
      addon.open('libm.so.6');
    } catch (e) {
      err = e as Error & { code?: string };
    }
    expect(err?.code).toBe('E_NO_SYMBOL');
    expect(err?.message).toContain('cuInit');
  });

  it('rejects library paths that are not non-empty strings', () => {
    for (const bad of [null, 42, {}, [], Symbol('x'), 1n]) {
      expect(codeOf(() => (addon.open as (p: unknown) => unknown)(bad))).toBe('E_ARG');
    }
    expect(codeOf(() => addon.open(''))).toBe('E_ARG');
    expect(codeOf(() => addon.open('lib\0cuda.so'))).toBe('E_ARG');
  });

  it('type errors are TypeErrors naming the method and parameter', () => {
    try {
      (addon.open as (p: unknown) => unknown)(7);
      throw new Error('expected a throw');
    } catch (e) {
      expect(e).toBeInstanceOf(TypeError);
      expect((e as Error).message).toBe('open(libraryPath): expected a string, got a number');
    }
  });

  it('methods refuse a `this` that is not a Driver', () => {
    const raw = createRequire(import.meta.url)(addonPath()) as { Driver: { prototype: Record<string, (...a: unknown[]) => unknown> } };
    expect(() => raw.Driver.prototype.memAlloc!.call({}, 16)).toThrow();
  });
});

describe('NativeDevice.open without a driver', () => {
  it('wraps E_NO_DRIVER in a NativeDeviceError', () => {
    let err: unknown;
    try {
      NativeDevice.open('cuda', { libraryPath: '/nonexistent/libcuda.so.1' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NativeDeviceError);
    expect((err as NativeDeviceError).code).toBe('E_NO_DRIVER');
    expect((err as Error).message).toMatch(/^opening the cuda:0 device: cannot load CUDA driver library/);
  });

  it('rejects an unknown kind', () => {
    expect(codeOf(() => NativeDevice.open('rocm' as 'cuda'))).toBe('E_ARG');
  });
});
