// src/descriptor: schema layout against the C++ compiler's own offsetof/sizeof, pack/unpack
// round trips, clear errors on malformed bytes, and the committed C header being current.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DescriptorError, KernelCallHeader, KernelImage, KernelParam, RMSNormDescriptor, defineEnum, defineStruct, descriptorsHeader,
  packKernelCall, packRMSNorm, unpackKernelCall, unpackRMSNorm, type StructLayout,
} from '../../src/descriptor/index.js';

const root = join(import.meta.dirname, '..', '..');
const headerPath = join(root, 'native/xla_custom_call/include/tessera_descriptors.h');

const Mixed = defineStruct('Mixed', [
  { name: 'a', type: 'u8' },
  { name: 'b', type: 'f64' },
  { name: 'c', type: 'i16' },
  { name: 'd', type: 'u16', count: 3 },
  { name: 'e', type: 'i32' },
  { name: 'f', type: 'u8' },
  { name: 'g', type: 'i64' },
  { name: 'h', type: 'f32' },
] as const);

describe('C layout', () => {
  it('matches g++ offsetof/sizeof for every struct', () => {
    const structs: StructLayout[] = [RMSNormDescriptor, KernelCallHeader, KernelParam, KernelImage, Mixed];
    const dir = mkdtempSync(join(tmpdir(), 'tessera-desc-'));
    try {
      // The header without its static asserts, so a wrong offset shows up as a value, not a build error.
      const header = descriptorsHeader().replace(/^TESSERA_DESC_ASSERT.*$/gm, '');
      const mixed = 'struct Mixed { uint8_t a; double b; int16_t c; uint16_t d[3]; int32_t e; uint8_t f; int64_t g; float h; };\n';
      const lines = structs.flatMap((s) => [
        `  std::printf("${s.name} size %zu align %zu\\n", sizeof(${s.name}), alignof(${s.name}));`,
        ...s.fields.map((f) => `  std::printf("${s.name}.${f.name} %zu\\n", offsetof(${s.name}, ${f.name}));`),
      ]);
      writeFileSync(join(dir, 'd.h'), header);
      writeFileSync(join(dir, 'main.cpp'), `#include <cstddef>\n#include <cstdio>\n#include "d.h"\n${mixed}int main() {\n${lines.join('\n')}\n}\n`);
      execFileSync('g++', ['-std=c++17', '-Wall', '-Werror', '-o', join(dir, 'main'), join(dir, 'main.cpp')], { stdio: 'pipe' });
      const got = execFileSync(join(dir, 'main'), { encoding: 'utf8' });
      const want = structs.flatMap((s) => [`${s.name} size ${s.size} align ${s.align}`, ...s.fields.map((f) => `${s.name}.${f.name} ${f.offset}`)]);
      expect(got.trim().split('\n')).toEqual(want);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the committed header compiles as C and C++ and is current', () => {
    expect(readFileSync(headerPath, 'utf8'), 'run: npm run build:ts && node scripts/gen-descriptors.mjs').toBe(descriptorsHeader());
    const dir = mkdtempSync(join(tmpdir(), 'tessera-desc-'));
    try {
      writeFileSync(join(dir, 'c.c'), `#include "${headerPath}"\nint main(void) { return 0; }\n`);
      execFileSync('gcc', ['-std=c11', '-Wall', '-Werror', '-c', '-o', join(dir, 'c.o'), join(dir, 'c.c')], { stdio: 'pipe' });
      writeFileSync(join(dir, 'c.cpp'), `#include "${headerPath}"\nint main() { return 0; }\n`);
      execFileSync('g++', ['-std=c++17', '-Wall', '-Werror', '-c', '-o', join(dir, 'cpp.o'), join(dir, 'c.cpp')], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('RMSNormDescriptor is the seed\'s 32-byte struct', () => {
    expect(RMSNormDescriptor.size).toBe(32);
    expect(RMSNormDescriptor.fields.map((f) => [f.name, f.offset])).toEqual([
      ['n1', 0], ['n2', 4], ['eps', 8], ['x_type', 16], ['w_type', 20], ['part_grad_size', 24],
    ]);
  });
});

describe('pack / unpack', () => {
  it('round-trips every field type, padding zeroed', () => {
    const v = { a: 255, b: -1.5, c: -2, d: [1, 2, 65535], e: -7, f: 9, g: -(2n ** 60n), h: 0.25 };
    const bytes = Mixed.pack(v);
    expect(bytes.length).toBe(Mixed.size);
    expect(bytes[1]).toBe(0);
    expect(Mixed.unpack(bytes)).toEqual(v);
  });

  it('packs the RMSNorm descriptor byte for byte', () => {
    const b = packRMSNorm({ n1: 4, n2: 262144, eps: 1e-5, xType: 'f16', wType: 'bf16', partGradSize: 16 });
    const dv = new DataView(b.buffer);
    expect([dv.getInt32(0, true), dv.getInt32(4, true), dv.getFloat64(8, true), dv.getInt32(16, true), dv.getInt32(20, true), dv.getInt32(24, true)])
      .toEqual([4, 262144, 1e-5, 1, 0, 16]);
    expect(unpackRMSNorm(b)).toEqual({ n1: 4, n2: 262144, eps: 1e-5, xType: 'f16', wType: 'bf16', partGradSize: 16 });
  });

  it('rejects bad values with the field named', () => {
    expect(() => Mixed.pack({ a: 256, b: 0, c: 0, d: [0, 0, 0], e: 0, f: 0, g: 0, h: 0 })).toThrow(/field 'a'.*256/);
    expect(() => Mixed.pack({ a: 0, b: 0, c: 0, d: [0, 0], e: 0, f: 0, g: 0, h: 0 })).toThrow(/field 'd' needs an array of 3/);
    expect(() => Mixed.pack({ a: 0, b: 0, c: 0, d: [0, 0, 0], e: 0, f: 0, h: 0 } as never)).toThrow(/field 'g' is missing/);
    expect(() => packRMSNorm({ n1: 1, n2: 0, eps: 1e-5, xType: 'f32', wType: 'f32', partGradSize: 0 })).toThrow(/n2 must be/);
    expect(() => packRMSNorm({ n1: 1, n2: 4, eps: 1e-5, xType: 'i32', wType: 'f32', partGradSize: 0 })).toThrow(/dtype 'i32'/);
  });

  it('short, long and malformed buffers are clear errors', () => {
    const b = packRMSNorm({ n1: 1, n2: 4, eps: 1e-5, xType: 'f32', wType: 'f32', partGradSize: 0 });
    expect(() => unpackRMSNorm(b.subarray(0, 20))).toThrow(DescriptorError);
    expect(() => unpackRMSNorm(b.subarray(0, 20))).toThrow(/needs exactly 32 bytes, got 20/);
    expect(() => unpackRMSNorm(new Uint8Array(40))).toThrow(/got 40/);
    const bad = b.slice();
    new DataView(bad.buffer).setInt32(16, 7, true);
    expect(() => unpackRMSNorm(bad)).toThrow(/x_type' holds 7, not a value of enum ElementType/);
  });

  it('rejects malformed schemas', () => {
    expect(() => defineStruct('S', [{ name: 'a', type: 'i32' }, { name: 'a', type: 'i32' }])).toThrow(/declared twice/);
    expect(() => defineStruct('S', [{ name: 'a', type: 'q8' as never }])).toThrow(/unknown type/);
    expect(() => defineEnum('E', ['A', 'A'])).toThrow(/distinct/);
  });
});

describe('kernel-call descriptor', () => {
  const spec = {
    entry: 'softmax_kernel', grid: [8, 1, 1] as const, block: [128, 1, 1] as const, sharedBytes: 0,
    operandBytes: [4096], resultBytes: [4096],
    params: [{ kind: 'operand', index: 0 }, { kind: 'result', index: 0 }, { kind: 'scalar', dtype: 'i32', value: -3 },
      { kind: 'scalar', dtype: 'f16', value: 1.5 }, { kind: 'scalar', dtype: 'f64', value: 0.1 }] as const,
    images: [{ kind: 'ptx', arch: 80, data: '.version 8.0\n.target sm_80\n' }, { kind: 'cubin', arch: 90, data: new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 1]) }] as const,
  };

  it('round-trips', () => {
    const b = packKernelCall(spec);
    expect(b.length % 8).toBe(0);
    const u = unpackKernelCall(b);
    expect(u.entry).toBe('softmax_kernel');
    expect(u.grid).toEqual([8, 1, 1]);
    expect(u.operandBytes).toEqual([4096]);
    expect(u.params[2]).toEqual({ kind: 'scalar', size: 4, bits: 0xfffffffdn });
    expect(u.params[3]).toEqual({ kind: 'scalar', size: 2, bits: 0x3e00n });
    const f = new DataView(new ArrayBuffer(8)); f.setFloat64(0, 0.1, true);
    expect(u.params[4]).toEqual({ kind: 'scalar', size: 8, bits: f.getBigUint64(0, true) });
    expect(new TextDecoder().decode(u.images[0]!.data)).toBe(spec.images[0].data);
    expect([...u.images[1]!.data]).toEqual([0x7f, 0x45, 0x4c, 0x46, 1]);
  });

  it('checks the spec before packing', () => {
    expect(() => packKernelCall({ ...spec, params: [{ kind: 'operand', index: 1 }] })).toThrow(/names operand 1, but there are 1/);
    expect(() => packKernelCall({ ...spec, block: [2048, 1, 1] })).toThrow(/more than 1024 threads/);
    expect(() => packKernelCall({ ...spec, entry: 'bad name' })).toThrow(/PTX identifier/);
    expect(() => packKernelCall({ ...spec, images: [] })).toThrow(/needs 1\.\.16 images/);
  });

  it('truncated or corrupted descriptors are clear errors', () => {
    const b = packKernelCall(spec);
    expect(() => unpackKernelCall(b.subarray(0, 40))).toThrow(/shorter than its 64-byte header/);
    expect(() => unpackKernelCall(b.subarray(0, b.length - 8))).toThrow(/header says \d+ bytes/);
    const m = b.slice(); m[0] = 0;
    expect(() => unpackKernelCall(m)).toThrow(/bad magic/);
    const t = b.slice(); new DataView(t.buffer).setUint32(48, 1000, true); // num_params
    expect(() => unpackKernelCall(t)).toThrow(/truncated: params/);
  });
});
