// Launches the embedded RMSNorm kernels (rms_norm.cu) on the caller's stream.
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "embedded.h"
#include "rms_gpu.h"

#ifdef TX_HAVE_RMS_KERNELS
namespace tx {
extern const EmbeddedImage kRmsPtx, kRmsSm80, kRmsSm90;
}
#endif

namespace tx {
namespace {

Status kernel(const Driver& d, const std::string& name, CUfunction* f) {
#ifdef TX_HAVE_RMS_KERNELS
  std::vector<Image> images;
  for (const EmbeddedImage* e : {&kRmsSm90, &kRmsSm80, &kRmsPtx}) images.push_back(Image{e->cubin, e->arch, e->data, e->size});
  return function_in(d, images, name, f);
#else
  (void)d; (void)name; (void)f;
  return Status::error("this library was built without nvcc: the RMSNorm CUDA kernels are missing");
#endif
}

std::string suffix(const RmsProblem& p) { return std::string(dtype_name(p.x)) + "_" + dtype_name(p.w); }

Status launch(const Driver& d, CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, CUstream s, void** args, const char* what) {
  return cu_check(d, d.LaunchKernel(f, gx, gy, 1, bx, by, 1, 0, s, args, nullptr), what);
}

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxGrid = 65535;  // rows beyond it are looped inside the kernel

}  // namespace

Status rms_forward_gpu(const RmsProblem& p, const RmsFwdBuffers& b, CUstream_st* stream) {
  const Driver* d;
  TX_RETURN_IF_ERROR(driver(&d));
  CUfunction f;
  TX_RETURN_IF_ERROR(kernel(*d, "tessera_rms_fwd_" + suffix(p), &f));
  if (p.n1 == 0) return {};
  CUdeviceptr x = CUdeviceptr(b.x), w = CUdeviceptr(b.w), out = CUdeviceptr(b.out), iv = CUdeviceptr(b.invvar);
  int n1 = int(p.n1), n2 = int(p.n2);
  double eps = p.eps;
  void* args[] = {&x, &w, &out, &iv, &n1, &n2, &eps};
  const unsigned grid = unsigned(p.n1 < kMaxGrid ? p.n1 : kMaxGrid);
  return launch(*d, f, grid, 1, kThreads, 1, stream, args, "cuLaunchKernel(rms forward)");
}

Status rms_backward_gpu(const RmsProblem& p, const RmsBwdBuffers& b, CUstream_st* stream) {
  const Driver* d;
  TX_RETURN_IF_ERROR(driver(&d));
  CUfunction fin, fpart, fw;
  TX_RETURN_IF_ERROR(kernel(*d, "tessera_rms_bwd_input_" + suffix(p), &fin));
  TX_RETURN_IF_ERROR(kernel(*d, "tessera_rms_bwd_part_" + suffix(p), &fpart));
  TX_RETURN_IF_ERROR(kernel(*d, "tessera_rms_bwd_weight_" + suffix(p), &fw));
  if (p.part > kMaxGrid) return Status::error("part_grad_size " + std::to_string(p.part) + " is above " + std::to_string(kMaxGrid));
  CUdeviceptr g = CUdeviceptr(b.g), iv = CUdeviceptr(b.invvar), x = CUdeviceptr(b.x), w = CUdeviceptr(b.w);
  CUdeviceptr gi = CUdeviceptr(b.grad_input), gw = CUdeviceptr(b.grad_weight), pg = CUdeviceptr(b.part_grad);
  int n1 = int(p.n1), n2 = int(p.n2), part = int(p.part);
  if (p.n1 > 0) {
    void* a1[] = {&g, &iv, &x, &w, &gi, &n1, &n2};
    TX_RETURN_IF_ERROR(launch(*d, fin, unsigned(p.n1 < kMaxGrid ? p.n1 : kMaxGrid), 1, kThreads, 1, stream, a1, "cuLaunchKernel(rms backward input)"));
  }
  void* a2[] = {&g, &iv, &x, &pg, &n1, &n2, &part};
  TX_RETURN_IF_ERROR(launch(*d, fpart, unsigned((p.n2 + 31) / 32), unsigned(p.part), 32, 8, stream, a2, "cuLaunchKernel(rms backward part_grad)"));
  void* a3[] = {&pg, &gw, &n2, &part};
  return launch(*d, fw, unsigned((p.n2 + kThreads - 1) / kThreads), 1, kThreads, 1, stream, a3, "cuLaunchKernel(rms backward grad_weight)");
}

}  // namespace tx
