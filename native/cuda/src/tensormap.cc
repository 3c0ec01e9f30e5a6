// tensorMapEncodeTiled(...) -> Uint8Array(128): cuTensorMapEncodeTiled (sm_90 TMA), the 128-byte
// opaque CUtensorMap a kernel receives by value (`.param .align 64 .b8 [128]`). Every argument is
// checked here for type and range; the driver's own checks (alignment, strides, box sizes) come
// back as its error name (CUDA_ERROR_INVALID_VALUE), never a crash.
#include <cstring>

#include "addon.h"
#include "js_error.h"

namespace tcu {

namespace {

// An array of `rank` (or `rank - 1`) non-negative integers, each at most `max`.
void readList(const Args& a, size_t i, const char* name, uint32_t n, uint64_t max, unsigned long long* out) {
  Napi::Array arr = toArray(a[i], a.where(name), "an array of integers");
  if (arr.Length() != n) {
    fail("E_RANGE", a.where(name) + ": expected " + std::to_string(n) + " entries, got " + std::to_string(arr.Length()));
  }
  for (uint32_t k = 0; k < n; ++k) out[k] = toU64(arr.Get(k), a.where(name) + "[" + std::to_string(k) + "]", max);
}

}  // namespace

// tensorMapEncodeTiled(dataType, rank, address, dims, strides, box, elementStrides, interleave,
//                      swizzle, l2Promotion, oobFill): dims/box/elementStrides have `rank`
// entries, strides (bytes, dims 1..rank-1) rank - 1, all innermost first, as cuda.h takes them.
Napi::Value Driver::tensorMapEncodeTiled(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "tensorMapEncodeTiled");
  DriverRef d = state_;
  uint32_t dataType = static_cast<uint32_t>(toU64(a[0], a.where("dataType"), 64));
  uint32_t rank = static_cast<uint32_t>(toU64(a[1], a.where("rank"), 5));
  if (rank == 0) fail("E_RANGE", a.where("rank") + ": must be 1 to 5");
  uint64_t address = toU64(a[2], a.where("address"), UINT64_MAX);
  unsigned long long dims[5], strides[5] = {0}, box64[5], es64[5];
  readList(a, 3, "dims", rank, UINT64_MAX, dims);
  readList(a, 4, "strides", rank - 1, UINT64_MAX, strides);
  readList(a, 5, "box", rank, 0xffffffffu, box64);
  readList(a, 6, "elementStrides", rank, 0xffffffffu, es64);
  uint32_t interleave = toU32(a[7], a.where("interleave"));
  uint32_t swizzle = toU32(a[8], a.where("swizzle"));
  uint32_t l2 = toU32(a[9], a.where("l2Promotion"));
  uint32_t oob = toU32(a[10], a.where("oobFill"));
  uint32_t box[5], es[5];
  for (uint32_t k = 0; k < rank; ++k) {
    box[k] = static_cast<uint32_t>(box64[k]);
    es[k] = static_cast<uint32_t>(es64[k]);
  }
  alignas(64) uint8_t map[128];
  std::memset(map, 0, sizeof map);
  d->bind();
  auto fn = d->need(d->api().cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  d->check(fn(map, dataType, rank, reinterpret_cast<void*>(static_cast<uintptr_t>(address)), dims, strides, box, es,
              interleave, swizzle, l2, oob),
           "cuTensorMapEncodeTiled");
  Napi::Uint8Array out = Napi::Uint8Array::New(env, 128);
  std::memcpy(out.Data(), map, 128);
  return out;
}

}  // namespace tcu
