// Stream capture and CUDA graphs. While a stream captures, the work queued on it (launches,
// copies, memsets, event records, waits) is recorded into a CUgraph in order instead of running
// (enqueueWork does that); cuGraphInstantiate freezes the list, cuGraphLaunch queues it on a stream
// as one item that runs every node in order. Nodes resolve device addresses when they run, so a
// replay after a free faults (ILLEGAL_ADDRESS) instead of touching freed host memory.
//
// A call that would wait for a capturing stream (cuStreamSynchronize/Query on it, a synchronous
// copy on it, cuCtxSynchronize or cuMemFree while any stream captures) fails with
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the capture, as the real driver does:
// cuStreamEndCapture then returns CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and the stream is an
// ordinary stream again. The sim records a linear chain per stream (no cross-stream fork/join).
#include <algorithm>

#include "driver_state.h"

// cuda.h maps cuStreamBeginCapture to the _v2 form (with a mode); the old symbol is exported too.
#undef cuStreamBeginCapture
extern "C" CUresult cuStreamBeginCapture(CUstream hStream);

using tsimdrv::Driver;

namespace {
bool userStream(CUstream h) { return h && h != CU_STREAM_LEGACY && h != CU_STREAM_PER_THREAD; }
}  // namespace

namespace tsimdrv {

CUresult refuseDuringCapture(CUctx_st* ctx, CUstream s, bool anyStream) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  bool refused = false;
  if (anyStream) {
    for (CUstream x : ctx->streams)
      if (x->capture) x->captureInvalid = refused = true;
  } else if (userStream(s) && d.streams.count(s) && s->capture) {
    s->captureInvalid = refused = true;
  }
  return refused ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

CUresult refuseImplicitDependency(CUctx_st* ctx) {
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  bool refused = false;
  for (CUstream x : ctx->streams)
    if (x->capture && !(x->flags & CU_STREAM_NON_BLOCKING)) x->captureInvalid = refused = true;
  return refused ? CUDA_ERROR_STREAM_CAPTURE_IMPLICIT : CUDA_SUCCESS;
}

void dropGraphsOf(CUctx_st* ctx) {
  Driver& d = Driver::get();
  std::vector<CUgraph> graphs;
  std::vector<CUgraphExec> execs;
  {
    std::lock_guard lock(d.mu);
    for (CUgraph g : d.graphs)
      if (g->ctx == ctx) graphs.push_back(g);
    for (CUgraphExec e : d.graphExecs)
      if (e->ctx == ctx) execs.push_back(e);
    for (CUgraph g : graphs) d.graphs.erase(g);
    for (CUgraphExec e : execs) d.graphExecs.erase(e);
    for (CUstream s : ctx->streams) {
      delete s->capture;
      s->capture = nullptr;
    }
  }
  for (CUgraph g : graphs) delete g;
  for (CUgraphExec e : execs) delete e;  // queued launches hold the node list themselves
}

}  // namespace tsimdrv

TSIM_API CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  // The legacy NULL stream cannot be captured.
  if (!userStream(hStream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (hStream->capture) return CUDA_ERROR_ILLEGAL_STATE;
  hStream->capture = new CUgraph_st();
  hStream->capture->ctx = ctx;
  hStream->captureInvalid = false;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuStreamBeginCapture(CUstream hStream) {
  return cuStreamBeginCapture_v2(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

TSIM_API CUresult cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (!phGraph) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  CUgraph g = nullptr;
  bool invalid = false;
  {
    std::lock_guard lock(d.mu);
    if (!userStream(hStream) || !hStream->capture) return CUDA_ERROR_ILLEGAL_STATE;
    g = hStream->capture;
    invalid = hStream->captureInvalid;
    hStream->capture = nullptr;
    hStream->captureInvalid = false;
    if (!invalid) d.graphs.insert(g);
  }
  if (invalid) {
    delete g;
    *phGraph = nullptr;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *phGraph = g;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* status) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  if (!status) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!userStream(hStream) || !hStream->capture) *status = CU_STREAM_CAPTURE_STATUS_NONE;
  else *status = hStream->captureInvalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!numNodes) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!hGraph || !d.graphs.count(hGraph)) return CUDA_ERROR_INVALID_VALUE;
  if (nodes) return CUDA_ERROR_NOT_SUPPORTED;  // the sim has no node handles; the count only
  *numNodes = hGraph->nodes.size();
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (!phGraphExec) return CUDA_ERROR_INVALID_VALUE;
  if (flags & ~0xfull) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mu);
  if (!hGraph || !d.graphs.count(hGraph)) return CUDA_ERROR_INVALID_VALUE;
  if (hGraph->ctx != ctx) return CUDA_ERROR_INVALID_CONTEXT;
  auto* e = new CUgraphExec_st();
  e->ctx = ctx;
  e->nodes = std::make_shared<const std::vector<std::function<void()>>>(hGraph->nodes);
  d.graphExecs.insert(e);
  *phGraphExec = e;
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  CUctx_st* ctx;
  if (CUresult r = tsimdrv::currentContext(&ctx)) return r;
  if (CUresult r = tsimdrv::checkStream(ctx, hStream)) return r;
  Driver& d = Driver::get();
  std::shared_ptr<const std::vector<std::function<void()>>> nodes;
  {
    std::lock_guard lock(d.mu);
    if (!hGraphExec || !d.graphExecs.count(hGraphExec)) return CUDA_ERROR_INVALID_VALUE;
    if (hGraphExec->ctx != ctx) return CUDA_ERROR_INVALID_CONTEXT;
    if (userStream(hStream) && hStream->capture) return CUDA_ERROR_NOT_SUPPORTED;  // no child-graph nodes
    nodes = hGraphExec->nodes;
  }
  // Each node is the guarded work of its capture: it does nothing once the context faulted.
  tsimdrv::enqueueWork(ctx, hStream, [nodes] {
    for (const auto& n : *nodes) n();
  });
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!hGraphExec || !d.graphExecs.count(hGraphExec)) return CUDA_ERROR_INVALID_VALUE;
    d.graphExecs.erase(hGraphExec);
  }
  delete hGraphExec;  // launches already queued keep the node list alive
  return CUDA_SUCCESS;
}

TSIM_API CUresult cuGraphDestroy(CUgraph hGraph) {
  if (!Driver::get().initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  Driver& d = Driver::get();
  {
    std::lock_guard lock(d.mu);
    if (!hGraph || !d.graphs.count(hGraph)) return CUDA_ERROR_INVALID_VALUE;
    d.graphs.erase(hGraph);
  }
  delete hGraph;
  return CUDA_SUCCESS;
}

// Device-wide synchronizations so far (cuCtxSynchronize, cuMemFree, cuModuleUnload, context
// teardown: every wait for all of a context's streams). Lets tests show a request path never does one.
TSIM_API CUresult tesseraSimGetDeviceSyncCount(unsigned long long* count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = Driver::get().deviceSyncs.load();
  return CUDA_SUCCESS;
}
