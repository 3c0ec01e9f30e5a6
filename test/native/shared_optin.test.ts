// Dynamic shared memory past the default per-block size: NativeDevice.launch (and the runtime
// device's launch plan, which calls the same NativeDevice.optInShared) opts the function in with
// cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) once the dynamic bytes pass the default less
// the function's *static* shared memory (the driver's rule, which the sim enforces), and refuses by
// name, before anything runs, what passes the device's opt-in maximum.
import { afterAll, describe, expect, it } from 'vitest';
import type { CompiledKernel } from '../../src/runtime/native/native-device.js';
import { openSimDevice } from './sim-helpers.js';

const dev = openSimDevice();
afterAll(() => dev.close());

// 1 KB of static shared memory beside the dynamic buffer; writes 7 into the dynamic buffer's last
// word and the static one's first, and copies the former out.
const PTX = `
.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry shtouch(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<1>;
  .reg .pred %p<1>;
  .shared .align 4 .b8 stat[1024];
  // one thread touches the shared bytes (no other thread's write to race with under racecheck)
  mov.u32 %r5, %tid.x;
  setp.ne.u32 %p0, %r5, 0;
  @%p0 ret;
  ld.param.u64 %rd0, [out];
  ld.param.u32 %r0, [n];
  cvta.to.global.u64 %rd0, %rd0;
  mov.u32 %r1, dyn;
  add.u32 %r2, %r1, %r0;
  sub.u32 %r2, %r2, 4;
  mov.u32 %r3, 7;
  st.shared.u32 [%r2], %r3;
  mov.u32 %r4, stat;
  st.shared.u32 [%r4], %r3;
  ld.shared.u32 %r5, [%r2];
  st.global.u32 [%rd0], %r5;
  ret;
}
`;
const kernel = (sharedBytes: number): CompiledKernel => ({
  ptx: PTX,
  metadata: { name: 'shtouch', numWarps: 1, sharedBytes, dynamicShared: true, params: [{ name: 'out', type: 'ptr<i32>', offset: 0, size: 8 }, { name: 'n', type: 'i32', offset: 8, size: 4 }] },
});

describe('the dynamic shared memory opt-in', () => {
  it('opts in once the dynamic bytes pass the default less the static ones (47.5 KB dynamic + 1 KB static)', () => {
    expect(dev.info.maxSharedPerBlock).toBe(48 * 1024);
    const n = 48 * 1024 - 512; // under 48 KB, over 48 KB - 1 KB
    const out = dev.alloc(4);
    try {
      dev.fill(out, 0);
      dev.launch(kernel(n), [out, n], 1);
      expect(Array.from(dev.download(out, new Int32Array(1)))).toEqual([7]);
    } finally {
      dev.free(out);
    }
  });

  it('runs at the device maximum (opt-in less static) and refuses one byte more by name, before launching', () => {
    const max = dev.info.maxSharedOptin - 1024;
    const out = dev.alloc(4);
    try {
      dev.fill(out, 0);
      dev.launch(kernel(max), [out, max], 1);
      expect(Array.from(dev.download(out, new Int32Array(1)))).toEqual([7]);
      dev.fill(out, 0);
      expect(() => dev.launch(kernel(max + 16), [out, max + 16], 1)).toThrow(expect.objectContaining({
        code: 'E_RANGE',
        message: expect.stringMatching(new RegExp(`kernel 'shtouch' needs ${max + 16 + 1024} bytes of shared memory per block \\(${max + 16} dynamic \\+ 1024 static\\); the device \\(.*\\) allows ${dev.info.maxSharedOptin}`)),
      }));
      expect(Array.from(dev.download(out, new Int32Array(1)))).toEqual([0]);
    } finally {
      dev.free(out);
    }
  });
});
