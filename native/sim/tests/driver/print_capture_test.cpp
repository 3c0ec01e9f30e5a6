// vprintf capture (tesseraSimSetPrintCapture / tesseraSimTakePrints): a launch queued under a tag
// keeps each call (thread, text, the consumed argument bytes and the 8 after them) for the host;
// launches queued after the tag is reset print to stdout again; a failed __assertfail under a tag
// is CUDA_ERROR_ASSERT; bad arguments are refused, never a crash.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

extern "C" CUresult tesseraSimSetPrintCapture(unsigned long long tag);
extern "C" CUresult tesseraSimTakePrints(unsigned long long tag, void* buf, size_t* size, unsigned long long* dropped);

// Thread t prints "t=<t> v=<t*10>" with two more words after the arguments: 7 and t+100.
static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func __assertfail(.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3, .param .b64 p4);
.global .align 1 .b8 fmt[14] = {116, 61, 37, 100, 32, 118, 61, 37, 108, 108, 100, 10, 0, 0};
.global .align 1 .b8 msg[3] = {110, 111, 0};

.visible .entry say()
{
  .local .align 8 .b8 buf[24];
  .reg .b32 %r<5>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  mov.u64 %rd1, buf;
  st.local.u32 [%rd1], %r1;
  mul.wide.u32 %rd2, %r1, 10;
  st.local.u64 [%rd1+8], %rd2;
  mov.u32 %r2, 7;
  st.local.u32 [%rd1+16], %r2;
  add.u32 %r3, %r1, 100;
  st.local.u32 [%rd1+20], %r3;
  cvta.local.u64 %rd3, %rd1;
  mov.u64 %rd4, fmt;
  cvta.global.u64 %rd4, %rd4;
  {
  .param .b64 f;
  st.param.b64 [f], %rd4;
  .param .b64 a;
  st.param.b64 [a], %rd3;
  .param .b32 r;
  call.uni (r), vprintf, (f, a);
  }
  ret;
}

.visible .entry fail()
{
  .reg .b64 %rd<3>;
  mov.u64 %rd1, msg;
  cvta.global.u64 %rd1, %rd1;
  {
  .param .b64 a0;
  st.param.b64 [a0], %rd1;
  .param .b64 a1;
  st.param.b64 [a1], %rd1;
  .param .b32 a2;
  st.param.b32 [a2], 12;
  .param .b64 a3;
  st.param.b64 [a3], %rd1;
  .param .b64 a4;
  st.param.b64 [a4], 1;
  call.uni __assertfail, (a0, a1, a2, a3, a4);
  }
  ret;
}
)";

namespace {
uint32_t u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CUfunction say, fail;
  CHECK_OK(cuModuleLoadData(&mod, kPtx));
  CHECK_OK(cuModuleGetFunction(&say, mod, "say"));
  CHECK_OK(cuModuleGetFunction(&fail, mod, "fail"));

  // Bad arguments: refused.
  size_t size = 0;
  unsigned long long dropped = 0;
  CHECK_CU(tesseraSimTakePrints(5, nullptr, nullptr, &dropped), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(tesseraSimTakePrints(5, nullptr, &size, nullptr), CUDA_ERROR_INVALID_VALUE);
  // Nothing under a tag: empty, with a null buffer.
  CHECK_OK(tesseraSimTakePrints(5, nullptr, &size, &dropped));
  CHECK(size == 0 && dropped == 0);

  // Two CTAs of 3 threads under tag 5; a launch after the reset prints to stdout (not kept).
  CHECK_OK(tesseraSimSetPrintCapture(5));
  CHECK_OK(cuLaunchKernel(say, 2, 1, 1, 3, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_OK(tesseraSimSetPrintCapture(0));
  CHECK_OK(cuLaunchKernel(say, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_OK(cuCtxSynchronize());

  size = 0;
  CHECK_CU(tesseraSimTakePrints(5, nullptr, &size, &dropped), CUDA_ERROR_INVALID_VALUE);
  CHECK(size > 0);
  std::vector<uint8_t> buf(size);
  size_t small = size - 1;
  CHECK_CU(tesseraSimTakePrints(5, buf.data(), &small, &dropped), CUDA_ERROR_INVALID_VALUE);  // nothing taken
  CHECK(small == size);
  CHECK_OK(tesseraSimTakePrints(5, buf.data(), &size, &dropped));
  CHECK(dropped == 0);
  int seen = 0;
  bool cta[2][3] = {};
  for (size_t p = 0; p + 32 <= size;) {
    const uint8_t* r = buf.data() + p;
    uint32_t x = u32(r), t = u32(r + 12), textLen = u32(r + 24), argLen = u32(r + 28);
    std::string text(reinterpret_cast<const char*>(r + 32), textLen);
    const uint8_t* args = r + 32 + textLen;
    CHECK(x < 2 && t < 3);
    if (x < 2 && t < 3) cta[x][t] = true;
    CHECK(text == "t=" + std::to_string(t) + " v=" + std::to_string(t * 10) + "\n");
    CHECK(argLen == 24);  // %d at 0, %lld at 8, then the two words
    if (argLen == 24) CHECK(u32(args) == t && u32(args + 16) == 7 && u32(args + 20) == t + 100);
    p += 32 + textLen + argLen;
    seen++;
  }
  CHECK(seen == 6);
  for (auto& c : cta)
    for (bool b : c) CHECK(b);
  // Taken: gone.
  size = 0;
  CHECK_OK(tesseraSimTakePrints(5, nullptr, &size, &dropped));
  CHECK(size == 0);

  // A failed assert under a tag: CUDA_ERROR_ASSERT (sticky).
  CHECK_OK(tesseraSimSetPrintCapture(6));
  CHECK_OK(cuLaunchKernel(fail, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_OK(tesseraSimSetPrintCapture(0));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
  CHECK_OK(cuDevicePrimaryCtxReset(0));
  return tcheck::finish("print_capture_test");
}
