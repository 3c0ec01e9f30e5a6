// State behind the cu* entry points. The handle types of cuda.h (CUctx_st, CUstream_st, ...) are
// defined here; every handle a caller passes in is checked against the live-handle sets before
// it is used, so a stale or made-up handle gives CUDA_ERROR_INVALID_HANDLE/CONTEXT, not a crash.
#pragma once
#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "memcheck_memory.h"
#include "sim.h"
#include "stream_queue.h"

struct CUctx_st {
  CUdevice device = 0;
  bool primary = false;
  int primaryRefs = 0;  // primary context only: active while > 0
  unsigned flags = 0;
  std::atomic<int> sticky{CUDA_SUCCESS};  // set by a faulting launch, cleared by primary reset
  std::unique_ptr<tsimdrv::DeviceMemory> memory;
  std::unique_ptr<tsimdrv::StreamQueue> legacy;     // the NULL / CU_STREAM_LEGACY stream
  std::unique_ptr<tsimdrv::StreamQueue> perThread;  // CU_STREAM_PER_THREAD (one per context here)
  std::vector<CUstream> streams;                    // user streams, for ordering and teardown
  std::vector<CUevent> events;
  std::vector<CUmodule> modules;
  size_t limits[8] = {};  // cuCtxSetLimit values, by CUlimit
  uint64_t memoryEpoch = 0;  // renewed with `memory` (createContextResources): pools key their blocks by it
  // Primary context only: held by retain, release and reset around their resource changes, so a
  // retain racing the last release's teardown waits for it and then creates fresh resources
  // (never takes the old ones as they are destroyed). Not held by stream work.
  std::mutex lifeMu;
};

struct CUstream_st {
  CUcontext ctx = nullptr;
  unsigned flags = 0;
  int priority = 0;
  std::unique_ptr<tsimdrv::StreamQueue> queue;
  CUgraph capture = nullptr;    // the graph being captured (cuStreamBeginCapture), else null
  bool captureInvalid = false;  // an unsupported call during capture invalidated it
};

// A captured graph (driver_graph.cpp): the stream's work items in order, rerunnable.
struct CUgraph_st {
  CUcontext ctx = nullptr;
  std::vector<std::function<void()>> nodes;
};
struct CUgraphExec_st {
  CUcontext ctx = nullptr;
  std::shared_ptr<const std::vector<std::function<void()>>> nodes;
};

// One cuEventRecord: the point in a stream it waits for, and the host time when it was reached.
struct EventRecord {
  tsimdrv::WaitPoint point;
  double ms = 0;  // written by the stream worker before `point` completes
};

struct CUevent_st {
  CUcontext ctx = nullptr;
  unsigned flags = 0;
  std::shared_ptr<EventRecord> record;  // null until recorded
};

struct CUfunc_st {
  CUmodule module = nullptr;
  const tsim::KernelInfo* info = nullptr;
  int maxDynamicShared = 0;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  bool nonPortableCluster = false;  // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (up to 16 CTAs)
  int carveout = -1;
};

struct CUmod_st {
  CUcontext ctx = nullptr;
  std::shared_ptr<tsim::Module> module;  // shared with in-flight launches
  std::vector<std::unique_ptr<CUfunc_st>> functions;
  std::vector<uint64_t> varAddrs;  // module variables, released on unload
};

namespace tsimdrv {

struct DeviceProps {
  int major = 8, minor = 0;
  int smCount = 108;
  size_t totalMem = size_t(16) << 30;
  int sharedOptin = 163 * 1024;     // max dynamic+static per block with the opt-in attribute
  int sharedPerSm = 164 * 1024;
  int l2Bytes = 40 * 1024 * 1024;
  int tmemColumns = 0;              // tensor memory per SM (sm_100: 128 lanes x 512 columns of 32 bits)
  std::string name;
};

constexpr int kStaticSharedLimit = 48 * 1024;
constexpr int kMaxThreadsPerBlock = 1024;

// The one driver-state singleton. The CUDA driver ABI passes no handle for "the driver", so
// cuInit, the handle sets and the extension functions (last fault, counters, budget) need a
// process-wide home; everything else hangs off contexts. The per-thread context stack lives in
// a thread_local because the API defines the current context per host thread.
class Driver {
 public:
  static Driver& get();

  std::mutex mu;  // guards the handle sets and the vectors inside contexts
  std::atomic<bool> initialized{false};
  DeviceProps props;
  CUctx_st* primaryCtx = nullptr;  // device 0's (= primaryCtxs[0]); never freed
  int deviceCount = 1;                 // TESSERA_SIM_DEVICES
  std::vector<CUctx_st*> primaryCtxs;  // one per device, never freed: handles stay valid across release/reset
  std::unordered_set<CUgraph> graphs;  // driver_graph.cpp
  std::unordered_set<CUgraphExec> graphExecs;
  std::unordered_set<CUmemoryPool> pools;    // driver_pool.cpp
  std::vector<CUmemoryPool> defaultPools;    // per device, created on first use
  std::atomic<uint64_t> deviceSyncs{0};      // device-wide waits (synchronizeContext): tesseraSimGetDeviceSyncCount
  std::unordered_set<CUcontext> contexts;
  std::unordered_set<CUstream> streams;
  std::unordered_set<CUevent> events;
  std::unordered_set<CUmodule> modules;
  std::unordered_set<CUfunction> functions;
  std::unordered_map<void*, size_t> hostAllocs;  // cuMemAllocHost / cuMemHostAlloc blocks

  std::atomic<uint64_t> budget{0};
  std::atomic<uint64_t> memoryGenerations{1};  // see DeviceMemory
  bool verbose = false;
  unsigned cpuThreads = 0;
  unsigned clusterSkew = 0;  // TESSERA_SIM_CLUSTER_SKEW (LaunchConfig::clusterSkew)
  bool memcheck = true;
  unsigned sanitizeEnv = 0;             // TESSERA_SIM_{RACE,SYNC,INIT}CHECK (bits as LaunchConfig::sanitize)
  std::atomic<unsigned> sanitize{0};    // tesseraSimSetSanitize: added to the environment's
  std::atomic<bool> trackInit{false};   // initcheck was ever on: new allocations get a shadow

  // vprintf capture (tesseraSimSetPrintCapture): the tag copied into each launch queued from now
  // on (0: stdout), and the records of completed launches per tag until tesseraSimTakePrints.
  std::atomic<uint64_t> printTag{0};
  std::mutex printsMu;
  std::unordered_map<uint64_t, tsim::PrintCapture> prints;

  std::mutex reportMu;  // guards the two fields below
  std::string lastFault;
  tsim::Counters lastCounters;
  bool haveCounters = false;

  void initOnce();  // reads the environment; called by cuInit
};

// The primary context of a device ordinal (checked by the caller), and where its addresses start:
// each device has its own range, so an address of one device is unknown memory on another.
CUctx_st* primaryOf(CUdevice dev);
uint64_t memoryBase(CUdevice dev);
// Drops the graphs of a context being torn down (driver_graph.cpp).
void dropGraphsOf(CUctx_st* ctx);  // caller does NOT hold Driver::mu
// Fails a call that would wait while a stream of ctx is capturing: invalidates those captures and
// returns CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (success when nothing captures). `s`: only that stream.
CUresult refuseDuringCapture(CUctx_st* ctx, CUstream s, bool anyStream);
// Work on the legacy NULL stream would depend on every blocking stream, so it cannot run while a
// blocking stream captures: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, and those captures are invalidated.
CUresult refuseImplicitDependency(CUctx_st* ctx);

// Current-context stack of the calling thread.
std::vector<CUcontext>& ctxStack();

// True when ctx is a live context (primary: retained).
bool contextAlive(CUcontext ctx);  // caller holds Driver::mu

// Checks cuInit, the current context and its sticky error; on success *out is the context.
CUresult currentContext(CUctx_st** out);

// Queues work on a stream of ctx with the legacy-stream ordering rules. `h` is NULL,
// CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a user stream already validated for ctx.
WaitPoint enqueueWork(CUctx_st* ctx, CUstream h, std::function<void()> work);
// Validates a stream handle for the current context: CUDA_ERROR_INVALID_HANDLE when foreign/dead;
// for the legacy NULL stream, refuseImplicitDependency.
CUresult checkStream(CUctx_st* ctx, CUstream h);
// Waits for everything queued in the context; returns its sticky error (or success).
CUresult synchronizeContext(CUctx_st* ctx);
// Frees every resource of a context (streams drained first); memory gets a fresh heap.
void teardownContext(CUctx_st* ctx);  // caller does NOT hold Driver::mu
void createContextResources(CUctx_st* ctx);

CUresult faultResult(const tsim::Fault& f);
std::string formatFault(const tsim::Fault& f);
double hostMillis();

}  // namespace tsimdrv

// Marks the C entry points this library exports.
#define TSIM_API extern "C" __attribute__((visibility("default")))
