// Modules (PTX or cubin images), functions and kernel launches.
#include <cstring>

#include "addon.h"

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
Napi::Value Driver::moduleLoadData(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "moduleLoadData");
  DriverRef d = state_;
  std::vector<uint8_t> image;
  if (a[0].IsString()) {
    std::string text = toStr(a[0], a.where("image"));
    image.assign(text.begin(), text.end());
  } else {
    Bytes b = toBytes(a[0], a.where("image"));
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
  Napi::Object obj = ModuleHandle::New(env, m);
  setConst(obj, "infoLog", Napi::String::New(env, trimLog(infoLog)));
  return obj;
}

Napi::Value Driver::moduleUnload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "moduleUnload");
  DriverRef d = state_;
  auto m = liveModule(a[0], d, a.where("module"));
  d->bind();
  d->check(d->need(d->api().cuModuleUnload, "cuModuleUnload")(m->mod), "cuModuleUnload");
  m->unloaded = true;
  return env.Undefined();
}

// getFunction(module, name) -> Function { name, numRegs, sharedBytes, constBytes, localBytes,
//                                        maxThreadsPerBlock, ptxVersion, binaryVersion }
Napi::Value Driver::getFunction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "getFunction");
  DriverRef d = state_;
  auto m = liveModule(a[0], d, a.where("module"));
  std::string name = toStr(a[1], a.where("name"));
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
  Napi::Object obj = FunctionHandle::New(env, f);
  setConst(obj, "name", Napi::String::New(env, name));
  setConst(obj, "numRegs", Napi::Number::New(env, funcAttr(f, kFuncNumRegs, "cuFuncGetAttribute(NUM_REGS)")));
  setConst(obj, "sharedBytes",
           Napi::Number::New(env, funcAttr(f, kFuncSharedSizeBytes, "cuFuncGetAttribute(SHARED_SIZE_BYTES)")));
  setConst(obj, "constBytes",
           Napi::Number::New(env, funcAttr(f, kFuncConstSizeBytes, "cuFuncGetAttribute(CONST_SIZE_BYTES)")));
  setConst(obj, "localBytes",
           Napi::Number::New(env, funcAttr(f, kFuncLocalSizeBytes, "cuFuncGetAttribute(LOCAL_SIZE_BYTES)")));
  setConst(obj, "maxThreadsPerBlock",
           Napi::Number::New(env, funcAttr(f, kFuncMaxThreadsPerBlock,
                                  "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)")));
  setConst(obj, "ptxVersion",
           Napi::Number::New(env, funcAttr(f, kFuncPtxVersion, "cuFuncGetAttribute(PTX_VERSION)")));
  setConst(obj, "binaryVersion",
           Napi::Number::New(env, funcAttr(f, kFuncBinaryVersion, "cuFuncGetAttribute(BINARY_VERSION)")));
  return obj;
}

// setMaxDynamicShared(fn, bytes): opt in to more than 48 KiB of dynamic shared memory.
Napi::Value Driver::setMaxDynamicShared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "setMaxDynamicShared");
  DriverRef d = state_;
  auto f = liveFunction(a[0], d, a.where("fn"));
  uint64_t bytes = toU64(a[1], a.where("bytes"), 0x7fffffff);
  d->bind();
  d->check(d->need(d->api().cuFuncSetAttribute, "cuFuncSetAttribute")(
               f->fn, kFuncMaxDynamicSharedSizeBytes, static_cast<int>(bytes)),
           "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  return env.Undefined();
}

// launch(fn, grid, block, sharedBytes, stream | null, params: bytes, paramOffsets?, cluster?)
// With `cluster` ([x, y, z], thread block clusters, sm_90) the launch goes through
// cuLaunchKernelEx with the CLUSTER_DIMENSION attribute; the driver checks the shape.
// Without paramOffsets the packed buffer goes through cuLaunchKernel's `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE); with them, through `kernelParams` (one pointer per
// parameter into the same buffer).
Napi::Value Driver::launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Args a(info, "launch");
  DriverRef d = state_;
  auto f = liveFunction(a[0], d, a.where("fn"));
  unsigned grid[3], block[3];
  toDim3(a[1], a.where("grid"), grid);
  toDim3(a[2], a.where("block"), block);
  uint32_t shared = isNullish(a[3]) ? 0 : toU32(a[3], a.where("sharedBytes"));
  auto s = optStream(a[4], d, a.where("stream"));
  Bytes params;
  if (!isNullish(a[5])) params = toBytes(a[5], a.where("params"));
  // An 8-byte aligned copy: the driver reads parameters at their natural alignment.
  std::vector<uint64_t> buf((params.length + 7) / 8 + 1, 0);
  if (params.length) std::memcpy(buf.data(), params.data, params.length);
  size_t size = params.length;

  std::vector<void*> kernelParams;
  bool useOffsets = !isNullish(a[6]);
  if (useOffsets) {
    Napi::Array offsets = toArray(a[6], a.where("paramOffsets"), "an array of byte offsets");
    uint32_t n = offsets.Length();
    for (uint32_t i = 0; i < n; ++i) {
      Napi::Value e = offsets.Get(i);
      std::string w = a.where("paramOffsets") + "[" + std::to_string(i) + "]";
      uint64_t off = toU64(e, w, SIZE_MAX);
      if (off >= size) fail("E_RANGE", w + ": offset " + std::to_string(off) +
                                           " is outside the " + std::to_string(size) +
                                           "-byte parameter buffer");
      kernelParams.push_back(reinterpret_cast<uint8_t*>(buf.data()) + off);
    }
  }
  void* extra[] = {kLaunchParamBufferPointer, buf.data(), kLaunchParamBufferSize, &size,
                   kLaunchParamEnd};
  bool clustered = info.Length() > 7 && !isNullish(a[7]);
  unsigned cluster[3] = {1, 1, 1};
  if (clustered) toDim3(a[7], a.where("cluster"), cluster);
  d->bind();
  void** kp = nullptr;
  void** ex = nullptr;
  if (useOffsets) {
    kp = kernelParams.empty() ? nullptr : kernelParams.data();
  } else if (size > 0) {
    ex = extra;
  }
  CUresult r;
  const char* entry = clustered ? "cuLaunchKernelEx" : "cuLaunchKernel";
  if (clustered) {
    auto fnEx = d->need(d->api().cuLaunchKernelEx, "cuLaunchKernelEx");
    LaunchAttribute attr{};
    attr.id = kLaunchAttributeClusterDimension;
    attr.value.clusterDim.x = cluster[0];
    attr.value.clusterDim.y = cluster[1];
    attr.value.clusterDim.z = cluster[2];
    LaunchConfig cfg{grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                     s ? s->stream : nullptr, &attr, 1};
    r = fnEx(&cfg, f->fn, kp, ex);
  } else {
    auto fn = d->need(d->api().cuLaunchKernel, "cuLaunchKernel");
    r = fn(f->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
           s ? s->stream : nullptr, kp, ex);
  }
  if (r != CUDA_SUCCESS) {
    try {
      d->check(r, entry);
    } catch (JsError& e) {
      e.message += " launching '" + f->name + "' grid [" + std::to_string(grid[0]) + "," +
                   std::to_string(grid[1]) + "," + std::to_string(grid[2]) + "] block [" +
                   std::to_string(block[0]) + "," + std::to_string(block[1]) + "," +
                   std::to_string(block[2]) + "] shared " + std::to_string(shared) +
                   (clustered ? " cluster [" + std::to_string(cluster[0]) + "," + std::to_string(cluster[1]) +
                                    "," + std::to_string(cluster[2]) + "]"
                              : "");
      throw;
    }
  }
  return env.Undefined();
}

}  // namespace tcu
