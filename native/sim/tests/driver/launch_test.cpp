// Module loading, functions and their attributes, launch validation and both parameter forms.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

extern "C" CUresult tesseraSimGetLaunchCounters(void* out, size_t size);

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.global .align 4 .u32 gCounter = 41;

// out[i] = in[i] + k for i < n
.visible .entry add_k(.param .u64 out, .param .u64 in, .param .u32 k, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [k];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r6, %r2;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r7, [%rd4];
  add.s32 %r7, %r7, %r1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r7;
DONE:
  ret;
}

// Requires exactly 64x1x1 threads.
.visible .entry fixed(.param .u64 out)
.reqntid 64, 1, 1
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

// At most 128 threads per block; 4 KiB of static shared memory; uses dynamic shared memory.
.extern .shared .align 16 .b8 dyn[];
.visible .entry limited(.param .u64 out)
.maxntid 128, 1, 1
{
  .shared .align 4 .b8 buf[4096];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  st.shared.u32 [%r2], %r1;
  mov.u32 %r3, dyn;
  st.shared.u32 [%r3], %r1;
  ret;
}

// gCounter += 1 (one thread)
.visible .entry bump()
{
  .reg .b32 %r<2>;
  ld.global.u32 %r1, [gCounter];
  add.s32 %r1, %r1, 1;
  st.global.u32 [gCounter], %r1;
  ret;
}
)";

int main() {
  CHECK_OK(cuInit(0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));

  // Loading: PTX text works; cubins and broken PTX fail with the driver's codes and a log.
  CUmodule mod = nullptr;
  char info[1024], error[1024];
  CUjit_option opts[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                          CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[4] = {info, reinterpret_cast<void*>(uintptr_t(sizeof info)), error,
                   reinterpret_cast<void*>(uintptr_t(sizeof error))};
  CHECK_OK(cuModuleLoadDataEx(&mod, kPtx, 4, opts, vals));

  const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CUmodule bad = nullptr;
  CHECK_CU(cuModuleLoadData(&bad, elf), CUDA_ERROR_NO_BINARY_FOR_GPU);
  std::string broken = std::string(kPtx) + "\n.visible .entry oops() {\n  frobnicate.u32 %r1, 2;\n  ret;\n}\n";
  vals[1] = reinterpret_cast<void*>(uintptr_t(sizeof error));
  vals[3] = reinterpret_cast<void*>(uintptr_t(sizeof error));
  CHECK_CU(cuModuleLoadDataEx(&bad, broken.c_str(), 4, opts, vals), CUDA_ERROR_INVALID_PTX);
  CHECK(std::strstr(error, "line") != nullptr);
  CHECK(std::strstr(error, "frobnicate") != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(vals[3]) == std::strlen(error) + 1);
  std::string newer(kPtx);
  newer.replace(newer.find("sm_80"), 5, "sm_100");
  CHECK_CU(cuModuleLoadData(&bad, newer.c_str()), CUDA_ERROR_INVALID_PTX);

  CUfunction addK, fixed, limited, bump;
  CHECK_OK(cuModuleGetFunction(&addK, mod, "add_k"));
  CHECK_OK(cuModuleGetFunction(&fixed, mod, "fixed"));
  CHECK_OK(cuModuleGetFunction(&limited, mod, "limited"));
  CHECK_OK(cuModuleGetFunction(&bump, mod, "bump"));
  CUfunction none;
  CHECK_CU(cuModuleGetFunction(&none, mod, "missing"), CUDA_ERROR_NOT_FOUND);
  CHECK_CU(cuModuleGetFunction(&none, reinterpret_cast<CUmodule>(0x40), "add_k"), CUDA_ERROR_INVALID_HANDLE);
  const char* fname = nullptr;
  CHECK_OK(cuFuncGetName(&fname, addK));
  CHECK(fname && std::strcmp(fname, "add_k") == 0);

  // Attributes.
  int v = 0;
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, addK));
  CHECK(v == 1024);
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, limited));
  CHECK(v == 128);
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, limited));
  CHECK(v == 4096);
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, limited));
  CHECK(v == 48 * 1024 - 4096);
  CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, addK));
  CHECK(v >= 0);
  int optin = 0;
  CHECK_OK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));

  // Occupancy from the per-SM limits: threads (2048/SM) and shared memory.
  int blocks = 0;
  CHECK_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, addK, 256, 0));
  CHECK(blocks >= 1 && blocks <= 8);
  CHECK_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, addK, 1024, 0));
  CHECK(blocks >= 1 && blocks <= 2);
  int perSm = 0, reserved = 0;
  CHECK_OK(cuDeviceGetAttribute(&perSm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 0));
  CHECK_OK(cuDeviceGetAttribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 0));
  CHECK_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, limited, 32, 100 * 1024));
  CHECK(blocks == perSm / (4096 + 100 * 1024 + reserved));  // shared memory is the limit here
  CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, addK, 0, 0), CUDA_ERROR_INVALID_VALUE);

  // Global variables.
  CUdeviceptr gAddr = 0;
  size_t gBytes = 0;
  CHECK_OK(cuModuleGetGlobal(&gAddr, &gBytes, mod, "gCounter"));
  CHECK(gBytes == 4);
  CHECK_CU(cuModuleGetGlobal(&gAddr, &gBytes, mod, "nope"), CUDA_ERROR_NOT_FOUND);
  uint32_t g = 0;
  CHECK_OK(cuMemcpyDtoH(&g, gAddr, 4));
  CHECK(g == 41);
  CHECK_OK(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_OK(cuMemcpyDtoH(&g, gAddr, 4));
  CHECK(g == 42);

  // A real launch through kernelParams, then the same through the `extra` buffer form.
  const unsigned n = 1000;
  std::vector<uint32_t> in(n), out(n, 0);
  for (unsigned i = 0; i < n; i++) in[i] = i * 3 + 1;
  CUdeviceptr dIn, dOut;
  CHECK_OK(cuMemAlloc(&dIn, n * 4));
  CHECK_OK(cuMemAlloc(&dOut, n * 4));
  CHECK_OK(cuMemcpyHtoD(dIn, in.data(), n * 4));
  unsigned k = 7, count = n;
  void* params[] = {&dOut, &dIn, &k, &count};
  CHECK_OK(cuLaunchKernel(addK, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  CHECK_OK(cuMemcpyDtoH(out.data(), dOut, n * 4));
  bool ok = true;
  for (unsigned i = 0; i < n; i++) ok = ok && out[i] == in[i] + 7;
  CHECK(ok);
  uint64_t counters[64] = {};
  CHECK_OK(tesseraSimGetLaunchCounters(counters, sizeof(uint64_t) * 17));
  CHECK(counters[1] >= n * 10);  // threadInstructions: at least the 10+ instructions of each live thread
  CHECK_CU(tesseraSimGetLaunchCounters(counters, 8), CUDA_ERROR_INVALID_VALUE);

  struct {
    uint64_t out, in;
    uint32_t k, n;
  } packed{dOut, dIn, 100, n};
  size_t packedSize = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packedSize,
                   CU_LAUNCH_PARAM_END};
  CHECK_OK(cuLaunchKernel(addK, 8, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  CHECK_OK(cuMemcpyDtoH(out.data(), dOut, n * 4));
  ok = true;
  for (unsigned i = 0; i < n; i++) ok = ok && out[i] == in[i] + 100;
  CHECK(ok);
  CHECK_CU(cuLaunchKernel(addK, 8, 1, 1, 128, 1, 1, 0, nullptr, params, extra), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(addK, 8, 1, 1, 128, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  size_t shortSize = 8;
  void* shortExtra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &shortSize,
                        CU_LAUNCH_PARAM_END};
  CHECK_CU(cuLaunchKernel(addK, 8, 1, 1, 128, 1, 1, 0, nullptr, nullptr, shortExtra), CUDA_ERROR_INVALID_VALUE);

  // cuLaunchKernelEx on a stream.
  CUstream s;
  CHECK_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  k = 1000;
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
  attr.value.priority = 0;
  CUlaunchConfig cfg{};
  cfg.gridDimX = 4; cfg.gridDimY = 1; cfg.gridDimZ = 1;
  cfg.blockDimX = 256; cfg.blockDimY = 1; cfg.blockDimZ = 1;
  cfg.hStream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CHECK_OK(cuLaunchKernelEx(&cfg, addK, params, nullptr));
  CHECK_OK(cuStreamSynchronize(s));
  CHECK_OK(cuMemcpyDtoH(out.data(), dOut, n * 4));
  CHECK(out[0] == in[0] + 1000 && out[n - 1] == in[n - 1] + 1000);

  // Launch validation, as the hardware checks it.
  void* outOnly[] = {&dOut};
  CHECK_CU(cuLaunchKernel(addK, 1, 1, 1, 1025, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(addK, 1, 1, 1, 512, 4, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(addK, 1, 1, 1, 1, 1, 65, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(addK, 0, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(addK, 1, 65536, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(addK, 1, 1, 1, 0, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(fixed, 1, 1, 1, 32, 1, 1, 0, nullptr, outOnly, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuLaunchKernel(fixed, 1, 1, 1, 64, 2, 1, 0, nullptr, outOnly, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuLaunchKernel(fixed, 1, 1, 1, 64, 1, 1, 0, nullptr, outOnly, nullptr));
  CHECK_CU(cuLaunchKernel(limited, 1, 1, 1, 129, 1, 1, 0, nullptr, outOnly, nullptr), CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuLaunchKernel(limited, 1, 1, 1, 128, 1, 1, 16, nullptr, outOnly, nullptr));
  // Dynamic shared memory: up to 48 KiB - static by default; more only after opting in.
  CHECK_OK(cuLaunchKernel(limited, 1, 1, 1, 32, 1, 1, 48 * 1024 - 4096, nullptr, outOnly, nullptr));
  CHECK_CU(cuLaunchKernel(limited, 1, 1, 1, 32, 1, 1, 48 * 1024 - 4095, nullptr, outOnly, nullptr),
           CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuFuncSetAttribute(limited, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin - 4095),
           CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuFuncSetAttribute(limited, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin - 4096));
  CHECK_OK(cuLaunchKernel(limited, 1, 1, 1, 32, 1, 1, optin - 4096, nullptr, outOnly, nullptr));
  CHECK_CU(cuLaunchKernel(limited, 1, 1, 1, 32, 1, 1, optin - 4095, nullptr, outOnly, nullptr),
           CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuCtxSynchronize());
  std::vector<uint32_t> ids(64);
  CHECK_OK(cuMemcpyDtoH(ids.data(), dOut, 64 * 4));
  CHECK(ids[0] == 0 && ids[63] == 63);

  // Handles.
  CHECK_CU(cuLaunchKernel(reinterpret_cast<CUfunction>(0x99), 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr),
           CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuLaunchKernel(addK, 1, 1, 1, 1, 1, 1, 0, reinterpret_cast<CUstream>(0x99), params, nullptr),
           CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, nullptr), CUDA_ERROR_INVALID_HANDLE);

  CHECK_OK(cuStreamDestroy(s));
  CHECK_OK(cuModuleUnload(mod));
  CHECK_CU(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuLaunchKernel(addK, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CHECK_OK(cuMemFree(dIn));
  CHECK_OK(cuMemFree(dOut));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("launch_test");
}
