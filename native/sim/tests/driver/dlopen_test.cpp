// The library loaded at run time as "libcuda.so.1" (not linked): every entry point resolves
// through dlsym and through cuGetProcAddress to the same function, and a round trip works.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                              \
    }                                                                          \
  } while (0)

int main() {
  int failures = 0;
  void* lib = dlopen(TSIM_LIBCUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  CHECK(lib != nullptr);
  if (!lib) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  using Init = int (*)(unsigned);
  using GetProc = int (*)(const char*, void**, int, uint64_t, int*);
  using Retain = int (*)(void**, int);
  using SetCurrent = int (*)(void*);
  using Alloc = int (*)(uint64_t*, size_t);
  using HtoD = int (*)(uint64_t, const void*, size_t);
  using DtoH = int (*)(void*, uint64_t, size_t);
  using Free = int (*)(uint64_t);
  auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
  auto getProc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  CHECK(init && getProc);
  if (!init || !getProc) return 1;
  CHECK(init(0) == 0);

  // Every name cuda.h maps to a versioned symbol is exported under that symbol.
  const char* versioned[] = {"cuMemAlloc_v2", "cuMemFree_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2",
                             "cuMemcpyDtoD_v2", "cuMemcpyHtoDAsync_v2", "cuMemsetD32_v2", "cuCtxCreate_v4",
                             "cuCtxDestroy_v2", "cuCtxPushCurrent_v2", "cuCtxPopCurrent_v2",
                             "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxReset_v2", "cuStreamDestroy_v2",
                             "cuEventDestroy_v2", "cuEventElapsedTime_v2", "cuModuleGetGlobal_v2",
                             "cuMemGetInfo_v2", "cuDeviceTotalMem_v2", "cuDeviceGetUuid_v2", "cuLaunchKernel",
                             "cuLaunchKernelEx", "cuLaunchHostFunc", "cuGetErrorName", "tesseraSimGetLastFault"};
  for (const char* name : versioned) {
    void* sym = dlsym(lib, name);
    if (!sym) std::fprintf(stderr, "missing symbol %s\n", name);
    CHECK(sym != nullptr);
  }

  auto proc = [&](const char* name) {
    void* fn = nullptr;
    int status = -1;
    CHECK(getProc(name, &fn, 13000, 0, &status) == 0);
    CHECK(status == 0);
    return fn;
  };
  CHECK(proc("cuMemAlloc") == dlsym(lib, "cuMemAlloc_v2"));
  CHECK(proc("cuStreamDestroy") == dlsym(lib, "cuStreamDestroy_v2"));
  auto retain = reinterpret_cast<Retain>(proc("cuDevicePrimaryCtxRetain"));
  auto setCurrent = reinterpret_cast<SetCurrent>(proc("cuCtxSetCurrent"));
  auto alloc = reinterpret_cast<Alloc>(proc("cuMemAlloc"));
  auto htod = reinterpret_cast<HtoD>(proc("cuMemcpyHtoD"));
  auto dtoh = reinterpret_cast<DtoH>(proc("cuMemcpyDtoH"));
  auto memFree = reinterpret_cast<Free>(proc("cuMemFree"));
  void* ctx = nullptr;
  CHECK(retain(&ctx, 0) == 0);
  CHECK(setCurrent(ctx) == 0);
  uint64_t p = 0;
  CHECK(alloc(&p, 64) == 0);
  const char msg[] = "through dlopen";
  char back[sizeof msg] = {};
  CHECK(htod(p, msg, sizeof msg) == 0);
  CHECK(dtoh(back, p, sizeof msg) == 0);
  CHECK(std::strcmp(back, msg) == 0);
  CHECK(memFree(p) == 0);
  if (failures) std::fprintf(stderr, "dlopen_test: %d check(s) failed\n", failures);
  else std::printf("dlopen_test: all checks passed\n");
  return failures ? 1 : 0;
}
