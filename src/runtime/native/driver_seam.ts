// The one place where the runtime meets the addon's newer entry points (launch plans, device to
// device copies, stream-ordered memset, stream completion). Each is used when the loaded addon
// has it; otherwise an older entry point that gives the same result stands in.
import type { DevicePtrHandle, Driver, FunctionHandle, StreamHandle } from './addon.js';
import { nativeAsync, native } from './errors.js';
import type { CompiledKernel, NativeDevice, NativeStream } from './native-device.js';

/** A kernel's launch, prepared once: write the arguments into `params`, then `launch`. */
export interface PreparedLaunch {
  readonly params: Uint8Array;
  /** `cluster`: thread block cluster dims (sm_90), launched through cuLaunchKernelEx. */
  launch(grid: readonly number[], stream: StreamHandle | null, cluster?: readonly number[]): void;
}

interface NativeLaunchPlan {
  readonly params: Uint8Array;
  launch(gx: number, gy: number, gz: number, bx: number, by: number, bz: number, sharedBytes: number, stream: StreamHandle | null): void;
}

/** The addon methods that are being added (see docs/native.md); absent on older builds. */
interface NewerDriver {
  createLaunchPlan?(fn: FunctionHandle, paramOffsets: readonly number[], paramBytes: number): NativeLaunchPlan;
  memcpyDtoDAsync?(dst: DevicePtrHandle, src: DevicePtrHandle, bytes: number, stream: StreamHandle | null, dstOffset?: number, srcOffset?: number): void;
  memsetD8Async?(ptr: DevicePtrHandle, value: number, count: number, offset: number, stream: StreamHandle | null): void;
  streamDone?(stream: StreamHandle): Promise<void>;
}

const newer = (d: Driver): NewerDriver => d as unknown as NewerDriver;

export function prepareLaunch(
  driver: Driver, fn: FunctionHandle, offsets: readonly number[], paramBytes: number, block: readonly number[], sharedBytes: number, kernel: string,
): PreparedLaunch {
  const create = newer(driver).createLaunchPlan;
  if (create) {
    const plan = native(() => create.call(driver, fn, offsets, paramBytes), `kernel '${kernel}'`);
    const [bx, by, bz] = block as [number, number, number];
    return {
      params: plan.params,
      launch: (g, stream, cluster) => (cluster
        ? driver.launch(fn, g, block, sharedBytes, stream, plan.params, offsets, cluster)
        : plan.launch(g[0]!, g[1]!, g[2]!, bx, by, bz, sharedBytes, stream)),
    };
  }
  const params = new Uint8Array(paramBytes);
  return {
    params,
    launch: (g, stream, cluster) => (cluster
      ? driver.launch(fn, g, block, sharedBytes, stream, params, undefined, cluster)
      : driver.launch(fn, g, block, sharedBytes, stream, params)),
  };
}

/** Resolves when everything queued on `stream` so far is done; rejects with the CUDA error. */
export function streamDone(driver: Driver, stream: NativeStream): Promise<void> {
  const done = newer(driver).streamDone;
  if (done) return nativeAsync(() => done.call(driver, stream.handle));
  return nativeAsync(() => driver.streamSynchronizeAsync(stream.handle));
}

// A byte copy for drivers without memcpyDtoDAsync: a kernel, so that it stays in stream order.
const COPY_PTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry tessera_copy_bytes(.param .u64 dst, .param .u64 src, .param .u64 n)
{
  .reg .pred %p<2>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u64 %rd3, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
  add.u64 %rd6, %rd2, %rd4;
  ld.global.u8 %rs1, [%rd6];
  add.u64 %rd7, %rd1, %rd4;
  st.global.u8 [%rd7], %rs1;
DONE:
  ret;
}
`;

export const COPY_KERNEL: CompiledKernel = {
  ptx: COPY_PTX,
  metadata: {
    name: 'tessera_copy_bytes', numWarps: 8, sharedBytes: 0, dynamicShared: false,
    params: [{ name: 'dst', type: 'ptr', offset: 0, size: 8 }, { name: 'src', type: 'ptr', offset: 8, size: 8 }, { name: 'n', type: 'u64', offset: 16, size: 8 }],
  },
};

/** Queues a copy of `bytes` bytes on `stream`. */
export function copyAsync(
  dev: NativeDevice, dst: DevicePtrHandle, dstOffset: number, src: DevicePtrHandle, srcOffset: number, bytes: number, stream: NativeStream,
): void {
  if (bytes === 0) return;
  const copy = newer(dev.driver).memcpyDtoDAsync;
  if (copy) {
    native(() => copy.call(dev.driver, dst, src, bytes, stream.handle, dstOffset, srcOffset), 'copy');
    return;
  }
  dev.launch(COPY_KERNEL, [dst.address + BigInt(dstOffset), src.address + BigInt(srcOffset), BigInt(bytes)], Math.ceil(bytes / 256), { stream });
}

/** Queues a fill of `count` bytes with `byte` (without memsetD8Async: a blocking memset, ordered after all queued work). */
export function fillAsync(dev: NativeDevice, ptr: DevicePtrHandle, offset: number, count: number, byte: number, stream: NativeStream): void {
  if (count === 0) return;
  const set = newer(dev.driver).memsetD8Async;
  if (set) native(() => set.call(dev.driver, ptr, byte, count, offset, stream.handle), 'fill');
  else native(() => dev.driver.memsetD8(ptr, byte, count, offset), 'fill');
}
