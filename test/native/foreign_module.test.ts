// The low-level API for PTX Tessera did not write (loadModule / getFunction / launch) on the sim:
// a hand-written kernel, nvcc's and Triton's PTX from the corpus against their stored references,
// aggregates by value, streams, lifetimes, and the errors that must come before anything runs.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DeviceArray, getDevice, loadModule, ptxEntries, setDeviceAnnouncer } from '../../src/runtime/index.js';
import { registerNativeDevices } from '../../src/runtime/native/register.js';
import { elementBytes, mismatches, type Tolerance } from '../corpus/compare.js';
import { asyncCodeOf, simLibrary } from './sim-helpers.js';
import { SAXPY_PTX } from '../../examples/foreign_ptx.js';

setDeviceAnnouncer(() => {});
process.env['TESSERA_SIM_LIB'] = simLibrary(); // fails the file when the sim is not built
registerNativeDevices();
const sim = getDevice('sim');

// the hand-written saxpy of examples/foreign_ptx.ts, and a kernel taking a struct by value
const SAXPY = `${SAXPY_PTX}
// out[tid] = s.a * tid + s.b (a struct { int a; float pad; long long b } passed by value),
// and a 2-D block's linear thread id written as u16.
.visible .entry byvalue(.param .align 8 .b8 s[16], .param .u64 out, .param .u64 ids)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  .reg .b16 %h;
  ld.param.s32 %r1, [s];
  ld.param.s64 %rd1, [s+8];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd6, [ids];
  mov.u32 %r2, %tid.x;
  mov.u32 %r4, %tid.y;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r4, %r4, %r5, %r2;
  mul.lo.s32 %r3, %r1, %r4;
  cvt.s64.s32 %rd3, %r3;
  add.s64 %rd3, %rd3, %rd1;
  mul.wide.u32 %rd4, %r4, 8;
  add.s64 %rd5, %rd2, %rd4;
  st.global.s64 [%rd5], %rd3;
  cvt.u16.u32 %h, %r4;
  mul.wide.u32 %rd4, %r4, 2;
  add.s64 %rd7, %rd6, %rd4;
  st.global.u16 [%rd7], %h;
  ret;
}
`;

describe('PTX signatures', () => {
  it('reads .entry parameter lists in nvcc, Triton and hand-written forms', () => {
    const e = ptxEntries(SAXPY);
    expect([...e.keys()]).toEqual(['saxpy', 'byvalue']);
    expect(e.get('saxpy')).toEqual([
      { name: 'x', type: 'ptr', size: 8, align: 8, offset: 0 },
      { name: 'y', type: 'u64', size: 8, align: 8, offset: 8 },
      { name: 'a', type: 'f32', size: 4, align: 4, offset: 16 },
      { name: 'n', type: 'i32', size: 4, align: 4, offset: 20 },
    ]);
    expect(e.get('byvalue')!.map((p) => [p.name, p.type, p.size, p.offset])).toEqual([['s', 'bytes', 16, 0], ['out', 'u64', 8, 16], ['ids', 'u64', 8, 24]]);
    // a u8 before a u64 is padded to the u64's alignment; an entry with no parameters has none
    const t = ptxEntries('.visible .entry k(.param .u8 k_param_0, .param .u64 k_param_1) {}\n.entry z() { ret; }');
    expect(t.get('k')!.map((p) => p.offset)).toEqual([0, 8]);
    expect(t.get('z')).toEqual([]);
    // `.ptr .align 16` aligns the pointee, not the parameter: after an i32 the pointer sits at 8
    const p = ptxEntries('.visible .entry k(.param .u32 n, .param .u64 .ptr .global .align 16 x, .param .align 16 .b8 s[32]) {}');
    expect(p.get('k')!.map((q) => [q.name, q.offset, q.align])).toEqual([['n', 0, 4], ['x', 8, 8], ['s', 16, 16]]);
  });
});

describe('loadModule / getFunction / launch on the sim', () => {
  it('runs a hand-written PTX kernel with a 3-D grid, matching a JS reference', async () => {
    const n = 1000;
    const x = Float32Array.from({ length: n }, (_, i) => i * 0.25 - 7);
    const y = Float32Array.from({ length: n }, (_, i) => (i % 13) - 6);
    const dx = DeviceArray.from(x, 'f32', { device: sim });
    const dy = DeviceArray.from(y, 'f32', { device: sim });
    const saxpy = loadModule(SAXPY, { device: sim }).getFunction('saxpy');
    expect(saxpy.params.map((p) => p.name)).toEqual(['x', 'y', 'a', 'n']);
    expect(saxpy.attributes.maxThreadsPerBlock).toBeGreaterThanOrEqual(256);
    await saxpy.launch({ grid: [Math.ceil(n / 128), 1, 1], block: 128, args: [dx, dy, 1.5, n] });
    // by name, on a stream of the device, and a second time on the same plan
    const stream = sim.createStream!();
    await saxpy.launch({ grid: 8, block: [128], stream, args: { x: dx, y: dy, a: -0.5, n } });
    const got = await dy.toArray();
    const want = y.map((v, i) => Math.fround(Math.fround(-0.5 * x[i]!) + Math.fround(Math.fround(1.5 * x[i]!) + v)));
    expect(Array.from(got)).toEqual(Array.from(want));
  });

  it('passes aggregates by value and block dimensions in y', async () => {
    const f = loadModule(SAXPY, { device: sim }).getFunction('byvalue');
    const s = new DataView(new ArrayBuffer(16));
    s.setInt32(0, 3, true);
    s.setBigInt64(8, 1n << 40n, true);
    const out = DeviceArray.zeros([64], 'i64', { device: sim });
    const ids = DeviceArray.zeros([64], 'i32', { device: sim }); // read as 32 u16 pairs
    await f.launch({ grid: 1, block: [8, 4], args: [s, out, ids] });
    const got = Array.from(await out.toArray());
    expect(got.slice(0, 32)).toEqual(Array.from({ length: 32 }, (_, t) => BigInt(3 * t) + (1n << 40n)));
    expect(got.slice(32)).toEqual(new Array(32).fill(0n));
    const u16 = new Uint16Array((await ids.toArray()).buffer);
    expect(Array.from(u16.slice(0, 32))).toEqual(Array.from({ length: 32 }, (_, t) => t));
  });

  it('keeps arrays alive until the kernel is done, even when freed at once', async () => {
    const n = 4096;
    const dx = DeviceArray.from(new Float32Array(n).fill(2), 'f32', { device: sim });
    const dy = DeviceArray.from(new Float32Array(n).fill(1), 'f32', { device: sim });
    const saxpy = loadModule(SAXPY, { device: sim }).getFunction('saxpy');
    const done = saxpy.launch({ grid: n / 256, block: 256, args: [dx, dy, 3, n] });
    const check = DeviceArray.empty([n], 'f32', { device: sim });
    const copied = check.copyFrom(dy);
    dx.free(); // deferred: the launch holds it
    await Promise.all([done, copied]);
    expect(new Set(await check.toArray())).toEqual(new Set([7]));
  });

  it.each([
    ['cu_grid_stride'], ['cu_warp_shfl'], ['cu_dyn_shared'], ['tt_vadd'], ['tt_softmax_w4'], ['tt_matmul_f16'],
  ])('runs the corpus kernel %s (nvcc / Triton PTX) against its stored reference', async (name) => {
    const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'corpus', 'kernels', name);
    const c = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as {
      entry: string; grid: number[]; block: number[]; shared: number;
      args: ({ kind: 'buffer'; dtype: string; count: number; input?: number; expect?: number; tol?: Tolerance } | { kind: 'scratch'; bytes: number } | { kind: 'scalar'; value: string | number })[];
    };
    const data = new Uint8Array(readFileSync(join(dir, 'data.bin')));
    const fn = loadModule(readFileSync(join(dir, 'kernel.ptx'), 'utf8'), { device: sim }).getFunction(c.entry);
    const arrays: (DeviceArray<'u8'> | undefined)[] = [];
    const args = c.args.map((a, i) => {
      const p = fn.params[i]!;
      if (a.kind === 'scalar') return p.type === 'f32' || p.type === 'f64' ? Number(a.value) : p.size === 8 ? BigInt(a.value) : Number(a.value);
      const bytes = a.kind === 'buffer' ? a.count * elementBytes(a.dtype) : a.bytes;
      const host = new Uint8Array(Math.max(bytes, 1));
      if (a.kind === 'buffer' && a.input !== undefined) host.set(data.subarray(a.input, a.input + bytes));
      const d = DeviceArray.from(host, 'u8', { device: sim });
      arrays[i] = d;
      return d;
    });
    await fn.launch({ grid: c.grid, block: c.block, sharedBytes: c.shared, args });
    for (const [i, a] of c.args.entries()) {
      if (a.kind !== 'buffer' || a.expect === undefined) continue;
      const n = a.count * elementBytes(a.dtype);
      const got = (await arrays[i]!.toArray()).subarray(0, n);
      expect(mismatches(a.dtype, got, data.subarray(a.expect, a.expect + n), a.tol ?? ['exact']), `${name} arg ${i}`).toEqual([]);
    }
  });
});

describe('errors before anything runs', () => {
  const mod = loadModule(SAXPY, { device: sim });
  const saxpy = mod.getFunction('saxpy');
  const x = DeviceArray.from(new Float32Array(4), 'f32', { device: sim });

  it('names what is wrong', async () => {
    expect(() => mod.getFunction('nope')).toThrow(/no kernel 'nope' \(its \.entry kernels: saxpy, byvalue\)/);
    expect(() => mod.getFunction('saxpy', ['ptr', 'ptr', 'f64', 'i32'])).toThrow(/parameter 2 \('a'\): the signature says f64 \(8 bytes\), the PTX f32 \(4 bytes\)/);
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x, x, 1] })).rejects.toThrow(/expected 4 arguments \(x: ptr, y: u64, a: f32, n: i32\), got 3/);
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x, x, 1, 2 ** 31] })).rejects.toThrow(/parameter 'n' \(i32\): expected an integer in/);
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x, x, '1', 4] })).rejects.toThrow(/parameter 'a' \(f32\): expected a number, got string 1/);
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x, 1.5, 1, 4] })).rejects.toThrow(/parameter 'y' \(u64\)/);
    await expect(saxpy.launch({ grid: 1, block: 32, args: { x, y: x, a: 1, n: 4, m: 1 } })).rejects.toThrow(/no parameter 'm'/);
    await expect(saxpy.launch({ grid: [1, 0], block: 32, args: [x, x, 1, 4] })).rejects.toThrow(/grid\.y must be an integer in \[1, 65535\]/);
    await expect(saxpy.launch({ grid: 1, block: 2048, args: [x, x, 1, 4] })).rejects.toThrow(/block\.x must be an integer in \[1, 1024\]/);
    await expect(saxpy.launch({ grid: 1, block: [32, 32, 2], args: [x, x, 1, 4] })).rejects.toThrow(/block has 2048 threads/);
    await expect(saxpy.launch({ grid: 1, block: 32, sharedBytes: 1 << 30, args: [x, x, 1, 4] })).rejects.toThrow(/dynamic shared memory/);
  });

  it('refuses an array of another device or a freed one, naming the parameter', async () => {
    const host = DeviceArray.from(new Float32Array(4), 'f32', { device: 'interpret' });
    expect(await asyncCodeOf(async () => saxpy.launch({ grid: 1, block: 32, args: [host, x, 1, 4] }))).toBe('E_DEVICE');
    await expect(saxpy.launch({ grid: 1, block: 32, args: [host, x, 1, 4] })).rejects.toThrow(/parameter 'x': the array is on device 'interpret:0'/);
    const gone = DeviceArray.from(new Float32Array(4), 'f32', { device: sim });
    gone.free();
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x, gone, 1, 4] })).rejects.toThrow(/parameter 'y'.*freed/);
    await expect(saxpy.launch({ grid: 1, block: 32, args: [x, x, x, 4] })).rejects.toThrow(/parameter 'a' \(f32\): a DeviceArray goes only to a 64-bit/);
  });

  it('says the sim runs PTX only when given a cubin, and needs a signature for binaries', () => {
    const elf = new Uint8Array(64);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    expect(() => loadModule(elf, { device: sim })).toThrow(/the sim runs PTX text only and refused this cubin \(CUDA_ERROR_/);
    expect(() => loadModule('not ptx', { device: sim })).toThrow(/no \.entry kernel/);
    expect(() => loadModule(SAXPY, { device: 'interpret' })).toThrow(/the interpret device cannot run PTX/);
  });

  it('refuses launches after unload', async () => {
    const m = loadModule(SAXPY, { device: sim });
    const f = m.getFunction('saxpy');
    await m.unload();
    await expect(f.launch({ grid: 1, block: 32, args: [x, x, 1, 4] })).rejects.toThrow(/the module was unloaded/);
  });
});
