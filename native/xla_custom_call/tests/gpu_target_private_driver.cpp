// The Node addon's situation: the driver (the sim) was opened privately (dlopen RTLD_LOCAL by
// path), not linked. The library must find that same instance (by its soname) so the caller's
// device pointers and stream are valid for it — no TESSERA_SIM_LIB in the environment.
#include <cuda.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tessera_xla.h"

#define FN(name) reinterpret_cast<decltype(&::name)>(dlsym(sim, #name))

int main() {
  unsetenv("TESSERA_SIM_LIB");
  unsetenv("TESSERA_CUDA_LIB");
  void* sim = dlopen(TX_SIM_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!sim) { std::fprintf(stderr, "dlopen %s: %s\n", TX_SIM_PATH, dlerror()); return 1; }
  auto init = FN(cuInit);
  auto retain = FN(cuDevicePrimaryCtxRetain);
  auto set = FN(cuCtxSetCurrent);
  auto alloc = reinterpret_cast<decltype(&::cuMemAlloc_v2)>(dlsym(sim, "cuMemAlloc_v2"));
  auto htod = reinterpret_cast<decltype(&::cuMemcpyHtoD_v2)>(dlsym(sim, "cuMemcpyHtoD_v2"));
  auto dtoh = reinterpret_cast<decltype(&::cuMemcpyDtoH_v2)>(dlsym(sim, "cuMemcpyDtoH_v2"));
  auto sync = FN(cuCtxSynchronize);
  CUcontext ctx;
  if (init(0) || retain(&ctx, 0) || set(ctx)) { std::fprintf(stderr, "sim set-up failed\n"); return 1; }
  const int n1 = 3, n2 = 40;
  float x[n1 * n2], w[n2], out[n1 * n2], iv[n1];
  for (int i = 0; i < n1 * n2; ++i) x[i] = std::sin(0.3f * i);
  for (int j = 0; j < n2; ++j) w[j] = 0.5f + 0.01f * j;
  CUdeviceptr dx, dw, dout, div;
  alloc(&dx, sizeof x); alloc(&dw, sizeof w); alloc(&dout, sizeof out); alloc(&div, sizeof iv);
  htod(dx, x, sizeof x); htod(dw, w, sizeof w);
  RMSNormDescriptor d{n1, n2, 1e-5, ElementType_F32, ElementType_F32, 0};
  void* bufs[4] = {reinterpret_cast<void*>(dx), reinterpret_cast<void*>(dw), reinterpret_cast<void*>(dout), reinterpret_cast<void*>(div)};
  rms_forward_affine_mixed_dtype(nullptr, bufs, reinterpret_cast<const char*>(&d), sizeof d, nullptr);
  if (const char* e = tessera_xla_last_error()) { std::fprintf(stderr, "target failed: %s\n", e); return 1; }
  sync();
  dtoh(out, dout, sizeof out);
  dtoh(iv, div, sizeof iv);
  double worst = 0;
  for (int i = 0; i < n1; ++i) {
    double ss = 0;
    for (int j = 0; j < n2; ++j) ss += double(x[i * n2 + j]) * x[i * n2 + j];
    const double u = 1 / std::sqrt(ss / n2 + 1e-5);
    worst = std::fmax(worst, std::fabs(iv[i] - u) / u);
    for (int j = 0; j < n2; ++j) worst = std::fmax(worst, std::fabs(out[i * n2 + j] - w[j] * x[i * n2 + j] * u));
  }
  if (!(worst < 1e-5)) { std::fprintf(stderr, "mismatch %g\n", worst); return 1; }
  std::printf("xla gpu target with a privately opened driver: ok\n");
  return 0;
}
