#include "args.h"

#include <cmath>

#include "js_error.h"

namespace tcu {

std::string Args::where(const char* param) const {
  return std::string(method_) + "(" + param + ")";
}

bool isNullish(const Napi::Value& v) { return v.IsUndefined() || v.IsNull(); }

static const char* typeName(const Napi::Value& v) {
  switch (v.Type()) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return "a boolean";
    case napi_number: return "a number";
    case napi_string: return "a string";
    case napi_symbol: return "a symbol";
    case napi_object: return "an object";
    case napi_function: return "a function";
    case napi_external: return "an external";
    case napi_bigint: return "a bigint";
  }
  return "unknown";
}

uint64_t toU64(const Napi::Value& v, const std::string& what, uint64_t max) {
  uint64_t out = 0;
  if (v.IsNumber()) {
    double d = v.As<Napi::Number>().DoubleValue();
    if (!std::isfinite(d) || d != std::floor(d) || d < 0 || d > 9007199254740991.0) {
      fail("E_RANGE", what + ": expected a non-negative integer, got " + std::to_string(d));
    }
    out = static_cast<uint64_t>(d);
  } else if (v.IsBigInt()) {
    auto big = v.As<Napi::BigInt>();
    if (big.WordCount() > 1) fail("E_RANGE", what + ": bigint out of the unsigned 64-bit range");
    int sign = 0;
    size_t words = 1;
    uint64_t w = 0;
    big.ToWords(&sign, &words, &w);
    if (sign != 0) fail("E_RANGE", what + ": bigint out of the unsigned 64-bit range");
    out = words == 0 ? 0 : w;
  } else {
    failArg(what + ": expected a number or bigint, got " + typeName(v));
  }
  if (out > max) {
    fail("E_RANGE", what + ": " + std::to_string(out) + " exceeds the maximum " + std::to_string(max));
  }
  return out;
}

uint32_t toU32(const Napi::Value& v, const std::string& what) {
  return static_cast<uint32_t>(toU64(v, what, 0xffffffffull));
}

std::string toStr(const Napi::Value& v, const std::string& what) {
  if (!v.IsString()) failArg(what + ": expected a string, got " + typeName(v));
  return v.As<Napi::String>().Utf8Value();
}

bool isBytes(const Napi::Value& v) { return v.IsTypedArray() || v.IsDataView() || v.IsArrayBuffer(); }

Bytes toBytes(const Napi::Value& v, const std::string& what) {
  Bytes b;
  if (v.IsTypedArray()) {
    auto ta = v.As<Napi::TypedArray>();
    b.length = ta.ByteLength();
    auto* base = static_cast<uint8_t*>(ta.ArrayBuffer().Data());
    b.data = base ? base + ta.ByteOffset() : nullptr;
    if (!b.data) b.length = 0;
    return b;
  }
  if (v.IsDataView()) {
    auto dv = v.As<Napi::DataView>();
    b.length = dv.ByteLength();
    auto* base = static_cast<uint8_t*>(dv.ArrayBuffer().Data());
    b.data = base ? base + dv.ByteOffset() : nullptr;
    if (!b.data) b.length = 0;
    return b;
  }
  if (v.IsArrayBuffer()) {
    auto ab = v.As<Napi::ArrayBuffer>();
    b.data = static_cast<uint8_t*>(ab.Data());
    b.length = b.data ? ab.ByteLength() : 0;
    return b;
  }
  failArg(what + ": expected a TypedArray, DataView or ArrayBuffer, got " + typeName(v));
}

Napi::Array toArray(const Napi::Value& v, const std::string& what, const char* expected) {
  if (!v.IsArray()) failArg(what + ": expected " + expected);
  return v.As<Napi::Array>();
}

void toDim3(const Napi::Value& v, const std::string& what, unsigned out[3]) {
  Napi::Array arr = toArray(v, what, "an array of 1 to 3 positive integers");
  uint32_t n = arr.Length();
  if (n < 1 || n > 3) fail("E_RANGE", what + ": expected 1 to 3 dimensions, got " + std::to_string(n));
  for (uint32_t i = 0; i < 3; ++i) {
    out[i] = 1;
    if (i >= n) continue;
    std::string w = what + "[" + std::to_string(i) + "]";
    out[i] = toU32(arr.Get(i), w);
    if (out[i] == 0) fail("E_RANGE", w + ": must be at least 1");
  }
}

Napi::BigInt bigU64(Napi::Env env, uint64_t v) { return Napi::BigInt::New(env, v); }

void setConst(Napi::Object obj, const char* key, Napi::Value value) {
  obj.DefineProperty(Napi::PropertyDescriptor::Value(key, value, napi_enumerable));
}

}  // namespace tcu
