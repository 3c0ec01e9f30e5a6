// Execution state shared by all instruction handlers, and the templates that write the per-lane
// loop, operand fetch and result write once for every instruction family.
#pragma once
#include <atomic>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "ptx_decode.h"
#include "ptx_module.h"
#include "sanitize.h"

namespace tsim {

constexpr int kWarp = 32;
constexpr int kMaxCallDepth = 32;
constexpr int kNumBarriers = 16;

// A cp.async copy in flight: the source bytes are read at issue, the destination (shared memory)
// is written when a cp.async.wait_group/wait_all of the issuing thread covers its group.
struct AsyncCopy {
  uint32_t dstOff;   // offset in the CTA's shared memory
  uint32_t group;    // commit group of the lane; kOpenGroup until cp.async.commit_group
  uint32_t seq;      // issue order in the warp (cp.async.mbarrier.arrive covers copies up to a seq)
  uint8_t lane, bytes;
  uint8_t data[16];
};
constexpr uint32_t kOpenGroup = ~0u;

// Hopper asynchronous state (exec_wgmma.cpp, exec_bulk.cpp).
// A wgmma.mma_async in flight: computed when a wgmma.wait_group covers its group; until then its
// accumulator registers hold a poison value (their true contents live in WgmmaInFlight::shadow).
struct WgmmaOp {
  uint32_t pc;                 // the wgmma.mma_async instruction
  uint32_t group;              // commit group; kOpenGroup until wgmma.commit_group
  uint64_t descA, descB;       // matrix descriptors (warp-uniform)
  bool scaleD;                 // false: D = A*B (the accumulator input is ignored)
  std::vector<uint32_t> aRegs; // A from registers: 4 registers x 32 lanes
  uint32_t san = 0;            // racecheck's record of its operand bytes (0: none)
};
struct WgmmaInFlight {
  std::vector<WgmmaOp> ops;    // oldest first
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> shadow;  // accumulator slot -> 32 lanes
  uint32_t committed = 0;
  std::vector<uint8_t> busy;   // per register slot: 1 while an op in flight writes it
};
// Another instruction reading an accumulator register of a wgmma in flight: a named fault
// (exec_wgmma.cpp). Called by the scheduler only while the warp has wgmma in flight.
bool wgmmaReadsInFlight(Ctx& c, const Inst& in, uint32_t exec);
// Blackwell tensor memory and tcgen05 (exec_tcgen05.cpp, exec_tcgen05_mma.cpp).
// A tcgen05.ld in flight (per warp): its destination registers hold a poison value until the
// warp's tcgen05.wait::ld, which writes the values read at issue (kept in shadow).
struct TmemLdInFlight {
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> shadow;  // slot -> 32 lanes
  std::vector<uint8_t> busy;  // per register slot: 1 while a tcgen05.ld in flight writes it
  int line = 0;               // PTX line of the newest tcgen05.ld in flight
};
// A tcgen05.mma in flight: computed, in issue order, when an mbarrier that a covering
// tcgen05.commit arrives on is tested; until then the accumulator columns keep their old values
// and the shared-memory operands are not yet read.
struct Tcgen05Mma {
  uint32_t pc;
  uint32_t taddr, idesc;
  uint64_t descA, descB;
  uint32_t disableLanes[8];  // disable_output_lane: bit l of word l/32 leaves TMEM lane l unwritten
                             // (.cta_group::2: words 4-7 are the odd CTA's lanes)
  uint8_t scaleD;            // scale-input-d: D = A*B + D * 2^-scaleD
  bool enableD;              // false: D = A*B
  uint16_t warp;
  uint8_t lane;
  uint32_t san = 0;          // racecheck: its operand-read record (sanWgmmaIssue), 0 when none
  bool shift = false;        // a tcgen05.shift (taddr only), in the same queue as the MMAs
  uint8_t cp = 0;            // a tcgen05.cp: 1 + its shape (taddr, descA the source descriptor)
  uint32_t sfA = 0, sfB = 0;  // .block_scale: the tensor-memory addresses of scale_A and scale_B
  struct Cta* peer = nullptr;  // .cta_group::2: the odd CTA of the pair, whose half it also computes
  uint8_t ws = 0;              // tcgen05.mma.ws: 0x80 | collector op << 2 | buffer (exec_tcgen05_ws.cpp)
  uint64_t zcm = 0;            // tcgen05.mma.ws: its zero-column mask descriptor (0: none)
  uint8_t collA = 0;           // tcgen05.mma: 0x40 | .collector::a op (0: the default discard; exec_tcgen05_collector_a.cpp)
};
// A tcgen05.mma.ws collector buffer for B (exec_tcgen05_ws.cpp), or tcgen05.mma's for A
// (exec_tcgen05_collector_a.cpp; b then holds A): what its last fill read.
struct Tcgen05Collector {
  bool valid = false;
  uint32_t key = 0;    // the fill's kind and instruction-descriptor B (A) fields
  unsigned shift = 0;  // the fill's column shift
  int line = 0;        // PTX line of the fill
  std::vector<double> b;
};
// A tcgen05.commit's arrive-on: due once the MMAs issued before it (seq < upto) are complete.
struct Tcgen05Commit {
  uint32_t barOff;
  uint64_t upto;
  uint16_t warp;
  uint8_t lane;
  struct Cta* src = nullptr;  // .cta_group::2: the CTA whose MMAs it covers (null: this one)
};
// The CTA's tensor memory: 128 lanes x 512 columns of 32 bits (cells[lane * 512 + column]),
// allocated in 32-column chunks; created at the first tcgen05.alloc.
struct Tmem {
  std::vector<uint32_t> cells;
  std::vector<uint8_t> written;  // initcheck: 1 for a cell written since its column's tcgen05.alloc
  uint32_t allocated = 0;     // bit i: columns 32i..32i+31 are allocated
  bool relinquished = false;  // tcgen05.relinquish_alloc_permit executed
  int allocLine = 0;          // PTX line of the last tcgen05.alloc (for the exit check)
  uint32_t pairCols = 0;      // bit i: columns 32i..32i+31 were allocated with .cta_group::2
  // .cta_group::2 allocations the peer CTA made in this CTA's tensor memory too (column, nCols),
  // oldest first, that this CTA's own tcgen05.alloc.cta_group::2 has not matched yet
  std::vector<std::pair<uint32_t, uint32_t>> peerAllocs;
  std::vector<Tcgen05Mma> mmas;       // in flight, oldest first
  uint64_t mmaIssued = 0, mmaDone = 0;  // sequence numbers: mmas[i] is number mmaDone + i
  std::vector<Tcgen05Commit> commits; // arrivals not yet performed, oldest first
  std::vector<std::pair<uint32_t, uint32_t>> pendingSt;  // tcgen05.st in flight: cell -> value
  std::vector<uint16_t> pendingStWarp;                    // the warp of each pendingSt entry
  Tcgen05Collector collectors[4];  // tcgen05.mma.ws's B collector buffers #0..#3
  Tcgen05Collector collectorA;     // tcgen05.mma's collector buffer for A
};
// Another instruction touching a destination register of a tcgen05.ld in flight: a named fault
// (exec_tcgen05.cpp). Called by the scheduler only while the warp has one in flight.
bool tmemLdInFlight(Ctx& c, const Inst& in, uint32_t exec);
// Performs the tcgen05.commit arrivals on the mbarrier at off (all when off == ~0u), completing
// the MMAs they cover first (exec_tcgen05_mma.cpp); false after a fault.
bool settleTcgen05Commits(Ctx& c, uint32_t off);
// initcheck on tensor memory: whether it is on for this launch, and the report of a read of cell
// (lane, col) never written since its allocation by the instruction at pc (exec_tcgen05.cpp).
bool tmemInitcheck(Ctx& c);
void tmemUninitRead(Ctx& c, uint32_t pc, unsigned tid, uint32_t lane, uint32_t col, const char* what);
// The check at the end of a CTA: a CTA must free its tensor memory before it exits.
bool tmemExitCheck(Ctx& c);
// The reductions of cp.reduce.async.bulk and red.async, and their element types (exec_bulk.cpp).
enum RedOp : uint8_t { kRNone, kRAnd, kROr, kRXor, kRAdd, kRInc, kRDec, kRMin, kRMax };
enum RedTy : uint8_t { kTU32, kTS32, kTU64, kTS64, kTB32, kTB64, kTF32, kTF64, kTF16, kTBF16 };

// A cp.async.bulk global->shared copy (or an st.async / red.async) in flight: the source is read
// at issue, the bytes land (and complete_tx on the mbarrier) when that mbarrier is next tested.
struct BulkCopy {
  uint32_t dstOff, barOff;
  std::vector<uint8_t> data;
  uint8_t swizzle = 0;         // TMA: 16-byte chunks land at address bits 4.. XOR bits 7.. (1-3 bits)
  uint8_t redOp = 0, redTy = 0;  // red.async: the reduction (RedOp, RedTy) applied as it lands
  bool clcFailed = false;        // a failed clusterlaunchcontrol.try_cancel response (exec_clc.cpp)
};
// A cp.async.bulk shared->global store of a bulk group. The async proxy reads its shared source
// (snapshot into src) no later than a cp.async.bulk.wait_group.read covering the group; global
// memory is written only when a full cp.async.bulk.wait_group covers it (or the CTA's threads have
// all exited), so a read-back after only the .read wait sees the old bytes, as hardware may.
struct BulkStore {
  uint64_t dst;
  uint8_t* host;               // translated (and checked) at issue
  uint32_t srcOff, bytes, group;
  uint16_t warp;
  uint8_t lane;
  bool tensor = false;         // cp.async.bulk.tensor store: tmap and coord say where (exec_tma.cpp)
  uint8_t tensorMode = 0;      // its TmaLoadMode: .tile, or .tile::scatter4 (exec_tma_modes.h)
  uint8_t redOp = 0, redTy = 0;  // cp.reduce.async.bulk: the reduction (0: a plain store) and type
  uint8_t tmap[128];
  int32_t coord[5];
  bool taken = false;          // src holds the source, read at a .read wait (else read when it lands)
  uint32_t srcLo = 0;          // shared offset of src[0]
  std::vector<uint8_t> src;
};

struct Warp {
  uint64_t* R = nullptr;   // register file: slot s, lane l at R[s*32 + l]
  uint32_t pc = 0;         // pc of the running group of lanes
  uint32_t mask = 0;       // lanes of the running group (0 = nothing runnable)
  uint32_t nextPc = ~0u;   // smallest pc of the other runnable lanes
  uint32_t live = 0;       // lanes that have not exited
  uint32_t waiting = 0;    // lanes waiting at a barrier
  unsigned id = 0;         // warp index in the CTA
  uint32_t pcs[kWarp] = {};
  uint8_t barId[kWarp] = {};
  uint32_t redDst[kWarp] = {};  // bar.red: destination slot written at release (0 = none)
  uint8_t redKind[kWarp] = {};  // 0 popc, 1 and, 2 or
  uint8_t depth[kWarp] = {};
  uint32_t stack[kWarp][kMaxCallDepth];
  std::vector<AsyncCopy> copies;   // cp.async in flight, oldest first
  uint32_t committed[kWarp] = {};  // commit groups closed per lane
  uint32_t copySeq = 0;            // cp.async issued so far (AsyncCopy::seq)
  WgmmaInFlight wgmma;             // wgmma.mma_async in flight (exec_wgmma.cpp)
  uint32_t bulkCommitted[kWarp] = {};  // cp.async.bulk.commit_group count per lane
  uint32_t clArr[kWarp] = {};  // barrier.cluster.arrive not yet waited on: its phase + 1 (0 = none)
  TmemLdInFlight tmemLd;       // tcgen05.ld in flight (exec_tcgen05.cpp)
};

// cp.async.mbarrier.arrive: an arrive-on the mbarrier at barOff, due once the lane's copies issued
// up to seq have landed. Kept until someone tests that mbarrier (or the CTA ends), so copies land
// as late as the program allows and a missing wait reads stale shared memory, as on hardware.
struct MbarArrive {
  uint32_t barOff;
  uint32_t seq;
  uint16_t warp;
  uint8_t lane;
};

struct Launch;

struct Cluster;

struct Cta {
  Cluster* cluster = nullptr;  // the cluster being run (exec_cluster.cpp); every CTA is in one
  unsigned rank = 0;           // %cluster_ctarank
  bool done = false;           // every thread has exited
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local;  // localBytes per thread
  unsigned localBytes = 0;
  unsigned ctaid[3] = {0, 0, 0};
  unsigned nthreads = 0, liveThreads = 0;
  unsigned arrived[kNumBarriers] = {}, expected[kNumBarriers] = {};
  unsigned redCount[kNumBarriers] = {};  // bar.red: arriving threads whose predicate was true
  std::vector<Warp> warps;
  std::vector<uint64_t> regs;
  std::vector<MbarArrive> mbarArrives;
  std::vector<std::pair<uint32_t, int64_t>> mbarTx;  // mbarrier offset -> tx-count of its phase
  std::vector<BulkCopy> bulkCopies;                  // cp.async.bulk to shared in flight
  std::vector<BulkStore> bulkStores;                 // cp.async.bulk to global in flight
  // Shared memory as the async proxy sees it (wgmma operands, bulk/TMA store sources): the state
  // at the last fence.proxy.async (shared) of any thread, plus what the async proxy wrote since.
  // Empty until first needed (it then starts as the zero-filled shared memory).
  std::vector<uint8_t> asyncView;
  Tmem tmem;                   // tensor memory (sm_100; exec_tcgen05.cpp)
  bool clcFailSeen = false;    // a failed try_cancel response has landed here (exec_clc.cpp)
};

// The CTAs of one cluster, run together on one worker thread (exec_cluster.cpp).
struct Cluster {
  Cta* ctas = nullptr;
  unsigned size = 1;
  uint32_t phase = 0;  // barrier.cluster phases completed
};

// barrier.cluster and distributed shared memory (exec_cluster.cpp).
// Completes the cluster barrier phase when every non-exited thread of the cluster has arrived.
bool releaseClusterBarrier(struct Ctx& c, Cluster& cl);
// A shared::cluster address (own-CTA offsets, or mapa's rank-tagged form) -> the target CTA's
// shared bytes, checked; faults and returns null when out of range.
uint8_t* clusterSharedPtr(struct Ctx& c, int lane, uint64_t addr, unsigned bytes, bool write);
constexpr uint64_t kClusterRankShift = 24;
constexpr uint8_t kClusterBarId = 0xFE;  // Warp::barId of a lane in barrier.cluster.wait  // mapa: (rank + 1) << 24 | offset

// Everything one launch shares between its worker threads.
struct Launch {
  const PtxModule* mod = nullptr;
  const Program* prog = nullptr;
  const Function* fn = nullptr;
  const LaunchConfig* cfg = nullptr;
  GlobalMemory* mem = nullptr;
  std::vector<uint64_t> constVals;  // parallel to Program::consts
  unsigned ntid[3] = {1, 1, 1};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> executed{0};
  // Clusters are started in this order; clusterlaunchcontrol.try_cancel takes the next one too,
  // so a cancelled cluster is one never started, and it never runs (exec_clc.cpp).
  std::atomic<uint64_t> nextCluster{0};
  uint64_t nclusters = 0;
  std::mutex mu;
  Fault fault;
  std::mutex printMu;
  std::map<std::tuple<int, int, uint32_t, uint32_t>, SanHazard> hazards;  // sanitizers (under mu)
  uint64_t hazardCount = 0;
};

// Per worker thread: the warp being run and counters.
struct Ctx {
  uint64_t* R = nullptr;
  Warp* w = nullptr;
  Cta* cta = nullptr;
  Launch* L = nullptr;
  const Program* prog = nullptr;
  Counters ctr;
  bool faulted = false;
  Fault fault;
  uint32_t curPc = 0;
  // Global ranges translated (and so checked) in this launch: [lo, hi) -> host. A new range that
  // overlaps or touches a remembered one with the same host offset is merged into it, so a warp
  // walking along an array keeps hitting the cache instead of calling GlobalMemory::translate.
  struct Span { uint64_t lo = 1, hi = 0; uint8_t* host = nullptr; };
  static constexpr int kSpans = 4;
  Span spans[kSpans];
  unsigned nextSpan = 0;
  SanState* san = nullptr;  // sanitizers on (sanitize.h)
};

// ---- typed register access ----
template <class T> inline T rd(uint64_t v) {
  T x;
  memcpy(&x, &v, sizeof(T));
  return x;
}
template <class T> inline uint64_t wr(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? 1 : 0;
  } else {
    uint64_t v = 0;
    memcpy(&v, &x, sizeof(T));
    return v;
  }
}
inline uint64_t* slot(Ctx& c, uint32_t s) { return c.R + (size_t)s * kWarp; }

#define FOR_LANES(exec) for (uint32_t _m = (exec), l; _m && ((l = __builtin_ctz(_m)), true); _m &= _m - 1)
#define FOR_LANES_J(exec, j) for (uint32_t _mj = (exec), j; _mj && ((j = __builtin_ctz(_mj)), true); _mj &= _mj - 1)

// Full warps take a plain loop the compiler can vectorise; partial ones walk the set bits.
#define LANE_LOOP(exec, ...)                                   \
  do {                                                         \
    if ((exec) == ~0u) {                                       \
      for (uint32_t l = 0; l < (uint32_t)kWarp; l++) { __VA_ARGS__; } \
    } else {                                                   \
      FOR_LANES(exec) { __VA_ARGS__; }                         \
    }                                                          \
  } while (0)

// Faults raised by handlers: the per-lane thread id is filled in here.
void raise(Ctx& c, Fault::Kind k, int lane, uint64_t addr, unsigned size, bool write, const std::string& detail);

// Scheduling helpers (exec_launch.cpp).
void reschedule(Warp& w);
// Lanes parked in a .sync warp collective wake up to look again (after lanes exit).
void wakeWarpSync(Warp& w);
// mbarrier transaction counts (exec_mbarrier.cpp): adds delta to the tx-count of the barrier at
// off (expect_tx: +, complete_tx: -) and completes its phase when nothing is pending; false after
// raising a fault.
bool mbarrierTx(Ctx& c, int lane, uint32_t off, int64_t delta);
// One arrival on the mbarrier at off of the executing CTA (tcgen05.commit); false after a fault.
bool mbarrierArriveOne(Ctx& c, int lane, uint32_t off);
// Whether the 8 bytes at off of t's shared memory are an initialised mbarrier (mbarrier.init ran).
bool mbarrierInitialised(const Cta& t, uint32_t off);
// Lands the bulk copies that signal the barrier at off (all when off == ~0u); exec_bulk.cpp.
bool settleBulkCopies(Ctx& c, uint32_t off);
// Writes the bulk stores of a lane whose group is below `upto` (all lanes/groups: lane < 0).
// readOnly (a wait_group.read): the covered stores read their source but keep their writes pending
bool settleBulkStores(Ctx& c, int warp, int lane, uint32_t upto, bool readOnly = false);
// The async proxy's view of shared memory (Cta::asyncView), created on first use; exec_bulk.cpp.
uint8_t* asyncShared(Ctx& c);
// fence.proxy.async (all spaces, .shared::cta, .shared::cluster): generic writes to shared memory
// so far become visible to the async proxy; exec_bulk.cpp.
void proxyAsyncFenceOp(Ctx& c, const Inst& in, uint32_t exec);
void proxyAsyncGlobalFenceOp(Ctx& c, const Inst& in, uint32_t exec);
void proxyAsyncAllFenceOp(Ctx& c, const Inst& in, uint32_t exec);
// Host bytes of the global range [addr, addr+size) with no alignment requirement (bulk copies,
// tensor maps and TMA rows are 16-byte granular): nullptr with f filled when it is not inside one
// live allocation (exec_bulk.cpp).
uint8_t* translateRange(Ctx& c, uint64_t addr, uint64_t size, bool write, Fault& f);
// cp.reduce.async.bulk element update: dst[0..bytes) op= src (exec_bulk.cpp); op/type as
// BulkStore::redOp/redTy. For tensor reductions, the RedTy of a tensor-map data type (-1: none).
void reduceElements(uint8_t* dst, const uint8_t* src, uint32_t bytes, uint8_t op, uint8_t type);
int reduceTypeOfTensorMap(unsigned dtype, uint8_t op);
// cp.async.bulk.tensor store of a settled bulk group (exec_tma.cpp); false after a fault.
bool tmaStore(Ctx& c, const BulkStore& s);
// The CTA a shared::cluster destination dst and its mbarrier mb name (the executing CTA's for own
// offsets, another's for mapa addresses; both must be in the same CTA, alive); null after a fault
// whose text starts with `what` (exec_bulk.cpp).
Cta* remoteBulkTarget(Ctx& c, int lane, uint64_t dst, uint64_t mb, const char* what);
// cp.async.bulk.tensor (exec_tma.cpp), decoded through decodeCpAsyncBulk.
bool decodeCpAsyncBulkTensor(Decoder& dc, const Stmt& st, Inst& in);
// False (with the decoder's error set) when st has a modifier outside `allowed` (space-separated):
// the `cp` entry's modifiers are the union of its forms, so each form checks its own.
bool onlyMods(Decoder& dc, const Stmt& st, const char* allowed);
// cp.async.bulk* (exec_bulk.cpp), decoded from the `cp` entry.
bool decodeCpAsyncBulk(Decoder& dc, const Stmt& st, Inst& in);
// cp.async.mbarrier.arrive (exec_mbarrier.cpp), decoded from the `cp` entry.
bool decodeCpAsyncMbarrierArrive(Decoder& dc, const Stmt& st, Inst& in);
// bar.warp.sync (exec_warp.cpp), decoded from the `bar` entry.
bool decodeBarWarpSync(Decoder& dc, const Stmt& st, Inst& in);

// ---- generic ALU templates: Op::f computes one lane ----
template <class Op, class T> void un(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t* a = slot(c, in.s[0]);
  LANE_LOOP(exec, d[l] = wr(Op::f(rd<T>(a[l]))));
}
template <class Op, class T> void bin(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]);
  LANE_LOOP(exec, d[l] = wr(Op::f(rd<T>(a[l]), rd<T>(b[l]))));
}
template <class Op, class T> void tern(Ctx& c, const Inst& in, uint32_t exec) {
  uint64_t* d = slot(c, in.d[0]);
  const uint64_t *a = slot(c, in.s[0]), *b = slot(c, in.s[1]), *e = slot(c, in.s[2]);
  LANE_LOOP(exec, d[l] = wr(Op::f(rd<T>(a[l]), rd<T>(b[l]), rd<T>(e[l]))));
}

// Type dispatch: f receives a value of the C++ type for t and returns a handler.
template <class F> Fn withInt(Ty t, F f) {
  switch (t) {
    case Ty::U16: case Ty::B16: return f(uint16_t{});
    case Ty::S16: return f(int16_t{});
    case Ty::U32: case Ty::B32: return f(uint32_t{});
    case Ty::S32: return f(int32_t{});
    case Ty::U64: case Ty::B64: return f(uint64_t{});
    case Ty::S64: return f(int64_t{});
    default: return nullptr;
  }
}
template <class F> Fn withBits(Ty t, F f) {
  switch (t) {
    case Ty::B16: case Ty::U16: case Ty::S16: return f(uint16_t{});
    case Ty::B32: case Ty::U32: case Ty::S32: return f(uint32_t{});
    case Ty::B64: case Ty::U64: case Ty::S64: return f(uint64_t{});
    case Ty::Pred: return f(bool{});
    default: return nullptr;
  }
}

template <class F> Fn withWord(Ty t, F f) {  // bit types without .pred
  return t == Ty::Pred ? nullptr : withBits(t, f);
}

}  // namespace tsim
