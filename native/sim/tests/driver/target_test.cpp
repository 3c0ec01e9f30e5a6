// Which `.target` a module may have on each simulated device (run as sm_80, sm_90 and sm_100): a
// newer target is refused, an arch-specific one (sm_90a, sm_100a) runs only on exactly its SM, a
// family-specific one (sm_100f) on its family, and the Blackwell targets other than sm_100 are
// refused by name on every device; the error log says why.
#include <cstdlib>
#include <cstring>
#include <string>

#include "check.h"

namespace {
std::string module(const char* target) {
  return std::string(".version 8.8\n.target ") + target +
         "\n.address_size 64\n.visible .entry k(.param .u64 p) {\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n"
         "  st.global.u32 [%rd1], 7;\n  ret;\n}\n";
}

// Loads a module for target; returns the result and the error log.
CUresult load(const char* target, std::string& log) {
  char error[512] = {};
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[2] = {error, reinterpret_cast<void*>(uintptr_t(sizeof error))};
  CUmodule m = nullptr;
  std::string text = module(target);
  CUresult r = cuModuleLoadDataEx(&m, text.c_str(), 2, opts, vals);
  log = error;
  if (r == CUDA_SUCCESS) cuModuleUnload(m);
  return r;
}
}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));
  int major = 0, minor = 0;
  CHECK_OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
  CHECK_OK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
  const int sm = major * 10 + minor;
  std::string log;
  struct Case {
    const char* target;
    bool runs;
    const char* why;  // a phrase the refusal's log must contain
  };
  const Case cases[] = {
      {"sm_80", true, ""},
      {"sm_90", sm >= 90, "newer than the simulated device"},
      {"sm_90a", sm == 90, sm < 90 ? "newer than" : "architecture-specific: it runs only on sm_90"},
      {"sm_100", sm >= 100, "newer than the simulated device"},
      {"sm_100a", sm == 100, sm < 100 ? "TESSERA_SIM_ARCH=sm_100" : ""},
      {"sm_100f", sm == 100, "TESSERA_SIM_ARCH=sm_100"},
      {"sm_101a", false, "sm_101a is not simulated"},
      {"sm_103a", false, "sm_103a is not simulated"},
      {"sm_120a", false, "sm_120a is not simulated"},
      {"sm_120", false, "sm_120 is not simulated"},
  };
  for (const Case& c : cases) {
    CUresult r = load(c.target, log);
    if (c.runs) {
      CHECK_OK(r);
    } else {
      CHECK_CU(r, CUDA_ERROR_INVALID_PTX);
      if (!std::strstr(log.c_str(), c.why)) {
        std::fprintf(stderr, "target %s: log \"%s\" lacks \"%s\"\n", c.target, log.c_str(), c.why);
        tcheck::failures()++;
      }
      CHECK(std::strstr(log.c_str(), c.target) != nullptr);  // the refusal names the target
    }
  }
  // clusters (sm_90 and sm_100): up to 8 CTAs, 16 with the non-portable attribute
  CUmodule m;
  std::string text = module("sm_80");
  CHECK_OK(cuModuleLoadData(&m, text.c_str()));
  CUfunction k;
  CHECK_OK(cuModuleGetFunction(&k, m, "k"));
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.blockDimX = 128;
  cfg.blockDimY = cfg.blockDimZ = 1;
  int cs = -1;
  if (sm >= 90) {
    CHECK_OK(cuOccupancyMaxPotentialClusterSize(&cs, k, &cfg));
    CHECK(cs == 8);
    CHECK_OK(cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    CHECK_OK(cuOccupancyMaxPotentialClusterSize(&cs, k, &cfg));
    CHECK(cs == 16);
  } else {
    CHECK_CU(cuOccupancyMaxPotentialClusterSize(&cs, k, &cfg), CUDA_ERROR_NOT_SUPPORTED);
  }
  CHECK_OK(cuModuleUnload(m));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("target_test");
}
