// Test support for the PTX half of the simulator: a vector-backed GlobalMemory, a launcher that
// packs parameters, and CHECK macros that count failures (main returns nonzero on any failure).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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

// A kernel `k(out u64, in u64)` around a body that reads %in-derived registers: see tests.
inline int finish(const char* name) {
  if (ptxtest::failures) std::printf("%s: %d failure(s)\n", name, ptxtest::failures);
  else std::printf("%s: ok\n", name);
  return ptxtest::failures ? 1 : 0;
}

}  // namespace ptxtest
