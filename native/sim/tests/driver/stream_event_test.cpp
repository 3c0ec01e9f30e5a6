// Streams run their work in order on their own threads; events and the legacy stream order work
// across streams. Host functions that block on a latch make "not yet done" observable without
// any timing assumption.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "check.h"

namespace {
struct Latch {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void release() {
    { std::lock_guard l(mu); open = true; }
    cv.notify_all();
  }
  void wait() {
    std::unique_lock l(mu);
    cv.wait(l, [&] { return open; });
  }
};
void waitLatch(void* p) { static_cast<Latch*>(p)->wait(); }

struct Log {
  std::mutex mu;
  std::vector<int> order;
};
struct Step {
  Log* log;
  int id;
};
void record(void* p) {
  auto* s = static_cast<Step*>(p);
  std::lock_guard l(s->log->mu);
  s->log->order.push_back(s->id);
}
}  // namespace

int main() {
  CHECK_OK(cuInit(0));
  CUcontext ctx;
  CHECK_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CHECK_OK(cuCtxSetCurrent(ctx));

  CUstream a, b;
  CHECK_OK(cuStreamCreate(&a, CU_STREAM_DEFAULT));
  CHECK_OK(cuStreamCreateWithPriority(&b, CU_STREAM_NON_BLOCKING, -1));
  unsigned flags = 9;
  int prio = 9;
  CHECK_OK(cuStreamGetFlags(b, &flags));
  CHECK(flags == CU_STREAM_NON_BLOCKING);
  CHECK_OK(cuStreamGetPriority(b, &prio));
  CHECK(prio == -1);
  CHECK_CU(cuStreamCreate(&a, 0x40), CUDA_ERROR_INVALID_VALUE);

  // In-order execution within a stream; query reports NOT_READY while work is pending.
  Latch gate;
  Log log;
  Step s1{&log, 1}, s2{&log, 2}, s3{&log, 3};
  CHECK_OK(cuLaunchHostFunc(a, waitLatch, &gate));
  CHECK_OK(cuLaunchHostFunc(a, record, &s1));
  CHECK_OK(cuLaunchHostFunc(a, record, &s2));
  CHECK_CU(cuStreamQuery(a), CUDA_ERROR_NOT_READY);
  CUevent done;
  CHECK_OK(cuEventCreate(&done, CU_EVENT_DEFAULT));
  CHECK_OK(cuEventQuery(done));  // never recorded: complete
  CHECK_OK(cuEventRecord(done, a));
  CHECK_CU(cuEventQuery(done), CUDA_ERROR_NOT_READY);
  // Stream b waits for the event: its host function must run after s1 and s2.
  CHECK_OK(cuStreamWaitEvent(b, done, 0));
  CHECK_OK(cuLaunchHostFunc(b, record, &s3));
  CHECK_CU(cuStreamQuery(b), CUDA_ERROR_NOT_READY);
  gate.release();
  CHECK_OK(cuStreamSynchronize(b));
  CHECK_OK(cuEventQuery(done));
  CHECK_OK(cuStreamQuery(a));
  CHECK((log.order == std::vector<int>{1, 2, 3}));

  // The older callback form runs in order too, with the stream and its status.
  log.order.clear();
  Step c1{&log, 4}, c2{&log, 5};
  auto callback = [](CUstream, CUresult status, void* p) {
    if (status == CUDA_SUCCESS) record(p);
  };
  CHECK_OK(cuStreamAddCallback(a, callback, &c1, 0));
  CHECK_OK(cuLaunchHostFunc(a, record, &c2));
  CHECK_CU(cuStreamAddCallback(a, callback, &c1, 1), CUDA_ERROR_INVALID_VALUE);
  CHECK_OK(cuStreamSynchronize(a));
  CHECK((log.order == std::vector<int>{4, 5}));

  // Legacy default stream: work on it waits for blocking stream `a`, and later work on `a`
  // waits for it.
  log.order.clear();
  Latch gate2;
  Step l1{&log, 10}, l2{&log, 20}, l3{&log, 30};
  CHECK_OK(cuLaunchHostFunc(a, waitLatch, &gate2));
  CHECK_OK(cuLaunchHostFunc(a, record, &l1));
  CHECK_OK(cuLaunchHostFunc(nullptr, record, &l2));
  CHECK_OK(cuLaunchHostFunc(a, record, &l3));
  gate2.release();
  CHECK_OK(cuCtxSynchronize());
  CHECK((log.order == std::vector<int>{10, 20, 30}));

  // Elapsed time between two completed events; error cases as on the real driver.
  CUevent start, stop, noTiming, unrecorded;
  CHECK_OK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_OK(cuEventCreate(&stop, CU_EVENT_BLOCKING_SYNC));
  CHECK_OK(cuEventCreate(&noTiming, CU_EVENT_DISABLE_TIMING));
  CHECK_OK(cuEventCreate(&unrecorded, CU_EVENT_DEFAULT));
  CHECK_CU(cuEventCreate(&unrecorded, 0x100), CUDA_ERROR_INVALID_VALUE);
  Latch gate3;
  CHECK_OK(cuEventRecord(start, a));
  CHECK_OK(cuLaunchHostFunc(a, waitLatch, &gate3));
  CHECK_OK(cuEventRecord(stop, a));
  float ms = -1;
  CHECK_CU(cuEventElapsedTime(&ms, start, stop), CUDA_ERROR_NOT_READY);
  gate3.release();
  CHECK_OK(cuEventSynchronize(stop));
  CHECK_OK(cuEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0.0f);
  CHECK_OK(cuEventRecord(noTiming, a));
  CHECK_OK(cuEventSynchronize(noTiming));
  CHECK_CU(cuEventElapsedTime(&ms, start, noTiming), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuEventElapsedTime(&ms, start, unrecorded), CUDA_ERROR_INVALID_HANDLE);

  // Destroyed and made-up handles.
  CHECK_OK(cuEventDestroy(unrecorded));
  CHECK_CU(cuEventQuery(unrecorded), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuEventDestroy(unrecorded), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuEventRecord(unrecorded, a), CUDA_ERROR_INVALID_HANDLE);
  CHECK_OK(cuStreamDestroy(b));
  CHECK_CU(cuStreamQuery(b), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuStreamSynchronize(b), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuLaunchHostFunc(b, record, &s1), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuStreamDestroy(b), CUDA_ERROR_INVALID_HANDLE);
  CHECK_CU(cuStreamWaitEvent(a, reinterpret_cast<CUevent>(0x1000), 0), CUDA_ERROR_INVALID_HANDLE);
  CHECK_OK(cuStreamQuery(CU_STREAM_LEGACY));
  CHECK_OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));

  // Many host functions on several streams, all run exactly once.
  std::atomic<int> counter{0};
  auto bump = [](void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(1); };
  CUstream many[4];
  for (auto& s : many) CHECK_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  for (int i = 0; i < 400; i++) CHECK_OK(cuLaunchHostFunc(many[i % 4], bump, &counter));
  CHECK_OK(cuCtxSynchronize());
  CHECK(counter.load() == 400);
  for (auto& s : many) CHECK_OK(cuStreamDestroy(s));

  CHECK_OK(cuEventDestroy(start));
  CHECK_OK(cuEventDestroy(stop));
  CHECK_OK(cuEventDestroy(noTiming));
  CHECK_OK(cuEventDestroy(done));
  CHECK_OK(cuStreamDestroy(a));
  CHECK_OK(cuDevicePrimaryCtxRelease(0));
  return tcheck::finish("stream_event_test");
}
