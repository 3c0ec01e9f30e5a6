// wmma 16x16x16 signed char -> int.
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void wmma_i8(const signed char* a, const signed char* b, int* c, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + k, K);
    wmma::load_matrix_sync(fb, b + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}
