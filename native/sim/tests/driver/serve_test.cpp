// Several devices (TESSERA_SIM_DEVICES=2: ctest sets it), peer copies, stream-ordered memory pools
// and stream capture / graphs, as a server uses them.
#include <cstring>
#include <vector>

#include "check.h"

extern "C" CUresult tesseraSimGetDeviceSyncCount(unsigned long long* count);

namespace {
const char* kPtx = R"(
.version 7.0
.target sm_80
.address_size 64
.visible .entry inc(.param .u64 p, .param .u32 n) {
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<5>; .reg .f32 %f<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd4], %f2;
DONE:
  ret;
}
)";

CUfunction load(CUmodule* mod) {
  CUfunction f = nullptr;
  CHECK_OK(cuModuleLoadData(mod, kPtx));
  CHECK_OK(cuModuleGetFunction(&f, *mod, "inc"));
  return f;
}

CUresult launchInc(CUfunction f, CUdeviceptr p, unsigned n, CUstream s) {
  void* args[] = {&p, &n};
  return cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, nullptr);
}

unsigned long long syncs() {
  unsigned long long n = 0;
  CHECK_OK(tesseraSimGetDeviceSyncCount(&n));
  return n;
}
}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  int count = 0;
  CHECK_OK(cuDeviceGetCount(&count));
  CHECK(count == 2);
  CUdevice d0, d1, bad;
  CHECK_OK(cuDeviceGet(&d0, 0));
  CHECK_OK(cuDeviceGet(&d1, 1));
  CHECK(d1 == 1);
  CHECK_CU(cuDeviceGet(&bad, 2), CUDA_ERROR_INVALID_DEVICE);
  CUuuid u0, u1;
  CHECK_OK(cuDeviceGetUuid(&u0, 0));
  CHECK_OK(cuDeviceGetUuid(&u1, 1));
  CHECK(std::memcmp(u0.bytes, u1.bytes, 16) != 0);
  int peer = 1;
  CHECK_OK(cuDeviceCanAccessPeer(&peer, 0, 1));
  CHECK(peer == 0);
  int pools = 0;
  CHECK_OK(cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1));
  CHECK(pools == 1);

  // --- one primary context per device, each with its own memory ---
  CUcontext c0 = nullptr, c1 = nullptr;
  CHECK_OK(cuDevicePrimaryCtxRetain(&c0, 0));
  CHECK_OK(cuDevicePrimaryCtxRetain(&c1, 1));
  CHECK(c0 != c1);
  const unsigned n = 256;
  std::vector<float> host(n), back(n);
  for (unsigned i = 0; i < n; i++) host[i] = float(i);
  CUdeviceptr p0 = 0, p1 = 0;
  CHECK_OK(cuCtxSetCurrent(c0));
  CHECK_OK(cuMemAlloc(&p0, n * 4));
  CHECK_OK(cuMemcpyHtoD(p0, host.data(), n * 4));
  CUmodule m0;
  CUfunction f0 = load(&m0);
  CHECK_OK(cuCtxSetCurrent(c1));
  CHECK_OK(cuMemAlloc(&p1, n * 4));
  CHECK(p0 != p1);
  int ordinal = -1;
  CHECK_OK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p1));
  CHECK(ordinal == 1);
  CHECK_OK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p0));
  CHECK(ordinal == 0);
  // Device 0's address is not device 1's memory: a plain copy refuses it.
  CHECK_CU(cuMemcpyDtoH(back.data(), p0, n * 4), CUDA_ERROR_INVALID_VALUE);
  // A peer copy moves it.
  CHECK_OK(cuMemcpyPeer(p1, c1, p0, c0, n * 4));
  CHECK_OK(cuMemcpyDtoH(back.data(), p1, n * 4));
  CHECK(back == host);

  // A kernel on device 1 given device 0's address faults (no peer access), sticky on device 1 only.
  CUmodule m1;
  CUfunction f1 = load(&m1);
  CHECK_OK(launchInc(f1, p0, n, nullptr));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_OK(cuDevicePrimaryCtxReset(1));
  CHECK_OK(cuCtxSetCurrent(c1));
  CHECK_OK(cuCtxSynchronize());
  CHECK_OK(cuCtxSetCurrent(c0));
  CHECK_OK(launchInc(f0, p0, n, nullptr));
  CHECK_OK(cuMemcpyDtoH(back.data(), p0, n * 4));
  CHECK(back[5] == 6.0f);

  // --- a stream-ordered pool: a request loop of alloc / launch / free never waits for the device ---
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 0;
  CUmemoryPool pool = nullptr;
  CHECK_OK(cuMemPoolCreate(&pool, &props));
  cuuint64_t threshold = ~cuuint64_t(0);
  CHECK_OK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
  CUstream s = nullptr;
  CHECK_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  const unsigned long long before = syncs();
  for (int i = 0; i < 50; i++) {
    CUdeviceptr q = 0;
    CHECK_OK(cuMemAllocFromPoolAsync(&q, n * 4, pool, s));
    CHECK_OK(cuMemcpyHtoDAsync(q, host.data(), n * 4, s));
    CHECK_OK(launchInc(f0, q, n, s));
    CHECK_OK(cuMemFreeAsync(q, s));
  }
  CHECK(syncs() == before);
  CHECK_OK(cuStreamSynchronize(s));  // a stream wait, not a device-wide one
  CHECK(syncs() == before);
  cuuint64_t reserved = 0, used = 0, usedHigh = 0;
  CHECK_OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved));
  CHECK_OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  CHECK_OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &usedHigh));
  CHECK(used == 0);
  CHECK(usedHigh >= n * 4);
  CHECK(reserved >= n * 4 && reserved <= 3 * n * 4);  // blocks were reused, not 50 of them
  CHECK_OK(cuMemPoolTrimTo(pool, 0));
  CHECK_OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved));
  CHECK(reserved == 0);
  CUdeviceptr huge = 0;
  CHECK_CU(cuMemAllocFromPoolAsync(&huge, size_t(1) << 40, pool, s), CUDA_ERROR_OUT_OF_MEMORY);
  CHECK_CU(cuMemFreeAsync(0x1234, s), CUDA_ERROR_INVALID_VALUE);
  props.location.id = 1;
  CUmemoryPool pool1 = nullptr;
  CHECK_OK(cuMemPoolCreate(&pool1, &props));
  CHECK_CU(cuMemAllocFromPoolAsync(&huge, 256, pool1, s), CUDA_ERROR_INVALID_VALUE);  // device 1's pool, device 0's context
  CHECK_OK(cuMemPoolDestroy(pool1));
  CHECK_CU(cuMemPoolTrimTo(pool1, 0), CUDA_ERROR_INVALID_VALUE);

  // --- stream capture and graphs ---
  CUdeviceptr g = 0;
  CHECK_OK(cuMemAlloc(&g, n * 4));
  CHECK_OK(cuMemsetD8(g, 0, n * 4));
  CHECK_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUstreamCaptureStatus st;
  CHECK_OK(cuStreamIsCapturing(s, &st));
  CHECK(st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
  for (int i = 0; i < 3; i++) CHECK_OK(launchInc(f0, g, n, s));
  CHECK_OK(cuStreamSynchronize(s) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
  CHECK_OK(cuStreamIsCapturing(s, &st));
  CHECK(st == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  CUgraph graph = nullptr;
  CHECK_CU(cuStreamEndCapture(s, &graph), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CHECK(graph == nullptr);
  CHECK_OK(cuStreamSynchronize(s));  // usable again; nothing captured ran
  CHECK_OK(cuMemcpyDtoH(back.data(), g, n * 4));
  CHECK(back[7] == 0.0f);

  CHECK_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CHECK_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
  for (int i = 0; i < 3; i++) CHECK_OK(launchInc(f0, g, n, s));
  CHECK_CU(cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);  // invalidates it too
  CHECK_CU(cuStreamEndCapture(s, &graph), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  // Legacy-stream work would depend on the capturing blocking stream: refused, capture invalidated.
  CUstream blocking = nullptr;
  CHECK_OK(cuStreamCreate(&blocking, 0));
  CHECK_OK(cuStreamBeginCapture(blocking, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CHECK_CU(cuMemsetD8(g, 0, 4), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  CHECK_CU(cuStreamEndCapture(blocking, &graph), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CHECK_OK(cuMemsetD8(g, 0, 4));  // fine again
  // A non-blocking stream does not synchronize with the legacy stream: no implicit dependency.
  CHECK_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CHECK_OK(cuMemsetD8(g, 0, 4));
  CHECK_OK(cuStreamEndCapture(s, &graph));
  CHECK_OK(cuGraphDestroy(graph));
  CHECK_OK(cuStreamDestroy(blocking));

  CHECK_CU(cuStreamBeginCapture(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  for (int i = 0; i < 3; i++) CHECK_OK(launchInc(f0, g, n, s));
  CHECK_OK(cuStreamEndCapture(s, &graph));
  CHECK(graph != nullptr);
  size_t nodes = 0;
  CHECK_OK(cuGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == 3);
  CHECK_OK(cuStreamSynchronize(s));
  CHECK_OK(cuMemcpyDtoH(back.data(), g, n * 4));
  CHECK(back[7] == 0.0f);  // capture recorded, ran nothing
  CUgraphExec exec = nullptr;
  CHECK_OK(cuGraphInstantiate(&exec, graph, 0));
  CHECK_OK(cuGraphDestroy(graph));  // the exec keeps its own copy
  CHECK_OK(cuGraphLaunch(exec, s));
  CHECK_OK(cuGraphLaunch(exec, s));
  CHECK_OK(cuStreamSynchronize(s));
  CHECK_OK(cuMemcpyDtoH(back.data(), g, n * 4));
  CHECK(back[7] == 6.0f && back[n - 1] == 6.0f);
  CHECK_OK(cuGraphExecDestroy(exec));
  CHECK_CU(cuGraphLaunch(exec, s), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU(cuGraphExecDestroy(exec), CUDA_ERROR_INVALID_VALUE);

  // A replay after the memory it uses was freed faults instead of touching freed host memory.
  CHECK_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CHECK_OK(cuMemsetD8Async(g, 1, n * 4, s));
  CHECK_OK(cuStreamEndCapture(s, &graph));
  CHECK_OK(cuGraphInstantiate(&exec, graph, 0));
  CHECK_OK(cuMemFree(g));
  CHECK_OK(cuGraphLaunch(exec, s));
  CHECK_CU(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_OK(cuDevicePrimaryCtxReset(0));

  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  CHECK_OK(cuDevicePrimaryCtxRelease(1));
  return tcheck::finish("serve_test");
}
