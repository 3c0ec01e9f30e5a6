#include "args.h"

#include <cmath>

#include "js_error.h"

namespace tcu {

Args::Args(napi_env env, napi_callback_info info, const char* method, size_t max)
    : values_(max), method_(method) {
  size_t argc = max;
  check(env, napi_get_cb_info(env, info, &argc, values_.data(), &self_, nullptr), method);
  count_ = argc;
  check(env, napi_get_undefined(env, &undefined_), method);
  for (size_t i = argc; i < max; ++i) values_[i] = undefined_;
}

std::string Args::where(const char* param) const {
  return std::string(method_) + "(" + param + ")";
}

napi_valuetype typeOf(napi_env env, napi_value v) {
  napi_valuetype t = napi_undefined;
  check(env, napi_typeof(env, v, &t), "typeof");
  return t;
}

bool isNullish(napi_env env, napi_value v) {
  napi_valuetype t = typeOf(env, v);
  return t == napi_undefined || t == napi_null;
}

static const char* typeName(napi_valuetype t) {
  switch (t) {
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

uint64_t toU64(napi_env env, napi_value v, const std::string& what, uint64_t max) {
  napi_valuetype t = typeOf(env, v);
  uint64_t out = 0;
  if (t == napi_number) {
    double d = 0;
    check(env, napi_get_value_double(env, v, &d), "get number");
    if (!std::isfinite(d) || d != std::floor(d) || d < 0 || d > 9007199254740991.0) {
      fail("E_RANGE", what + ": expected a non-negative integer, got " + std::to_string(d));
    }
    out = static_cast<uint64_t>(d);
  } else if (t == napi_bigint) {
    int sign = 0;
    size_t words = 2;
    uint64_t w[2] = {0, 0};
    check(env, napi_get_value_bigint_words(env, v, &sign, &words, w), "get bigint");
    if (sign != 0 || words > 1) fail("E_RANGE", what + ": bigint out of the unsigned 64-bit range");
    out = w[0];
  } else {
    failArg(what + ": expected a number or bigint, got " + typeName(t));
  }
  if (out > max) {
    fail("E_RANGE", what + ": " + std::to_string(out) + " exceeds the maximum " + std::to_string(max));
  }
  return out;
}

uint32_t toU32(napi_env env, napi_value v, const std::string& what) {
  return static_cast<uint32_t>(toU64(env, v, what, 0xffffffffull));
}

std::string toStr(napi_env env, napi_value v, const std::string& what) {
  napi_valuetype t = typeOf(env, v);
  if (t != napi_string) failArg(what + ": expected a string, got " + typeName(t));
  size_t len = 0;
  check(env, napi_get_value_string_utf8(env, v, nullptr, 0, &len), "get string");
  std::string s(len, '\0');
  size_t copied = 0;
  check(env, napi_get_value_string_utf8(env, v, s.data(), len + 1, &copied), "get string");
  s.resize(copied);
  return s;
}

bool isBytes(napi_env env, napi_value v) {
  bool yes = false;
  check(env, napi_is_typedarray(env, v, &yes), "is typedarray");
  if (yes) return true;
  check(env, napi_is_dataview(env, v, &yes), "is dataview");
  if (yes) return true;
  check(env, napi_is_arraybuffer(env, v, &yes), "is arraybuffer");
  return yes;
}

Bytes toBytes(napi_env env, napi_value v, const std::string& what) {
  Bytes b;
  bool yes = false;
  void* data = nullptr;
  check(env, napi_is_typedarray(env, v, &yes), "is typedarray");
  if (yes) {
    napi_typedarray_type type;
    size_t length = 0, offset = 0;
    napi_value ab = nullptr;
    check(env, napi_get_typedarray_info(env, v, &type, &length, &data, &ab, &offset), "typedarray");
    size_t elem = 1;
    switch (type) {
      case napi_int8_array: case napi_uint8_array: case napi_uint8_clamped_array: elem = 1; break;
      case napi_int16_array: case napi_uint16_array: elem = 2; break;
      case napi_int32_array: case napi_uint32_array: case napi_float32_array: elem = 4; break;
      default: elem = 8; break;  // float64, bigint64, biguint64
    }
    b.data = static_cast<uint8_t*>(data);
    b.length = length * elem;
    return b;
  }
  check(env, napi_is_dataview(env, v, &yes), "is dataview");
  if (yes) {
    size_t length = 0, offset = 0;
    napi_value ab = nullptr;
    check(env, napi_get_dataview_info(env, v, &length, &data, &ab, &offset), "dataview");
    b.data = static_cast<uint8_t*>(data);
    b.length = length;
    return b;
  }
  check(env, napi_is_arraybuffer(env, v, &yes), "is arraybuffer");
  if (yes) {
    size_t length = 0;
    check(env, napi_get_arraybuffer_info(env, v, &data, &length), "arraybuffer");
    b.data = static_cast<uint8_t*>(data);
    b.length = length;
    return b;
  }
  failArg(what + ": expected a TypedArray, DataView or ArrayBuffer, got " + typeName(typeOf(env, v)));
}

void toDim3(napi_env env, napi_value v, const std::string& what, unsigned out[3]) {
  bool isArray = false;
  check(env, napi_is_array(env, v, &isArray), "is array");
  if (!isArray) failArg(what + ": expected an array of 1 to 3 positive integers");
  uint32_t n = 0;
  check(env, napi_get_array_length(env, v, &n), "array length");
  if (n < 1 || n > 3) fail("E_RANGE", what + ": expected 1 to 3 dimensions, got " + std::to_string(n));
  for (uint32_t i = 0; i < 3; ++i) {
    out[i] = 1;
    if (i >= n) continue;
    napi_value e = nullptr;
    check(env, napi_get_element(env, v, i, &e), "array element");
    std::string w = what + "[" + std::to_string(i) + "]";
    out[i] = toU32(env, e, w);
    if (out[i] == 0) fail("E_RANGE", w + ": must be at least 1");
  }
}

napi_value jsNumber(napi_env env, double v) {
  napi_value r = nullptr;
  check(env, napi_create_double(env, v, &r), "create number");
  return r;
}
napi_value jsBigU64(napi_env env, uint64_t v) {
  napi_value r = nullptr;
  check(env, napi_create_bigint_uint64(env, v, &r), "create bigint");
  return r;
}
napi_value jsString(napi_env env, const std::string& s) {
  napi_value r = nullptr;
  check(env, napi_create_string_utf8(env, s.data(), s.size(), &r), "create string");
  return r;
}
napi_value jsBool(napi_env env, bool b) {
  napi_value r = nullptr;
  check(env, napi_get_boolean(env, b, &r), "create boolean");
  return r;
}
napi_value jsUndefined(napi_env env) {
  napi_value r = nullptr;
  check(env, napi_get_undefined(env, &r), "undefined");
  return r;
}
napi_value jsNull(napi_env env) {
  napi_value r = nullptr;
  check(env, napi_get_null(env, &r), "null");
  return r;
}
napi_value jsObject(napi_env env) {
  napi_value r = nullptr;
  check(env, napi_create_object(env, &r), "create object");
  return r;
}
void setConst(napi_env env, napi_value obj, const char* key, napi_value value) {
  napi_property_descriptor d = {key, nullptr, nullptr, nullptr, nullptr, value, napi_enumerable,
                                nullptr};
  check(env, napi_define_properties(env, obj, 1, &d), key);
}

}  // namespace tcu
