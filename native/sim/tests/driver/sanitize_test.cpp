// The sanitizers (racecheck, synccheck, initcheck): one small kernel per hazard class, each run
// without the checker (it passes silently: the bug the checker exists for) and with it (a
// hazard report naming the kernel, the PTX lines, threads and address), plus the corrected
// kernels, which run clean under all three checkers.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

extern "C" CUresult tesseraSimGetLastFault(char* buf, size_t size);
extern "C" CUresult tesseraSimSetSanitize(unsigned flags);

static const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// s[tid] = tid; (bar.sync 0 when sync != 0); out[tid] = s[(tid + 32) % 64]   (64 threads)
.visible .entry xwarp(.param .u64 out, .param .u32 sync)
{
  .shared .align 4 .b8 s[256];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1; // @xwarp-st
  ld.param.u32 %r5, [sync];
  setp.ne.u32 %p1, %r5, 0;
  @%p1 bar.sync 0;
  add.u32 %r6, %r1, 32;
  and.b32 %r6, %r6, 63;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r2, %r6;
  ld.shared.u32 %r7, [%r6]; // @xwarp-ld
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}

// One warp: s[lane] = lane; (bar.warp.sync -1 when sync != 0); out[lane] = s[(lane + 1) % 32]
.visible .entry inwarp(.param .u64 out, .param .u32 sync)
{
  .shared .align 4 .b8 s[128];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1; // @inwarp-st
  ld.param.u32 %r5, [sync];
  setp.ne.u32 %p1, %r5, 0;
  @%p1 bar.warp.sync -1;
  add.u32 %r6, %r1, 1;
  and.b32 %r6, %r6, 31;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r2, %r6;
  ld.shared.u32 %r7, [%r6]; // @inwarp-ld
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}

// Lane 0 of each of two warps writes its tid to s[0]; then out[tid] = tid.   (64 threads)
.visible .entry waw(.param .u64 out)
{
  .shared .align 4 .b32 s0;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra DONE;
  st.shared.u32 [s0], %r1; // @waw-st
DONE:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

// Lane 0 of each of two warps writes 7 to s[0] (replicated data: the same value), then
// out[tid] = tid.   (64 threads)
.visible .entry wawsame(.param .u64 out)
{
  .shared .align 4 .b32 s0;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra DONE;
  mov.u32 %r3, 7;
  st.shared.u32 [s0], %r3;
DONE:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

// Warp 0 writes s[lane] and arrives at barrier 1 (bar.arrive 1, 64); warp 1 waits there (bar.sync
// 1, 64) and reads s[lane] into out. sync == 0: neither barrier instruction runs.   (64 threads)
.visible .entry prodcons(.param .u64 out, .param .u32 sync)
{
  .shared .align 4 .b8 s[128];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mov.u32 %r3, s;
  shl.b32 %r4, %r2, 2;
  add.u32 %r4, %r3, %r4;
  ld.param.u32 %r5, [sync];
  setp.ne.u32 %p1, %r5, 0;
  setp.ge.u32 %p2, %r1, 32;
  @%p2 bra CONSUMER;
  st.shared.u32 [%r4], %r1; // @pc-st
  @%p1 bar.arrive 1, 64;
  ret;
CONSUMER:
  @%p1 bar.sync 1, 64;
  ld.shared.u32 %r6, [%r4]; // @pc-ld
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}

// One warp: an mbarrier (expecting 32 arrivals) guards a cp.async tile; each lane copies in[lane]
// to s[lane] and arrives on completion (cp.async.mbarrier.arrive.noinc). wait != 0: the lane waits
// for phase 0 (test_wait.parity loop) before reading s[lane]; wait == 0: it reads at once.
.visible .entry mbartile(.param .u64 in, .param .u64 out, .param .u32 wait)
{
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 s[128];
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r9, 32;
  @!%p1 mbarrier.init.shared.b64 [bar], %r9;
  bar.sync 0;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  ld.param.u64 %rd1, [in];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  cp.async.ca.shared.global [%r4], [%rd3], 4; // @mb-cp
  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
  ld.param.u32 %r5, [wait];
  setp.eq.u32 %p2, %r5, 0;
  @%p2 bra READ;
WAIT:
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;
  @!%p3 bra WAIT;
READ:
  ld.shared.u32 %r7, [%r4]; // @mb-ld
  ld.param.u64 %rd4, [out];
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r7;
  ret;
}

// One warp copies in[lane] to s[lane] with cp.async; mode 0: reads s[lane] with no wait; 1: waits,
// reads s[lane]; 2: waits, reads s[(lane+1)%32] with no barrier; 3: waits, bar.sync, reads
// s[(lane+1)%32]. out[lane] = what it read.
.visible .entry cpasync(.param .u64 in, .param .u64 out, .param .u32 mode)
{
  .shared .align 16 .b8 s[128];
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  ld.param.u64 %rd1, [in];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  cp.async.ca.shared.global [%r4], [%rd3], 4; // @cp-issue
  cp.async.commit_group;
  ld.param.u32 %r5, [mode];
  setp.ne.u32 %p1, %r5, 0;
  @%p1 cp.async.wait_all;
  setp.eq.u32 %p2, %r5, 3;
  @%p2 bar.sync 0;
  setp.ge.u32 %p3, %r5, 2;
  mov.u32 %r6, %r1;
  @%p3 add.u32 %r6, %r1, 1;
  and.b32 %r6, %r6, 31;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r2, %r6;
  ld.shared.u32 %r7, [%r6]; // @cp-ld
  ld.param.u64 %rd4, [out];
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r7;
  ret;
}

// Tree reduction of in[0..63] into out[0] (64 threads); bar.sync after each step when sync != 0.
.visible .entry reduce(.param .u64 in, .param .u64 out, .param .u32 sync)
{
  .shared .align 4 .b8 s[256];
  .reg .b32 %r<12>;
  .reg .b64 %rd<5>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  ld.param.u64 %rd1, [in];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r5, [%rd3];
  st.shared.u32 [%r4], %r5;
  ld.param.u32 %r6, [sync];
  setp.ne.u32 %p1, %r6, 0;
  @%p1 bar.sync 0;
  mov.u32 %r10, 32;
LOOP:
  setp.lt.u32 %p2, %r1, %r10;
  @!%p2 bra SKIP;
  shl.b32 %r7, %r10, 2;
  add.u32 %r7, %r4, %r7;
  ld.shared.u32 %r8, [%r7]; // @red-ld
  ld.shared.u32 %r9, [%r4];
  add.u32 %r9, %r9, %r8;
  st.shared.u32 [%r4], %r9; // @red-st
SKIP:
  @%p1 bar.sync 0;
  shr.u32 %r10, %r10, 1;
  setp.ne.u32 %p3, %r10, 0;
  @%p3 bra LOOP;
  setp.ne.u32 %p4, %r1, 0;
  @%p4 bra END;
  ld.shared.u32 %r11, [s];
  ld.param.u64 %rd4, [out];
  st.global.u32 [%rd4], %r11;
END:
  ret;
}

// bar.sync 0, 48 in a 64-thread CTA: a count that is not a multiple of the warp size.
.visible .entry barcount()
{
  bar.sync 0, 48; // @barcount
  ret;
}

// Warp 0 waits at barrier 1 with a count of 64, warp 1 with no count.   (64 threads)
.visible .entry bardiff()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra A;
  bar.sync 1; // @bardiff-b
  bra.uni END;
A:
  bar.sync 1, 64; // @bardiff-a
END:
  ret;
}

// Lanes 0-15 of each warp wait at bar.sync 1, 32; lanes 16-31 are predicated off.   (64 threads)
.visible .entry bardiv()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bar.sync 1, 32; // @bardiv
  ret;
}

// Lane 0 alone runs shfl.sync with membermask 0x2 (not itself; lane 1 has exited).   (32 threads)
.visible .entry notinmask()
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  shfl.sync.idx.b32 %r2, %r1, 0, 31, 2; // @notinmask
DONE:
  ret;
}

// shfl.sync with the full mask, lanes 16-31 predicated off.   (32 threads)
.visible .entry predoff()
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1; // @predoff
  ret;
}

// Lanes 0-15 exit; lanes 16-31 run bar.warp.sync 0x0000ffff (a mask without them).   (32 threads)
.visible .entry warpsync()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra DONE;
  bar.warp.sync 65535; // @warpsync
DONE:
  ret;
}

// out[tid] = in[tid] + 1   (32 threads)
.visible .entry readg(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 4;
  ld.param.u64 %rd2, [in];
  add.s64 %rd3, %rd2, %rd1;
  ld.global.u32 %r2, [%rd3]; // @readg
  add.u32 %r3, %r2, 1;
  ld.param.u64 %rd4, [out];
  add.s64 %rd5, %rd4, %rd1;
  st.global.u32 [%rd5], %r3;
  ret;
}

// out[tid] = s[tid], a shared array nobody wrote.   (32 threads)
.visible .entry reads(.param .u64 out)
{
  .shared .align 4 .b8 s[128];
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r3, %r2, %r3;
  ld.shared.u32 %r4, [%r3]; // @reads
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

namespace {

constexpr unsigned kRace = 1, kSync = 2, kInit = 4, kAll = 7;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// "PTX line N" of the line carrying `// @marker`.
std::string lineOf(const char* marker) {
  std::string ptx = kPtx, m = std::string("// @") + marker;
  size_t at = ptx.find(m + "\n");
  if (at == std::string::npos) at = ptx.find(m);
  int line = 1;
  for (size_t i = 0; i < at; i++) line += ptx[i] == '\n';
  return "PTX line " + std::to_string(line);
}

struct Env {
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  void open() {
    CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK_OK(cuCtxSetCurrent(ctx));
    CHECK_OK(cuModuleLoadData(&mod, kPtx));
  }
  struct Buf { CUdeviceptr* p; size_t bytes; bool init; };
  std::vector<Buf> bufs;
  // After a hazard the context is sticky, as after a memcheck fault: reset it and make the
  // buffers again (at new addresses, in the same variables the arguments point to).
  void reset() {
    CHECK_OK(cuDevicePrimaryCtxReset(0));
    CHECK_OK(cuDevicePrimaryCtxRelease(0));
    open();
    for (auto& b : bufs) make(b);
  }
  void make(const Buf& b) {
    CHECK_OK(cuMemAlloc(b.p, b.bytes));
    if (b.init) CHECK_OK(cuMemsetD8(*b.p, 0, b.bytes));
  }
  CUdeviceptr buffer(CUdeviceptr* p, size_t bytes, bool init = true) {
    bufs.push_back({p, bytes, init});
    make(bufs.back());
    return *p;
  }
  // Runs `name` with the given sanitizers; returns "" when clean, else the report.
  std::string run(const char* name, unsigned flags, unsigned block, std::vector<void*> args) {
    CHECK_OK(tesseraSimSetSanitize(flags));
    CUfunction f;
    CHECK_OK(cuModuleGetFunction(&f, mod, name));
    CHECK_OK(cuLaunchKernel(f, 1, 1, 1, block, 1, 1, 0, nullptr, args.empty() ? nullptr : args.data(), nullptr));
    CUresult r = cuCtxSynchronize();
    CHECK_OK(tesseraSimSetSanitize(0));
    if (r == CUDA_SUCCESS) return "";
    char buf[8192] = {};
    tesseraSimGetLastFault(buf, sizeof buf);
    std::string report = buf;
    CHECK(r == CUDA_ERROR_LAUNCH_FAILED);
    if (r != CUDA_ERROR_LAUNCH_FAILED) std::fprintf(stderr, "%s: %s\n", name, report.c_str());
    reset();
    return report;
  }
};

void expectClean(Env& e, const char* name, unsigned block, std::vector<void*> args) {
  std::string r = e.run(name, kAll, block, args);
  if (!r.empty()) std::fprintf(stderr, "unexpected report for %s:\n%s\n", name, r.c_str());
  CHECK(r.empty());
}

// Without the checker the kernel passes; with it, the report names what `parts` say.
void expectHazard(Env& e, const char* name, unsigned flags, unsigned block, std::vector<void*> args,
                  std::vector<std::string> parts) {
  std::string off = e.run(name, 0, block, args);
  if (!off.empty()) std::fprintf(stderr, "%s fails with no checker on:\n%s\n", name, off.c_str());
  CHECK(off.empty());
  std::string r = e.run(name, flags, block, args);
  bool ok = !r.empty() && has(r, std::string("kernel '") + name + "'");
  for (auto& p : parts) ok = ok && has(r, p);
  if (!ok) std::fprintf(stderr, "report for %s lacks one of the expected parts:\n%s\n", name, r.c_str());
  CHECK(ok);
}

// TESSERA_SIM_RACECHECK=1 in the environment turns racecheck on with no API call.
int envChild() {
  setenv("TESSERA_SIM_RACECHECK", "1", 1);
  if (cuInit(0) != CUDA_SUCCESS) return 2;
  Env e;
  e.open();
  CUdeviceptr out;
  e.buffer(&out, 256);
  unsigned sync = 0;
  CUfunction f;
  if (cuModuleGetFunction(&f, e.mod, "xwarp") != CUDA_SUCCESS) return 3;
  void* args[] = {&out, &sync};
  if (cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS) return 4;
  if (cuCtxSynchronize() != CUDA_ERROR_LAUNCH_FAILED) return 5;
  char buf[4096] = {};
  tesseraSimGetLastFault(buf, sizeof buf);
  return has(buf, "tessera-sim: racecheck hazard in kernel 'xwarp'") ? 0 : 6;
}

}  // namespace

int main() {
  pid_t pid = fork();
  if (pid == 0) _exit(envChild());
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  CHECK_OK(cuInit(0));
  CHECK_CU(tesseraSimSetSanitize(8), CUDA_ERROR_INVALID_VALUE);
  void* viaProc = nullptr;
  CUdriverProcAddressQueryResult st;
  CHECK_OK(cuGetProcAddress("tesseraSimSetSanitize", &viaProc, 13000, 0, &st));
  CHECK(viaProc == reinterpret_cast<void*>(&tesseraSimSetSanitize));
  Env e;
  e.open();
  CUdeviceptr out, in;
  e.buffer(&out, 256);
  e.buffer(&in, 256);
  unsigned zero = 0, one = 1;

  // racecheck
  expectHazard(e, "xwarp", kRace, 64, {&out, &zero},
               {"tessera-sim: racecheck hazard in kernel ", "hazard on shared memory", lineOf("xwarp-st"), lineOf("xwarp-ld"),
                "CTA (0,0,0)", "no barrier", "read-after-write", "write-after-read"});
  expectHazard(e, "inwarp", kRace, 32, {&out, &zero},
               {"read-after-write hazard", lineOf("inwarp-st"), lineOf("inwarp-ld"), "thread (1,0,0)", "thread (0,0,0)"});
  expectHazard(e, "waw", kRace, 64, {&out}, {"write-after-write hazard", lineOf("waw-st"), "thread (0,0,0)", "thread (32,0,0)"});
  unsigned mode0 = 0, mode2 = 2;
  expectHazard(e, "cpasync", kRace, 32, {&in, &out, &mode0},
               {"read of a cp.async destination before the wait that covers it", lineOf("cp-issue"), lineOf("cp-ld")});
  expectHazard(e, "cpasync", kRace, 32, {&in, &out, &mode2}, {"read-after-write hazard", lineOf("cp-issue"), lineOf("cp-ld")});
  expectHazard(e, "reduce", kRace, 64, {&in, &out, &zero}, {"hazard on shared memory", lineOf("red-ld"), lineOf("red-st")});
  expectHazard(e, "mbartile", kRace, 32, {&in, &out, &zero},
               {"read of a cp.async destination before the wait that covers it", lineOf("mb-cp"), lineOf("mb-ld")});
  expectHazard(e, "prodcons", kRace, 64, {&out, &zero}, {"read-after-write hazard", lineOf("pc-st"), lineOf("pc-ld"), "thread (32,0,0)"});
  // one line per distinct hazard, with a count
  std::string r = e.run("xwarp", kRace, 64, {&out, &zero});
  if (getenv("SANITIZE_TEST_SHOW")) std::printf("%s\n", r.c_str());
  CHECK(has(r, "racecheck 64 hazards (2 distinct)"));
  CHECK(has(r, "\n  racecheck x32: "));

  // synccheck
  expectHazard(e, "barcount", kSync, 64, {}, {"tessera-sim: synccheck hazard in kernel ", "thread count of 48, not a multiple of the warp size", lineOf("barcount")});
  expectHazard(e, "bardiff", kSync, 64, {}, {"different thread counts", lineOf("bardiff-a"), lineOf("bardiff-b")});
  expectHazard(e, "bardiv", kSync, 64, {}, {"divergent code", "lanes 0xffff0000 of warp 0", lineOf("bardiv")});
  expectHazard(e, "notinmask", kSync, 32, {}, {"membermask 0x00000002 does not include it", lineOf("notinmask")});
  expectHazard(e, "predoff", kSync, 32, {}, {"names lanes 0xffff0000 that do not execute it", lineOf("predoff")});
  expectHazard(e, "warpsync", kSync, 32, {}, {"membermask 0x0000ffff does not include it", lineOf("warpsync"), "thread (16,0,0)"});

  // initcheck: tracking starts with the first initcheck request, so allocate after it
  CHECK_OK(tesseraSimSetSanitize(kInit));
  CUdeviceptr fresh, dst, next, copied;
  e.buffer(&fresh, 128, false);
  e.buffer(&dst, 128, false);
  e.buffer(&next, 128, false);
  e.buffer(&copied, 128, false);
  expectHazard(e, "readg", kInit, 32, {&fresh, &dst},
               {"tessera-sim: initcheck hazard in kernel 'readg': read of uninitialised global memory", lineOf("readg"), "never written since their allocation"});
  CHECK_OK(cuMemsetD32(fresh, 7, 32));
  expectClean(e, "readg", 32, {&fresh, &dst});  // a memset initialises
  expectClean(e, "readg", 32, {&dst, &next});   // so does a kernel's store
  std::vector<uint32_t> host(32, 1);
  CHECK_OK(cuMemcpyHtoD(copied, host.data(), 128));
  expectClean(e, "readg", 32, {&copied, &dst});  // and a copy
  expectHazard(e, "reads", kInit, 32, {&out}, {"read of uninitialised shared memory", lineOf("reads")});

  // the corrected kernels: clean under all three
  expectClean(e, "xwarp", 64, {&out, &one});
  expectClean(e, "wawsame", 64, {&out});  // a write of the value already there changes nothing
  expectClean(e, "inwarp", 32, {&out, &one});
  unsigned mode1 = 1, mode3 = 3;
  expectClean(e, "cpasync", 32, {&in, &out, &mode1});
  expectClean(e, "cpasync", 32, {&in, &out, &mode3});
  expectClean(e, "reduce", 64, {&in, &out, &one});
  expectClean(e, "prodcons", 64, {&out, &one});
  expectClean(e, "mbartile", 32, {&in, &out, &one});  // read after the mbarrier phase completed  // bar.arrive -> bar.sync orders producer before consumer
  // ... and give the right answers (the checkers change nothing)
  std::vector<uint32_t> v(64);
  for (unsigned i = 0; i < 64; i++) v[i] = i + 1;
  CHECK_OK(cuMemcpyHtoD(in, v.data(), 256));
  CHECK_OK(tesseraSimSetSanitize(kAll));
  CUfunction f;
  CHECK_OK(cuModuleGetFunction(&f, e.mod, "reduce"));
  void* args[] = {&in, &out, &one};
  CHECK_OK(cuLaunchKernel(f, 3, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  uint32_t sum = 0;
  CHECK_OK(cuMemcpyDtoH(&sum, out, 4));
  CHECK(sum == 64 * 65 / 2);
  CHECK_OK(tesseraSimSetSanitize(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("sanitize_test");
}
