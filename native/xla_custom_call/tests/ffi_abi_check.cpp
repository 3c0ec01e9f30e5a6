// Our XLA FFI declarations (src/ffi_abi.h, written from the documented C ABI) against jaxlib's
// installed xla/ffi/api/c_api.h: every struct we use has the same size and member offsets, every
// enum value we use the same number. Built only when that header is present at configure time.
#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace ours {
#include "ffi_abi.h"
}
#include "xla/ffi/api/c_api.h"

static int failures = 0;
#define SAME(a, b)                                                                          \
  do {                                                                                      \
    if (size_t(a) != size_t(b)) {                                                           \
      std::fprintf(stderr, "mismatch: %s = %zu, %s = %zu\n", #a, size_t(a), #b, size_t(b)); \
      ++failures;                                                                           \
    }                                                                                       \
  } while (0)
#define FIELD(S, f) SAME(offsetof(ours::S, f), offsetof(::S, f))
#define STRUCT(S) SAME(sizeof(ours::S), sizeof(::S))

int main() {
  STRUCT(XLA_FFI_Extension_Base); FIELD(XLA_FFI_Extension_Base, type); FIELD(XLA_FFI_Extension_Base, next);
  STRUCT(XLA_FFI_Api_Version); FIELD(XLA_FFI_Api_Version, major_version); FIELD(XLA_FFI_Api_Version, minor_version);
  STRUCT(XLA_FFI_Error_Create_Args); FIELD(XLA_FFI_Error_Create_Args, message); FIELD(XLA_FFI_Error_Create_Args, errc);
  STRUCT(XLA_FFI_Buffer); FIELD(XLA_FFI_Buffer, dtype); FIELD(XLA_FFI_Buffer, data); FIELD(XLA_FFI_Buffer, rank); FIELD(XLA_FFI_Buffer, dims);
  STRUCT(XLA_FFI_ByteSpan); STRUCT(XLA_FFI_Scalar); FIELD(XLA_FFI_Scalar, value);
  STRUCT(XLA_FFI_Args); FIELD(XLA_FFI_Args, size); FIELD(XLA_FFI_Args, types); FIELD(XLA_FFI_Args, args);
  STRUCT(XLA_FFI_Rets); FIELD(XLA_FFI_Rets, rets);
  STRUCT(XLA_FFI_Attrs); FIELD(XLA_FFI_Attrs, types); FIELD(XLA_FFI_Attrs, names); FIELD(XLA_FFI_Attrs, attrs);
  STRUCT(XLA_FFI_CallFrame); FIELD(XLA_FFI_CallFrame, api); FIELD(XLA_FFI_CallFrame, ctx); FIELD(XLA_FFI_CallFrame, stage);
  FIELD(XLA_FFI_CallFrame, args); FIELD(XLA_FFI_CallFrame, rets); FIELD(XLA_FFI_CallFrame, attrs); FIELD(XLA_FFI_CallFrame, future);
  STRUCT(XLA_FFI_Stream_Get_Args); FIELD(XLA_FFI_Stream_Get_Args, ctx); FIELD(XLA_FFI_Stream_Get_Args, stream);
  STRUCT(XLA_FFI_Metadata); FIELD(XLA_FFI_Metadata, api_version); FIELD(XLA_FFI_Metadata, traits); FIELD(XLA_FFI_Metadata, state_type_id);
  STRUCT(XLA_FFI_Metadata_Extension); FIELD(XLA_FFI_Metadata_Extension, metadata);
  // Our XLA_FFI_Api is a prefix: the members we call sit where the real struct has them.
  FIELD(XLA_FFI_Api, api_version); FIELD(XLA_FFI_Api, internal_api); FIELD(XLA_FFI_Api, XLA_FFI_Error_Create); FIELD(XLA_FFI_Api, XLA_FFI_Stream_Get);
  SAME(ours::XLA_FFI_Extension_Metadata, ::XLA_FFI_Extension_Metadata);
  SAME(ours::XLA_FFI_Error_Code_INVALID_ARGUMENT, ::XLA_FFI_Error_Code_INVALID_ARGUMENT);
  SAME(ours::XLA_FFI_Error_Code_INTERNAL, ::XLA_FFI_Error_Code_INTERNAL);
  SAME(ours::XLA_FFI_DataType_F16, ::XLA_FFI_DataType_F16); SAME(ours::XLA_FFI_DataType_BF16, ::XLA_FFI_DataType_BF16);
  SAME(ours::XLA_FFI_DataType_F32, ::XLA_FFI_DataType_F32); SAME(ours::XLA_FFI_DataType_F64, ::XLA_FFI_DataType_F64);
  SAME(ours::XLA_FFI_DataType_S32, ::XLA_FFI_DataType_S32); SAME(ours::XLA_FFI_DataType_S64, ::XLA_FFI_DataType_S64);
  SAME(ours::XLA_FFI_AttrType_SCALAR, ::XLA_FFI_AttrType_SCALAR); SAME(ours::XLA_FFI_ArgType_BUFFER, ::XLA_FFI_ArgType_BUFFER);
  SAME(ours::XLA_FFI_ExecutionStage_EXECUTE, ::XLA_FFI_ExecutionStage_EXECUTE);
  if (failures) return 1;
  std::printf("ffi abi: matches jaxlib's c_api.h\n");
  return 0;
}
