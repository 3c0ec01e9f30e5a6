// RMSNorm forward and backward CUDA kernels (docs/xla.md has the maths). Compiled by nvcc at
// build time to PTX (compute_80) and cubins (sm_80, sm_90), embedded in libtessera_xla.so and
// launched through the driver API. One extern "C" entry per (x dtype, weight dtype) pair:
//   tessera_rms_fwd_<x>_<w>(x, w, out, invvar, n1, n2, eps)          grid n1, block kThreads
//   tessera_rms_bwd_input_<x>_<w>(g, invvar, x, w, grad_input, n1, n2) grid n1, block kThreads
//   tessera_rms_bwd_part_<x>_<w>(g, invvar, x, part_grad, n1, n2, part) grid (ceil(n2/32), part), block (32, 8)
//   tessera_rms_bwd_weight_<x>_<w>(part_grad, grad_weight, n2, part)  grid ceil(n2/kThreads), block kThreads
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace {

constexpr int kThreads = 128;

template <class X> struct AccumOf { using type = float; };
template <> struct AccumOf<double> { using type = double; };

__device__ __forceinline__ float ld(__half v) { return __half2float(v); }
__device__ __forceinline__ float ld(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float ld(float v) { return v; }
__device__ __forceinline__ double ld(double v) { return v; }

template <class T> __device__ __forceinline__ T st(float v);
template <class T> __device__ __forceinline__ T st(double v);
template <> __device__ __forceinline__ __half st<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 st<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ float st<float>(float v) { return v; }
template <> __device__ __forceinline__ double st<double>(float v) { return v; }
template <> __device__ __forceinline__ __half st<__half>(double v) { return __double2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 st<__nv_bfloat16>(double v) { return __double2bfloat16(v); }
template <> __device__ __forceinline__ float st<float>(double v) { return float(v); }
template <> __device__ __forceinline__ double st<double>(double v) { return v; }

// A group of N elements moved with one vector load/store (N * sizeof(T) <= 16 bytes).
template <class T, int N> struct alignas(sizeof(T) * N) Pack { T v[N]; };

// Elements per vector access for a row of X read alongside W: 16 bytes of the wider type.
template <class X, class W> struct VecWidth {
  static constexpr int value = 16 / (sizeof(X) > sizeof(W) ? sizeof(X) : sizeof(W));
};

__device__ __forceinline__ bool aligned(const void* p, int bytes) { return (reinterpret_cast<uintptr_t>(p) & uintptr_t(bytes - 1)) == 0; }

template <class U>
__device__ __forceinline__ U warp_sum(U v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the block; every thread gets the total.
template <class U>
__device__ U block_sum(U v) {
  __shared__ U part[kThreads / 32];
  __shared__ U total;
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    U t = lane < kThreads / 32 ? part[lane] : U(0);
    t = warp_sum(t);
    if (lane == 0) total = t;
  }
  __syncthreads();
  const U r = total;
  __syncthreads();  // `part`/`total` are reused by the next call
  return r;
}

template <class X, class W>
__device__ void rms_fwd(const X* __restrict__ x, const W* __restrict__ w, W* __restrict__ out, typename AccumOf<X>::type* __restrict__ invvar,
                        int n1, int n2, double eps) {
  using U = typename AccumOf<X>::type;
  constexpr int N = VecWidth<X, W>::value;
  for (int row = blockIdx.x; row < n1; row += gridDim.x) {
    const X* xr = x + size_t(row) * n2;
    W* outr = out + size_t(row) * n2;
    const bool vec = n2 % N == 0 && aligned(xr, N * sizeof(X)) && aligned(w, N * sizeof(W)) && aligned(outr, N * sizeof(W));
    U ss = 0;
    if (vec) {
      for (int j = threadIdx.x * N; j < n2; j += kThreads * N) {
        const Pack<X, N> p = *reinterpret_cast<const Pack<X, N>*>(xr + j);
#pragma unroll
        for (int k = 0; k < N; ++k) { const U v = ld(p.v[k]); ss += v * v; }
      }
    } else {
      for (int j = threadIdx.x; j < n2; j += kThreads) { const U v = ld(xr[j]); ss += v * v; }
    }
    ss = block_sum(ss);
    const U r = U(1) / sqrt(ss / U(n2) + U(eps));
    if (threadIdx.x == 0) invvar[row] = r;
    if (vec) {
      for (int j = threadIdx.x * N; j < n2; j += kThreads * N) {
        const Pack<X, N> p = *reinterpret_cast<const Pack<X, N>*>(xr + j);
        const Pack<W, N> q = *reinterpret_cast<const Pack<W, N>*>(w + j);
        Pack<W, N> o;
#pragma unroll
        for (int k = 0; k < N; ++k) o.v[k] = st<W>(U(ld(q.v[k])) * (U(ld(p.v[k])) * r));
        *reinterpret_cast<Pack<W, N>*>(outr + j) = o;
      }
    } else {
      for (int j = threadIdx.x; j < n2; j += kThreads) outr[j] = st<W>(U(ld(w[j])) * (U(ld(xr[j])) * r));
    }
  }
}

template <class X, class W>
__device__ void rms_bwd_input(const W* __restrict__ g, const typename AccumOf<X>::type* __restrict__ invvar, const X* __restrict__ x,
                              const W* __restrict__ w, X* __restrict__ gi, int n1, int n2) {
  using U = typename AccumOf<X>::type;
  constexpr int N = VecWidth<X, W>::value;
  for (int row = blockIdx.x; row < n1; row += gridDim.x) {
    const X* xr = x + size_t(row) * n2;
    const W* gr = g + size_t(row) * n2;
    X* gir = gi + size_t(row) * n2;
    const bool vec = n2 % N == 0 && aligned(xr, N * sizeof(X)) && aligned(gir, N * sizeof(X)) && aligned(w, N * sizeof(W)) && aligned(gr, N * sizeof(W));
    const U r = invvar[row];
    U s = 0;
    if (vec) {
      for (int j = threadIdx.x * N; j < n2; j += kThreads * N) {
        const Pack<X, N> xp = *reinterpret_cast<const Pack<X, N>*>(xr + j);
        const Pack<W, N> gp = *reinterpret_cast<const Pack<W, N>*>(gr + j);
        const Pack<W, N> wp = *reinterpret_cast<const Pack<W, N>*>(w + j);
#pragma unroll
        for (int k = 0; k < N; ++k) s += U(ld(gp.v[k])) * U(ld(wp.v[k])) * U(ld(xp.v[k]));
      }
    } else {
      for (int j = threadIdx.x; j < n2; j += kThreads) s += U(ld(gr[j])) * U(ld(w[j])) * U(ld(xr[j]));
    }
    s = block_sum(s);
    const U c = r * r * r / U(n2) * s;
    for (int j = threadIdx.x; j < n2; j += kThreads) gir[j] = st<X>(r * U(ld(gr[j])) * U(ld(w[j])) - c * U(ld(xr[j])));
  }
}

// part_grad[p, j] = sum over rows i == p (mod part) of g[i,j] * x[i,j] * invvar[i]
template <class X, class W>
__device__ void rms_bwd_part(const W* __restrict__ g, const typename AccumOf<X>::type* __restrict__ invvar, const X* __restrict__ x,
                             typename AccumOf<X>::type* __restrict__ part_grad, int n1, int n2, int part) {
  using U = typename AccumOf<X>::type;
  __shared__ U acc[8][33];
  const int j = blockIdx.x * 32 + threadIdx.x;
  const int p = blockIdx.y;
  U s = 0;
  if (j < n2) {
    for (long long i = p + (long long)threadIdx.y * part; i < n1; i += 8LL * part) {
      const size_t at = size_t(i) * n2 + j;
      s += U(ld(g[at])) * U(ld(x[at])) * invvar[i];
    }
  }
  acc[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && j < n2) {
    U t = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) t += acc[k][threadIdx.x];
    part_grad[size_t(p) * n2 + j] = t;
  }
}

template <class X, class W>
__device__ void rms_bwd_weight(const typename AccumOf<X>::type* __restrict__ part_grad, W* __restrict__ gw, int n2, int part) {
  using U = typename AccumOf<X>::type;
  const int j = blockIdx.x * kThreads + threadIdx.x;
  if (j >= n2) return;
  U t = 0;
  for (int p = 0; p < part; ++p) t += part_grad[size_t(p) * n2 + j];
  gw[j] = st<W>(t);
}

}  // namespace

#define TX_U(X) AccumOf<X>::type
#define TX_PAIR(XN, X, WN, W)                                                                                                      \
  extern "C" __global__ void __launch_bounds__(kThreads) tessera_rms_fwd_##XN##_##WN(const X* x, const W* w, W* out,               \
                                                                                      TX_U(X)* invvar, int n1, int n2, double eps) { \
    rms_fwd<X, W>(x, w, out, invvar, n1, n2, eps);                                                                                 \
  }                                                                                                                                \
  extern "C" __global__ void __launch_bounds__(kThreads) tessera_rms_bwd_input_##XN##_##WN(                                        \
      const W* g, const TX_U(X)* invvar, const X* x, const W* w, X* gi, int n1, int n2) {                                          \
    rms_bwd_input<X, W>(g, invvar, x, w, gi, n1, n2);                                                                             \
  }                                                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) tessera_rms_bwd_part_##XN##_##WN(const W* g, const TX_U(X)* invvar, const X* x, \
                                                                                   TX_U(X)* part_grad, int n1, int n2, int part) {  \
    rms_bwd_part<X, W>(g, invvar, x, part_grad, n1, n2, part);                                                                     \
  }                                                                                                                                \
  extern "C" __global__ void __launch_bounds__(kThreads) tessera_rms_bwd_weight_##XN##_##WN(const TX_U(X)* part_grad, W* gw,       \
                                                                                             int n2, int part) {                   \
    rms_bwd_weight<X, W>(part_grad, gw, n2, part);                                                                                 \
  }

#define TX_ALL_W(XN, X)                 \
  TX_PAIR(XN, X, bf16, __nv_bfloat16) \
  TX_PAIR(XN, X, f16, __half)         \
  TX_PAIR(XN, X, f32, float)          \
  TX_PAIR(XN, X, f64, double)

TX_ALL_W(bf16, __nv_bfloat16)
TX_ALL_W(f16, __half)
TX_ALL_W(f32, float)
TX_ALL_W(f64, double)
