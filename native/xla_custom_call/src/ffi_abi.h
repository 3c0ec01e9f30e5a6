// The subset of the XLA FFI C ABI (xla/ffi/api/c_api.h, API 0.x) this library uses, written from
// its documented layout. Only the leading members of XLA_FFI_Api we call are declared: the struct
// is read through a pointer XLA owns, so a prefix with the same order and types is enough.
// tests/ffi_abi_check.cpp compares these with jaxlib's installed header when it is present.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

struct XLA_FFI_Api;
struct XLA_FFI_Error;
struct XLA_FFI_ExecutionContext;
struct XLA_FFI_Future;

enum XLA_FFI_Extension_Type { XLA_FFI_Extension_Metadata = 1 };

struct XLA_FFI_Extension_Base {
  size_t struct_size;
  XLA_FFI_Extension_Type type;
  XLA_FFI_Extension_Base* next;
};

struct XLA_FFI_Api_Version {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int major_version;
  int minor_version;
};

enum XLA_FFI_Error_Code {
  XLA_FFI_Error_Code_OK = 0,
  XLA_FFI_Error_Code_INVALID_ARGUMENT = 3,
  XLA_FFI_Error_Code_INTERNAL = 13,
};

struct XLA_FFI_Error_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  const char* message;
  XLA_FFI_Error_Code errc;
};

enum XLA_FFI_DataType {
  XLA_FFI_DataType_INVALID = 0,
  XLA_FFI_DataType_S32 = 4,
  XLA_FFI_DataType_S64 = 5,
  XLA_FFI_DataType_F16 = 10,
  XLA_FFI_DataType_F32 = 11,
  XLA_FFI_DataType_F64 = 12,
  XLA_FFI_DataType_BF16 = 16,
};

struct XLA_FFI_Buffer {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_DataType dtype;
  void* data;
  int64_t rank;
  int64_t* dims;
};

enum XLA_FFI_ArgType { XLA_FFI_ArgType_BUFFER = 1 };
enum XLA_FFI_RetType { XLA_FFI_RetType_BUFFER = 1 };
enum XLA_FFI_AttrType {
  XLA_FFI_AttrType_ARRAY = 1,
  XLA_FFI_AttrType_DICTIONARY = 2,
  XLA_FFI_AttrType_SCALAR = 3,
  XLA_FFI_AttrType_STRING = 4,
};

struct XLA_FFI_ByteSpan {
  const char* ptr;
  size_t len;
};

struct XLA_FFI_Scalar {
  XLA_FFI_DataType dtype;
  void* value;
};

enum XLA_FFI_ExecutionStage {
  XLA_FFI_ExecutionStage_INSTANTIATE = 0,
  XLA_FFI_ExecutionStage_PREPARE = 1,
  XLA_FFI_ExecutionStage_INITIALIZE = 2,
  XLA_FFI_ExecutionStage_EXECUTE = 3,
};

struct XLA_FFI_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_ArgType* types;
  void** args;
};

struct XLA_FFI_Rets {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_RetType* types;
  void** rets;
};

struct XLA_FFI_Attrs {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_AttrType* types;
  XLA_FFI_ByteSpan** names;
  void** attrs;
};

struct XLA_FFI_CallFrame {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  const XLA_FFI_Api* api;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_Args args;
  XLA_FFI_Rets rets;
  XLA_FFI_Attrs attrs;
  XLA_FFI_Future* future;
};

struct XLA_FFI_Stream_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  void* stream;
};

typedef uint32_t XLA_FFI_Handler_Traits;
struct XLA_FFI_TypeId {
  int64_t type_id;
};

struct XLA_FFI_Metadata {
  size_t struct_size;
  XLA_FFI_Api_Version api_version;
  XLA_FFI_Handler_Traits traits;
  XLA_FFI_TypeId state_type_id;
};

struct XLA_FFI_Metadata_Extension {
  XLA_FFI_Extension_Base extension_base;
  XLA_FFI_Metadata* metadata;
};

typedef XLA_FFI_Error* XLA_FFI_Error_Create(XLA_FFI_Error_Create_Args* args);
typedef void XLA_FFI_Any_Fn(void* args);
typedef XLA_FFI_Error* XLA_FFI_Stream_Get(XLA_FFI_Stream_Get_Args* args);

struct XLA_FFI_Api {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Api_Version api_version;
  const void* internal_api;
  XLA_FFI_Error_Create* XLA_FFI_Error_Create;
  XLA_FFI_Any_Fn* XLA_FFI_Error_GetMessage;
  XLA_FFI_Any_Fn* XLA_FFI_Error_Destroy;
  XLA_FFI_Any_Fn* XLA_FFI_Handler_Register;
  XLA_FFI_Stream_Get* XLA_FFI_Stream_Get;
};

}  // extern "C"

// Struct sizes as XLA computes them: up to the end of the last member.
#define TX_FFI_STRUCT_SIZE(type, last) (offsetof(type, last) + sizeof(((type*)0)->last))
// The API version these handlers are written against (the metadata handshake reports it).
constexpr int kTxFfiApiMajor = 0;
constexpr int kTxFfiApiMinor = 1;
