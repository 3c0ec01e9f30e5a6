// sim_bench: simulated thread-instructions per second of the `sim` device on a reduction and a
// matmul, with the sanitizers off and with each of them on (racecheck, synccheck, initcheck, all
// three). A benchmark, not a test: it prints figures (measured on the CPU; no GPU involved).
//   build/bin/sim_bench [--json]
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "sim.h"

extern "C" CUresult tesseraSimGetLaunchCounters(void* out, size_t size);
extern "C" CUresult tesseraSimSetSanitize(unsigned flags);

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// out[block] = sum of in[] over a grid-stride loop, warp shuffles, then shared memory.
.visible .entry reduce(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .shared .align 4 .f32 warpSums[32];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %nctaid.x;
  mad.lo.s32 %r6, %r3, %r4, %r2;
  mul.lo.s32 %r7, %r4, %r5;
  mov.f32 %f1, 0f00000000;
LOOP:
  setp.ge.u32 %p1, %r6, %r1;
  @%p1 bra REDUCE;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  add.f32 %f1, %f1, %f2;
  add.s32 %r6, %r6, %r7;
  bra.uni LOOP;
REDUCE:
  shfl.sync.bfly.b32 %f2, %f1, 16, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 8, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 4, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 2, 31, -1;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %f2, %f1, 1, 31, -1;
  add.f32 %f1, %f1, %f2;
  and.b32 %r8, %r2, 31;
  shr.u32 %r9, %r2, 5;
  setp.ne.u32 %p2, %r8, 0;
  mov.u32 %r10, warpSums;
  shl.b32 %r11, %r9, 2;
  add.s32 %r12, %r10, %r11;
  @!%p2 st.shared.f32 [%r12], %f1;
  bar.sync 0;
  setp.ne.u32 %p3, %r2, 0;
  @%p3 bra DONE;
  mov.f32 %f3, 0f00000000;
  mov.u32 %r13, 0;
  shr.u32 %r14, %r4, 5;
SUM:
  shl.b32 %r11, %r13, 2;
  add.s32 %r12, %r10, %r11;
  ld.shared.f32 %f4, [%r12];
  add.f32 %f3, %f3, %f4;
  add.s32 %r13, %r13, 1;
  setp.lt.u32 %p1, %r13, %r14;
  @%p1 bra SUM;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f3;
DONE:
  ret;
}

// C = A * B, n x n row-major f32, one thread per element (naive inner product).
.visible .entry matmul(.param .u64 A, .param .u64 B, .param .u64 C, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [A];
  ld.param.u64 %rd2, [B];
  ld.param.u64 %rd3, [C];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %ctaid.y;
  mov.u32 %r7, %ntid.y;
  mov.u32 %r8, %tid.y;
  mad.lo.s32 %r9, %r6, %r7, %r8;
  setp.ge.u32 %p1, %r5, %r1;
  setp.ge.u32 %p2, %r9, %r1;
  or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r10, 0;
  mul.lo.s32 %r11, %r9, %r1;
KLOOP:
  add.s32 %r12, %r11, %r10;
  mul.wide.u32 %rd4, %r12, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f2, [%rd5];
  mad.lo.s32 %r13, %r10, %r1, %r5;
  mul.wide.u32 %rd6, %r13, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f1, %f2, %f3, %f1;
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r10, %r1;
  @%p2 bra KLOOP;
  add.s32 %r14, %r11, %r5;
  mul.wide.u32 %rd8, %r14, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.global.f32 [%rd9], %f1;
DONE:
  ret;
}
)";

// nvcc -ptx -arch=compute_80 of a 16x16 shared-memory tiled matmul (two __syncthreads per step):
// the sanitizers' shared-memory and barrier work.
//   __shared__ float ta[16][16], tb[16][16]; ... ta[ty][tx] = a[...]; tb[ty][tx] = b[...];
//   __syncthreads(); for (j < 16) acc += ta[ty][j] * tb[j][tx]; __syncthreads();
const char* kPtxTiled = R"(
.version 9.0
.target sm_80
.address_size 64

	// .globl	matmul_tiled
// _ZZ12matmul_tiledE2ta has been demoted
// _ZZ12matmul_tiledE2tb has been demoted

.visible .entry matmul_tiled(
	.param .u64 matmul_tiled_param_0,
	.param .u64 matmul_tiled_param_1,
	.param .u64 matmul_tiled_param_2,
	.param .u32 matmul_tiled_param_3
)
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<57>;
	.reg .b32 	%r<29>;
	.reg .b64 	%rd<13>;
	// demoted variable
	.shared .align 4 .b8 _ZZ12matmul_tiledE2ta[1024];
	// demoted variable
	.shared .align 4 .b8 _ZZ12matmul_tiledE2tb[1024];

	ld.param.u64 	%rd3, [matmul_tiled_param_0];
	ld.param.u64 	%rd4, [matmul_tiled_param_1];
	ld.param.u64 	%rd5, [matmul_tiled_param_2];
	ld.param.u32 	%r12, [matmul_tiled_param_3];
	mov.u32 	%r13, %ctaid.y;
	shl.b32 	%r14, %r13, 4;
	mov.u32 	%r1, %tid.y;
	add.s32 	%r15, %r14, %r1;
	mov.u32 	%r16, %ctaid.x;
	shl.b32 	%r17, %r16, 4;
	mov.u32 	%r2, %tid.x;
	add.s32 	%r3, %r17, %r2;
	mul.lo.s32 	%r4, %r15, %r12;
	setp.eq.s32 	%p1, %r12, 0;
	mov.f32 	%f56, 0f00000000;
	@%p1 bra 	$L__BB0_3;

	add.s32 	%r5, %r4, %r2;
	shl.b32 	%r19, %r1, 6;
	mov.u32 	%r20, _ZZ12matmul_tiledE2ta;
	add.s32 	%r8, %r20, %r19;
	shl.b32 	%r21, %r2, 2;
	add.s32 	%r6, %r8, %r21;
	mov.u32 	%r22, _ZZ12matmul_tiledE2tb;
	add.s32 	%r23, %r22, %r19;
	add.s32 	%r7, %r23, %r21;
	add.s32 	%r9, %r22, %r21;
	cvta.to.global.u64 	%rd1, %rd3;
	cvta.to.global.u64 	%rd2, %rd4;
	mov.f32 	%f56, 0f00000000;
	mov.u32 	%r28, 0;

$L__BB0_2:
	add.s32 	%r24, %r5, %r28;
	mul.wide.u32 	%rd6, %r24, 4;
	add.s64 	%rd7, %rd1, %rd6;
	ld.global.f32 	%f6, [%rd7];
	st.shared.f32 	[%r6], %f6;
	add.s32 	%r25, %r28, %r1;
	mad.lo.s32 	%r26, %r25, %r12, %r3;
	mul.wide.u32 	%rd8, %r26, 4;
	add.s64 	%rd9, %rd2, %rd8;
	ld.global.f32 	%f7, [%rd9];
	st.shared.f32 	[%r7], %f7;
	bar.sync 	0;
	ld.shared.f32 	%f8, [%r9];
	ld.shared.f32 	%f9, [%r8];
	fma.rn.f32 	%f10, %f9, %f8, %f56;
	ld.shared.f32 	%f11, [%r9+64];
	ld.shared.f32 	%f12, [%r8+4];
	fma.rn.f32 	%f13, %f12, %f11, %f10;
	ld.shared.f32 	%f14, [%r9+128];
	ld.shared.f32 	%f15, [%r8+8];
	fma.rn.f32 	%f16, %f15, %f14, %f13;
	ld.shared.f32 	%f17, [%r9+192];
	ld.shared.f32 	%f18, [%r8+12];
	fma.rn.f32 	%f19, %f18, %f17, %f16;
	ld.shared.f32 	%f20, [%r9+256];
	ld.shared.f32 	%f21, [%r8+16];
	fma.rn.f32 	%f22, %f21, %f20, %f19;
	ld.shared.f32 	%f23, [%r9+320];
	ld.shared.f32 	%f24, [%r8+20];
	fma.rn.f32 	%f25, %f24, %f23, %f22;
	ld.shared.f32 	%f26, [%r9+384];
	ld.shared.f32 	%f27, [%r8+24];
	fma.rn.f32 	%f28, %f27, %f26, %f25;
	ld.shared.f32 	%f29, [%r9+448];
	ld.shared.f32 	%f30, [%r8+28];
	fma.rn.f32 	%f31, %f30, %f29, %f28;
	ld.shared.f32 	%f32, [%r9+512];
	ld.shared.f32 	%f33, [%r8+32];
	fma.rn.f32 	%f34, %f33, %f32, %f31;
	ld.shared.f32 	%f35, [%r9+576];
	ld.shared.f32 	%f36, [%r8+36];
	fma.rn.f32 	%f37, %f36, %f35, %f34;
	ld.shared.f32 	%f38, [%r9+640];
	ld.shared.f32 	%f39, [%r8+40];
	fma.rn.f32 	%f40, %f39, %f38, %f37;
	ld.shared.f32 	%f41, [%r9+704];
	ld.shared.f32 	%f42, [%r8+44];
	fma.rn.f32 	%f43, %f42, %f41, %f40;
	ld.shared.f32 	%f44, [%r9+768];
	ld.shared.f32 	%f45, [%r8+48];
	fma.rn.f32 	%f46, %f45, %f44, %f43;
	ld.shared.f32 	%f47, [%r9+832];
	ld.shared.f32 	%f48, [%r8+52];
	fma.rn.f32 	%f49, %f48, %f47, %f46;
	ld.shared.f32 	%f50, [%r9+896];
	ld.shared.f32 	%f51, [%r8+56];
	fma.rn.f32 	%f52, %f51, %f50, %f49;
	ld.shared.f32 	%f53, [%r9+960];
	ld.shared.f32 	%f54, [%r8+60];
	fma.rn.f32 	%f56, %f54, %f53, %f52;
	bar.sync 	0;
	add.s32 	%r28, %r28, 16;
	setp.lt.u32 	%p2, %r28, %r12;
	@%p2 bra 	$L__BB0_2;

$L__BB0_3:
	add.s32 	%r27, %r4, %r3;
	cvta.to.global.u64 	%rd10, %rd5;
	mul.wide.u32 	%rd11, %r27, 4;
	add.s64 	%rd12, %rd10, %rd11;
	st.global.f32 	[%rd12], %f56;
	ret;

}

)";

bool ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = "?";
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "sim_bench: %s failed: %s\n", what, name);
  return false;
}

struct Result {
  std::string name;
  std::string checkers = "off";
  double seconds = 0;
  uint64_t threadInstructions = 0, warpInstructions = 0;
  double flops = 0;  // matmul rows: 2*M*N*K
  unsigned reps = 0;  // matmul rows: the median of this many interleaved launches
};

// Runs one launch `reps` times and keeps the fastest.
bool measure(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, void** args, int reps, Result& r) {
  for (int i = 0; i < reps; i++) {
    auto t0 = std::chrono::steady_clock::now();
    if (!ok(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, nullptr, args, nullptr), "cuLaunchKernel")) return false;
    if (!ok(cuCtxSynchronize(), "cuCtxSynchronize")) return false;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i == 0 || s < r.seconds) r.seconds = s;
  }
  tsim::Counters c;
  if (!ok(tesseraSimGetLaunchCounters(&c, sizeof c), "tesseraSimGetLaunchCounters")) return false;
  r.threadInstructions = c.threadInstructions;
  r.warpInstructions = c.warpInstructions;
  return true;
}

}  // namespace

// A Triton `matmul` kernel of the corpus (f16 A and B, f32 C; params a, b, c, M, N, K, six
// strides, two scratch pointers): --matmul NAME PTX GRID BLOCK SHARED M N K, repeatable.
struct MatmulRow {
  std::string name, ptx;
  unsigned grid = 1, block = 128, shared = 0, m = 0, n = 0, k = 0;
  // set up by loadMatmul
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  CUdeviceptr da = 0, db = 0, dc = 0, none = 0;
  unsigned sam = 0, sak = 1, sbk = 0, sbn = 1, scm = 0, scn = 1;
  void* args[14] = {};
  std::vector<double> seconds;
  tsim::Counters counters;  // of its last launch
};

bool loadMatmul(MatmulRow& row) {
  std::FILE* f = std::fopen(row.ptx.c_str(), "rb");
  if (!f) { std::fprintf(stderr, "sim_bench: cannot read %s\n", row.ptx.c_str()); return false; }
  std::string text;
  char buf[65536];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
  std::fclose(f);
  if (!ok(cuModuleLoadData(&row.mod, text.c_str()), "matmul module load") || !ok(cuModuleGetFunction(&row.fn, row.mod, "matmul"), "matmul"))
    return false;
  if (row.shared > 48 * 1024 && !ok(cuFuncSetAttribute(row.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)row.shared), "shared"))
    return false;
  const unsigned M = row.m, N = row.n, K = row.k;
  std::vector<uint16_t> a(M * K, 0x3c00), b(K * N, 0x3800);  // 1.0 and 0.5
  if (!ok(cuMemAlloc(&row.da, a.size() * 2), "alloc") || !ok(cuMemAlloc(&row.db, b.size() * 2), "alloc") ||
      !ok(cuMemAlloc(&row.dc, (size_t)M * N * 4), "alloc") || !ok(cuMemcpyHtoD(row.da, a.data(), a.size() * 2), "copy") ||
      !ok(cuMemcpyHtoD(row.db, b.data(), b.size() * 2), "copy"))
    return false;
  row.sam = K;
  row.sbk = N;
  row.scm = N;
  void* args[] = {&row.da, &row.db, &row.dc, &row.m, &row.n, &row.k, &row.sam, &row.sak, &row.sbk, &row.sbn, &row.scm, &row.scn, &row.none, &row.none};
  std::memcpy(row.args, args, sizeof args);
  return true;
}

bool launchMatmul(MatmulRow& row) {
  auto t0 = std::chrono::steady_clock::now();
  if (!ok(cuLaunchKernel(row.fn, row.grid, 1, 1, row.block, 1, 1, row.shared, nullptr, row.args, nullptr), "cuLaunchKernel") ||
      !ok(cuCtxSynchronize(), "cuCtxSynchronize"))
    return false;
  row.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return ok(tesseraSimGetLaunchCounters(&row.counters, sizeof row.counters), "tesseraSimGetLaunchCounters");
}

// Checks the product and reports the median launch time.
bool finishMatmul(MatmulRow& row, Result& r) {
  std::vector<float> c((size_t)row.m * row.n);
  if (!ok(cuMemcpyDtoH(c.data(), row.dc, c.size() * 4), "copy back")) return false;
  for (float x : c)
    if (x != 0.5f * row.k) { std::fprintf(stderr, "sim_bench: %s computed %g, not %g\n", row.name.c_str(), x, 0.5 * row.k); return false; }
  r.name = row.name;
  r.threadInstructions = row.counters.threadInstructions;
  r.warpInstructions = row.counters.warpInstructions;
  r.flops = 2.0 * row.m * row.n * row.k;
  std::vector<double> t = row.seconds;
  std::sort(t.begin(), t.end());
  r.seconds = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
  r.reps = (unsigned)t.size();
  cuMemFree(row.da);
  cuMemFree(row.db);
  cuMemFree(row.dc);
  cuModuleUnload(row.mod);
  return true;
}

int main(int argc, char** argv) {
  const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  std::vector<MatmulRow> matmuls;
  bool matmulsOnly = false;
  int reps = 7;
  const char* onlyChecker = nullptr;  // --checkers NAME: the fixed rows with that setting only (profiling)
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--matmuls-only") == 0) matmulsOnly = true;
    if (std::strcmp(argv[i], "--checkers") == 0 && i + 1 < argc) onlyChecker = argv[++i];
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    if (std::strcmp(argv[i], "--matmul") != 0) continue;
    if (i + 8 >= argc) { std::fprintf(stderr, "sim_bench: --matmul NAME PTX GRID BLOCK SHARED M N K\n"); return 2; }
    MatmulRow m;
    m.name = argv[i + 1];
    m.ptx = argv[i + 2];
    m.grid = (unsigned)std::atoi(argv[i + 3]);
    m.block = (unsigned)std::atoi(argv[i + 4]);
    m.shared = (unsigned)std::atoi(argv[i + 5]);
    m.m = (unsigned)std::atoi(argv[i + 6]);
    m.n = (unsigned)std::atoi(argv[i + 7]);
    m.k = (unsigned)std::atoi(argv[i + 8]);
    matmuls.push_back(m);
    i += 8;
  }
  CUcontext ctx;
  CUmodule mod, modTiled;
  CUfunction reduce, matmul, tiled;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDevicePrimaryCtxRetain(&ctx, 0), "retain") ||
      !ok(cuCtxSetCurrent(ctx), "set current") || !ok(cuModuleLoadData(&mod, kPtx), "module load") ||
      !ok(cuModuleGetFunction(&reduce, mod, "reduce"), "reduce") ||
      !ok(cuModuleGetFunction(&matmul, mod, "matmul"), "matmul") ||
      !ok(cuModuleLoadData(&modTiled, kPtxTiled), "module load (tiled)") ||
      !ok(cuModuleGetFunction(&tiled, modTiled, "matmul_tiled"), "matmul_tiled"))
    return 1;

  std::vector<Result> results;
  // Checkers off first: initcheck's write tracking, once on, stays on for later allocations.
  const struct { const char* name; unsigned flags; } configs[] = {
      {"off", 0}, {"racecheck", 1}, {"synccheck", 2}, {"initcheck", 4}, {"all three", 7}};
  for (const auto& cfg : configs) {
  if (matmulsOnly) break;
  if (onlyChecker && std::strcmp(onlyChecker, cfg.name) != 0) continue;
  if (!ok(tesseraSimSetSanitize(cfg.flags), "tesseraSimSetSanitize")) return 1;
  {
    const unsigned n = 1 << 22, blocks = 256, threads = 256;
    std::vector<float> host(n, 1.0f);
    CUdeviceptr in, out;
    if (!ok(cuMemAlloc(&in, n * 4), "alloc") || !ok(cuMemAlloc(&out, blocks * 4), "alloc") ||
        !ok(cuMemcpyHtoD(in, host.data(), n * 4), "copy"))
      return 1;
    unsigned count = n;
    void* args[] = {&in, &out, &count};
    Result r{"reduce f32 (4M elements, 256x256 threads)", cfg.name};
    if (!measure(reduce, blocks, 1, threads, 1, args, 5, r)) return 1;
    results.push_back(r);
    cuMemFree(in);
    cuMemFree(out);
  }
  {
    const unsigned n = 128;
    std::vector<float> host(n * n, 0.5f);
    CUdeviceptr a, b, c;
    if (!ok(cuMemAlloc(&a, n * n * 4), "alloc") || !ok(cuMemAlloc(&b, n * n * 4), "alloc") ||
        !ok(cuMemAlloc(&c, n * n * 4), "alloc") || !ok(cuMemcpyHtoD(a, host.data(), n * n * 4), "copy") ||
        !ok(cuMemcpyHtoD(b, host.data(), n * n * 4), "copy"))
      return 1;
    unsigned count = n;
    void* args[] = {&a, &b, &c, &count};
    Result r{"matmul f32 naive (128x128x128, 16x16 blocks)", cfg.name};
    if (!measure(matmul, n / 16, n / 16, 16, 16, args, 5, r)) return 1;
    results.push_back(r);
    cuMemFree(a);
    cuMemFree(b);
    cuMemFree(c);
  }
  {
    const unsigned n = 256;
    std::vector<float> host(n * n, 0.25f);
    CUdeviceptr a, b, c;
    if (!ok(cuMemAlloc(&a, n * n * 4), "alloc") || !ok(cuMemAlloc(&b, n * n * 4), "alloc") ||
        !ok(cuMemAlloc(&c, n * n * 4), "alloc") || !ok(cuMemcpyHtoD(a, host.data(), n * n * 4), "copy") ||
        !ok(cuMemcpyHtoD(b, host.data(), n * n * 4), "copy"))
      return 1;
    unsigned count = n;
    void* args[] = {&a, &b, &c, &count};
    Result r{"matmul f32 shared tiles (256^3, 16x16 blocks)", cfg.name};
    if (!measure(tiled, n / 16, n / 16, 16, 16, args, 5, r)) return 1;
    results.push_back(r);
    cuMemFree(a);
    cuMemFree(b);
    cuMemFree(c);
  }
  }
  tesseraSimSetSanitize(0);

  // The matmul rows are compared with each other: their launches are interleaved (one of each per
  // round, after a warm-up round) and each reports its median, so a change in the machine's load
  // during the run moves them alike.
  for (MatmulRow& m : matmuls)
    if (!loadMatmul(m)) return 1;
  for (int i = 0; i <= reps; i++) {
    for (MatmulRow& m : matmuls) {
      if (!launchMatmul(m)) return 1;
      if (i == 0) m.seconds.clear();  // warm-up
    }
  }
  for (MatmulRow& m : matmuls) {
    Result r;
    if (!finishMatmul(m, r)) return 1;
    results.push_back(r);
  }

  const char* env = std::getenv("TESSERA_SIM_THREADS");
  unsigned cores = env && std::atoi(env) > 0 ? static_cast<unsigned>(std::atoi(env)) : std::thread::hardware_concurrency();
  if (cores == 0) cores = 1;
  if (json) std::printf("{\"device\":\"sim (CPU, no GPU)\",\"workerThreads\":%u,\"results\":[", cores);
  else std::printf("sim_bench: simulated throughput on the CPU (no GPU), %u worker thread(s)\n", cores);
  for (size_t i = 0; i < results.size(); i++) {
    const Result& r = results[i];
    double rate = r.threadInstructions / r.seconds;
    if (json)
      std::printf("%s{\"name\":\"%s\",\"checkers\":\"%s\",\"seconds\":%.6f,\"threadInstructions\":%llu,\"threadInstrPerSec\":%.0f,"
                  "\"threadInstrPerSecPerCore\":%.0f,\"flopPerSecPerCore\":%.0f,\"reps\":%u}",
                  i ? "," : "", r.name.c_str(), r.checkers.c_str(), r.seconds, static_cast<unsigned long long>(r.threadInstructions), rate,
                  rate / cores, r.flops / r.seconds / cores, r.reps);
    else
      std::printf("  %-48s %-10s %8.3f s  %12llu thread-instr  %8.1f M/s  (%6.1f M/s per core)\n", r.name.c_str(),
                  r.checkers.c_str(), r.seconds, static_cast<unsigned long long>(r.threadInstructions), rate / 1e6, rate / 1e6 / cores);
  }
  if (json) std::printf("]}\n");
  cuModuleUnload(mod);
  cuModuleUnload(modTiled);
  cuDevicePrimaryCtxRelease(0);
  return 0;
}
