# A host-side TensorDescriptor argument of a corpus case (the sm_90a and sm_100a Triton corpora).
import numpy as np
from triton.backends.nvidia.driver import TMA_DTYPE_DEVICE_TO_HOST

from corpus_io import Scalar, TMap


class HostDesc:
    """A host-side TensorDescriptor argument (triton.tools.tensor_descriptor.TensorDescriptor over
    `buf`, row-major `shape`): once the kernel is compiled it becomes what Triton's launcher passes
    (make_tensordesc_arg / fill_tma_descriptor_tiled): the CUtensorMap by value, then the shape and
    the strides."""

    def __init__(self, buf, shape, padding='zero'):
        self.buf, self.shape, self.padding = buf, list(shape), padding
        self.strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]

    def expand(self, meta):
        rank, elem = len(self.shape), meta['elem_size']
        assert not meta['fp4_padded'] and not meta.get('is_im2col', False)
        m = TMap(self.buf, TMA_DTYPE_DEVICE_TO_HOST[meta['elem_type']], reversed(self.shape),
                 [elem * s for s in reversed(self.strides[:-1])], reversed(meta['block_size']), [1] * rank,
                 0,  # CU_TENSOR_MAP_INTERLEAVE_NONE
                 meta['swizzle'],
                 2,  # CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                 1 if self.padding == 'nan' else 0)  # CU_TENSOR_MAP_FLOAT_OOB_FILL_{NAN_REQUEST_ZERO_FMA,NONE}
        return [m] + [Scalar(x) for x in self.shape] + [Scalar(x) for x in self.strides]
