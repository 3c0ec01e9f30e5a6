// Decoded PTX: what the parser produces and the executor runs. Parsed once; no strings at run time.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim.h"

namespace tsim {

enum class Ty : uint8_t {
  None, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, TF32, F32, F64, Pred,
};
Ty parseTy(const std::string& s);  // Ty::None when s is not a type name
unsigned tySize(Ty t);             // bytes (pred: 1)
const char* tyName(Ty t);          // "f32" ("" for None)
inline bool tyIsFloat(Ty t) { return t == Ty::F32 || t == Ty::F64 || t == Ty::F16 || t == Ty::BF16; }
inline bool tyIsSigned(Ty t) { return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64; }

// Memory state spaces as the executor sees them.
enum Space : uint8_t { kGeneric, kGlobal, kShared, kLocal, kParam, kConst, kSharedCluster };

// Generic-address windows for shared and local memory (global addresses are the driver's and must
// stay below these).
constexpr uint64_t kSharedWindow = 0xFFFF000000000000ull;
constexpr uint64_t kLocalWindow = 0xFFFE000000000000ull;
constexpr uint64_t kWindowMask = 0xFFFF000000000000ull;
// Generic addresses of kernel parameters (cvta.param; the window holds the parameter offset).
constexpr uint64_t kParamWindow = 0xFFFD000000000000ull;

struct Ctx;
struct Inst;
using Fn = void (*)(Ctx&, const Inst&, uint32_t exec);

// Instruction flags.
enum : uint16_t {
  kfControl = 1,  // handler sets the warp's pc itself
  kfSigned = 2,
  kfSanAtomic = 0x1000,  // sanitizers: an atomic access (atomics never race with each other)
  kfSanAsync = 0x2000,   // sanitizers: a cp.async destination (written at the covering wait)
  kfAligned = 0x4000,    // sanitizers: an .aligned barrier (all lanes of a warp execute it together)
};

struct Inst {
  Fn fn = nullptr;
  uint32_t d[4] = {0, 0, 0, 0};  // destination register slots
  uint32_t s[4] = {0, 0, 0, 0};  // source register slots
  uint32_t guard = 0;            // predicate slot; 0 = unguarded
  bool guardNeg = false;
  uint8_t cls = kIntAlu;
  uint16_t flags = 0;
  uint8_t space = kGeneric;
  uint8_t size = 0;   // access size in bytes per element
  uint8_t vec = 1;    // vector elements
  uint8_t mode = 0;   // instruction-specific small enum
  int64_t imm = 0;    // address offset or misc immediate
  uint32_t target = 0;  // branch target / callee entry pc
  uint32_t ext = 0;     // index into Program::ext for long operand lists
  int line = 0;
};

// Module-level constants: immediates and symbol addresses live in read-only register slots.
struct ConstSlot {
  enum Kind { Value, GlobalVar, SharedVar } kind = Value;
  uint64_t value = 0;  // Value: bits; other kinds: added offset
  unsigned var = 0;    // GlobalVar: index into globals; SharedVar: index into Program::shared
  uint32_t slot = 0;
};

struct SharedVar {
  std::string name;
  unsigned bytes = 0, align = 1;
  bool dynamic = false;  // .extern .shared x[]
};

// Slots 1..kNumSpecial-1 hold per-lane special registers, filled when a warp starts.
enum SpecialSlot : uint32_t {
  kSlotSink = 0,  // written by '_' destinations and never read as a value
  kTidX = 1, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ, kCtaidX, kCtaidY, kCtaidZ, kNctaidX, kNctaidY,
  kNctaidZ, kLaneId, kWarpId, kNWarpId, kSmId, kNSmId, kDynSmem, kLaneEq, kLaneLt, kLaneLe, kLaneGt,
  kLaneGe, kGridId, kTotalSmem, kCarry, kClusterIdX, kClusterIdY, kClusterIdZ, kNClusterIdX, kNClusterIdY,
  kNClusterIdZ, kClusterCtaidX, kClusterCtaidY, kClusterCtaidZ, kClusterNctaidX, kClusterNctaidY, kClusterNctaidZ,
  kClusterCtaRank, kClusterNctaRank, kIsExplicitCluster, kNumSpecial
};

struct Function {
  std::string name;
  bool isEntry = false, isExtern = false;
  uint32_t entryPc = 0;
  std::vector<unsigned> paramOffsets;  // entry: offsets in the param buffer; func: local offsets
  std::vector<unsigned> paramSizes;
  std::vector<unsigned> retOffsets, retSizes;  // func return params (local offsets)
  std::vector<unsigned> sharedVars;  // shared variables referenced directly
  std::vector<int> callees;
  std::vector<unsigned> sharedOffset;  // entry: per Program::shared offset (~0u = unused)
  KernelInfo info;
};

struct Program {
  std::vector<Inst> code;
  std::vector<uint32_t> ext;  // long operand lists referenced by Inst::ext
  std::vector<ConstSlot> consts;  // read-only slots filled at launch
  uint32_t numSlots = kNumSpecial;
  std::vector<Function> funcs;
  unsigned localBytes = 0;   // per thread, all functions together (no recursion)
  std::vector<SharedVar> shared;
};

}  // namespace tsim
