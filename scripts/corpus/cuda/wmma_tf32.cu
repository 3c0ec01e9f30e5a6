// wmma m16n16k8 tf32 -> float.
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void wmma_tf32(const float* a, const float* b, float* c, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, a + k, K);
    wmma::load_matrix_sync(fb, b + k * 16, 16);
    for (int t = 0; t < fa.num_elements; t++) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
    for (int t = 0; t < fb.num_elements; t++) fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}
