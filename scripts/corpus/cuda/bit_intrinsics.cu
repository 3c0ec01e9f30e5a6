// popc/clz/brev/byte_perm/funnel shifts/ffs, 32- and 64-bit.
extern "C" __global__ void bit_intrinsics(const unsigned* a, const unsigned* b, unsigned* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned long long xl = ((unsigned long long)x << 32) | y;
  unsigned* o = out + i * 12;
  o[0] = __popc(x);
  o[1] = __clz(x);
  o[2] = __brev(x);
  o[3] = __byte_perm(x, y, y & 0x7777u);
  o[4] = __funnelshift_l(x, y, y & 63);
  o[5] = __funnelshift_r(x, y, y >> 27);
  o[6] = __funnelshift_lc(x, y, y & 63);
  o[7] = __funnelshift_rc(x, y, y >> 26);
  o[8] = __ffs(x);
  o[9] = __popcll(xl) + (__clzll(xl) << 8);
  o[10] = (unsigned)(__brevll(xl) >> 17);
  o[11] = __ffsll((long long)(xl & 0xffffffff00000000ull)) + (__umulhi(x, y) & 0xff00u);
}
