// The memory checker and sticky errors: a faulting launch poisons its context until the primary
// context is reset, and the report names kernel, CTA, thread, PTX line, address and allocation.
#include <cstdint>
#include <cstring>
#include <string>

#include "check.h"

extern "C" CUresult tesseraSimGetLastFault(char* buf, size_t size);
extern "C" CUresult tesseraSimSetInstructionBudget(uint64_t threadInstructions);

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// p[tid + offset] = 1 (32-bit stores)
.visible .entry poke(.param .u64 p, .param .u64 offset)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [offset];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  add.s64 %rd3, %rd3, %rd2;
  shl.b64 %rd4, %rd3, 2;
  add.s64 %rd5, %rd1, %rd4;
  mov.u32 %r2, 1;
  st.global.u32 [%rd5], %r2;
  ret;
}

// A 32-bit load from p + 1 byte: misaligned.
.visible .entry skew(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  add.s64 %rd2, %rd1, 1;
  ld.global.u32 %r1, [%rd2];
  ret;
}

// Writes 8 KiB past a 16-byte shared array.
.visible .entry shared_oob()
{
  .shared .align 4 .b8 small[16];
  .reg .b32 %r<3>;
  mov.u32 %r1, small;
  add.s32 %r1, %r1, 8192;
  mov.u32 %r2, 3;
  st.shared.u32 [%r1], %r2;
  ret;
}

// Executes trap.
.visible .entry boom()
{
  trap;
  ret;
}

// Never terminates.
.visible .entry spin()
{
LOOP:
  bra.uni LOOP;
}
)";

namespace {
CUcontext freshContext(CUmodule* mod, CUfunction* poke, CUfunction* skew, CUfunction* spin) {
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));
  CHECK_OK(cuModuleLoadData(mod, kPtx));
  CHECK_OK(cuModuleGetFunction(poke, *mod, "poke"));
  CHECK_OK(cuModuleGetFunction(skew, *mod, "skew"));
  CHECK_OK(cuModuleGetFunction(spin, *mod, "spin"));
  return ctx;
}
std::string lastFault() {
  char buf[2048] = {};
  CHECK_OK(tesseraSimGetLastFault(buf, sizeof buf));
  return buf;
}
bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  char none[8];
  CHECK_CU(tesseraSimGetLastFault(none, sizeof none), CUDA_ERROR_NOT_FOUND);
  CUmodule mod;
  CUfunction poke, skew, spin;
  freshContext(&mod, &poke, &skew, &spin);

  // In bounds: fine.
  CUdeviceptr buf;
  CHECK_OK(cuMemAlloc(&buf, 64 * 4));
  uint64_t offset = 0;
  void* args[] = {&buf, &offset};
  CHECK_OK(cuLaunchKernel(poke, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  CHECK_OK(cuCtxSynchronize());

  // One element past the end: the launch itself is accepted (asynchronous), the next
  // synchronizing call reports the fault, and every later call in the context keeps failing.
  offset = 1;
  CHECK_OK(cuLaunchKernel(poke, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr other;
  CHECK_CU(cuMemAlloc(&other, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_CU(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_ILLEGAL_ADDRESS);
  uint32_t host[64];
  CHECK_CU(cuMemcpyDtoH(host, buf, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  std::string report = lastFault();
  CHECK(has(report, "poke"));
  CHECK(has(report, "out-of-bounds"));
  CHECK(has(report, "thread (63,0,0)"));
  CHECK(has(report, "CTA (0,0,0)"));
  CHECK(has(report, "4-byte write"));
  CHECK(has(report, "nearest allocation"));
  CHECK(has(report, "PTX line 19"));  // the st.global line of kPtx
  int count = 0;
  CHECK_OK(cuDeviceGetCount(&count));  // device queries are not context calls

  // Releasing the last reference resets the primary context too: the sticky error is gone.
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  freshContext(&mod, &poke, &skew, &spin);
  CHECK_OK(cuMemAlloc(&buf, 64 * 4));
  offset = 1;
  CHECK_OK(cuLaunchKernel(poke, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);

  // Reset clears the sticky error (and every allocation).
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  freshContext(&mod, &poke, &skew, &spin);
  CHECK_OK(cuMemAlloc(&buf, 64 * 4));
  CHECK_OK(cuCtxSynchronize());

  // Use after free.
  CUdeviceptr freed;
  CHECK_OK(cuMemAlloc(&freed, 256));
  CHECK_OK(cuMemFree(freed));
  offset = 0;
  void* freedArgs[] = {&freed, &offset};
  CHECK_OK(cuLaunchKernel(poke, 1, 1, 1, 8, 1, 1, 0, nullptr, freedArgs, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  report = lastFault();
  CHECK(has(report, "freed"));
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));

  // Misaligned access.
  freshContext(&mod, &poke, &skew, &spin);
  CHECK_OK(cuMemAlloc(&buf, 64));
  void* skewArgs[] = {&buf};
  CHECK_OK(cuLaunchKernel(skew, 1, 1, 1, 1, 1, 1, 0, nullptr, skewArgs, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_MISALIGNED_ADDRESS);
  CHECK(has(lastFault(), "misaligned"));
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));

  // Shared memory out of bounds, and trap.
  freshContext(&mod, &poke, &skew, &spin);
  CUfunction sharedOob, boom;
  CHECK_OK(cuModuleGetFunction(&sharedOob, mod, "shared_oob"));
  CHECK_OK(cuModuleGetFunction(&boom, mod, "boom"));
  CHECK_OK(cuLaunchKernel(sharedOob, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK(has(lastFault(), "shared"));
  CHECK(has(lastFault(), "shared_oob"));
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  freshContext(&mod, &poke, &skew, &spin);
  CHECK_OK(cuModuleGetFunction(&boom, mod, "boom"));
  CHECK_OK(cuLaunchKernel(boom, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  CHECK(has(lastFault(), "trap"));
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));

  // A hung kernel meets the instruction budget.
  freshContext(&mod, &poke, &skew, &spin);
  CHECK_OK(tesseraSimSetInstructionBudget(100000));
  CUstream s;
  CHECK_OK(cuStreamCreate(&s, 0));
  CHECK_OK(cuLaunchKernel(spin, 2, 1, 1, 32, 1, 1, 0, s, nullptr, nullptr));
  CHECK_CU(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_TIMEOUT);
  CHECK(has(lastFault(), "budget"));
  CHECK_CU(cuStreamDestroy(s), CUDA_ERROR_LAUNCH_TIMEOUT);
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));

  // A created context is independent: its fault does not poison the primary context.
  CUcontext primary;
  freshContext(&mod, &poke, &skew, &spin);
  CHECK_OK(cuCtxGetCurrent(&primary));
  CUcontext mine;
  CHECK_OK(cuCtxCreate(&mine, nullptr, 0, 0));
  CUmodule mod2;
  CUfunction poke2;
  CHECK_OK(cuModuleLoadData(&mod2, kPtx));
  CHECK_OK(cuModuleGetFunction(&poke2, mod2, "poke"));
  CUdeviceptr small;
  CHECK_OK(cuMemAlloc(&small, 4));
  offset = 0;
  void* smallArgs[] = {&small, &offset};
  CHECK_OK(cuLaunchKernel(poke2, 1, 1, 1, 2, 1, 1, 0, nullptr, smallArgs, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_OK(cuCtxDestroy(mine));
  CHECK_OK(cuCtxSetCurrent(primary));
  CHECK_OK(cuMemAlloc(&buf, 16));
  CHECK_OK(cuCtxSynchronize());
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("fault_test");
}
