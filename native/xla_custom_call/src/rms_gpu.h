// RMSNorm on a CUDA stream: the nvcc-compiled kernels (rms_norm.cu), embedded in the library and
// loaded through the driver API in the stream's context.
#pragma once
#include "rms_problem.h"

struct CUstream_st;

namespace tx {
Status rms_forward_gpu(const RmsProblem& p, const RmsFwdBuffers& b, CUstream_st* stream);
Status rms_backward_gpu(const RmsProblem& p, const RmsBwdBuffers& b, CUstream_st* stream);
}  // namespace tx
