// With TESSERA_SIM_VERBOSE=1 (set by ctest for this program) a fault report and a module-load log
// are printed to stderr. stderr is captured in a temporary file to check that.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "check.h"

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry oob(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  add.s64 %rd2, %rd1, 4096;
  mov.u32 %r1, 5;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

int main() {
  const char* v = std::getenv("TESSERA_SIM_VERBOSE");
  CHECK(v != nullptr && std::string(v) == "1");
  std::FILE* capture = std::tmpfile();
  CHECK(capture != nullptr);
  if (!capture) return tcheck::finish("verbose_test");
  std::fflush(stderr);
  int saved = dup(fileno(stderr));
  dup2(fileno(capture), fileno(stderr));

  CHECK_OK(cuInit(0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));
  CUmodule bad;
  CUresult loadBroken = cuModuleLoadData(&bad, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  bogus.op;\n}\n");
  CUmodule mod;
  CHECK_OK(cuModuleLoadData(&mod, kPtx));
  CUfunction f;
  CHECK_OK(cuModuleGetFunction(&f, mod, "oob"));
  CUdeviceptr p;
  CHECK_OK(cuMemAlloc(&p, 64));
  void* args[] = {&p};
  CHECK_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
  CUresult sync = cuCtxSynchronize();

  std::fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  CHECK_CU(loadBroken, CUDA_ERROR_INVALID_PTX);
  CHECK_CU(sync, CUDA_ERROR_ILLEGAL_ADDRESS);
  std::string text;
  std::rewind(capture);
  char buf[1024];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, capture)) > 0) text.append(buf, n);
  std::fclose(capture);
  CHECK(text.find("module load failed") != std::string::npos);
  CHECK(text.find("bogus") != std::string::npos);
  CHECK(text.find("out-of-bounds global access in kernel 'oob'") != std::string::npos);
  CHECK(text.find("4-byte write") != std::string::npos);
  if (tcheck::failures()) std::fprintf(stderr, "captured stderr:\n%s\n", text.c_str());
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("verbose_test");
}
