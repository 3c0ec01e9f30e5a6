// The per-thread-default-stream entry points (_ptds for synchronous calls, _ptsz for stream
// calls) that programs built with CUDA_API_PER_THREAD_DEFAULT_STREAM link against: the same
// calls, with the NULL stream meaning CU_STREAM_PER_THREAD instead of the legacy stream.
#include "driver_state.h"

namespace {
CUstream perThread(CUstream s) { return s ? s : CU_STREAM_PER_THREAD; }

// Runs a synchronous call's work on the per-thread stream: issue asynchronously, then wait.
CUresult waitPerThread(CUresult issued) {
  if (issued != CUDA_SUCCESS) return issued;
  return cuStreamSynchronize(CU_STREAM_PER_THREAD);
}
}  // namespace

TSIM_API CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void* src, size_t n) {
  return waitPerThread(cuMemcpyHtoDAsync_v2(dst, src, n, CU_STREAM_PER_THREAD));
}
TSIM_API CUresult cuMemcpyDtoH_v2_ptds(void* dst, CUdeviceptr src, size_t n) {
  return cuMemcpyDtoHAsync_v2(dst, src, n, CU_STREAM_PER_THREAD);  // returns once copied
}
TSIM_API CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return waitPerThread(cuMemcpyDtoDAsync_v2(dst, src, n, CU_STREAM_PER_THREAD));
}
TSIM_API CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return waitPerThread(cuMemcpyAsync(dst, src, n, CU_STREAM_PER_THREAD));
}
TSIM_API CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) {
  return waitPerThread(cuMemsetD8Async(d, v, n, CU_STREAM_PER_THREAD));
}
TSIM_API CUresult cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n) {
  return waitPerThread(cuMemsetD16Async(d, v, n, CU_STREAM_PER_THREAD));
}
TSIM_API CUresult cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n) {
  return waitPerThread(cuMemsetD32Async(d, v, n, CU_STREAM_PER_THREAD));
}

TSIM_API CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return cuMemcpyHtoDAsync_v2(dst, src, n, perThread(s));
}
TSIM_API CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return cuMemcpyDtoHAsync_v2(dst, src, n, perThread(s));
}
TSIM_API CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return cuMemcpyDtoDAsync_v2(dst, src, n, perThread(s));
}
TSIM_API CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return cuMemcpyAsync(dst, src, n, perThread(s));
}
TSIM_API CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  return cuMemsetD8Async(d, v, n, perThread(s));
}
TSIM_API CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
  return cuMemsetD16Async(d, v, n, perThread(s));
}
TSIM_API CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream s) {
  return cuMemsetD32Async(d, v, n, perThread(s));
}
TSIM_API CUresult cuStreamSynchronize_ptsz(CUstream s) { return cuStreamSynchronize(perThread(s)); }
TSIM_API CUresult cuStreamQuery_ptsz(CUstream s) { return cuStreamQuery(perThread(s)); }
TSIM_API CUresult cuStreamGetFlags_ptsz(CUstream s, unsigned int* f) { return cuStreamGetFlags(perThread(s), f); }
TSIM_API CUresult cuStreamGetPriority_ptsz(CUstream s, int* p) { return cuStreamGetPriority(perThread(s), p); }
TSIM_API CUresult cuStreamGetCtx_ptsz(CUstream s, CUcontext* c) { return cuStreamGetCtx(perThread(s), c); }
TSIM_API CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int f) {
  return cuStreamWaitEvent(perThread(s), e, f);
}
TSIM_API CUresult cuStreamAddCallback_ptsz(CUstream s, CUstreamCallback cb, void* u, unsigned int f) {
  return cuStreamAddCallback(perThread(s), cb, u, f);
}
TSIM_API CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { return cuEventRecord(e, perThread(s)); }
TSIM_API CUresult cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int f) {
  return cuEventRecordWithFlags(e, perThread(s), f);
}
TSIM_API CUresult cuLaunchHostFunc_ptsz(CUstream s, CUhostFn fn, void* u) { return cuLaunchHostFunc(perThread(s), fn, u); }
TSIM_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                      unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void** params,
                                      void** extra) {
  return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, perThread(s), params, extra);
}
TSIM_API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                                 unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                                 CUstream s, void** params) {
  return cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, perThread(s), params);
}
TSIM_API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  if (!config) return cuLaunchKernelEx(config, f, params, extra);
  CUlaunchConfig c = *config;
  c.hStream = perThread(c.hStream);
  return cuLaunchKernelEx(&c, f, params, extra);
}
