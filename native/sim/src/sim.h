// Contract between the PTX side of the simulator (parser + executor) and the driver side
// (cu* entry points, allocations, streams, memory checker). Both sides include only this header
// from each other.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tsim {

// What went wrong in a launch. The driver turns kind into a CUresult (sticky for memory faults).
struct Fault {
  enum Kind {
    None = 0,
    OutOfBounds,     // global access outside every live allocation   -> CUDA_ERROR_ILLEGAL_ADDRESS
    UseAfterFree,    // global access inside a freed allocation        -> CUDA_ERROR_ILLEGAL_ADDRESS
    Misaligned,      // address not aligned to the access size         -> CUDA_ERROR_MISALIGNED_ADDRESS
    SharedOutOfBounds,  // shared (or local) access outside the window -> CUDA_ERROR_ILLEGAL_ADDRESS
    Trap,            // trap / failed assert                           -> CUDA_ERROR_ASSERT / LAUNCH_FAILED
    Timeout,         // instruction budget exhausted                   -> CUDA_ERROR_LAUNCH_TIMEOUT
    IllegalInstruction,  // reached something the executor cannot run  -> CUDA_ERROR_ILLEGAL_INSTRUCTION
    Hazard,          // a sanitizer (racecheck/synccheck/initcheck) found hazards -> CUDA_ERROR_LAUNCH_FAILED
  };
  Kind kind = None;
  uint64_t addr = 0;
  unsigned size = 0;
  bool write = false;
  int ptxLine = 0;
  unsigned ctaid[3] = {0, 0, 0};
  unsigned tid[3] = {0, 0, 0};
  std::string kernel;
  std::string detail;  // free text: instruction, nearest allocation, ...
};

// Device global memory as the driver manages it. Device addresses are opaque 64-bit numbers;
// translate() returns the host bytes behind [addr, addr+size) or nullptr after filling `f`
// (kind, addr, size, write, detail); the executor fills in kernel/ctaid/tid/ptxLine.
// Must be thread-safe: CTAs run concurrently.
class GlobalMemory {
 public:
  virtual ~GlobalMemory() = default;
  virtual uint8_t* translate(uint64_t addr, unsigned size, bool write, Fault& f) = 0;
  // Allocation for module-scope .global/.const variables (zero-filled). Returns 0 when out of memory.
  virtual uint64_t allocModuleVar(size_t bytes, size_t align) = 0;
  // initcheck: one shadow byte per device byte of [addr, addr+bytes) (nonzero = written since the
  // allocation), or nullptr when the range is not tracked (counts as written).
  virtual uint8_t* initShadow(uint64_t addr, size_t bytes) { (void)addr; (void)bytes; return nullptr; }
  // The allocation containing addr: its range [*lo, *hi) (empty when none) and its shadow (nullptr
  // when untracked). Allocations are not freed while a kernel runs, so a launch may cache this.
  virtual uint8_t* initShadowOf(uint64_t addr, uint64_t* lo, uint64_t* hi) {
    (void)addr;
    *lo = *hi = 0;
    return nullptr;
  }
};

// Per-launch counters (issue-level: one per warp instruction, not per thread).
struct Counters {
  uint64_t warpInstructions = 0;
  uint64_t threadInstructions = 0;
  uint64_t byClass[8] = {};  // see CounterClass
  uint64_t globalLoadRequests = 0, globalStoreRequests = 0;
  uint64_t globalLoadSectors = 0, globalStoreSectors = 0;  // distinct 32-byte sectors per request
  uint64_t sharedAccesses = 0, sharedBankConflicts = 0;    // conflicts: extra wavefronts
  uint64_t barriers = 0;
};
enum CounterClass { kIntAlu = 0, kFloat, kMemGlobal, kMemShared, kControl, kSync, kTensor, kOther };

struct ParamInfo {
  unsigned offset;  // byte offset in the parameter buffer
  unsigned size;    // bytes
  unsigned align;
};

struct KernelInfo {
  std::string name;
  std::vector<ParamInfo> params;
  unsigned paramBytes = 0;
  unsigned staticSharedBytes = 0;
  unsigned localBytes = 0;        // per thread
  unsigned numRegs = 0;           // an estimate; reported through cuFuncGetAttribute
  unsigned maxntid[3] = {0, 0, 0};  // 0 = not given
  unsigned reqntid[3] = {0, 0, 0};
  unsigned reqCluster[3] = {0, 0, 0};  // .reqnctapercluster (0 = not given)
  bool explicitCluster = false;         // .explicitcluster
  unsigned maxClusterRank = 0;          // .maxclusterrank (0 = not given)
  bool usesDynamicShared = false;
};

struct GlobalVar {
  std::string name;
  size_t bytes;
  uint64_t addr;  // device address once bound
};

// A parsed, validated PTX module. Opaque to the driver except through the functions below.
class Module {
 public:
  virtual ~Module() = default;
  virtual const std::vector<KernelInfo>& kernels() const = 0;
  virtual const std::vector<GlobalVar>& globals() const = 0;
  // Allocates and initialises module variables in `mem`. False (with log) when it cannot.
  virtual bool bindGlobals(GlobalMemory& mem, std::string& log) = 0;
};

// Parses PTX text. On malformed PTX or an instruction the executor does not implement, returns
// nullptr and writes "line N: <what> (<instruction text>)" lines into `log`.
std::unique_ptr<Module> parsePtx(const std::string& text, std::string& log);

// vprintf calls kept for the host instead of written to stdout (LaunchConfig::prints): per call,
// the thread, the formatted text, and the argument bytes the format consumed plus the 8 bytes
// after them (zero where unreadable): a caller may pass words past its format's arguments (the
// Tessera runtime's sequence number and print site, docs/sim.md).
struct PrintRecord {
  unsigned ctaid[3] = {0, 0, 0};
  unsigned tid[3] = {0, 0, 0};
  std::string text;
  std::vector<uint8_t> args;
};
struct PrintCapture {
  static constexpr size_t kMaxBytes = size_t(64) << 20;  // past this, calls are counted, not kept
  std::vector<PrintRecord> records;
  size_t bytes = 0;
  uint64_t dropped = 0;
};

struct LaunchConfig {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned dynamicSharedBytes = 0;
  const uint8_t* params = nullptr;  // packed per KernelInfo::params
  uint64_t instructionBudget = 0;   // per launch, thread-instructions; 0 = unlimited
  unsigned threads = 0;             // worker threads for CTAs; 0 = hardware concurrency
  bool memcheck = true;             // check alignment and bounds of every access
  unsigned sanitize = 0;            // bit 0 racecheck, 1 synccheck, 2 initcheck (sanitize.h)
  bool trackInit = false;           // mark global bytes written (initcheck's shadow), checks or not
  unsigned cluster[3] = {1, 1, 1};  // CTAs per cluster (exec_cluster.cpp); grid divisible by it
  bool explicitCluster = false;     // launched with a cluster shape (%is_explicit_cluster)
  unsigned clusterSkew = 0;         // >= 2: rank 0 of a cluster takes this many turns per turn of the others (exec_launch.cpp)
  PrintCapture* prints = nullptr;   // non-null: vprintf appends here (under Launch::printMu), not stdout
};

// Runs one kernel to completion. Returns a Fault with kind None on success.
Fault launch(Module& module, const KernelInfo& kernel, const LaunchConfig& cfg, GlobalMemory& mem,
             Counters& counters);

}  // namespace tsim
