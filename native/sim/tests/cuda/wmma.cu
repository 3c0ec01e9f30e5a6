// nvcuda::wmma kernels as CUDA code writes them: f16 m16n16k16 (row-major A, col-major B, f32 and
// f16 accumulators, an element-wise scale of the accumulator fragment, col-major store), tf32
// m16n16k8 with __float_to_tf32 on the fragment, and f16 m32n8k16 with A staged in shared memory.
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_f16(const half* a, const half* b, const half* c16, float* d32, half* d16) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fh;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, 0.5f);
  wmma::load_matrix_sync(fh, c16, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::mma_sync(fh, fa, fb, fh);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;
  wmma::store_matrix_sync(d32, fc, 16, wmma::mem_col_major);
  wmma::store_matrix_sync(d16, fh, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_tf32(const float* a, const float* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 16);
  for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_32x8(const half* a, const half* b, float* d) {
  __shared__ half sa[32 * 16];
  for (int i = threadIdx.x; i < 32 * 16; i += 32) sa[i] = a[i];
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
  wmma::load_matrix_sync(fa, sa, 32);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::fill_fragment(fc, 1.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

// Integer wmma: u8 m8n32k16 (A row-major, B col-major) with a saturating mma (satf = true, the
// accumulator starts near INT32_MAX/MIN), and s8 m32n8k16 (A col-major, B row-major) that wraps.
extern "C" __global__ void wmma_u8_sat(const unsigned char* a, const unsigned char* b, const int* c, int* d) {
  wmma::fragment<wmma::matrix_a, 8, 32, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, unsigned char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 32, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc, true);
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_row_major);
}

extern "C" __global__ void wmma_s8_wrap(const signed char* a, const signed char* b, const int* c, int* d) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::load_matrix_sync(fc, c, 32, wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}
