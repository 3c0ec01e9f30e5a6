// Running a kernel: CTAs on worker threads, warps of a CTA round-robin between barriers, lanes of a
// warp scheduled by smallest pc (divergent paths reconverge when the lagging group catches up).
#include <algorithm>
#include <thread>

#include "exec_core.h"

namespace tsim {

const DecodeTable& decodeTable() {
  static const DecodeTable table = [] {
    DecodeTable t;
    registerIntOps(t);
    registerIntExtraOps(t);
    registerFloatOps(t);
    registerCvtOps(t);
    registerMemOps(t);
    registerCtrlOps(t);
    registerWarpOps(t);
    registerTensorOps(t);
    registerVideoOps(t);
    registerWmmaOps(t);
    registerMbarrierOps(t);
    registerWgmmaOps(t);
    registerTcgen05Ops(t);
    registerHopperMiscOps(t);
    registerClcOps(t);
    registerClusterOps(t);
    return t;
  }();
  return table;
}

bool OpEntry::accepts(const std::string& m) const {
  for (const std::string& x : mods)
    if (x == m) return true;
  return false;
}

void addOp(DecodeTable& t, const char* op, DecodeFn fn, const std::string& mods, const char* note) {
  OpEntry e;
  e.decode = std::move(fn);
  for (size_t i = 0; i < mods.size();) {
    size_t j = mods.find(' ', i);
    if (j == std::string::npos) j = mods.size();
    if (j > i) e.mods.push_back(mods.substr(i, j - i));
    i = j + 1;
  }
  e.note = note;
  t[op] = std::move(e);
}

std::string instructionTableMarkdown() {
  std::string out = "| instruction | modifiers and types accepted | notes |\n|---|---|---|\n";
  for (const auto& [op, e] : decodeTable()) {
    std::string mods;
    for (const std::string& m : e.mods) mods += (mods.empty() ? "`." : " `.") + m + "`";
    std::string note;
    for (char ch : e.note) note += ch == '|' ? std::string("\\|") : std::string(1, ch);  // a table cell
    out += "| `" + op + "` | " + (mods.empty() ? "(none)" : mods) + " | " + note + " |\n";
  }
  return out;
}

void wakeWarpSync(Warp& w) {
  uint32_t parked = 0;
  FOR_LANES(w.waiting) if (w.barId[l] == 0xFF) parked |= 1u << l;
  w.waiting &= ~parked;
}

void reschedule(Warp& w) {
  FOR_LANES(w.mask) w.pcs[l] = w.pc;
  uint32_t run = w.live & ~w.waiting;
  w.mask = 0;
  w.nextPc = ~0u;
  if (!run) return;
  uint32_t minPc = ~0u;
  FOR_LANES(run) minPc = std::min(minPc, w.pcs[l]);
  FOR_LANES(run) {
    if (w.pcs[l] == minPc) w.mask |= 1u << l;
    else w.nextPc = std::min(w.nextPc, w.pcs[l]);
  }
  w.pc = minPc;
}

void raise(Ctx& c, Fault::Kind k, int lane, uint64_t addr, unsigned size, bool write, const std::string& detail) {
  if (c.faulted) return;
  c.faulted = true;
  Fault& f = c.fault;
  f.kind = k;
  f.addr = addr;
  f.size = size;
  f.write = write;
  f.detail = detail;
  f.kernel = c.L->fn->name;
  f.ptxLine = c.prog->code[c.curPc].line;
  for (int i = 0; i < 3; i++) f.ctaid[i] = c.cta->ctaid[i];
  unsigned t = c.w ? c.w->id * kWarp + (unsigned)std::max(lane, 0) : 0;
  const unsigned* b = c.L->cfg->block;
  f.tid[0] = t % b[0];
  f.tid[1] = (t / b[0]) % b[1];
  f.tid[2] = t / (b[0] * b[1]);
  if (f.detail.empty()) f.detail = "at pc " + std::to_string(c.curPc);
}

namespace {

constexpr uint64_t kSlice = 4096;  // warp instructions before the next warp of the CTA gets a turn

inline uint32_t guardMask(const uint64_t* p, uint32_t m, bool neg) {
  uint32_t r = 0;
  LANE_LOOP(m, r |= (uint32_t)(p[l] & 1) << l);
  return neg ? m & ~r : r;
}

void runWarp(Ctx& c, Warp& w) {
  c.w = &w;
  c.R = w.R;
  const Inst* code = c.prog->code.data();
  uint64_t n = 0, ti = 0;
  while (w.mask && n < kSlice) {
    const Inst& in = code[w.pc];
    uint32_t exec = w.mask;
    if (in.guard) exec = guardMask(c.R + (size_t)in.guard * kWarp, exec, in.guardNeg);
    c.curPc = w.pc;
    if (!w.wgmma.ops.empty() && exec && wgmmaReadsInFlight(c, in, exec)) break;
    if (!w.tmemLd.shadow.empty() && exec && tmemLdInFlight(c, in, exec)) break;
    in.fn(c, in, exec);
    n++;
    ti += exec == ~0u ? 32u : (unsigned)__builtin_popcount(exec);
    c.ctr.byClass[in.cls]++;
    if (c.faulted) break;
    if (!(in.flags & kfControl)) {
      if (++w.pc >= w.nextPc) reschedule(w);
    }
  }
  if (c.san && !c.san->pending.empty()) sanFlush(c);
  c.ctr.warpInstructions += n;
  c.ctr.threadInstructions += ti;
  uint64_t total = c.L->executed.fetch_add(ti, std::memory_order_relaxed) + ti;
  uint64_t budget = c.L->cfg->instructionBudget;
  if (budget && total > budget && !c.faulted) {
    raise(c, Fault::Timeout, 0, 0, 0, false, "instruction budget of " + std::to_string(budget) + " exhausted");
  }
}

bool releaseBarriers(Ctx& c, Cta& cta) {
  bool any = false;
  for (int id = 0; id < kNumBarriers; id++) {
    if (!cta.arrived[id]) continue;
    unsigned need = cta.expected[id] ? cta.expected[id] : cta.liveThreads;
    if (cta.arrived[id] < need) continue;
    unsigned total = cta.arrived[id], yes = cta.redCount[id];
    cta.arrived[id] = 0;
    cta.expected[id] = 0;
    cta.redCount[id] = 0;
    c.ctr.barriers++;
    if (c.san) sanBarRelease(c, cta, (unsigned)id);
    for (auto& w : cta.warps) {
      uint32_t rel = 0;
      FOR_LANES(w.waiting) if (w.barId[l] == id) rel |= 1u << l;
      FOR_LANES(rel) {
        if (!w.redDst[l]) continue;
        uint64_t v = w.redKind[l] == 0 ? yes : w.redKind[l] == 1 ? (yes == total) : (yes != 0);
        w.R[(size_t)w.redDst[l] * kWarp + l] = v;
        w.redDst[l] = 0;
      }
      if (rel) {
        w.waiting &= ~rel;
        reschedule(w);
        any = true;
      }
    }
  }
  return any;
}

// Sets up CTA ctaid (rank `rank` of its cluster) to run from the kernel's entry.
void initCta(Ctx& c, Cta& cta, const unsigned* ctaid, unsigned rank, unsigned sharedBytes) {
  Launch& L = *c.L;
  const LaunchConfig& cfg = *L.cfg;
  const Program& P = *c.prog;
  for (int i = 0; i < 3; i++) cta.ctaid[i] = ctaid[i];
  cta.rank = rank;
  cta.done = false;
  unsigned nthreads = cfg.block[0] * cfg.block[1] * cfg.block[2];
  unsigned nwarps = (nthreads + kWarp - 1) / kWarp;
  cta.nthreads = cta.liveThreads = nthreads;
  cta.shared.assign(sharedBytes, 0);
  cta.localBytes = P.localBytes;
  cta.local.assign((size_t)nwarps * kWarp * P.localBytes, 0);
  std::fill(std::begin(cta.arrived), std::end(cta.arrived), 0);
  std::fill(std::begin(cta.expected), std::end(cta.expected), 0);
  std::fill(std::begin(cta.redCount), std::end(cta.redCount), 0);
  cta.mbarArrives.clear();
  cta.mbarTx.clear();
  cta.bulkCopies.clear();
  cta.clcFailSeen = false;
  cta.bulkStores.clear();
  cta.asyncView.clear();
  cta.tmem = Tmem{};
  if (c.san) sanBeginCta(c, cta, sharedBytes);
  size_t perWarp = (size_t)P.numSlots * kWarp;
  if (cta.regs.size() < perWarp * nwarps) cta.regs.assign(perWarp * nwarps, 0);
  cta.warps.resize(nwarps);
  for (unsigned wi = 0; wi < nwarps; wi++) {
    Warp& w = cta.warps[wi];
    w.R = cta.regs.data() + perWarp * wi;
    w.id = wi;
    unsigned lanes = std::min<unsigned>(kWarp, nthreads - wi * kWarp);
    w.live = lanes == 32 ? ~0u : (1u << lanes) - 1;
    w.mask = w.live;
    w.waiting = 0;
    w.pc = c.L->fn->entryPc;
    w.nextPc = ~0u;
    std::fill(std::begin(w.depth), std::end(w.depth), 0);
    std::fill(std::begin(w.redDst), std::end(w.redDst), 0);
    w.copies.clear();
    w.copySeq = 0;
    std::fill(std::begin(w.committed), std::end(w.committed), 0);
    w.wgmma = WgmmaInFlight{};
    w.tmemLd = TmemLdInFlight{};
    std::fill(std::begin(w.bulkCommitted), std::end(w.bulkCommitted), 0);
    std::fill(std::begin(w.clArr), std::end(w.clArr), 0);
    uint64_t* R = w.R;
    for (unsigned l = 0; l < kWarp; l++) {
      unsigned t = wi * kWarp + l;
      auto set = [&](uint32_t s, uint64_t v) { R[(size_t)s * kWarp + l] = v; };
      set(kSlotSink, 0);
      set(kTidX, t % cfg.block[0]);
      set(kTidY, (t / cfg.block[0]) % cfg.block[1]);
      set(kTidZ, t / (cfg.block[0] * cfg.block[1]));
      set(kNtidX, cfg.block[0]);
      set(kNtidY, cfg.block[1]);
      set(kNtidZ, cfg.block[2]);
      set(kCtaidX, cta.ctaid[0]);
      set(kCtaidY, cta.ctaid[1]);
      set(kCtaidZ, cta.ctaid[2]);
      set(kNctaidX, cfg.grid[0]);
      set(kNctaidY, cfg.grid[1]);
      set(kNctaidZ, cfg.grid[2]);
      set(kLaneId, l);
      set(kWarpId, wi);
      set(kNWarpId, 64);
      set(kSmId, 0);
      set(kNSmId, 1);
      set(kDynSmem, cfg.dynamicSharedBytes);
      set(kLaneEq, 1ull << l);
      set(kLaneLt, (1ull << l) - 1);
      set(kLaneLe, (2ull << l) - 1);
      set(kLaneGt, (uint32_t)~((2ull << l) - 1));
      set(kLaneGe, (uint32_t)~((1ull << l) - 1));
      set(kGridId, 0);
      set(kTotalSmem, sharedBytes);
      set(kCarry, 0);
      const unsigned* cd = cfg.cluster;
      for (unsigned k = 0; k < 3; k++) {
        set(kClusterIdX + k, cta.ctaid[k] / cd[k]);
        set(kNClusterIdX + k, cfg.grid[k] / cd[k]);
        set(kClusterCtaidX + k, cta.ctaid[k] % cd[k]);
        set(kClusterNctaidX + k, cd[k]);
      }
      set(kClusterCtaRank, rank);
      set(kClusterNctaRank, cd[0] * cd[1] * cd[2]);
      set(kIsExplicitCluster, cfg.explicitCluster ? 1 : 0);
    }
    for (size_t i = 0; i < P.consts.size(); i++) {
      uint64_t* s = R + (size_t)P.consts[i].slot * kWarp;
      std::fill(s, s + kWarp, L.constVals[i]);
    }
  }
}

// Runs the CTAs of one cluster (one CTA when the launch has no clusters) to completion: every
// warp of every CTA in turn, between barriers.
// With clusterSkew n >= 2 (TESSERA_SIM_CLUSTER_SKEW), rank 0 takes n turns for each turn of the
// others (n - 1 of them before the others' first), running ahead as far as the cluster's synchronization lets it: on hardware the CTAs of a
// cluster run on different SMs at unrelated speeds, and a protocol missing a cross-CTA wait (a
// producer that refills a stage its peers still read) fails then, where lockstep turns hide it.
void runCluster(Ctx& c, Cluster& cl) {
  Launch& L = *c.L;
  const unsigned skew = L.cfg->clusterSkew;
  for (uint64_t turn = 0;; turn++) {
    bool ran = false, skipped = false;
    for (unsigned k = 0; k < cl.size; k++) {
      Cta& cta = cl.ctas[k];
      if (cta.done) continue;
      if (skew >= 2 && k > 0 && turn % skew != skew - 1) {  // rank 0's first skew - 1 turns come first
        skipped = true;
        continue;
      }
      c.cta = &cta;
      for (auto& w : cta.warps) {
        if (!w.mask) continue;
        runWarp(c, w);
        ran = true;
        if (c.faulted) return;
        releaseBarriers(c, cta);
      }
    }
    bool released = false, anyAlive = false;
    for (unsigned k = 0; k < cl.size; k++) {
      Cta& cta = cl.ctas[k];
      if (cta.done) continue;
      c.cta = &cta;
      released |= releaseBarriers(c, cta);
      bool alive = false;
      for (auto& w : cta.warps) alive |= w.live != 0;
      if (!alive) {
        // bulk stores still in flight complete once their threads have exited
        if (!cta.bulkStores.empty()) settleBulkStores(c, -1, -1, ~0u);
        if (!tmemExitCheck(c)) return;
        cta.done = true;
      }
      anyAlive |= alive;
    }
    if (!anyAlive) return;
    released |= releaseClusterBarrier(c, cl);
    if (L.stop.load(std::memory_order_relaxed)) return;
    if (!ran && !released && !skipped) {
      std::string why = "deadlock: threads wait at a barrier that cannot complete";
      bool found = false;
      for (unsigned k = 0; k < cl.size && !found; k++) {
        Cta& cta = cl.ctas[k];
        if (cta.done) continue;
        c.cta = &cta;
        c.w = &cta.warps[0];
        for (auto& w : cta.warps) {
          FOR_LANES(w.waiting) {
            if (found || (w.barId[l] != 0xFF && w.barId[l] != kClusterBarId)) continue;
            found = true;
            c.w = &w;
            why = w.barId[l] == kClusterBarId
                      ? "deadlock: lane " + std::to_string(l) + " of warp " + std::to_string(w.id) +
                            " waits at barrier.cluster.wait for threads of the cluster that never arrive"
                      : "deadlock: lane " + std::to_string(l) + " of warp " + std::to_string(w.id) +
                            " waits in a .sync warp collective for lanes of its membermask that never arrive";
          }
        }
      }
      if (!found) {
        for (unsigned k = 0; k < cl.size; k++)
          if (!cl.ctas[k].done) { c.cta = &cl.ctas[k]; c.w = &cl.ctas[k].warps[0]; break; }
      }
      raise(c, Fault::Timeout, 0, 0, 0, false, why);
      return;
    }
  }
}

}  // namespace

Fault launch(Module& module, const KernelInfo& kernel, const LaunchConfig& cfg, GlobalMemory& mem,
             Counters& counters) {
  Fault result;
  auto* m = dynamic_cast<PtxModule*>(&module);
  int fi = m ? m->findFunction(kernel.name) : -1;
  if (fi < 0) {
    result.kind = Fault::IllegalInstruction;
    result.kernel = kernel.name;
    result.detail = "kernel not found in module";
    return result;
  }
  if (!m->bound) {
    std::string log;
    if (!m->bindGlobals(mem, log)) {
      result.kind = Fault::OutOfBounds;
      result.kernel = kernel.name;
      result.detail = log;
      return result;
    }
  }
  Launch L;
  L.mod = m;
  L.prog = &m->prog;
  L.fn = &m->prog.funcs[fi];
  L.cfg = &cfg;
  L.mem = &mem;
  const Function& fn = *L.fn;
  for (auto& cs : m->prog.consts) {
    uint64_t v = cs.value;
    if (cs.kind == ConstSlot::GlobalVar) v += m->globalList[cs.var].addr;
    if (cs.kind == ConstSlot::SharedVar) v += fn.sharedOffset.empty() || fn.sharedOffset[cs.var] == ~0u ? 0 : fn.sharedOffset[cs.var];
    L.constVals.push_back(v);
  }
  unsigned sharedBytes = fn.info.staticSharedBytes;
  if (cfg.dynamicSharedBytes) sharedBytes = (sharedBytes + 15) / 16 * 16 + cfg.dynamicSharedBytes;
  uint64_t nctas = (uint64_t)cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
  unsigned nthreads = cfg.block[0] * cfg.block[1] * cfg.block[2];
  if (!nctas || !nthreads) return result;
  unsigned workers = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
  const uint64_t csize64 = (uint64_t)cfg.cluster[0] * cfg.cluster[1] * cfg.cluster[2];
  if (!csize64 || csize64 > 64 || cfg.grid[0] % cfg.cluster[0] || cfg.grid[1] % cfg.cluster[1] ||
      cfg.grid[2] % cfg.cluster[2]) {
    result.kind = Fault::IllegalInstruction;
    result.kernel = kernel.name;
    result.detail = "bad cluster shape: zero, more than 64 CTAs, or the grid is not divisible by it";
    return result;
  }
  const unsigned csize = (unsigned)csize64;
  const uint64_t nclusters = nctas / csize;
  workers = (unsigned)std::min<uint64_t>(workers, nclusters);
  L.nclusters = nclusters;
  auto work = [&]() {
    Ctx c;
    c.L = &L;
    c.prog = L.prog;
    std::vector<Cta> ctas(csize);
    Cluster cl;
    cl.ctas = ctas.data();
    cl.size = csize;
    for (auto& x : ctas) x.cluster = &cl;
    c.cta = &ctas[0];
    SanState san;  // sanitizers (sanitize.h)
    san.flags = cfg.sanitize;
    san.trackInit = cfg.trackInit;
    if (cfg.sanitize || cfg.trackInit) c.san = &san;
    for (;;) {
      uint64_t id = L.nextCluster.fetch_add(1);
      if (id >= nclusters || L.stop.load()) break;
      c.w = nullptr;
      cl.phase = 0;
      const unsigned* cd = cfg.cluster;
      const unsigned ncl[3] = {cfg.grid[0] / cd[0], cfg.grid[1] / cd[1], cfg.grid[2] / cd[2]};
      const uint64_t cid[3] = {id % ncl[0], (id / ncl[0]) % ncl[1], id / ((uint64_t)ncl[0] * ncl[1])};
      for (unsigned r = 0; r < csize; r++) {
        const unsigned ctaid[3] = {(unsigned)(cid[0] * cd[0] + r % cd[0]),
                                   (unsigned)(cid[1] * cd[1] + (r / cd[0]) % cd[1]),
                                   (unsigned)(cid[2] * cd[2] + r / (cd[0] * cd[1]))};
        c.cta = &ctas[r];
        initCta(c, ctas[r], ctaid, r, sharedBytes);
      }
      runCluster(c, cl);
      if (c.faulted) {
        std::lock_guard<std::mutex> g(L.mu);
        if (L.fault.kind == Fault::None) L.fault = c.fault;
        L.stop = true;
        break;
      }
    }
    std::lock_guard<std::mutex> g(L.mu);
    if (c.san) sanMerge(L, san);
    counters.warpInstructions += c.ctr.warpInstructions;
    counters.threadInstructions += c.ctr.threadInstructions;
    for (int i = 0; i < 8; i++) counters.byClass[i] += c.ctr.byClass[i];
    counters.globalLoadRequests += c.ctr.globalLoadRequests;
    counters.globalStoreRequests += c.ctr.globalStoreRequests;
    counters.globalLoadSectors += c.ctr.globalLoadSectors;
    counters.globalStoreSectors += c.ctr.globalStoreSectors;
    counters.sharedAccesses += c.ctr.sharedAccesses;
    counters.sharedBankConflicts += c.ctr.sharedBankConflicts;
    counters.barriers += c.ctr.barriers;
  };
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> ts;
    for (unsigned i = 0; i < workers; i++) ts.emplace_back(work);
    for (auto& t : ts) t.join();
  }
  if (L.fault.kind == Fault::None && !L.hazards.empty()) {
    L.fault.kind = Fault::Hazard;
    L.fault.kernel = fn.name;
    L.fault.detail = sanReport(L);
  } else if (!L.hazards.empty()) {
    L.fault.detail += "\n" + sanReport(L);  // what the sanitizers found before the fault
  }
  return L.fault;
}

}  // namespace tsim
