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

struct Cta {
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
};

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
