// The decode step: one parsed PTX statement -> one decoded Inst, through a table keyed by opcode.
// Each exec_*.cpp registers the opcodes it implements; anything not in the table (or a modifier
// combination a decoder rejects) is an "unsupported instruction" load error.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ptx_ir.h"

namespace tsim {

struct Operand {
  enum Kind { None, Reg, Imm, Vec, Addr, Sym, Sink, List } kind = None;
  std::string name;  // Reg/Sym: identifier; Imm: literal text
  std::string pair;  // second half of "a|b"
  bool neg = false;  // "!%p"
  int64_t off = 0;   // Addr: offset
  std::vector<Operand> elems;  // Vec/List elements; Addr: base (0 or 1 element)
};

struct Stmt {
  int line = 0;
  std::string text;                 // for error messages
  std::string op;                   // "ld"
  std::vector<std::string> mods;    // {"global", "v4", "f32"}
  std::vector<Operand> ops;
  bool has(const char* m) const;    // modifier present
  Ty type() const;                  // last modifier that names a type (None if none)
  Ty type(int nth) const;           // nth type modifier (0-based)
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  // Register slot for a destination operand ('_' -> sink).
  virtual uint32_t dst(const Operand& o) = 0;
  // Register slot holding a source value of type t: register, immediate, or symbol address.
  virtual uint32_t src(const Operand& o, Ty t) = 0;
  // Address operand [base+off] or [symbol+off]; space is the symbol's space when known.
  virtual bool addr(const Operand& o, uint32_t& base, int64_t& off, uint8_t& space) = 0;
  // Branch target operand -> Inst::target fixed up at the end of the function.
  virtual bool label(const Operand& o, Inst& in) = 0;
  // Function lookup by name (-1 when unknown).
  virtual int func(const std::string& name) = 0;
  // A .branchtargets list by name: its offset in Program::ext ([count, pc...]), -1 when unknown.
  virtual int targets(const std::string& name) = 0;
  // Local-memory offset and size of a .param/.local symbol declared in the current function.
  virtual bool localSym(const Operand& o, unsigned& off, unsigned& size) = 0;
  virtual Program& prog() = 0;
  // Declared size in bytes of a register operand (0 when it is not a declared register).
  virtual unsigned regBytes(const Operand& o) = 0;
  // True when o is a declared .pred register.
  virtual bool isPred(const Operand& o) = 0;
  uint32_t ext(const std::vector<uint32_t>& v) {
    uint32_t at = (uint32_t)prog().ext.size();
    prog().ext.insert(prog().ext.end(), v.begin(), v.end());
    return at;
  }
  bool fail(const std::string& why) { err = why; return false; }
  std::string err;                // set when a decoder rejects the statement
  bool negHandled = false;        // a decoder that implements "!%p" source operands sets this
  std::vector<Inst> emitAfter;    // extra instructions that follow the decoded one
  std::string target;             // the module's `.target` architecture ("sm_90a"; "" before any)
};

// Immediate literal text -> bits for an operand of type t ("" on success, else why not).
std::string immBits(const std::string& text, Ty t, uint64_t& out);
// Integer literal text (decimal, 0x, 0b, octal, optional U, optional '-') -> value.
bool immInt(const std::string& text, int64_t& v);

using DecodeFn = std::function<bool(Decoder&, const Stmt&, Inst&)>;

// One opcode: its decoder, every modifier (types included) the decoder implements, and a line for
// the generated instruction table in docs/sim-ptx.md. A statement with any other modifier is
// refused before its decoder runs, so no modifier is ever accepted and ignored.
struct OpEntry {
  DecodeFn decode;
  std::vector<std::string> mods;
  std::string note;
  bool accepts(const std::string& m) const;
};
using DecodeTable = std::map<std::string, OpEntry>;
// mods: space-separated modifier names without dots ("rn rz ftz f32").
void addOp(DecodeTable& t, const char* op, DecodeFn fn, const std::string& mods, const char* note);
// The decode table as markdown rows (what docs/sim-ptx.md's generated section holds).
std::string instructionTableMarkdown();

void registerIntOps(DecodeTable& t);
void registerIntExtraOps(DecodeTable& t);
void registerFloatOps(DecodeTable& t);
void registerCvtOps(DecodeTable& t);
void registerMemOps(DecodeTable& t);
void registerCtrlOps(DecodeTable& t);
void registerWarpOps(DecodeTable& t);
void registerTensorOps(DecodeTable& t);
void registerVideoOps(DecodeTable& t);
void registerWmmaOps(DecodeTable& t);
void registerMbarrierOps(DecodeTable& t);
void registerWgmmaOps(DecodeTable& t);
void registerTcgen05Ops(DecodeTable& t);  // exec_tcgen05.cpp (and exec_tcgen05_mma.cpp)
void registerHopperMiscOps(DecodeTable& t);
void registerClcOps(DecodeTable& t);  // exec_clc.cpp: clusterlaunchcontrol (sm_100)
void registerClusterOps(DecodeTable& t);                           // exec_cluster.cpp
bool decodeClusterBarrier(Decoder& dc, const Stmt& st, Inst& in);  // barrier.cluster.{arrive,wait}
const DecodeTable& decodeTable();

}  // namespace tsim
