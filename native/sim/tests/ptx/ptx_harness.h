// Test support for the PTX half of the simulator: a vector-backed GlobalMemory, a launcher that
// packs parameters, and CHECK macros that count failures (main returns nonzero on any failure).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
#include <unistd.h>

#include "sim.h"

namespace ptxtest {

inline int failures = 0;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);            \
      ptxtest::failures++;                                                            \
    }                                                                                 \
  } while (0)
#define CHECK_EQ(a, b)                                                                                     \
  do {                                                                                                     \
    auto _a = (a);                                                                                         \
    auto _b = (b);                                                                                         \
    if (!(_a == _b)) {                                                                                     \
      std::printf("%s:%d: CHECK_EQ failed: %s == %s (0x%llx vs 0x%llx)\n", __FILE__, __LINE__, #a, #b,     \
                  (unsigned long long)_a, (unsigned long long)_b);                                         \
      ptxtest::failures++;                                                                                 \
    }                                                                                                      \
  } while (0)

inline uint32_t fbits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
inline float bitsf(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
inline uint64_t dbits(double d) { uint64_t b; std::memcpy(&b, &d, 8); return b; }
inline double bitsd(uint64_t b) { double d; std::memcpy(&d, &b, 8); return d; }

// Allocations are carved from one host vector; device addresses start at kBase.
class Arena : public tsim::GlobalMemory {
 public:
  static constexpr uint64_t kBase = 0x10000000;
  explicit Arena(size_t bytes = 64 << 20) : host_(bytes) {}
  uint64_t alloc(size_t bytes, size_t align = 256) {
    std::lock_guard<std::mutex> g(mu_);
    next_ = (next_ + align - 1) / align * align;
    uint64_t a = kBase + next_;
    live_[a] = bytes;
    next_ += bytes + 256;  // gap so that overruns land outside every allocation
    return a;
  }
  void free(uint64_t a) { std::lock_guard<std::mutex> g(mu_); freed_[a] = live_[a]; live_.erase(a); }
  uint8_t* translate(uint64_t addr, unsigned size, bool write, tsim::Fault& f) override {
    std::lock_guard<std::mutex> g(mu_);
    (void)write;
    for (auto& [a, n] : live_)
      if (addr >= a && addr + size <= a + n) return host_.data() + (addr - kBase);
    f.kind = tsim::Fault::OutOfBounds;
    for (auto& [a, n] : freed_)
      if (addr >= a && addr < a + n) f.kind = tsim::Fault::UseAfterFree;
    f.addr = addr;
    f.size = size;
    return nullptr;
  }
  uint64_t allocModuleVar(size_t bytes, size_t align) override { return alloc(bytes, align); }
  template <class T> void put(uint64_t a, const std::vector<T>& v) {
    std::memcpy(host_.data() + (a - kBase), v.data(), v.size() * sizeof(T));
  }
  template <class T> std::vector<T> get(uint64_t a, size_t n) {
    std::vector<T> v(n);
    std::memcpy(v.data(), host_.data() + (a - kBase), n * sizeof(T));
    return v;
  }

 private:
  std::vector<uint8_t> host_;
  size_t next_ = 0;
  std::map<uint64_t, size_t> live_, freed_;
  std::mutex mu_;
};

struct Kernel {
  std::unique_ptr<tsim::Module> mod;
  std::string log;
  explicit Kernel(const std::string& ptx) {
    mod = tsim::parsePtx(ptx, log);
    if (!mod) std::printf("parse failed:\n%s", log.c_str());
  }
  bool ok() const { return mod != nullptr; }
  // args: one value per kernel parameter, stored with the parameter's size.
  tsim::Fault run(Arena& mem, const char* name, std::vector<uint64_t> args, unsigned gridX, unsigned blockX,
                  tsim::Counters* ctr = nullptr, unsigned dynShared = 0, uint64_t budget = 0,
                  unsigned threads = 2, unsigned blockY = 1, unsigned gridY = 1, unsigned sanitize = 0) {
    tsim::Fault bad;
    bad.kind = tsim::Fault::IllegalInstruction;
    if (!mod) return bad;
    const tsim::KernelInfo* k = nullptr;
    for (auto& ki : mod->kernels()) if (ki.name == name) k = &ki;
    if (!k || k->params.size() != args.size()) { std::printf("kernel %s not found or bad args\n", name); return bad; }
    std::string log2;
    if (!mod->bindGlobals(mem, log2)) { std::printf("bind: %s\n", log2.c_str()); return bad; }
    std::vector<uint8_t> buf(k->paramBytes + 8);
    for (size_t i = 0; i < args.size(); i++) std::memcpy(buf.data() + k->params[i].offset, &args[i], k->params[i].size);
    tsim::LaunchConfig cfg;
    cfg.grid[0] = gridX;
    cfg.grid[1] = gridY;
    cfg.block[0] = blockX;
    cfg.block[1] = blockY;
    cfg.dynamicSharedBytes = dynShared;
    cfg.params = buf.data();
    cfg.instructionBudget = budget;
    cfg.threads = threads;
    cfg.sanitize = sanitize;  // LaunchConfig::sanitize: 1 racecheck, 2 synccheck, 4 initcheck
    tsim::Counters local;
    return tsim::launch(*mod, *k, cfg, mem, ctr ? *ctr : local);
  }
};

// --- checks shared by the test programs (each prints what differs and counts one failure) ---

// `PROGRAM --ptxas PATH`: the ptxas to check modules with, else nullptr (no ptxas checks).
inline const char* ptxasArg(int argc, char** argv) {
  return argc == 3 && std::string(argv[1]) == "--ptxas" ? argv[2] : nullptr;
}

// Whether `ptxas -arch=sm_100a` assembles ptx (its messages discarded).
inline bool ptxasAssembles(const char* ptxas, const std::string& ptx) {
  static int seq = 0;  // a file per call: a test may run ptxas on several modules
  const std::string file = "/tmp/tsim_ptx_" + std::to_string(::getpid()) + "_" + std::to_string(seq++) + ".ptx";
  std::ofstream(file) << ptx;
  const std::string cmd = std::string(ptxas) + " -arch=sm_100a -o /dev/null " + file + " 2>/dev/null";
  const bool ok = std::system(cmd.c_str()) == 0;
  std::remove(file.c_str());
  return ok;
}

// Each module is valid sm_100a PTX for ptxas (valid) or refused by it (!valid). No-op without
// ptxas. The first module that disagrees is printed whole, later ones by index.
inline void expectPtxas(const char* ptxas, const std::vector<std::string>& modules, bool valid = true) {
  if (!ptxas) return;
  int bad = 0;
  for (size_t i = 0; i < modules.size(); i++) {
    if (ptxasAssembles(ptxas, modules[i]) == valid) continue;
    if (bad++ == 0) std::printf("ptxas -arch=sm_100a %s module %zu:\n%s\n", valid ? "refuses" : "accepts", i, modules[i].c_str());
    else std::printf("ptxas -arch=sm_100a %s module %zu too\n", valid ? "refuses" : "accepts", i);
  }
  if (bad) failures++;
}

// The loader refuses ptx with `phrase` in its log.
inline bool expectLoadError(const std::string& name, const std::string& ptx, const char* phrase) {
  std::string log;
  auto mod = tsim::parsePtx(ptx, log);
  if (mod || log.find(phrase) == std::string::npos) {
    std::printf("%s: expected a load error with \"%s\", got %s\n", name.c_str(), phrase, mod ? "a module" : ("\"" + log + "\"").c_str());
    failures++;
    return false;
  }
  return true;
}

// A launch ended as a case expects: with a sanitizer report (Fault::Hazard) containing `hazard`;
// else with a fault containing `fault`, of kind faultKind (Fault::None: any kind); else (both
// null) without a fault. True when it ran clean as expected: its results are then worth comparing.
inline bool expectOutcome(const std::string& name, const tsim::Fault& f, const char* fault, const char* hazard = nullptr,
                          tsim::Fault::Kind faultKind = tsim::Fault::None) {
  const char* phrase = hazard ? hazard : fault;
  if (!phrase) {
    if (f.kind == tsim::Fault::None) return true;
    std::printf("%s: fault %d %s\n", name.c_str(), (int)f.kind, f.detail.c_str());
    failures++;
    return false;
  }
  const tsim::Fault::Kind kind = hazard ? tsim::Fault::Hazard : faultKind;
  const bool kindOk = kind == tsim::Fault::None ? f.kind != tsim::Fault::None : f.kind == kind;
  if (!kindOk || f.detail.find(phrase) == std::string::npos) {
    std::printf("%s: expected %s (kind %d) with \"%s\", got kind %d: %s\n", name.c_str(), hazard ? "a sanitizer report" : "a fault", (int)kind,
                phrase, (int)f.kind, f.detail.c_str());
    failures++;
  }
  return false;
}

// got equals want cell for cell (rows of `width` 32-bit cells, named rowName in the messages:
// "lane", "row"); the first `show` differences are printed, as bits and as f32.
inline bool expectCells(const std::string& name, const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, size_t width,
                        const char* rowName = "lane", int show = 3) {
  int bad = got.size() == want.size() ? 0 : 1;
  if (bad) std::printf("%s: %zu cells, want %zu\n", name.c_str(), got.size(), want.size());
  for (size_t i = 0; i < got.size() && i < want.size(); i++)
    if (got[i] != want[i] && bad++ < show)
      std::printf("%s: %s %zu column %zu: got 0x%08x (%.9g), want 0x%08x (%.9g)\n", name.c_str(), rowName, i / width, i % width, got[i],
                  bitsf(got[i]), want[i], bitsf(want[i]));
  if (bad) failures++;
  return !bad;
}

// A kernel `k(out u64, in u64)` around a body that reads %in-derived registers: see tests.
inline int finish(const char* name) {
  if (ptxtest::failures) std::printf("%s: %d failure(s)\n", name, ptxtest::failures);
  else std::printf("%s: ok\n", name);
  return ptxtest::failures ? 1 : 0;
}

}  // namespace ptxtest
