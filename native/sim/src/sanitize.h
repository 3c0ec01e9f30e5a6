// The sim's sanitizers (racecheck, synccheck, initcheck): state per worker thread and the hooks
// the executor calls at shared/global accesses, barriers, .sync collectives and cp.async landings.
// Every hook is behind `if (c.san)`, so a launch without checkers pays one branch per hook.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace tsim {

struct Ctx;
struct Cta;
struct Inst;
struct Launch;

// One shared-memory access as remembered in the shadow: who (thread of the cluster), when (the
// clocks below), where in the program (pc), and what kind. The clocks fe/wclk/wse/lclk are those
// of the accessing thread's own CTA, which may differ from the CTA whose shared byte this is
// (distributed shared memory).
struct SanAcc {
  uint32_t fe = 0;     // CTA-wide barrier epoch (monotonic over the worker's CTAs)
  uint32_t wclk = 0;   // the warp's clock (advances when the warp passes a barrier)
  uint32_t wse = 0;    // the warp's full-warp sync epoch
  uint32_t lclk = 0;   // the lane's clock (advances at partial-warp syncs)
  uint32_t pc = 0;
  uint32_t stamp = 0;  // dynamic instruction instance, cluster-wide (lanes of one instruction never race)
  uint32_t ca = 0;     // barrier.cluster arrivals of the thread before the access
  uint16_t tid = 0;    // cluster rank << kSanRankShift | thread index in its CTA
  uint8_t kind = 0;    // SanKind
  uint8_t valid = 0;
};
struct SanCell { SanAcc w, r; };  // no padding: compared with memcmp
static_assert(sizeof(SanAcc) == 32 && sizeof(SanCell) == 64, "SanCell must have no padding");
constexpr unsigned kSanRankShift = 10;  // 1024 threads per CTA, 16 CTAs per cluster fit 16 bits
constexpr unsigned kSanTidMask = (1u << kSanRankShift) - 1;

enum SanKind : uint8_t { kSanPlain = 0, kSanAtomic = 1, kSanAsync = 2, kSanLanded = 3 };

struct SanWarp {
  uint32_t wse = 1;
  uint32_t lclk[32];
  uint32_t lvc[32][32];  // lvc[b][a]: the latest clock of lane a that lane b is ordered after
};

// A distinct hazard: same checker, kind and pair of instructions.
struct SanHazard {
  uint64_t count = 0;
  std::string text;  // the first instance, fully described
};

// The racecheck/synccheck state of one CTA of the cluster being run (index: its cluster rank).
struct SanCta {
  uint32_t fe = 0;
  unsigned nthreads = 0, nwarps = 0;
  std::vector<SanCell> cells;  // one per shared byte
  std::vector<SanWarp> warps;
  std::vector<uint32_t> wclk;  // per warp
  std::vector<uint32_t> wvc;   // nwarps x nwarps
  struct Bar {
    uint32_t warps = 0;        // warps with a lane arrived (bit per warp, up to 32 warps)
    uint32_t syncWarps = 0;    // of those, warps waiting (bar.sync) rather than only arriving
    uint32_t lanes[32] = {};   // arrived lanes per warp
    uint32_t pc[32] = {};      // pc of the first arrival per warp
    unsigned count = 0;        // thread count named by the first arrival (0 = none)
    bool aligned = true;
    bool any = false;
  } bars[16];
  // Per thread: barrier.cluster arrivals so far, and the arrivals whose phase a completed
  // barrier.cluster.wait has seen (an access made before arrival k is ordered before the accesses
  // of a thread whose wait count is above k); the cluster-wide stamp at its last completed
  // mbarrier wait (accesses of any CTA stamped below it are ordered before it: conservative).
  std::vector<uint32_t> clArr, clWait, acq;
  // wgmma.mma_async operands in flight: the async proxy may read them until the wgmma.wait_group
  // that covers the op, so a write to them before then is a hazard. Per shared byte, how many ops
  // read it (sized at the first op); per op, its bytes (sorted) and who issued it.
  // tcgen05.mma operands (tcgen05: 1) and tcgen05.cp sources (2) are kept here too: read until
  // the tcgen05.commit that covers them has arrived on its mbarrier.
  struct WgRead {
    uint32_t id, pc;
    uint16_t tid;  // tagged like SanAcc::tid
    std::vector<uint32_t> bytes;
    uint8_t tcgen05 = 0;
  };
  std::vector<uint16_t> wgCount;
  std::vector<WgRead> wgReads;
  // Global bytes this CTA wrote through the generic proxy (st.global, atomics) since the last
  // fence.proxy.async covering global memory that one of its threads executed: an async-proxy read
  // of them (a TMA or bulk load) before such a fence is a proxy hazard (sanitize_proxy.cpp).
  // Contiguous writes are merged; only the newest kSanGenWindow ranges are kept (older ones are
  // dropped: a missed report, never a false one).
  struct GenWrite {
    uint64_t lo, hi;
    uint32_t pc;
    uint16_t tid;  // thread index in the CTA
  };
  std::vector<GenWrite> genGlobal;
};
constexpr size_t kSanGenWindow = 4096;

struct SanState {
  unsigned flags = 0;  // LaunchConfig::sanitize
  bool trackInit = false;
  // Epoch base of the cluster being run: records with fe below it belong to an earlier one.
  uint32_t ctaStartFe = 0, stamp = 0;
  uint32_t wgId = 0;  // the last SanCta::WgRead id
  std::vector<SanCta> ranks;  // one per CTA of the cluster
  std::map<std::tuple<int, int, uint32_t, uint32_t>, SanHazard> hazards;
  uint64_t total = 0;
  // Write-after-write candidates, decided once the store is done: a write of the bytes already
  // there (replicated data stored by several warps) changes nothing and is not reported.
  struct PendingWaw {
    Cta* cta;  // whose shared memory
    uint32_t off, pc1, pc2;
    uint8_t bytes;
    uint8_t old[16];
    std::string text;
  };
  std::vector<PendingWaw> pending;
  // initcheck: allocations looked up in this launch (none is freed while it runs)
  struct Shadow { uint64_t lo = 0, hi = 0; uint8_t* sh = nullptr; };
  Shadow shadows[4];
  unsigned nextShadow = 0;
};

enum SanFlag : unsigned { kSanRace = 1, kSanSync = 2, kSanInit = 4 };

// Launch/CTA lifetime (sanitize_race.cpp).
void sanBeginCta(Ctx& c, Cta& cta, unsigned sharedBytes);  // in rank order, rank 0 first
// Merges a worker's hazards into the launch (caller holds L.mu).
void sanMerge(Launch& L, SanState& s);
// The launch's report ("" when clean).
std::string sanReport(const Launch& L);

// Hooks.
// off: shared::cluster addresses (the CTA's own offsets, or mapa's (rank + 1) << 24 | offset).
void sanShared(Ctx& c, const Inst& in, uint32_t lanes, const uint64_t* off, unsigned bytes, bool write);
void sanGlobal(Ctx& c, uint32_t lanes, const uint64_t* addr, unsigned bytes, bool write);
void sanFlush(Ctx& c);  // decides pending write-after-write candidates (end of a warp's turn)
void sanLand(Ctx& c, unsigned warp, unsigned lane, uint32_t off, unsigned bytes, bool viaMbarrier);
void sanBulkLand(Ctx& c, uint32_t off, unsigned bytes);  // cp.async.bulk / TMA bytes landing
void sanAcquireAll(Ctx& c, unsigned lane);  // a completed mbarrier wait
// racecheck: a wgmma.mma_async of the current warp reads these shared bytes until its wait
// (returns the record's id, never 0), and the wgmma.wait_group that covered record id.
// tcgen05.mma (tcgen05 = 1) and tcgen05.cp (2): the same, for thread `lane` of the current warp,
// done when its commit arrives.
uint32_t sanWgmmaIssue(Ctx& c, std::vector<uint32_t>&& bytes, unsigned tcgen05 = 0, unsigned lane = 0);
void sanWgmmaDone(Ctx& c, uint32_t id);
void sanBarArrive(Ctx& c, const Inst& in, uint32_t exec, unsigned id, unsigned count, bool arriveOnly);
void sanBarRelease(Ctx& c, Cta& cta, unsigned id);
void sanWarpCheck(Ctx& c, uint32_t exec, const uint64_t* masks);
void sanWarpSync(Ctx& c, uint32_t exec, uint32_t ready, const uint32_t* grp, const uint64_t* masks);
// barrier.cluster: lanes of the current warp arrive (at phase+1), or a lane of warp w of cta
// finishes a wait that saw the phase of its arrival `arrival` complete.
void sanClusterArrive(Ctx& c, uint32_t lanes, uint32_t arrival);
void sanClusterWait(Ctx& c, const Cta& cta, unsigned warp, unsigned lane, uint32_t arrival);
// Proxy order of global memory (sanitize_proxy.cpp): generic-proxy writes of the current warp's
// lanes; a fence.proxy.async covering global memory (of any thread of the CTA); an async-proxy read
// of [addr, addr + bytes) issued by lane `lane` (`what`: the instruction, for the report).
void sanGenericGlobalWrite(Ctx& c, uint32_t lanes, const uint64_t* addr, unsigned bytes);
void sanProxyFenceGlobal(Ctx& c);
void sanAsyncGlobalRead(Ctx& c, unsigned lane, uint64_t addr, uint64_t bytes, const char* what);
// The state of the CTA being run.
SanCta& sanCta(Ctx& c);

// Recording (sanitize_race.cpp): checker 0 racecheck, 1 synccheck, 2 initcheck.
void sanRecord(Ctx& c, int checker, int kind, uint32_t pc1, uint32_t pc2, const std::string& text);
std::string sanWhere(Ctx& c, unsigned tid, uint32_t pc);

}  // namespace tsim
