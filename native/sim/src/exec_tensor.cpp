// Tensor-core and async-copy instructions (mma.sync, ldmatrix, stmatrix, cp.async).
#include "exec_core.h"

namespace tsim {

void registerTensorOps(DecodeTable& t) { (void)t; }

}  // namespace tsim
