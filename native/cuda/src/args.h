// Argument reading for N-API callbacks: every value is type- and range-checked, and a bad one
// throws E_ARG / E_RANGE naming the method and parameter.
#pragma once
#include <node_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tcu {

class Args {
 public:
  Args(napi_env env, napi_callback_info info, const char* method, size_t max);
  napi_value operator[](size_t i) const { return i < values_.size() ? values_[i] : undefined_; }
  napi_value self() const { return self_; }
  size_t count() const { return count_; }
  const char* method() const { return method_; }
  // "memAlloc(bytes)": used in messages.
  std::string where(const char* param) const;

 private:
  napi_value self_ = nullptr;
  napi_value undefined_ = nullptr;
  std::vector<napi_value> values_;
  size_t count_ = 0;
  const char* method_;
};

struct Bytes {
  uint8_t* data = nullptr;
  size_t length = 0;
};

napi_valuetype typeOf(napi_env env, napi_value v);
bool isNullish(napi_env env, napi_value v);

// A non-negative integer given as a number (safe integer) or a BigInt, at most `max`.
uint64_t toU64(napi_env env, napi_value v, const std::string& what, uint64_t max);
uint32_t toU32(napi_env env, napi_value v, const std::string& what);
std::string toStr(napi_env env, napi_value v, const std::string& what);
// TypedArray, DataView or ArrayBuffer: the bytes it views.
Bytes toBytes(napi_env env, napi_value v, const std::string& what);
bool isBytes(napi_env env, napi_value v);
// An array of 1-3 positive uint32 values, padded with 1s (grid and block dimensions).
void toDim3(napi_env env, napi_value v, const std::string& what, unsigned out[3]);

napi_value jsNumber(napi_env env, double v);
napi_value jsBigU64(napi_env env, uint64_t v);
napi_value jsString(napi_env env, const std::string& s);
napi_value jsBool(napi_env env, bool b);
napi_value jsUndefined(napi_env env);
napi_value jsNull(napi_env env);
napi_value jsObject(napi_env env);
// A read-only, enumerable property.
void setConst(napi_env env, napi_value obj, const char* key, napi_value value);

}  // namespace tcu
