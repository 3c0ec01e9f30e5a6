// Argument reading for the addon's methods: every value is type- and range-checked, and a bad
// one throws E_ARG / E_RANGE naming the method and parameter (node-addon-api's own conversions
// would throw uncoded errors, so values are checked before they are converted).
#pragma once
#include <napi.h>

#include <cstdint>
#include <string>

namespace tcu {

class Args {
 public:
  Args(const Napi::CallbackInfo& info, const char* method) : info_(info), method_(method) {}
  Napi::Value operator[](size_t i) const { return info_[i]; }  // undefined past the end
  Napi::Value self() const { return info_.This(); }
  size_t count() const { return info_.Length(); }
  const char* method() const { return method_; }
  // "memAlloc(bytes)": used in messages.
  std::string where(const char* param) const;

 private:
  const Napi::CallbackInfo& info_;
  const char* method_;
};

struct Bytes {
  uint8_t* data = nullptr;
  size_t length = 0;
};

bool isNullish(const Napi::Value& v);

// A non-negative integer given as a number (safe integer) or a BigInt, at most `max`.
uint64_t toU64(const Napi::Value& v, const std::string& what, uint64_t max);
uint32_t toU32(const Napi::Value& v, const std::string& what);
std::string toStr(const Napi::Value& v, const std::string& what);
// TypedArray, DataView or ArrayBuffer: the bytes it views.
Bytes toBytes(const Napi::Value& v, const std::string& what);
bool isBytes(const Napi::Value& v);
// A JS array (E_ARG naming `what` and `expected` otherwise).
Napi::Array toArray(const Napi::Value& v, const std::string& what, const char* expected);
// An array of 1-3 positive uint32 values, padded with 1s (grid and block dimensions).
void toDim3(const Napi::Value& v, const std::string& what, unsigned out[3]);

Napi::BigInt bigU64(Napi::Env env, uint64_t v);
// A read-only, enumerable property.
void setConst(Napi::Object obj, const char* key, Napi::Value value);

}  // namespace tcu
