// The generic kernel-call targets: the opaque bytes are a kernel-call descriptor (docs/xla.md,
// src/descriptor/kernel_call.ts) carrying a compiled Tessera kernel. The GPU target launches it
// on XLA's stream with XLA's buffers; the CPU target copies the host buffers into device memory of
// whatever driver is found (the sim here), launches, and copies the results back.
#include <cstring>
#include <mutex>
#include <map>
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "export.h"
#include "tessera_descriptors.h"

namespace tx {
namespace {

constexpr uint32_t kMagic = 0x314b5354;  // "TSK1"

struct Param {
  uint32_t kind, index, size;
  uint64_t value;
};

struct KernelCall {
  std::string entry;
  uint32_t grid[3], block[3], shared;
  std::vector<uint64_t> operand_bytes, result_bytes;
  std::vector<Param> params;
  std::vector<Image> images;  // pointing into the opaque bytes
};

// Every field is checked against the buffer's length before it is read.
Status parse(const char* opaque, size_t len, KernelCall* out) {
  if (!opaque) return Status::error("opaque descriptor is null");
  TesseraKernelCallHeader h;
  if (len < sizeof h) return Status::error("kernel-call descriptor is " + std::to_string(len) + " bytes, shorter than its 64-byte header");
  std::memcpy(&h, opaque, sizeof h);
  if (h.magic != kMagic) return Status::error("kernel-call descriptor has a bad magic (not \"TSK1\")");
  if (h.version != 1) return Status::error("kernel-call descriptor version " + std::to_string(h.version) + " is not supported (want 1)");
  if (h.total_size != len) return Status::error("kernel-call descriptor says " + std::to_string(h.total_size) + " bytes, opaque_len is " + std::to_string(len));
  if (h.num_operands > 1024 || h.num_results > 1024 || h.num_params > 4096 || h.num_images < 1 || h.num_images > 16 || h.entry_len < 1 || h.entry_len > 1024) {
    return Status::error("kernel-call descriptor counts are out of range");
  }
  for (int i = 0; i < 3; ++i) if (h.grid[i] < 1 || h.block[i] < 1) return Status::error("grid and block dimensions must be >= 1");
  if (uint64_t(h.block[0]) * h.block[1] * h.block[2] > 1024) return Status::error("block has more than 1024 threads");
  uint64_t off = sizeof h;
  auto need = [&](uint64_t n, const char* what) -> Status {
    if (off + n > len) return Status::error(std::string("kernel-call descriptor is truncated: ") + what + " needs bytes " + std::to_string(off) + ".." + std::to_string(off + n) + " of " + std::to_string(len));
    return {};
  };
  TX_RETURN_IF_ERROR(need(8ull * (h.num_operands + h.num_results), "the buffer sizes"));
  out->operand_bytes.resize(h.num_operands);
  out->result_bytes.resize(h.num_results);
  if (h.num_operands) std::memcpy(out->operand_bytes.data(), opaque + off, 8ull * h.num_operands);
  off += 8ull * h.num_operands;
  if (h.num_results) std::memcpy(out->result_bytes.data(), opaque + off, 8ull * h.num_results);
  off += 8ull * h.num_results;
  TX_RETURN_IF_ERROR(need(uint64_t(sizeof(TesseraKernelParam)) * h.num_params, "the params"));
  for (uint32_t i = 0; i < h.num_params; ++i, off += sizeof(TesseraKernelParam)) {
    TesseraKernelParam p;
    std::memcpy(&p, opaque + off, sizeof p);
    const std::string at = "param " + std::to_string(i);
    if (p.kind == TesseraKernelParamKind_OPERAND || p.kind == TesseraKernelParamKind_RESULT) {
      const uint32_t n = p.kind == TesseraKernelParamKind_OPERAND ? h.num_operands : h.num_results;
      if (p.index >= n) return Status::error(at + " names buffer " + std::to_string(p.index) + " of " + std::to_string(n));
    } else if (p.kind == TesseraKernelParamKind_SCALAR) {
      if (p.size != 1 && p.size != 2 && p.size != 4 && p.size != 8) return Status::error(at + " has scalar size " + std::to_string(p.size));
    } else {
      return Status::error(at + " has unknown kind " + std::to_string(int(p.kind)));
    }
    out->params.push_back(Param{uint32_t(p.kind), p.index, p.size, p.value});
  }
  TX_RETURN_IF_ERROR(need(uint64_t(sizeof(TesseraKernelImage)) * h.num_images, "the image table"));
  for (uint32_t i = 0; i < h.num_images; ++i, off += sizeof(TesseraKernelImage)) {
    TesseraKernelImage im;
    std::memcpy(&im, opaque + off, sizeof im);
    if (im.kind != TesseraKernelImageKind_PTX && im.kind != TesseraKernelImageKind_CUBIN) return Status::error("image " + std::to_string(i) + " has unknown kind");
    if (im.size == 0 || uint64_t(im.offset) + im.size > len) return Status::error("image " + std::to_string(i) + " lies outside the descriptor (truncated?)");
    out->images.push_back(Image{im.kind == TesseraKernelImageKind_CUBIN, im.arch, reinterpret_cast<const unsigned char*>(opaque + im.offset), im.size});
  }
  TX_RETURN_IF_ERROR(need(h.entry_len, "the entry name"));
  out->entry.assign(opaque + off, h.entry_len);
  if (out->entry.find('\0') != std::string::npos) return Status::error("entry name contains a NUL byte");
  std::memcpy(out->grid, h.grid, sizeof out->grid);
  std::memcpy(out->block, h.block, sizeof out->block);
  out->shared = h.shared_bytes;
  return {};
}

Status function_for(const Driver& d, const KernelCall& k, CUfunction* f) {
  TX_RETURN_IF_ERROR(function_in(d, k.images, k.entry, f));
  if (k.shared > 48 * 1024) {
    TX_RETURN_IF_ERROR(cu_check(d, d.FuncSetAttribute(*f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(k.shared)), "cuFuncSetAttribute"));
  }
  return {};
}

// Launches with `operands[i]` / `results[i]` as the device addresses of the XLA buffers.
Status launch(const Driver& d, CUfunction f, const KernelCall& k, const std::vector<CUdeviceptr>& operands, const std::vector<CUdeviceptr>& results, CUstream s) {
  std::vector<uint64_t> values(k.params.size());
  std::vector<void*> args(k.params.size());
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    if (p.kind == TesseraKernelParamKind_OPERAND) values[i] = operands[p.index];
    else if (p.kind == TesseraKernelParamKind_RESULT) values[i] = results[p.index];
    else values[i] = p.value;  // little-endian: the low `size` bytes are the scalar
    args[i] = &values[i];
  }
  return cu_check(d, d.LaunchKernel(f, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.shared, s, args.empty() ? nullptr : args.data(), nullptr),
                  ("cuLaunchKernel(" + k.entry + ")").c_str());
}

Status run_gpu(CUstream s, void** buffers, const char* opaque, size_t len) {
  KernelCall k;
  TX_RETURN_IF_ERROR(parse(opaque, len, &k));
  if (!buffers && (k.operand_bytes.size() + k.result_bytes.size()) > 0) return Status::error("buffers is null");
  const Driver* d;
  TX_RETURN_IF_ERROR(driver(&d));
  CUfunction f;
  TX_RETURN_IF_ERROR(function_for(*d, k, &f));
  std::vector<CUdeviceptr> ops, res;
  for (size_t i = 0; i < k.operand_bytes.size(); ++i) ops.push_back(CUdeviceptr(buffers[i]));
  for (size_t i = 0; i < k.result_bytes.size(); ++i) res.push_back(CUdeviceptr(buffers[k.operand_bytes.size() + i]));
  return launch(*d, f, k, ops, res, s);
}

// The primary context of device 0, retained once for the process: releasing it after each call
// would let the driver reset it (the sim does, as CUDA does) and drop the cached modules.
Status primary_context(const Driver& d, CUcontext* out) {
  static std::mutex mu;
  static CUcontext ctx = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (!ctx) {
    CUdevice dev;
    TX_RETURN_IF_ERROR(cu_check(d, d.DeviceGet(&dev, 0), "cuDeviceGet"));
    TX_RETURN_IF_ERROR(cu_check(d, d.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain"));
  }
  *out = ctx;
  return {};
}

// Device memory for the host buffers of one call; freed (and the context popped) on every path.
struct Staging {
  const Driver& d;
  bool pushed = false;
  std::map<const void*, std::pair<CUdeviceptr, uint64_t>> mem;  // host address -> device copy
  explicit Staging(const Driver& drv) : d(drv) {}
  ~Staging() {
    for (auto& e : mem) if (e.second.first) d.MemFree(e.second.first);
    if (pushed) { CUcontext c; d.CtxPopCurrent(&c); }
  }
  Status open() {
    CUcontext ctx = nullptr;
    TX_RETURN_IF_ERROR(primary_context(d, &ctx));
    TX_RETURN_IF_ERROR(cu_check(d, d.CtxPushCurrent(ctx), "cuCtxPushCurrent"));
    pushed = true;
    return {};
  }
};

Status run_cpu(void* out, const void** in, const char* opaque, size_t len) {
  KernelCall k;
  TX_RETURN_IF_ERROR(parse(opaque, len, &k));
  const size_t nops = k.operand_bytes.size(), nres = k.result_bytes.size();
  if ((nops && !in) || (nres && !out)) return Status::error("null buffer array");
  std::vector<const void*> hops(in, in + nops);
  std::vector<void*> hres;
  if (nres == 1) hres.push_back(out);  // one result: `out` is its buffer
  else for (size_t i = 0; i < nres; ++i) hres.push_back(static_cast<void**>(out)[i]);
  const Driver* d;
  TX_RETURN_IF_ERROR(driver(&d));
  Staging st(*d);
  TX_RETURN_IF_ERROR(st.open());
  CUfunction f;
  TX_RETURN_IF_ERROR(function_for(*d, k, &f));
  // One device copy per distinct host buffer, so a result aliased to an operand stays one buffer.
  auto want = [&](const void* p, uint64_t n) { auto& e = st.mem[p]; if (n > e.second) e.second = n; };
  for (size_t i = 0; i < nops; ++i) want(hops[i], k.operand_bytes[i]);
  for (size_t i = 0; i < nres; ++i) want(hres[i], k.result_bytes[i]);
  for (auto& e : st.mem) {
    const uint64_t n = e.second.second ? e.second.second : 1;
    e.second = {0, 0};
    CUdeviceptr p = 0;
    TX_RETURN_IF_ERROR(cu_check(*d, d->MemAlloc(&p, n), "cuMemAlloc"));
    e.second = {p, n};
  }
  for (auto& e : st.mem) TX_RETURN_IF_ERROR(cu_check(*d, d->MemcpyHtoD(e.second.first, e.first, e.second.second), "cuMemcpyHtoD"));
  std::vector<CUdeviceptr> ops, res;
  for (const void* p : hops) ops.push_back(st.mem[p].first);
  for (void* p : hres) res.push_back(st.mem[p].first);
  TX_RETURN_IF_ERROR(launch(*d, f, k, ops, res, nullptr));
  TX_RETURN_IF_ERROR(cu_check(*d, d->CtxSynchronize(), ("kernel " + k.entry).c_str()));
  // Read every result back before writing any, so a failure leaves them all untouched.
  std::vector<std::vector<unsigned char>> back(nres);
  for (size_t i = 0; i < nres; ++i) {
    back[i].resize(k.result_bytes[i]);
    if (!back[i].empty()) TX_RETURN_IF_ERROR(cu_check(*d, d->MemcpyDtoH(back[i].data(), st.mem[hres[i]].first, back[i].size()), "cuMemcpyDtoH"));
  }
  for (size_t i = 0; i < nres; ++i) if (!back[i].empty()) std::memcpy(hres[i], back[i].data(), back[i].size());
  return {};
}

}  // namespace
}  // namespace tx

TX_EXPORT void tessera_kernel_call(CUstream stream, void** buffers, const char* opaque, size_t opaque_len, void* status) {
  tx::clear_last_error();
  tx::Status s = tx::run_gpu(stream, buffers, opaque, opaque_len);
  if (!s.ok) tx::legacy_fail(status, "tessera_kernel_call", s.message);
}

TX_EXPORT void tessera_kernel_call_cpu(void* out, const void** in, const char* opaque, size_t opaque_len, void* status) {
  tx::clear_last_error();
  tx::Status s = tx::run_cpu(out, in, opaque, opaque_len);
  if (!s.ok) tx::legacy_fail(status, "tessera_kernel_call_cpu", s.message);
}
