// Modules (PTX or cubin images), functions and kernel launches.
#include <cstring>

#include "methods.h"

namespace tcu {

namespace {

int funcAttr(const std::shared_ptr<FunctionState>& f, int which, const char* call) {
  const DriverRef& d = f->module->drv;
  int v = 0;
  d->check(d->need(d->api().cuFuncGetAttribute, "cuFuncGetAttribute")(&v, which, f->fn), call);
  return v;
}

std::string trimLog(const std::vector<char>& buf) {
  std::string s(buf.data(), strnlen(buf.data(), buf.size()));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

// moduleLoadData(image: string (PTX) | Uint8Array (PTX text or cubin)) -> Module
napi_value Driver_moduleLoadData(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "moduleLoadData", 1);
    DriverRef d = driverOf(env, a);
    std::vector<uint8_t> image;
    if (typeOf(env, a[0]) == napi_string) {
      std::string text = toStr(env, a[0], a.where("image"));
      image.assign(text.begin(), text.end());
    } else {
      Bytes b = toBytes(env, a[0], a.where("image"));
      image.assign(b.data, b.data + b.length);
    }
    if (image.empty()) fail("E_ARG", a.where("image") + ": empty module image");
    image.push_back(0);  // PTX must be NUL-terminated; harmless after a cubin
    d->bind();
    auto load = d->need(d->api().cuModuleLoadDataEx, "cuModuleLoadDataEx");
    std::vector<char> errorLog(16384, 0), infoLog(4096, 0);
    int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes, kJitInfoLogBuffer,
                     kJitInfoLogBufferSizeBytes};
    void* values[] = {errorLog.data(), reinterpret_cast<void*>(uintptr_t{errorLog.size()}),
                      infoLog.data(), reinterpret_cast<void*>(uintptr_t{infoLog.size()})};
    auto m = std::make_shared<ModuleState>();
    m->drv = d;
    m->unloaded = true;
    CUresult r = load(&m->mod, image.data(), 4, options, values);
    if (r != CUDA_SUCCESS) {
      std::string log = trimLog(errorLog);
      try {
        d->check(r, "cuModuleLoadDataEx");
      } catch (JsError& e) {
        e.message += log.empty() ? " (no JIT log)" : "\nJIT error log:\n" + log;
        throw;
      }
    }
    m->unloaded = false;
    napi_value obj = wrapNew(env, m, Kind::Module);
    setConst(env, obj, "infoLog", jsString(env, trimLog(infoLog)));
    return obj;
  });
}

napi_value Driver_moduleUnload(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "moduleUnload", 1);
    DriverRef d = driverOf(env, a);
    auto m = liveModule(env, a[0], d, a.where("module"));
    d->bind();
    d->check(d->need(d->api().cuModuleUnload, "cuModuleUnload")(m->mod), "cuModuleUnload");
    m->unloaded = true;
    return jsUndefined(env);
  });
}

// getFunction(module, name) -> Function { name, numRegs, sharedBytes, constBytes, localBytes,
//                                        maxThreadsPerBlock, ptxVersion, binaryVersion }
napi_value Driver_getFunction(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "getFunction", 2);
    DriverRef d = driverOf(env, a);
    auto m = liveModule(env, a[0], d, a.where("module"));
    std::string name = toStr(env, a[1], a.where("name"));
    if (name.empty() || name.find('\0') != std::string::npos) {
      fail("E_ARG", a.where("name") + ": not a valid kernel name");
    }
    d->bind();
    auto f = std::make_shared<FunctionState>();
    f->module = m;
    f->name = name;
    CUresult r =
        d->need(d->api().cuModuleGetFunction, "cuModuleGetFunction")(&f->fn, m->mod, name.c_str());
    if (r != CUDA_SUCCESS) {
      try {
        d->check(r, "cuModuleGetFunction");
      } catch (JsError& e) {
        e.message += ": no kernel named '" + name + "'";
        throw;
      }
    }
    napi_value obj = wrapNew(env, f, Kind::Function);
    setConst(env, obj, "name", jsString(env, name));
    setConst(env, obj, "numRegs", jsNumber(env, funcAttr(f, kFuncNumRegs, "cuFuncGetAttribute(NUM_REGS)")));
    setConst(env, obj, "sharedBytes",
             jsNumber(env, funcAttr(f, kFuncSharedSizeBytes, "cuFuncGetAttribute(SHARED_SIZE_BYTES)")));
    setConst(env, obj, "constBytes",
             jsNumber(env, funcAttr(f, kFuncConstSizeBytes, "cuFuncGetAttribute(CONST_SIZE_BYTES)")));
    setConst(env, obj, "localBytes",
             jsNumber(env, funcAttr(f, kFuncLocalSizeBytes, "cuFuncGetAttribute(LOCAL_SIZE_BYTES)")));
    setConst(env, obj, "maxThreadsPerBlock",
             jsNumber(env, funcAttr(f, kFuncMaxThreadsPerBlock,
                                    "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)")));
    setConst(env, obj, "ptxVersion",
             jsNumber(env, funcAttr(f, kFuncPtxVersion, "cuFuncGetAttribute(PTX_VERSION)")));
    setConst(env, obj, "binaryVersion",
             jsNumber(env, funcAttr(f, kFuncBinaryVersion, "cuFuncGetAttribute(BINARY_VERSION)")));
    return obj;
  });
}

// setMaxDynamicShared(fn, bytes): opt in to more than 48 KiB of dynamic shared memory.
napi_value Driver_setMaxDynamicShared(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "setMaxDynamicShared", 2);
    DriverRef d = driverOf(env, a);
    auto f = liveFunction(env, a[0], d, a.where("fn"));
    uint64_t bytes = toU64(env, a[1], a.where("bytes"), 0x7fffffff);
    d->bind();
    d->check(d->need(d->api().cuFuncSetAttribute, "cuFuncSetAttribute")(
                 f->fn, kFuncMaxDynamicSharedSizeBytes, static_cast<int>(bytes)),
             "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    return jsUndefined(env);
  });
}

// launch(fn, grid, block, sharedBytes, stream | null, params: bytes, paramOffsets?)
// Without paramOffsets the packed buffer goes through cuLaunchKernel's `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE); with them, through `kernelParams` (one pointer per
// parameter into the same buffer).
napi_value Driver_launch(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    Args a(env, info, "launch", 7);
    DriverRef d = driverOf(env, a);
    auto f = liveFunction(env, a[0], d, a.where("fn"));
    unsigned grid[3], block[3];
    toDim3(env, a[1], a.where("grid"), grid);
    toDim3(env, a[2], a.where("block"), block);
    uint32_t shared = isNullish(env, a[3]) ? 0 : toU32(env, a[3], a.where("sharedBytes"));
    auto s = optStream(env, a[4], d, a.where("stream"));
    Bytes params;
    if (!isNullish(env, a[5])) params = toBytes(env, a[5], a.where("params"));
    // An 8-byte aligned copy: the driver reads parameters at their natural alignment.
    std::vector<uint64_t> buf((params.length + 7) / 8 + 1, 0);
    if (params.length) std::memcpy(buf.data(), params.data, params.length);
    size_t size = params.length;

    std::vector<void*> kernelParams;
    bool useOffsets = !isNullish(env, a[6]);
    if (useOffsets) {
      bool isArray = false;
      check(env, napi_is_array(env, a[6], &isArray), "is array");
      if (!isArray) failArg(a.where("paramOffsets") + ": expected an array of byte offsets");
      uint32_t n = 0;
      check(env, napi_get_array_length(env, a[6], &n), "array length");
      for (uint32_t i = 0; i < n; ++i) {
        napi_value e = nullptr;
        check(env, napi_get_element(env, a[6], i, &e), "array element");
        std::string w = a.where("paramOffsets") + "[" + std::to_string(i) + "]";
        uint64_t off = toU64(env, e, w, SIZE_MAX);
        if (off >= size) fail("E_RANGE", w + ": offset " + std::to_string(off) +
                                             " is outside the " + std::to_string(size) +
                                             "-byte parameter buffer");
        kernelParams.push_back(reinterpret_cast<uint8_t*>(buf.data()) + off);
      }
    }
    void* extra[] = {kLaunchParamBufferPointer, buf.data(), kLaunchParamBufferSize, &size,
                     kLaunchParamEnd};
    d->bind();
    auto fn = d->need(d->api().cuLaunchKernel, "cuLaunchKernel");
    void** kp = nullptr;
    void** ex = nullptr;
    if (useOffsets) {
      kp = kernelParams.empty() ? nullptr : kernelParams.data();
    } else if (size > 0) {
      ex = extra;
    }
    CUresult r = fn(f->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                    s ? s->stream : nullptr, kp, ex);
    if (r != CUDA_SUCCESS) {
      try {
        d->check(r, "cuLaunchKernel");
      } catch (JsError& e) {
        e.message += " launching '" + f->name + "' grid [" + std::to_string(grid[0]) + "," +
                     std::to_string(grid[1]) + "," + std::to_string(grid[2]) + "] block [" +
                     std::to_string(block[0]) + "," + std::to_string(block[1]) + "," +
                     std::to_string(block[2]) + "] shared " + std::to_string(shared);
        throw;
      }
    }
    return jsUndefined(env);
  });
}

}  // namespace tcu
