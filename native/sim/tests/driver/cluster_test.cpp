// Cluster launches through the driver (run with TESSERA_SIM_ARCH=sm_90): cuLaunchKernelEx's
// cluster dimension checked against the grid and the portable (8) / non-portable (16) limits;
// the .reqnctapercluster / .explicitcluster / .maxclusterrank directives and the function
// attributes that report them; what a launched cluster sees (%cluster_ctarank, %is_explicit_cluster).
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

static const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

// out[linear ctaid] = rank | nctarank << 8 | is_explicit << 16
.visible .entry rank(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %ctaid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r3, %cluster_ctarank;
  mov.u32 %r4, %cluster_nctarank;
  mov.pred %p2, %is_explicit_cluster;
  selp.u32 %r5, 65536, 0, %p2;
  shl.b32 %r4, %r4, 8;
  or.b32 %r3, %r3, %r4;
  or.b32 %r3, %r3, %r5;
  st.global.u32 [%rd3], %r3;
DONE:
  ret;
}

.visible .entry req(.param .u64 out)
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, %cluster_ctarank;
  st.global.u32 [%rd3], %r2;
  ret;
}

.visible .entry expl(.param .u64 out)
.explicitcluster
{
  ret;
}

.visible .entry maxr(.param .u64 out)
.maxclusterrank 2
{
  ret;
}
)";

static CUresult launchEx(CUfunction f, unsigned grid, unsigned cx, unsigned cy, unsigned cz, void** args,
                         bool withAttr = true) {
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = cx;
  attr.value.clusterDim.y = cy;
  attr.value.clusterDim.z = cz;
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = grid; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = 32; cfg.blockDimY = 1; cfg.blockDimZ = 1;
  cfg.attrs = withAttr ? &attr : nullptr;
  cfg.numAttrs = withAttr ? 1 : 0;
  return cuLaunchKernelEx(&cfg, f, args, nullptr);
}

int main() {
  CHECK_OK(cuInit(0));
  CUdevice dev;
  CHECK_OK(cuDeviceGet(&dev, 0));
  int major = 0;
  CHECK_OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CHECK(major == 9);  // this test runs with TESSERA_SIM_ARCH=sm_90
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_OK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK_OK(cuModuleLoadData(&mod, kPtx));
  CUfunction rank, req, expl, maxr;
  CHECK_OK(cuModuleGetFunction(&rank, mod, "rank"));
  CHECK_OK(cuModuleGetFunction(&req, mod, "req"));
  CHECK_OK(cuModuleGetFunction(&expl, mod, "expl"));
  CHECK_OK(cuModuleGetFunction(&maxr, mod, "maxr"));
  CUdeviceptr out;
  CHECK_OK(cuMemAlloc(&out, 64 * 4));
  void* args[] = {&out};
  std::vector<uint32_t> h(64);
  auto fetch = [&]() {
    CHECK_OK(cuCtxSynchronize());
    CHECK_OK(cuMemcpyDtoH(h.data(), out, 64 * 4));
  };

  // a launched cluster: 12 CTAs in clusters of 4
  CHECK_OK(cuMemsetD32(out, 0xdead, 64));
  CHECK_OK(launchEx(rank, 12, 4, 1, 1, args));
  fetch();
  for (unsigned b = 0; b < 12; b++) CHECK(h[b] == (b % 4 | 4u << 8 | 1u << 16));
  // no attribute: clusters of one, not explicit
  CHECK_OK(cuLaunchKernel(rank, 5, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  fetch();
  for (unsigned b = 0; b < 5; b++) CHECK(h[b] == (1u << 8));
  // an explicit 1x1x1 cluster
  CHECK_OK(launchEx(rank, 3, 1, 1, 1, args));
  fetch();
  for (unsigned b = 0; b < 3; b++) CHECK(h[b] == (1u << 8 | 1u << 16));

  // argument errors
  CHECK_CU(launchEx(rank, 6, 4, 1, 1, args), CUDA_ERROR_INVALID_CLUSTER_SIZE);  // grid not divisible
  CHECK_CU(launchEx(rank, 4, 0, 1, 1, args), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  CHECK_CU(launchEx(rank, 4, 2, 2, 1, args), CUDA_ERROR_INVALID_CLUSTER_SIZE);  // grid y is 1
  CHECK_CU(launchEx(rank, 16, 16, 1, 1, args), CUDA_ERROR_INVALID_CLUSTER_SIZE);  // over 8: not portable
  int np = -1;
  CHECK_OK(cuFuncGetAttribute(&np, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, rank));
  CHECK(np == 0);
  CHECK_OK(cuFuncSetAttribute(rank, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
  CHECK_OK(cuFuncGetAttribute(&np, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, rank));
  CHECK(np == 1);
  CHECK_OK(launchEx(rank, 32, 16, 1, 1, args));
  fetch();
  for (unsigned b = 0; b < 32; b++) CHECK(h[b] == (b % 16 | 16u << 8 | 1u << 16));
  CHECK_CU(launchEx(rank, 32, 32, 1, 1, args), CUDA_ERROR_INVALID_CLUSTER_SIZE);  // over 16
  CHECK_CU(cuFuncSetAttribute(rank, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 2), CUDA_ERROR_INVALID_VALUE);

  // .reqnctapercluster 2,1,1: a plain launch gets that shape; another shape is refused
  int v = -1;
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, req));
  CHECK(v == 2);
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, req));
  CHECK(v == 1);
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, rank));
  CHECK(v == 0);
  CHECK_OK(cuMemsetD32(out, 0xdead, 64));
  CHECK_OK(cuLaunchKernel(req, 6, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  fetch();
  for (unsigned b = 0; b < 6; b++) CHECK(h[b] == b % 2);
  CHECK_CU(cuLaunchKernel(req, 5, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  CHECK_CU(launchEx(req, 8, 4, 1, 1, args), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  CHECK_OK(launchEx(req, 8, 2, 1, 1, args));

  // .explicitcluster: a launch without a cluster shape is refused
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, expl));
  CHECK(v == 1);
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, rank));
  CHECK(v == 0);
  CHECK_CU(cuLaunchKernel(expl, 2, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  CHECK_CU(launchEx(expl, 2, 2, 1, 1, args, false), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  CHECK_OK(launchEx(expl, 2, 2, 1, 1, args));

  // .maxclusterrank 2
  CHECK_CU(launchEx(maxr, 4, 4, 1, 1, args), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  CHECK_OK(launchEx(maxr, 4, 2, 1, 1, args));
  CHECK_OK(cuCtxSynchronize());

  // occupancy of clusters: 132 SMs in 8 GPCs (two of 18 SMs, six of 16); a GPC holds
  // floor(SMs * CTAs per SM / cluster size) clusters
  auto occ = [&](CUfunction f, unsigned block, unsigned shared, unsigned cx, int* n) {
    CUlaunchAttribute attr;
    std::memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cx;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 64; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = block; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.sharedMemBytes = shared;
    cfg.attrs = cx ? &attr : nullptr;
    cfg.numAttrs = cx ? 1 : 0;
    return cuOccupancyMaxActiveClusters(n, f, &cfg);
  };
  int nc = -1;
  CHECK_OK(occ(rank, 128, 0, 4, &nc));  // 16 CTAs per SM: 2 * (18*16/4) + 6 * (16*16/4)
  CHECK(nc == 2 * 72 + 6 * 64);
  CHECK_OK(occ(rank, 1024, 0, 8, &nc));  // 2 CTAs per SM: 36/8 and 32/8 per GPC
  CHECK(nc == 8 * 4);
  CHECK_OK(occ(rank, 1024, 0, 16, &nc));  // non-portable (allowed above): 2 per GPC
  CHECK(nc == 8 * 2);
  CHECK_OK(cuFuncSetAttribute(rank, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024));
  CHECK_OK(occ(rank, 128, 200 * 1024, 8, &nc));  // 1 CTA per SM (shared memory): 18/8 and 16/8
  CHECK(nc == 8 * 2);
  CHECK_OK(occ(req, 32, 0, 0, &nc));  // the kernel's 2x1x1; 32 CTAs per SM
  CHECK(nc == 2 * (18 * 32 / 2) + 6 * (16 * 32 / 2));
  CHECK_OK(occ(req, 32, 0, 2, &nc));
  CHECK(nc == 2 * (18 * 32 / 2) + 6 * (16 * 32 / 2));
  CHECK_CU(occ(req, 32, 0, 4, &nc), CUDA_ERROR_INVALID_CLUSTER_SIZE);   // not the kernel's shape
  CHECK_CU(occ(rank, 32, 0, 0, &nc), CUDA_ERROR_INVALID_CLUSTER_SIZE);  // no shape at all
  CHECK_CU(occ(maxr, 32, 0, 4, &nc), CUDA_ERROR_INVALID_CLUSTER_SIZE);  // over .maxclusterrank
  CHECK_CU(occ(rank, 32, 0, 32, &nc), CUDA_ERROR_INVALID_CLUSTER_SIZE); // over 16
  CHECK_CU(occ(rank, 0, 0, 4, &nc), CUDA_ERROR_INVALID_VALUE);          // no threads
  CHECK_CU(occ(rank, 32, 0, 4, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuOccupancyMaxActiveClusters(&nc, rank, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuOccupancyMaxActiveClusters(&nc, reinterpret_cast<CUfunction>(&nc), nullptr), CUDA_ERROR_INVALID_VALUE);
  CUlaunchConfig plain;
  std::memset(&plain, 0, sizeof plain);
  plain.blockDimX = plain.blockDimY = plain.blockDimZ = 1;
  CHECK_CU(cuOccupancyMaxActiveClusters(&nc, reinterpret_cast<CUfunction>(&nc), &plain), CUDA_ERROR_INVALID_HANDLE);
  // the largest cluster: the kernel's required size, else 8 (16 when non-portable is allowed),
  // capped by .maxclusterrank
  int cs = -1;
  plain.blockDimX = 128;
  CHECK_OK(cuOccupancyMaxPotentialClusterSize(&cs, rank, &plain));
  CHECK(cs == 16);
  CHECK_OK(cuOccupancyMaxPotentialClusterSize(&cs, req, &plain));
  CHECK(cs == 2);
  CHECK_OK(cuOccupancyMaxPotentialClusterSize(&cs, maxr, &plain));
  CHECK(cs == 2);
  CHECK_OK(cuOccupancyMaxPotentialClusterSize(&cs, expl, &plain));
  CHECK(cs == 8);
  void* viaProc = nullptr;
  CUdriverProcAddressQueryResult st;
  CHECK_OK(cuGetProcAddress("cuOccupancyMaxActiveClusters", &viaProc, 12000, 0, &st));
  CHECK(viaProc == reinterpret_cast<void*>(&cuOccupancyMaxActiveClusters));

  CHECK_OK(cuMemFree(out));
  CHECK_OK(cuModuleUnload(mod));
  CHECK_OK(cuDevicePrimaryCtxRelease(dev));
  return tcheck::finish("cluster_test");
}
