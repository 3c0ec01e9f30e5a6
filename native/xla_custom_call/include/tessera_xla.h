/* Tessera's XLA custom-call library (libtessera_xla.so): the exported targets, their table and
 * the error channel. docs/xla.md describes every target, its buffers and its descriptor. */
#ifndef TESSERA_XLA_H
#define TESSERA_XLA_H

#include <stddef.h>

#include "tessera_descriptors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct XlaCustomCallStatus_ XlaCustomCallStatus; /* XLA's, opaque */
typedef struct XLA_FFI_CallFrame XLA_FFI_CallFrame;
typedef struct XLA_FFI_Error XLA_FFI_Error;
typedef struct CUstream_st* TesseraCUstream;

struct TesseraXlaTarget {
  const char* name;
  const char* platform;  /* "CUDA" or "Host" */
  int api_version;       /* 2/3: legacy (status-returning), 4: typed FFI */
};

/* Every exported target; *count receives their number. */
const struct TesseraXlaTarget* tessera_xla_targets(size_t* count);
/* The message of this thread's last failed call into the library; NULL after a success. */
const char* tessera_xla_last_error(void);

/* Legacy GPU (API 2 and 3): buffers = operands then results. */
void rms_forward_affine_mixed_dtype(TesseraCUstream stream, void** buffers, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);
void rms_backward_affine(TesseraCUstream stream, void** buffers, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);
void tessera_kernel_call(TesseraCUstream stream, void** buffers, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);

/* Legacy CPU (API 3): out = the result buffer, or the array of result buffers when several. */
void rms_forward_affine_mixed_dtype_cpu(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);
void rms_backward_affine_cpu(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);
void tessera_kernel_call_cpu(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);

/* Typed FFI (API 4). */
XLA_FFI_Error* tessera_rms_norm_fwd_cpu(XLA_FFI_CallFrame* frame);
XLA_FFI_Error* tessera_rms_norm_bwd_cpu(XLA_FFI_CallFrame* frame);
XLA_FFI_Error* tessera_rms_norm_fwd_cuda(XLA_FFI_CallFrame* frame);
XLA_FFI_Error* tessera_rms_norm_bwd_cuda(XLA_FFI_CallFrame* frame);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_XLA_H */
