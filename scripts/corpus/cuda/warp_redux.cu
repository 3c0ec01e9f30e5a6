// __reduce_*_sync (redux.sync) over the whole warp and over half-warp membermasks.
extern "C" __global__ void warp_redux(const unsigned* in, unsigned* out) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned v = in[t];
  unsigned lane = threadIdx.x & 31;
  unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  out[t * 8 + 0] = __reduce_add_sync(0xffffffffu, v);
  out[t * 8 + 1] = __reduce_min_sync(0xffffffffu, v);
  out[t * 8 + 2] = __reduce_max_sync(0xffffffffu, (int)v);
  out[t * 8 + 3] = __reduce_and_sync(0xffffffffu, v);
  out[t * 8 + 4] = __reduce_or_sync(0xffffffffu, v);
  out[t * 8 + 5] = __reduce_xor_sync(0xffffffffu, v);
  out[t * 8 + 6] = __reduce_add_sync(mask, v);
  out[t * 8 + 7] = __reduce_max_sync(mask, v);
}
