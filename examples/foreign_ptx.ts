// PTX that Tessera did not write — by hand here; nvcc's or Triton's the same way — run through the
// low-level API: load a module, get a kernel (its parameter offsets are read from the `.entry`),
// launch it with a grid, a block and typed arguments. Needs a native device (`cuda` or `sim`).
import { cdiv, DeviceArray, loadModule } from '../src/index.js';

/** y[i] = a * x[i] + y[i] for i < n, one thread per element. */
export const SAXPY_PTX = `
.version 7.0
.target sm_80
.address_size 64
// x is written as a typed pointer (the form Triton emits), y as a plain .u64: both take a DeviceArray
.visible .entry saxpy(
  .param .u64 .ptr .global .align 4 x,
  .param .u64 y,
  .param .f32 a,
  .param .s32 n
)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.f32 %f1, [a];
  ld.param.s32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;      // i = blockIdx.x * blockDim.x + threadIdx.x
  setp.ge.s32 %p, %r2, %r1;
  @%p bra DONE;
  mul.wide.s32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  ld.global.f32 %f3, [%rd5];
  fma.rn.f32 %f3, %f1, %f2, %f3;
  st.global.f32 [%rd5], %f3;
DONE:
  ret;
}
`;

/** a * x + y on the default device, through the hand-written kernel. */
export async function saxpy(a: number, x: Float32Array, y: Float32Array): Promise<Float32Array> {
  const mod = loadModule(SAXPY_PTX);
  const kernel = mod.getFunction('saxpy'); // params: x ptr@0, y ptr@8, a f32@16, n i32@20
  const dx = DeviceArray.from(x, 'f32'), dy = DeviceArray.from(y, 'f32');
  await kernel.launch({ grid: cdiv(x.length, 128), block: 128, args: { x: dx, y: dy, a, n: x.length } });
  const out = (await dy.toArray()) as Float32Array;
  dx.free();
  dy.free();
  await mod.unload();
  return out;
}
