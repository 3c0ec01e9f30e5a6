// Hand-written PTX for the native device tests (each is assembled by ptxas in ptx.test.ts).

/** out[i] = x[i] + y[i] for i < n; params: x, y, out (u64), n (u32) at 0, 8, 16, 24. */
export const VADD_PTX = `.version 7.0
.target sm_80
.address_size 64

.visible .entry vadd(
  .param .u64 vadd_x,
  .param .u64 vadd_y,
  .param .u64 vadd_out,
  .param .u32 vadd_n
)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;

  ld.param.u64 %rd1, [vadd_x];
  ld.param.u64 %rd2, [vadd_y];
  ld.param.u64 %rd3, [vadd_out];
  ld.param.u32 %r2, [vadd_n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.s32 %rd7, %r1, 4;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  add.s64 %rd10, %rd6, %rd7;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}
`;

export const VADD_PARAMS = [
  { name: 'x', type: 'ptr<f32>', offset: 0, size: 8 },
  { name: 'y', type: 'ptr<f32>', offset: 8, size: 8 },
  { name: 'out', type: 'ptr<f32>', offset: 16, size: 8 },
  { name: 'n', type: 'i32', offset: 24, size: 4 },
] as const;

/** Writes one f32 `1 MiB` past its pointer parameter: an out-of-bounds store. */
export const OOB_PTX = `.version 7.0
.target sm_80
.address_size 64

.visible .entry oob(
  .param .u64 oob_p
)
{
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;

  ld.param.u64 %rd1, [oob_p];
  cvta.to.global.u64 %rd2, %rd1;
  add.s64 %rd3, %rd2, 1048576;
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd3], %f1;
  ret;
}
`;

/** Never terminates: for the sim's instruction budget. */
export const SPIN_PTX = `.version 7.0
.target sm_80
.address_size 64

.visible .entry spin()
{
LOOP:
  bra.uni LOOP;
}
`;

/** Not PTX a driver accepts: an unknown instruction on line 9. */
export const BAD_PTX = `.version 7.0
.target sm_80
.address_size 64

.visible .entry broken(
  .param .u64 broken_p
)
{
  frobnicate.u32 %r1, 3;
  ret;
}
`;

/** Deterministic pseudo-random floats (xorshift32), so failures reproduce. */
export function randomFloats(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = (s / 0x100000000) * 200 - 100;
  }
  return out;
}
