#include "memcheck_memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tsimdrv {

namespace {
// Device addresses start at 2^47: above every x86-64/aarch64 user-space host address, so a host
// pointer passed where a device pointer belongs is never mistaken for one (and stays exact in a
// JavaScript number).
constexpr uint64_t kBase = uint64_t(1) << 47;
constexpr uint64_t kAlign = 256;  // cuMemAlloc's guaranteed alignment
constexpr uint64_t kGuard = 256;  // unmapped gap after each allocation: off-by-one accesses fault

uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// One-entry translation cache per CTA worker thread (hot path: every global access). Valid while
// the owning memory's generation is unchanged; a free bumps the generation.
struct TranslateCache {
  const DeviceMemory* owner = nullptr;
  uint64_t generation = 0, base = 0, end = 0;
  uint8_t* host = nullptr;
};
thread_local TranslateCache tlsCache;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

DeviceMemory::DeviceMemory(size_t capacity, std::atomic<uint64_t>& generations, uint64_t base)
    : capacity_(capacity), generations_(generations), generation_(generations.fetch_add(1) + 1),
      next_(base ? base : kBase) {}

DeviceMemory::~DeviceMemory() {
  for (auto& [base, a] : allocs_) {
    std::free(a.host);
    std::free(a.init);
  }
  if (tlsCache.owner == this) tlsCache = TranslateCache{};
}

uint64_t DeviceMemory::allocate(size_t bytes, bool moduleVar) {
  if (bytes == 0 || bytes > capacity_) return 0;  // also keeps roundUp from overflowing
  const uint64_t rounded = roundUp(bytes, kAlign);
  // Reserve first so concurrent allocations cannot overshoot the capacity together.
  size_t before = used_.fetch_add(rounded);
  if (rounded > capacity_ || before + rounded > capacity_) {
    used_ -= rounded;
    return 0;
  }
  // calloc: large blocks come from mmap and are only backed when touched.
  auto* host = static_cast<uint8_t*>(std::calloc(1, rounded));
  if (!host) {
    used_ -= rounded;
    return 0;
  }
  uint8_t* init = nullptr;
  if (!moduleVar && trackInit && trackInit->load()) {
    init = static_cast<uint8_t*>(std::calloc(1, rounded));
    if (!init) {
      std::free(host);
      used_ -= rounded;
      return 0;
    }
  }
  std::unique_lock lock(mu_);
  const uint64_t base = next_;
  next_ = roundUp(base + rounded + kGuard, kAlign);
  allocs_[base] = Allocation{base, bytes, host, moduleVar, rounded, init};
  return base;
}

uint64_t DeviceMemory::allocModuleVar(size_t bytes, size_t /*align: kAlign covers every PTX alignment*/) {
  return allocate(bytes == 0 ? 1 : bytes, true);
}

bool DeviceMemory::release(uint64_t addr, bool moduleVar) {
  std::unique_lock lock(mu_);
  auto it = allocs_.find(addr);
  if (it == allocs_.end() || !it->second.host || it->second.moduleVar != moduleVar) return false;
  std::free(it->second.host);
  std::free(it->second.init);
  it->second.host = nullptr;  // keep the range as a tombstone
  it->second.init = nullptr;
  used_ -= it->second.capacity ? it->second.capacity : roundUp(it->second.bytes, kAlign);
  generation_.store(generations_.fetch_add(1) + 1, std::memory_order_release);
  return true;
}

bool DeviceMemory::resize(uint64_t addr, size_t bytes) {
  std::unique_lock lock(mu_);
  auto it = allocs_.find(addr);
  if (it == allocs_.end() || !it->second.host || bytes == 0 || bytes > it->second.capacity) return false;
  it->second.bytes = bytes;
  // A block handed out again is a new allocation to initcheck: nothing in it is written yet.
  Allocation& a = it->second;
  if (a.init) std::memset(a.init, 0, a.capacity);
  else if (!a.moduleVar && trackInit && trackInit->load()) a.init = static_cast<uint8_t*>(std::calloc(1, a.capacity));
  generation_.store(generations_.fetch_add(1) + 1, std::memory_order_release);  // drop cached translations
  return true;
}

const Allocation* DeviceMemory::containing(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  if (addr < it->second.base + it->second.bytes) return &it->second;
  return nullptr;
}

uint8_t* DeviceMemory::hostRange(uint64_t addr, size_t bytes) {
  std::shared_lock lock(mu_);
  const Allocation* a = containing(addr);
  if (!a || !a->host || bytes > a->base + a->bytes - addr) return nullptr;
  return a->host + (addr - a->base);
}

uint8_t* DeviceMemory::initShadow(uint64_t addr, size_t bytes) {
  std::shared_lock lock(mu_);
  const Allocation* a = containing(addr);
  if (!a || !a->host || !a->init || bytes > a->base + a->bytes - addr) return nullptr;
  return a->init + (addr - a->base);
}

uint8_t* DeviceMemory::initShadowOf(uint64_t addr, uint64_t* lo, uint64_t* hi) {
  std::shared_lock lock(mu_);
  const Allocation* a = containing(addr);
  if (!a || !a->host) {
    *lo = *hi = 0;
    return nullptr;
  }
  *lo = a->base;
  *hi = a->base + a->bytes;
  return a->init;
}

void DeviceMemory::markInit(uint64_t addr, size_t bytes) {
  if (uint8_t* s = bytes ? initShadow(addr, bytes) : nullptr) std::memset(s, 1, bytes);
}

bool DeviceMemory::find(uint64_t addr, Allocation& out) {
  std::shared_lock lock(mu_);
  const Allocation* a = containing(addr);
  if (!a || !a->host) return false;
  out = *a;
  return true;
}

std::string DeviceMemory::describeNearest(uint64_t addr) {
  std::shared_lock lock(mu_);
  const Allocation* best = nullptr;
  uint64_t bestDist = ~uint64_t(0);
  auto consider = [&](const Allocation& a) {
    uint64_t d = addr < a.base ? a.base - addr : (addr >= a.base + a.bytes ? addr - (a.base + a.bytes) + 1 : 0);
    if (d < bestDist) { bestDist = d; best = &a; }
  };
  auto it = allocs_.upper_bound(addr);
  if (it != allocs_.end()) consider(it->second);
  if (it != allocs_.begin()) consider(std::prev(it)->second);
  if (!best) return "no allocation exists";
  std::string s = std::string("nearest allocation ") + (best->host ? "" : "(freed) ") + hex(best->base) + " (" +
                  std::to_string(best->bytes) + " bytes)";
  if (addr < best->base) s += ", address is " + std::to_string(best->base - addr) + " bytes before it";
  else if (addr >= best->base + best->bytes)
    s += ", address is " + std::to_string(addr - (best->base + best->bytes)) + " bytes past its end";
  else s += ", offset " + std::to_string(addr - best->base);
  return s;
}

uint8_t* DeviceMemory::translate(uint64_t addr, unsigned size, bool write, tsim::Fault& f) {
  if (size != 0 && (size & (size - 1)) == 0 && addr % size != 0) {
    f.kind = tsim::Fault::Misaligned;
    f.addr = addr; f.size = size; f.write = write;
    f.detail = "address not aligned to the " + std::to_string(size) + "-byte access; " + describeNearest(addr);
    return nullptr;
  }
  TranslateCache& c = tlsCache;
  if (c.owner == this && c.generation == generation_.load(std::memory_order_acquire) && addr >= c.base &&
      addr + size <= c.end && addr + size >= addr)
    return c.host + (addr - c.base);
  {
    std::shared_lock lock(mu_);
    const Allocation* a = containing(addr);
    if (a && a->host && size <= a->base + a->bytes - addr) {
      c = TranslateCache{this, generation_.load(std::memory_order_acquire), a->base, a->base + a->bytes, a->host};
      return a->host + (addr - a->base);
    }
    f.kind = (a && !a->host) ? tsim::Fault::UseAfterFree : tsim::Fault::OutOfBounds;
  }
  f.addr = addr; f.size = size; f.write = write;
  f.detail = describeNearest(addr);
  return nullptr;
}

}  // namespace tsimdrv
