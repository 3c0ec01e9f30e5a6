// Device global memory of one context, with the memory checker: every allocation lives at a
// device address that is never reused, so a freed range stays behind as a tombstone and a later
// access to it is reported as use-after-free instead of silently hitting a new allocation.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "sim.h"

namespace tsimdrv {

struct Allocation {
  uint64_t base = 0;
  size_t bytes = 0;
  uint8_t* host = nullptr;  // nullptr once freed (tombstone)
  bool moduleVar = false;   // owned by a module, not freeable with cuMemFree
  size_t capacity = 0;      // host bytes behind it (bytes rounded up); `bytes` may shrink below it (resize)
  uint8_t* init = nullptr;  // initcheck shadow (a byte per byte, nonzero = written); nullptr = untracked
};

class DeviceMemory final : public tsim::GlobalMemory {
 public:
  // `generations` hands out process-unique generation numbers, so a translation cached for a
  // destroyed memory can never match a new one that happens to reuse its address.
  DeviceMemory(size_t capacity, std::atomic<uint64_t>& generations, uint64_t base = 0);  // base 0: 2^47
  ~DeviceMemory() override;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  uint8_t* translate(uint64_t addr, unsigned size, bool write, tsim::Fault& f) override;
  uint64_t allocModuleVar(size_t bytes, size_t align) override;

  // 0 when out of memory.
  uint64_t allocate(size_t bytes, bool moduleVar = false);
  // False when addr is not the base of a live, user-owned allocation.
  bool release(uint64_t addr, bool moduleVar = false);
  // Sets the checked size of a live allocation to `bytes` (at most its capacity): a pool block
  // handed out again is checked against the new request, not the block, and initcheck's shadow
  // (if any) starts over as unwritten. False if not possible.
  bool resize(uint64_t addr, size_t bytes);
  // Host bytes for [addr, addr+bytes) when the range lies inside one live allocation.
  uint8_t* hostRange(uint64_t addr, size_t bytes);
  // The live allocation containing addr (base/size), false if none.
  bool find(uint64_t addr, Allocation& out);
  size_t used() const { return used_.load(); }
  size_t capacity() const { return capacity_; }
  // Text naming the allocation nearest to addr, for fault reports.
  std::string describeNearest(uint64_t addr);
  // initcheck: allocations made while *trackInit is true get a shadow of written bytes.
  std::atomic<bool>* trackInit = nullptr;
  uint8_t* initShadow(uint64_t addr, size_t bytes) override;
  uint8_t* initShadowOf(uint64_t addr, uint64_t* lo, uint64_t* hi) override;
  void markInit(uint64_t addr, size_t bytes);  // a copy or memset wrote [addr, addr+bytes)

 private:
  const Allocation* containing(uint64_t addr) const;  // live or freed; caller holds the lock

  const size_t capacity_;
  std::atomic<size_t> used_{0};
  std::atomic<uint64_t>& generations_;
  std::atomic<uint64_t> generation_;  // renewed on every free: invalidates translate caches
  uint64_t next_;
  mutable std::shared_mutex mu_;
  std::map<uint64_t, Allocation> allocs_;  // by base address, tombstones included
};

}  // namespace tsimdrv
