// f16 conversions and arithmetic: float -> half (round to nearest even) -> float, half and half2
// arithmetic, and float -> half with the round-toward-zero intrinsic.
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const float* in, int n, unsigned short* rn, unsigned short* rz, float* back,
                                   float* sums, float* prod2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half h = __float2half_rn(in[i]);
  rn[i] = __half_as_ushort(h);
  rz[i] = __half_as_ushort(__float2half_rz(in[i]));
  back[i] = __half2float(h);
  __half one = __float2half(1.0f);
  sums[i] = __half2float(__hadd(h, one));
  __half2 pair = __halves2half2(h, one);
  __half2 sq = __hmul2(pair, pair);
  prod2[2 * i] = __low2float(sq);
  prod2[2 * i + 1] = __high2float(sq);
}
