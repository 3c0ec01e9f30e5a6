// wmma 16x16x16 bf16 -> float, accumulator stored column-major.
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;
extern "C" __global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 1.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + k, K);
    wmma::load_matrix_sync(fb, b + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_col_major);
}
