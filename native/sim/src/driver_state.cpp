#include "driver_state.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tsimdrv {

Driver& Driver::get() {
  // Leaked on purpose: stream worker threads may still be draining during static destruction.
  static Driver* d = new Driver();
  return *d;
}

namespace {
uint64_t envU64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v, &end, 0);
  return (end && *end == 0) ? x : fallback;
}
}  // namespace

void Driver::initOnce() {
  std::lock_guard lock(mu);
  if (initialized.load()) return;
  const char* arch = std::getenv("TESSERA_SIM_ARCH");
  if (arch && std::strcmp(arch, "sm_90") == 0) {
    props.major = 9; props.minor = 0; props.smCount = 132;
    props.sharedOptin = 227 * 1024; props.sharedPerSm = 228 * 1024; props.l2Bytes = 50 * 1024 * 1024;
  } else if (arch && std::strcmp(arch, "sm_100") == 0) {  // Blackwell (B200): tcgen05, tensor memory
    props.major = 10; props.minor = 0; props.smCount = 148;
    props.sharedOptin = 227 * 1024; props.sharedPerSm = 228 * 1024; props.l2Bytes = 126 * 1024 * 1024;
    props.tmemColumns = 512;
  } else if (arch && std::strcmp(arch, "sm_89") == 0) {  // Ada (L40S): fp8 conversions, no clusters
    props.major = 8; props.minor = 9; props.smCount = 142;
    props.sharedOptin = 99 * 1024; props.sharedPerSm = 100 * 1024; props.l2Bytes = 48 * 1024 * 1024;
  }
  props.totalMem = size_t(envU64("TESSERA_SIM_MEMORY_MB", 16384)) << 20;
  props.name = "Tessera PTX Simulator (sm_" + std::to_string(props.major * 10 + props.minor) + ")";
  // Default budget: a hang guard, not a limit normal kernels meet (~minutes of simulation).
  budget = envU64("TESSERA_SIM_BUDGET", uint64_t(1) << 36);
  cpuThreads = static_cast<unsigned>(envU64("TESSERA_SIM_THREADS", 0));
  clusterSkew = static_cast<unsigned>(std::min<uint64_t>(envU64("TESSERA_SIM_CLUSTER_SKEW", 0), 1u << 20));
  const char* verboseEnv = std::getenv("TESSERA_SIM_VERBOSE");
  verbose = verboseEnv && *verboseEnv && std::strcmp(verboseEnv, "0") != 0;
  const char* mc = std::getenv("TESSERA_SIM_MEMCHECK");
  memcheck = !(mc && std::strcmp(mc, "0") == 0);
  deviceCount = static_cast<int>(envU64("TESSERA_SIM_DEVICES", 1));
  if (deviceCount < 1 || deviceCount > 16) deviceCount = 1;  // as many as the address layout allows
  for (int i = 0; i < deviceCount; i++) {
    auto* c = new CUctx_st();
    c->primary = true;
    c->device = i;
    primaryCtxs.push_back(c);
  }
  defaultPools.assign(deviceCount, nullptr);
  primaryCtx = primaryCtxs[0];
  auto on = [](const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
  };
  sanitizeEnv = (on("TESSERA_SIM_RACECHECK") ? 1u : 0u) | (on("TESSERA_SIM_SYNCCHECK") ? 2u : 0u) |
                (on("TESSERA_SIM_INITCHECK") ? 4u : 0u);
  if (sanitizeEnv & 4u) trackInit = true;
  initialized = true;
}

CUctx_st* primaryOf(CUdevice dev) { return Driver::get().primaryCtxs[static_cast<size_t>(dev)]; }

uint64_t memoryBase(CUdevice dev) { return (uint64_t(1) << 47) + uint64_t(dev) * (uint64_t(1) << 42); }

std::vector<CUcontext>& ctxStack() {
  thread_local std::vector<CUcontext> stack;
  return stack;
}

bool contextAlive(CUcontext ctx) {
  Driver& d = Driver::get();
  if (!ctx) return false;
  if (ctx->primary) return ctx->primaryRefs > 0;
  return d.contexts.count(ctx) != 0;
}

CUresult currentContext(CUctx_st** out) {
  Driver& d = Driver::get();
  if (!d.initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  auto& stack = ctxStack();
  CUcontext ctx = stack.empty() ? nullptr : stack.back();
  if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
  {
    std::lock_guard lock(d.mu);
    if (!contextAlive(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  }
  int sticky = ctx->sticky.load();
  if (sticky != CUDA_SUCCESS) return static_cast<CUresult>(sticky);
  *out = ctx;
  return CUDA_SUCCESS;
}

CUresult checkStream(CUctx_st* ctx, CUstream h) {
  if (h == nullptr || h == CU_STREAM_LEGACY) return refuseImplicitDependency(ctx);
  if (h == CU_STREAM_PER_THREAD) return CUDA_SUCCESS;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!d.streams.count(h) || h->ctx != ctx) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

WaitPoint enqueueWork(CUctx_st* ctx, CUstream h, std::function<void()> work) {
  Driver& d = Driver::get();
  // Work queued after a fault is dropped, as the real driver drops it in a broken context.
  auto guarded = [ctx, work = std::move(work)] {
    if (ctx->sticky.load() == CUDA_SUCCESS) work();
  };
  std::lock_guard lock(d.mu);
  if (h != nullptr && h != CU_STREAM_LEGACY && h != CU_STREAM_PER_THREAD && h->capture) {
    // Stream capture: the work is recorded into the graph, not run (driver_graph.cpp replays it).
    h->capture->nodes.push_back(std::move(guarded));
    return h->queue->tail();
  }
  std::vector<WaitPoint> waits;
  StreamQueue* q;
  if (h == nullptr || h == CU_STREAM_LEGACY) {
    // The legacy stream waits for all blocking streams, and they wait for it (below).
    for (CUstream s : ctx->streams)
      if (!(s->flags & CU_STREAM_NON_BLOCKING)) waits.push_back(s->queue->tail());
    waits.push_back(ctx->perThread->tail());
    q = ctx->legacy.get();
  } else {
    q = h == CU_STREAM_PER_THREAD ? ctx->perThread.get() : h->queue.get();
    if (h == CU_STREAM_PER_THREAD || !(h->flags & CU_STREAM_NON_BLOCKING)) waits.push_back(ctx->legacy->tail());
  }
  uint64_t ticket = q->enqueue(std::move(guarded), std::move(waits));
  WaitPoint wp = q->tail();
  wp.ticket = ticket;
  return wp;
}

CUresult synchronizeContext(CUctx_st* ctx) {
  Driver& d = Driver::get();
  d.deviceSyncs++;
  std::vector<WaitPoint> points;
  {
    std::lock_guard lock(d.mu);
    if (ctx->legacy) points.push_back(ctx->legacy->tail());
    if (ctx->perThread) points.push_back(ctx->perThread->tail());
    for (CUstream s : ctx->streams) points.push_back(s->queue->tail());
  }
  for (auto& p : points) p.progress->waitFor(p.ticket);
  return static_cast<CUresult>(ctx->sticky.load());
}

void createContextResources(CUctx_st* ctx) {
  Driver& d = Driver::get();
  ctx->memory = std::make_unique<DeviceMemory>(d.props.totalMem, d.memoryGenerations, memoryBase(ctx->device));
  ctx->memoryEpoch = d.memoryGenerations.fetch_add(1) + 1;
  ctx->memory->trackInit = &d.trackInit;
  ctx->legacy = std::make_unique<StreamQueue>();
  ctx->perThread = std::make_unique<StreamQueue>();
  ctx->sticky = CUDA_SUCCESS;
}

void teardownContext(CUctx_st* ctx) {
  Driver& d = Driver::get();
  synchronizeContext(ctx);
  dropGraphsOf(ctx);
  std::vector<CUstream> streams;
  std::vector<CUevent> events;
  std::vector<CUmodule> modules;
  {
    std::lock_guard lock(d.mu);
    streams.swap(ctx->streams);
    events.swap(ctx->events);
    modules.swap(ctx->modules);
    for (CUstream s : streams) d.streams.erase(s);
    for (CUevent e : events) d.events.erase(e);
    for (CUmodule m : modules) {
      d.modules.erase(m);
      for (auto& f : m->functions) d.functions.erase(f.get());
    }
  }
  for (CUstream s : streams) delete s;
  for (CUevent e : events) delete e;
  for (CUmodule m : modules) delete m;
  ctx->legacy.reset();
  ctx->perThread.reset();
  ctx->memory.reset();
}

CUresult faultResult(const tsim::Fault& f) {
  switch (f.kind) {
    case tsim::Fault::None: return CUDA_SUCCESS;
    case tsim::Fault::OutOfBounds:
    case tsim::Fault::UseAfterFree:
    case tsim::Fault::SharedOutOfBounds: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case tsim::Fault::Misaligned: return CUDA_ERROR_MISALIGNED_ADDRESS;
    case tsim::Fault::Trap:
      return f.detail.find("assert") != std::string::npos ? CUDA_ERROR_ASSERT : CUDA_ERROR_LAUNCH_FAILED;
    case tsim::Fault::Timeout: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case tsim::Fault::IllegalInstruction: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case tsim::Fault::Hazard: return CUDA_ERROR_LAUNCH_FAILED;
  }
  return CUDA_ERROR_LAUNCH_FAILED;
}

std::string formatFault(const tsim::Fault& f) {
  static const char* kinds[] = {"none", "out-of-bounds global access", "use of freed memory",
                                "misaligned address", "shared/local memory out of bounds", "trap",
                                "instruction budget exhausted (hung kernel?)", "illegal instruction"};
  if (f.kind == tsim::Fault::Hazard) return f.detail;  // the sanitizers' report (sanitize_race.cpp)
  char head[512];
  std::snprintf(head, sizeof head,
                "tessera-sim: %s in kernel '%s' at PTX line %d, CTA (%u,%u,%u) thread (%u,%u,%u)",
                kinds[f.kind], f.kernel.c_str(), f.ptxLine, f.ctaid[0], f.ctaid[1], f.ctaid[2], f.tid[0],
                f.tid[1], f.tid[2]);
  std::string s = head;
  if (f.kind == tsim::Fault::OutOfBounds || f.kind == tsim::Fault::UseAfterFree ||
      f.kind == tsim::Fault::Misaligned || f.kind == tsim::Fault::SharedOutOfBounds) {
    char mem[128];
    std::snprintf(mem, sizeof mem, ": %u-byte %s at 0x%llx", f.size, f.write ? "write" : "read",
                  static_cast<unsigned long long>(f.addr));
    s += mem;
  }
  if (!f.detail.empty()) s += "; " + f.detail;
  return s;
}

double hostMillis() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace tsimdrv
