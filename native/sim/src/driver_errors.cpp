// cuGetErrorName / cuGetErrorString. Names are the CUresult enumerators of cuda.h; strings are the
// driver's wording for the common codes and a readable form of the name for the rest.
#include <cctype>
#include <string>
#include <unordered_map>

#include "driver_state.h"

namespace {

struct Entry {
  int code;
  const char* name;
};

const Entry kNames[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {5, "CUDA_ERROR_PROFILER_DISABLED"},
    {6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED"},
    {7, "CUDA_ERROR_PROFILER_ALREADY_STARTED"},
    {8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT"},
    {205, "CUDA_ERROR_MAP_FAILED"},
    {206, "CUDA_ERROR_UNMAP_FAILED"},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED"},
    {208, "CUDA_ERROR_ALREADY_MAPPED"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED"},
    {211, "CUDA_ERROR_NOT_MAPPED"},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT"},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"},
    {226, "CUDA_ERROR_CONTAINED"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {401, "CUDA_ERROR_ILLEGAL_STATE"},
    {402, "CUDA_ERROR_LOSSY_QUERY"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE"},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY"},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"},
    {810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"},
    {811, "CUDA_ERROR_CDP_NOT_SUPPORTED"},
    {812, "CUDA_ERROR_CDP_VERSION_MISMATCH"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
    {907, "CUDA_ERROR_CAPTURED_EVENT"},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
    {909, "CUDA_ERROR_TIMEOUT"},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE"},
    {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"},
    {913, "CUDA_ERROR_FUNCTION_NOT_LOADED"},
    {914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"},
    {915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"},
    {916, "CUDA_ERROR_KEY_ROTATION"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

const std::unordered_map<int, const char*>& descriptions() {
  static const std::unordered_map<int, const char*> m = {
      {CUDA_SUCCESS, "no error"},
      {CUDA_ERROR_INVALID_VALUE, "invalid argument"},
      {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
      {CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
      {CUDA_ERROR_DEINITIALIZED, "driver shutting down"},
      {CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
      {CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
      {CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
      {CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
      {CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"},
      {CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"},
      {CUDA_ERROR_FILE_NOT_FOUND, "file not found"},
      {CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
      {CUDA_ERROR_NOT_FOUND, "named symbol not found"},
      {CUDA_ERROR_NOT_READY, "device not ready"},
      {CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"},
      {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"},
      {CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"},
      {CUDA_ERROR_ASSERT, "device-side assert triggered"},
      {CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered"},
      {CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"},
      {CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"},
      {CUDA_ERROR_NOT_SUPPORTED, "operation not supported"},
      {CUDA_ERROR_UNSUPPORTED_LIMIT, "limit is not supported on this architecture"},
      {CUDA_ERROR_INVALID_CLUSTER_SIZE, "invalid cluster size"},
      {CUDA_ERROR_UNKNOWN, "unknown error"},
  };
  return m;
}

const char* nameOf(int code) {
  for (const Entry& e : kNames)
    if (e.code == code) return e.name;
  return nullptr;
}

}  // namespace

TSIM_API CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const char* n = nameOf(error);
  *pStr = n;
  return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TSIM_API CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const char* n = nameOf(error);
  if (!n) {
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto it = descriptions().find(error);
  if (it != descriptions().end()) {
    *pStr = it->second;
    return CUDA_SUCCESS;
  }
  // Built once per code and kept: the API returns pointers that stay valid for the process.
  static std::mutex mu;
  static std::unordered_map<int, std::string> derived;
  std::lock_guard lock(mu);
  std::string& s = derived[error];
  if (s.empty()) {
    std::string raw = n;
    const std::string prefix = "CUDA_ERROR_";
    if (raw.rfind(prefix, 0) == 0) raw = raw.substr(prefix.size());
    for (char c : raw) s += c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  *pStr = s.c_str();
  return CUDA_SUCCESS;
}
