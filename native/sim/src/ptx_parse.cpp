// PTX text -> PtxModule: lexer, module/function structure, symbols, and the decode driver.
#include <functional>
#include <cctype>
#include <cstring>
#include <algorithm>
#include <set>

#include "ptx_decode.h"
#include "ptx_module.h"

namespace tsim {

namespace {

struct Tok {
  enum Kind { Ident, Num, Str, Punct, End } kind = End;
  std::string s;
  int line = 0;
  size_t pos = 0;  // offset in the source (for statement text)
};

bool identStart(char c) { return isalpha((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool identChar(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.'; }

bool lex(const std::string& t, std::vector<Tok>& out, std::string& log) {
  int line = 1;
  size_t i = 0, n = t.size();
  while (i < n) {
    char c = t[i];
    if (c == '\n') { line++; i++; continue; }
    if (isspace((unsigned char)c)) { i++; continue; }
    if (c == '/' && i + 1 < n && t[i + 1] == '/') { while (i < n && t[i] != '\n') i++; continue; }
    if (c == '/' && i + 1 < n && t[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(t[i] == '*' && t[i + 1] == '/')) { if (t[i] == '\n') line++; i++; }
      i += 2;
      continue;
    }
    Tok k;
    k.line = line;
    k.pos = i;
    if (c == '"') {
      size_t j = i + 1;
      while (j < n && t[j] != '"') { if (t[j] == '\\') j++; j++; }
      k.kind = Tok::Str;
      k.s = t.substr(i + 1, j - i - 1);
      i = j + 1;
    } else if (identStart(c)) {
      size_t j = i + 1;
      while (j < n && (identChar(t[j]) || (t[j] == ':' && j + 2 < n && t[j + 1] == ':' && identChar(t[j + 2]))))
        j += t[j] == ':' ? 2 : 1;
      k.kind = Tok::Ident;
      k.s = t.substr(i, j - i);
      i = j;
    } else if (isdigit((unsigned char)c)) {
      size_t j = i + 1;
      // an exponent sign belongs to a decimal float, never to a hex, 0f, 0d or 0b literal
      bool prefixed = c == '0' && i + 1 < n && strchr("xXfFdDbB", t[i + 1]) && t[i + 1];
      while (j < n && (isalnum((unsigned char)t[j]) || t[j] == '.' ||
                       ((t[j] == '-' || t[j] == '+') && (t[j - 1] == 'e' || t[j - 1] == 'E') && !prefixed)))
        j++;
      k.kind = Tok::Num;
      k.s = t.substr(i, j - i);
      i = j;
    } else if (strchr(",;:{}()[]<>+-!|@=", c)) {
      k.kind = Tok::Punct;
      k.s = std::string(1, c);
      i++;
    } else {
      log += "line " + std::to_string(line) + ": unexpected character '" + std::string(1, c) + "'\n";
      return false;
    }
    out.push_back(k);
  }
  Tok e;
  e.line = line;
  e.pos = n;
  out.push_back(e);
  return true;
}

constexpr uint64_t kMaxVarBytes = 1ull << 28;   // one variable
constexpr unsigned kMaxLocalBytes = 512u << 10;  // per thread
constexpr uint32_t kMaxSlots = 1u << 16;         // registers + constants per module

struct Sym {
  enum Kind { Reg, Shared, Global, Local, KParam, Func, Label, Targets } kind = Reg;
  // Reg: slot; Shared/Global: var index; Local/KParam: offset; Func: index; Label: pc;
  // Targets (a .branchtargets list): offset in Program::ext of [count, pc...]
  uint32_t idx = 0;
  Ty ty = Ty::None;
  unsigned size = 0;
};

struct ParseError {
  int line;
  std::string msg;
};

// Integer literal per the PTX ISA: decimal, 0x hex, 0b binary, leading-0 octal, each with an
// optional U suffix; 64 bits (a value that does not fit is an error).
bool parseInt(const std::string& s, int64_t& v) {
  std::string d = s;
  if (!d.empty() && (d.back() == 'U' || d.back() == 'u')) d.pop_back();
  if (d.empty()) return false;
  int base = 10;
  size_t at = 0;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) { base = 16; at = 2; }
  else if (d.size() > 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) { base = 2; at = 2; }
  else if (d.size() > 1 && d[0] == '0') { base = 8; at = 1; }
  for (size_t i = at; i < d.size(); i++) {
    char c = (char)tolower((unsigned char)d[i]);
    int dig = isdigit((unsigned char)c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
    if (dig >= base) return false;
  }
  char* end = nullptr;
  errno = 0;
  v = (int64_t)strtoull(d.c_str() + at, &end, base);
  return *end == 0 && errno != ERANGE;
}

}  // namespace

// Immediate literal -> bits for an operand of type t, with ptxas's typing rules: .f32/.f64 take
// only float literals (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, decimal like 1.5 or 1e3; each converted
// to the operand's size: 0f in .f64 widens, 0d and decimals in .f32 round to nearest); integer
// and .pred operands take only integer literals; bit types take integers and also the float hex
// form of their own width, kept as raw bits (mov.b32 %r, 0f3F800000 is 0x3F800000). Half types
// take no immediate. Returns an empty string, or why the literal does not fit.
std::string immBits(const std::string& text, Ty t, uint64_t& out) {
  bool neg = !text.empty() && text[0] == '-';
  std::string s = neg ? text.substr(1) : text;
  auto hexDigits = [&](size_t n) {
    if (s.size() != n + 2) return false;
    for (size_t i = 2; i < s.size(); i++) if (!isxdigit((unsigned char)s[i])) return false;
    return true;
  };
  enum { kInt, kF32Bits, kF64Bits, kDecimal } kind = kInt;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    if (!hexDigits(8)) return "0f needs exactly 8 hex digits";
    kind = kF32Bits;
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    if (!hexDigits(16)) return "0d needs exactly 16 hex digits";
    kind = kF64Bits;
  } else if (!(s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) && s.find_first_of(".eE") != std::string::npos) {
    kind = kDecimal;
  }
  unsigned sz = tySize(t);
  if (t == Ty::F32 || t == Ty::F64) {
    double dv;
    if (kind == kInt) return "an integer literal is not a float operand (write 1.0 or 0f3F800000)";
    if (kind == kF32Bits) {
      uint32_t b = (uint32_t)strtoul(s.c_str() + 2, nullptr, 16);
      float f;
      memcpy(&f, &b, 4);
      dv = (double)f;
    }
    else if (kind == kF64Bits) { uint64_t b = strtoull(s.c_str() + 2, nullptr, 16); memcpy(&dv, &b, 8); }
    else {
      char* end;
      dv = strtod(s.c_str(), &end);
      if (*end) return "malformed float literal";
    }
    if (t == Ty::F32) {
      uint32_t b;
      if (kind == kF32Bits) b = (uint32_t)strtoul(s.c_str() + 2, nullptr, 16);
      else { float f = (float)dv; memcpy(&b, &f, 4); }
      out = b ^ (neg ? 0x80000000u : 0);
    } else {
      memcpy(&out, &dv, 8);
      if (kind == kF64Bits) out = strtoull(s.c_str() + 2, nullptr, 16);
      out ^= neg ? 0x8000000000000000ull : 0;
    }
    return "";
  }
  bool isBits = t == Ty::B8 || t == Ty::B16 || t == Ty::B32 || t == Ty::B64;
  if (kind == kF32Bits || kind == kF64Bits) {
    unsigned w = kind == kF32Bits ? 4 : 8;
    if (!isBits || sz != w)
      return std::string(kind == kF32Bits ? "0f" : "0d") + " literal needs a ." + (kind == kF32Bits ? "b32" : "b64") +
             " or float operand";
    out = strtoull(s.c_str() + 2, nullptr, 16) ^ (neg ? (1ull << (8 * w - 1)) : 0);
    return "";
  }
  if (kind == kDecimal) return "a decimal float literal needs an .f32 or .f64 operand";
  if (t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2 || t == Ty::TF32)
    return "half-precision operands take no immediate (use a .b16/.b32 register)";
  int64_t iv;
  if (!parseInt(s, iv)) return "malformed integer literal";
  out = (uint64_t)(neg ? -iv : iv);
  if (t != Ty::None && sz < 8) out &= (1ull << (sz * 8)) - 1;
  return "";
}

bool immInt(const std::string& text, int64_t& v) {
  bool neg = !text.empty() && text[0] == '-';
  if (!parseInt(neg ? text.substr(1) : text, v)) return false;
  if (neg) v = (int64_t)(0 - (uint64_t)v);
  return true;
}

namespace {

struct Special { const char* name; uint32_t slot; };
const Special kSpecials[] = {
    {"%tid.x", kTidX}, {"%tid.y", kTidY}, {"%tid.z", kTidZ}, {"%ntid.x", kNtidX}, {"%ntid.y", kNtidY},
    {"%ntid.z", kNtidZ}, {"%ctaid.x", kCtaidX}, {"%ctaid.y", kCtaidY}, {"%ctaid.z", kCtaidZ},
    {"%nctaid.x", kNctaidX}, {"%nctaid.y", kNctaidY}, {"%nctaid.z", kNctaidZ}, {"%laneid", kLaneId},
    {"%warpid", kWarpId}, {"%nwarpid", kNWarpId}, {"%smid", kSmId}, {"%nsmid", kNSmId},
    {"%dynamic_smem_size", kDynSmem}, {"%lanemask_eq", kLaneEq}, {"%lanemask_lt", kLaneLt},
    {"%lanemask_le", kLaneLe}, {"%lanemask_gt", kLaneGt}, {"%lanemask_ge", kLaneGe},
    {"%gridid", kGridId}, {"%total_smem_size", kTotalSmem},
    {"%clusterid.x", kClusterIdX}, {"%clusterid.y", kClusterIdY}, {"%clusterid.z", kClusterIdZ},
    {"%nclusterid.x", kNClusterIdX}, {"%nclusterid.y", kNClusterIdY}, {"%nclusterid.z", kNClusterIdZ},
    {"%cluster_ctaid.x", kClusterCtaidX}, {"%cluster_ctaid.y", kClusterCtaidY}, {"%cluster_ctaid.z", kClusterCtaidZ},
    {"%cluster_nctaid.x", kClusterNctaidX}, {"%cluster_nctaid.y", kClusterNctaidY},
    {"%cluster_nctaid.z", kClusterNctaidZ}, {"%cluster_ctarank", kClusterCtaRank},
    {"%cluster_nctarank", kClusterNctaRank}, {"%is_explicit_cluster", kIsExplicitCluster},
};

class Parser : public Decoder {
 public:
  Parser(const std::string& text, PtxModule& m) : src_(text), m_(m) {}

  bool run(std::string& log) {
    if (!lex(src_, toks_, log)) return false;
    try {
      scopes_.emplace_back();
      while (cur().kind != Tok::End) topLevel();
      finish();
    } catch (const ParseError& e) {
      log += "line " + std::to_string(e.line) + ": " + e.msg + "\n";
      return false;
    } catch (const std::exception& e) {
      log += "line " + std::to_string(cur().line) + ": malformed PTX (" + e.what() + ")\n";
      return false;
    }
    return true;
  }

  // ---- Decoder interface ----
  uint32_t dst(const Operand& o) override {
    if (o.kind == Operand::Sink) return kSlotSink;
    const Sym* s = lookup(o.name);
    if (!s) throw ParseError{line_, "unknown symbol '" + o.name + "'"};
    if (s->kind != Sym::Reg) throw ParseError{line_, "'" + o.name + "' is not a register"};
    return s->idx;
  }
  uint32_t src(const Operand& o, Ty t) override {
    if (o.kind == Operand::Imm) {
      uint64_t bits;
      std::string why = immBits(o.name, t, bits);
      if (!why.empty()) throw ParseError{line_, "bad immediate '" + o.name + "': " + why};
      return constSlot(ConstSlot::Value, bits, 0);
    }
    if (o.kind == Operand::Sink) return kSlotSink;
    if (o.kind != Operand::Reg && o.kind != Operand::Sym)
      throw ParseError{line_, "expected a register or immediate"};
    for (auto& sp : kSpecials)
      if (o.name == sp.name) return sp.slot;
    if (o.name == "%tid" || o.name == "%ntid" || o.name == "%ctaid" || o.name == "%nctaid")
      throw ParseError{line_, "vector special register '" + o.name + "' needs a component"};
    const Sym* s = lookup(o.name);
    if (!s) throw ParseError{line_, "unknown symbol '" + o.name + "'"};
    return symSlot(*s, 0);
  }
  unsigned regBytes(const Operand& o) override {
    if (o.kind != Operand::Reg) return 0;
    const Sym* s = lookup(o.name);
    return s && s->kind == Sym::Reg ? tySize(s->ty) : 0;
  }
  bool isPred(const Operand& o) override {
    if (o.kind != Operand::Reg) return false;
    const Sym* s = lookup(o.name);
    return s && s->kind == Sym::Reg && s->ty == Ty::Pred;
  }
  bool addr(const Operand& o, uint32_t& base, int64_t& off, uint8_t& space) override {
    if (o.kind != Operand::Addr) return fail("expected an address operand");
    off = o.off;
    space = kGeneric;
    if (o.elems.empty()) { base = constSlot(ConstSlot::Value, 0, 0); return true; }
    if (o.elems.size() > 1) return fail("an address with a coordinate vector is a tensor-copy operand");
    const Operand& b = o.elems[0];
    const Sym* s = lookup(b.name);
    if (!s) {
      for (auto& sp : kSpecials)
        if (b.name == sp.name) { base = sp.slot; return true; }
      throw ParseError{line_, "unknown symbol '" + b.name + "'"};
    }
    switch (s->kind) {
      case Sym::Reg: base = s->idx; return true;
      case Sym::Shared: space = kShared; break;
      case Sym::Global: space = kGlobal; break;
      case Sym::Local: space = kLocal; break;
      case Sym::KParam: space = kParam; break;
      case Sym::Func: return fail("function used as an address");
      case Sym::Label: return fail("label '" + b.name + "' used as an address");
    }
    base = symSlot(*s, 0);
    return true;
  }
  // A branch target is resolved when its { } block closes (labelTarget): a label later in the
  // same block wins over one of the same name in an enclosing block. A name that is already
  // visible as something other than a label is refused here, as ptxas refuses it.
  bool label(const Operand& o, Inst& in) override {
    (void)in;
    if (o.kind != Operand::Sym && o.kind != Operand::Reg) return fail("expected a label");
    const Sym* s = lookup(o.name);
    if (s && s->kind != Sym::Label) return fail("'" + o.name + "' is not a label");
    scopes_.back().pending.push_back({(uint32_t)m_.prog.code.size(), o.name, line_});
    return true;
  }
  int targets(const std::string& name) override {
    const Sym* s = lookup(name);
    return s && s->kind == Sym::Targets ? (int)s->idx : -1;
  }
  int func(const std::string& name) override {
    const Sym* s = lookup(name);
    if (!s || s->kind != Sym::Func) return -1;
    if (curFunc_ >= 0) m_.prog.funcs[curFunc_].callees.push_back((int)s->idx);
    return (int)s->idx;
  }
  bool localSym(const Operand& o, unsigned& off, unsigned& size) override {
    const Sym* s = lookup(o.name);
    if (!s || s->kind != Sym::Local) return false;
    off = s->idx;
    size = s->size;
    return true;
  }
  Program& prog() override { return m_.prog; }

 private:
  const std::string& src_;
  PtxModule& m_;
  std::vector<Tok> toks_;
  size_t p_ = 0;
  int line_ = 0;
  // One scope per { } block (PTX ISA 9.7.12.1: a name declared in a block is not visible outside
  // it); [0] is the module, [1] a function's parameters and outermost body. Labels and variables
  // share a scope's names, as in ptxas. `pending` holds the branches of this block whose label is
  // not resolved yet.
  // pc: the branch whose target this is, or (inExt) the Program::ext word of a .branchtargets entry
  struct Fixup { uint32_t pc; std::string label; int line; bool inExt = false; };
  struct Scope {
    std::map<std::string, Sym> syms;
    std::vector<Fixup> pending;
  };
  std::vector<Scope> scopes_;
  std::map<std::tuple<int, uint64_t, unsigned>, uint32_t> constIndex_;
  int curFunc_ = -1;
  std::map<int, std::pair<int, int>> tcgen05Group_;  // per function: the .cta_group of its tcgen05 instructions, and the line naming it first
  std::set<std::string> funcLabels_;  // every label of the current function, for the error message
  std::vector<uint32_t> callSites_;

  const Tok& cur() const { return toks_[std::min(p_, toks_.size() - 1)]; }
  const Tok& peek(int k = 1) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  Tok next() { return toks_[p_ < toks_.size() - 1 ? p_++ : toks_.size() - 1]; }
  bool is(const char* s) const { return cur().kind != Tok::End && cur().kind != Tok::Str && cur().s == s; }
  [[noreturn]] void bad(const std::string& m) { throw ParseError{cur().line, m}; }
  void expect(const char* s) {
    if (!is(s)) bad(std::string("expected '") + s + "' but found '" + cur().s + "'");
    p_++;
  }
  void skipLine() {
    int l = cur().line;
    while (cur().kind != Tok::End && cur().line == l) p_++;
  }
  int64_t intTok() {
    bool neg = false;
    if (is("-")) { neg = true; p_++; }
    if (cur().kind != Tok::Num) bad("expected a number, found '" + cur().s + "'");
    int64_t v;
    if (!parseInt(cur().s, v)) bad("bad number '" + cur().s + "'");
    p_++;
    return neg ? -v : v;
  }

  const Sym* lookup(const std::string& n) const {
    for (size_t i = scopes_.size(); i-- > 0;) {
      auto it = scopes_[i].syms.find(n);
      if (it != scopes_[i].syms.end()) return &it->second;
    }
    return nullptr;
  }
  // Inside a function a name is declared once per block (ptxas: "Duplicate definition"); an inner
  // block may shadow it. A variable may not take the name a branch of this block already used as
  // a forward label (ptxas: "Label expected for forward reference").
  void declare(const std::string& n, const Sym& s) {
    Scope& sc = scopes_.back();
    if (scopes_.size() > 1) {
      // the declaration's line: a label's own token, else the last token read (the name or ';')
      int line = s.kind == Sym::Label ? cur().line : toks_[p_ ? p_ - 1 : 0].line;
      if (sc.syms.count(n))
        throw ParseError{line, "duplicate definition of '" + n + "' in one { } block (a " +
                                   (sc.syms[n].kind == Sym::Label ? "label" : "variable") + " of this name is declared there already)"};
      if (s.kind != Sym::Label)
        for (const Fixup& f : sc.pending)
          if (f.label == n)
            throw ParseError{line, "'" + n + "' is declared as a variable, but a branch at line " + std::to_string(f.line) +
                                       " of this block names it as a label"};
    }
    sc.syms[n] = s;
  }
  // Closing a block: its pending branches go to the block's own label of that name, else on to
  // the enclosing block. The function's outermost block resolves what is left or fails.
  void closeScope(bool functionBody) {
    Scope& sc = scopes_.back();
    std::vector<Fixup> up;
    for (const Fixup& f : sc.pending) {
      auto it = sc.syms.find(f.label);
      if (it != sc.syms.end()) {
        if (it->second.kind != Sym::Label) throw ParseError{f.line, "'" + f.label + "' is not a label"};
        (f.inExt ? m_.prog.ext[f.pc] : m_.prog.code[f.pc].target) = it->second.idx;
      } else if (functionBody) {
        throw ParseError{f.line, "unknown label '" + f.label + "'" +
                                     (funcLabels_.count(f.label) ? " (a label is visible only in its own { } block and the blocks inside it)" : "")};
      } else {
        up.push_back(f);
      }
    }
    scopes_.pop_back();
    if (!functionBody)
      for (Fixup& f : up) scopes_.back().pending.push_back(std::move(f));
  }

  uint32_t constSlot(ConstSlot::Kind k, uint64_t v, unsigned var) {
    if (m_.prog.numSlots >= kMaxSlots) bad("too many registers and constants");
    auto key = std::make_tuple((int)k, v, var);
    auto it = constIndex_.find(key);
    if (it != constIndex_.end()) return it->second;
    ConstSlot c;
    c.kind = k;
    c.value = v;
    c.var = var;
    c.slot = m_.prog.numSlots++;
    m_.prog.consts.push_back(c);
    constIndex_[key] = c.slot;
    return c.slot;
  }
  uint32_t symSlot(const Sym& s, uint64_t off) {
    switch (s.kind) {
      case Sym::Reg: return s.idx;
      case Sym::Shared:
        if (curFunc_ >= 0) m_.prog.funcs[curFunc_].sharedVars.push_back(s.idx);
        return constSlot(ConstSlot::SharedVar, off, s.idx);
      case Sym::Global: return constSlot(ConstSlot::GlobalVar, off, s.idx);
      case Sym::Local:
      case Sym::KParam: return constSlot(ConstSlot::Value, s.idx + off, 0);
      case Sym::Func: throw ParseError{line_, "function name used as a value"};
      case Sym::Label: throw ParseError{line_, "label used as a value"};
    }
    return 0;
  }

  // ---- module level ----
  void topLevel() {
    const Tok& t = cur();
    if (t.kind != Tok::Ident) bad("unexpected '" + t.s + "'");
    if (t.s == ".target" && peek().kind == Tok::Ident) target = peek().s;  // decoders refuse forms newer than it
    if (t.s == ".version" || t.s == ".target" || t.s == ".address_size" || t.s == ".file") { skipLine(); return; }
    if (t.s == ".section") {
      while (!is("{") && cur().kind != Tok::End) p_++;
      int depth = 0;
      do {
        if (is("{")) depth++;
        if (is("}")) depth--;
        p_++;
      } while (depth > 0 && cur().kind != Tok::End);
      return;
    }
    if (t.s == ".pragma") { while (!is(";") && cur().kind != Tok::End) p_++; p_++; return; }
    bool isExtern = false;
    while (is(".visible") || is(".extern") || is(".weak") || is(".common")) {
      if (is(".extern")) isExtern = true;
      p_++;
    }
    if (is(".entry") || is(".func")) { function(isExtern); return; }
    if (is(".global") || is(".const") || is(".shared") || is(".local")) { varDecl(isExtern); return; }
    bad("unexpected '" + cur().s + "' at module level");
  }

  struct Decl { std::string name; Ty ty = Ty::None; unsigned align = 0, count = 1, vec = 1; bool unsized = false; };

  // Attributes, type and name of a variable or parameter (after the state space).
  Decl declHead() {
    Decl d;
    bool ptr = false;  // after .ptr, `.space .align N` describe the pointee, not the parameter
    while (cur().kind == Tok::Ident && cur().s[0] == '.') {
      std::string a = next().s;
      if (a == ".align" && ptr) intTok();
      else if (a == ".align") d.align = (unsigned)intTok();
      else if (a == ".v2") d.vec = 2;
      else if (a == ".v4") d.vec = 4;
      else if (a == ".ptr") ptr = true;
      else if (a == ".global" || a == ".shared" || a == ".const" || a == ".local") {}
      else if (parseTy(a.substr(1)) != Ty::None) d.ty = parseTy(a.substr(1));
      else bad("unknown attribute '" + a + "'");
    }
    if (cur().kind != Tok::Ident) bad("expected a name, found '" + cur().s + "'");
    d.name = next().s;
    if (d.ty == Ty::None) bad("declaration of '" + d.name + "' has no type");
    while (is("[")) {
      p_++;
      if (is("]")) { d.unsized = true; d.count = 0; p_++; continue; }
      int64_t n = intTok();
      if (n < 0 || n > (int64_t)kMaxVarBytes) bad("bad array size for '" + d.name + "'");
      d.count = (unsigned)std::min<uint64_t>((uint64_t)d.count * (uint64_t)n, kMaxVarBytes + 1);
      expect("]");
    }
    if (!d.align) d.align = tySize(d.ty) * d.vec;
    return d;
  }
  unsigned declBytes(const Decl& d) {
    uint64_t b = (uint64_t)tySize(d.ty) * d.vec * d.count;
    if (b > kMaxVarBytes) bad("variable '" + d.name + "' is too large");
    return (unsigned)b;
  }

  unsigned allocLocal(unsigned bytes, unsigned align) {
    unsigned a = std::max(1u, align);
    unsigned off = (m_.prog.localBytes + a - 1) / a * a;
    m_.prog.localBytes = off + bytes;
    if (m_.prog.localBytes > kMaxLocalBytes) bad("local memory per thread exceeds 512 KiB");
    return off;
  }

  void initializer(const Decl& d, std::vector<uint8_t>& bytes) {
    unsigned es = tySize(d.ty);
    bytes.assign(declBytes(d), 0);
    unsigned at = 0;
    int depth = 0;
    std::function<void()> item = [&]() {
      if (is("{")) {
        if (++depth > 8) bad("initializer nested too deeply");
        p_++;
        while (!is("}")) {
          if (cur().kind == Tok::End) bad("unterminated initializer");
          item();
          if (is(",")) p_++;
        }
        p_++;
        depth--;
        return;
      }
      std::string lit;
      if (is("-")) { lit = "-"; p_++; }
      if (cur().kind != Tok::Num) bad("unsupported initializer '" + cur().s + "'");
      lit += next().s;
      uint64_t b;
      std::string why = immBits(lit, d.ty, b);
      if (!why.empty()) bad("bad initializer '" + lit + "' for ." + tyName(d.ty) + " '" + d.name + "': " + why);
      if (at + es > bytes.size()) bad("too many initializers for '" + d.name + "'");
      memcpy(bytes.data() + at, &b, es);
      at += es;
    };
    item();
  }

  void varDecl(bool isExtern) {
    std::string space = next().s;
    Decl d = declHead();
    std::vector<uint8_t> init;
    if (is("=")) { p_++; initializer(d, init); }
    expect(";");
    Sym s;
    s.ty = d.ty;
    s.size = declBytes(d);
    if (space == ".shared") {
      SharedVar v;
      v.name = d.name;
      v.bytes = s.size;
      v.align = d.align;
      v.dynamic = d.unsized || (isExtern && s.size == 0);
      s.kind = Sym::Shared;
      s.idx = (uint32_t)m_.prog.shared.size();
      m_.prog.shared.push_back(v);
    } else if (space == ".local") {
      s.kind = Sym::Local;
      s.idx = allocLocal(s.size, d.align);
    } else {  // .global / .const live in driver memory
      if (curFunc_ >= 0 && space == ".global") bad("function-scope .global is not supported");
      s.kind = Sym::Global;
      s.idx = (uint32_t)m_.globalList.size();
      GlobalVar g;
      g.name = d.name;
      g.bytes = s.size;
      g.addr = 0;
      m_.globalList.push_back(g);
      m_.globalInit.push_back(init);
      m_.globalAlign.push_back(d.align);
    }
    declare(d.name, s);
  }

  // ( .param ... name, ... ) -> declarations
  std::vector<Decl> paramList() {
    std::vector<Decl> out;
    expect("(");
    while (!is(")")) {
      if (!is(".param") && !is(".reg")) bad("expected .param, found '" + cur().s + "'");
      p_++;
      out.push_back(declHead());
      if (is(",")) p_++;
    }
    p_++;
    return out;
  }

  void function(bool isExtern) {
    bool entry = next().s == ".entry";
    std::vector<Decl> rets, params;
    if (!entry && is("(")) rets = paramList();
    if (cur().kind != Tok::Ident) bad("expected a function name");
    std::string name = next().s;
    if (is("(")) params = paramList();
    Function* f = nullptr;
    int idx = -1;
    const Sym* prev = lookup(name);
    if (prev && prev->kind == Sym::Func) {
      idx = (int)prev->idx;
    } else {
      idx = (int)m_.prog.funcs.size();
      m_.prog.funcs.emplace_back();
      Sym s;
      s.kind = Sym::Func;
      s.idx = (uint32_t)idx;
      declare(name, s);
      Function& nf = m_.prog.funcs.back();
      nf.name = name;
      nf.isEntry = entry;
      nf.isExtern = true;
      unsigned off = 0;
      for (auto& d : params) {
        unsigned bytes = declBytes(d), a = std::max(1u, d.align);
        if (entry) {
          off = (off + a - 1) / a * a;
          nf.paramOffsets.push_back(off);
          nf.info.params.push_back({off, bytes, a});
          off += bytes;
        } else {
          nf.paramOffsets.push_back(allocLocal(bytes, a));
        }
        nf.paramSizes.push_back(bytes);
      }
      nf.info.paramBytes = off;
      for (auto& d : rets) {
        nf.retOffsets.push_back(allocLocal(declBytes(d), d.align));
        nf.retSizes.push_back(declBytes(d));
      }
    }
    f = &m_.prog.funcs[idx];
    f->info.name = name;
    // performance-tuning directives
    while (cur().kind == Tok::Ident && cur().s[0] == '.') {
      std::string dname = next().s;
      auto dims = [&](unsigned* out) {
        for (int i = 0; i < 3; i++) {
          out[i] = (unsigned)intTok();
          if (!is(",")) { for (int j = i + 1; j < 3; j++) out[j] = 1; break; }
          p_++;
        }
      };
      if (dname == ".maxntid") dims(f->info.maxntid);
      else if (dname == ".reqntid") dims(f->info.reqntid);
      else if (dname == ".reqnctapercluster") dims(f->info.reqCluster);
      else if (dname == ".explicitcluster") f->info.explicitCluster = true;
      else if (dname == ".maxclusterrank") f->info.maxClusterRank = (unsigned)intTok();
      else if (dname == ".minnctapersm" || dname == ".maxnreg" || dname == ".maxnctapersm") intTok();
      else if (dname == ".noreturn") {}
      else if (dname == ".pragma") { while (!is(";") && cur().kind != Tok::End) p_++; p_++; }
      else bad("unknown function directive '" + dname + "'");
    }
    if (is(";")) { p_++; return; }  // declaration only
    if (!f->isExtern && f->entryPc) bad("function '" + name + "' defined twice");
    (void)isExtern;
    f->isExtern = false;
    f->entryPc = (uint32_t)m_.prog.code.size();
    curFunc_ = idx;
    scopes_.emplace_back();
    for (size_t i = 0; i < params.size(); i++) {
      Sym s;
      s.kind = entry ? Sym::KParam : Sym::Local;
      s.idx = f->paramOffsets[i];
      s.ty = params[i].ty;
      s.size = f->paramSizes[i];
      declare(params[i].name, s);
    }
    for (size_t i = 0; i < rets.size(); i++) {
      Sym s;
      s.kind = Sym::Local;
      s.idx = m_.prog.funcs[idx].retOffsets[i];
      s.size = m_.prog.funcs[idx].retSizes[i];
      s.ty = rets[i].ty;
      declare(rets[i].name, s);
    }
    funcLabels_.clear();
    body();
    // an implicit ret/exit at the end keeps lanes from running into the next function
    Inst end;
    end.line = line_;
    Stmt st;
    st.op = entry ? "exit" : "ret";
    st.line = line_;
    decodeInto(st, end);
    closeScope(true);
    curFunc_ = -1;
  }

  void body() {
    expect("{");
    int depth = 1;
    while (depth > 0) {
      const Tok& t = cur();
      if (t.kind == Tok::End) bad("unexpected end of input in function body");
      if (is("{")) { p_++; depth++; scopes_.emplace_back(); continue; }
      if (is("}")) { p_++; depth--; if (depth > 0) closeScope(false); continue; }
      if (t.kind == Tok::Ident && peek().s == ":" && peek().kind == Tok::Punct) {
        Sym s;
        s.kind = Sym::Label;
        s.idx = (uint32_t)m_.prog.code.size();
        declare(t.s, s);
        funcLabels_.insert(t.s);
        p_ += 2;
        continue;
      }
      if (t.kind == Tok::Ident && (t.s == ".loc" || t.s == ".file")) { skipLine(); continue; }
      if (is(".branchtargets")) { branchTargets(); continue; }
      if (t.kind == Tok::Ident && t.s == ".pragma") { while (!is(";") && cur().kind != Tok::End) p_++; p_++; continue; }
      if (is(".reg") || (t.kind == Tok::Ident && t.s.compare(0, 5, ".reg.") == 0)) { regDecl(); continue; }
      if (is(".local") || is(".shared") || is(".global") || is(".const")) { varDecl(false); continue; }
      if (is(".extern")) { p_++; varDecl(true); continue; }
      if (is(".param")) {
        p_++;
        Decl d = declHead();
        expect(";");
        Sym s;
        s.kind = Sym::Local;
        s.size = declBytes(d);
        s.ty = d.ty;
        s.idx = allocLocal(s.size, d.align);
        declare(d.name, s);
        continue;
      }
      instruction();
    }
  }

  // `name: .branchtargets L0, L1, ...;` (PTX ISA, brx.idx): the label just declared names the list
  // instead of a pc. Its entries go to Program::ext as [count, pc...], resolved like branches.
  void branchTargets() {
    if (p_ < 2 || toks_[p_ - 1].s != ":" || toks_[p_ - 2].kind != Tok::Ident) bad(".branchtargets needs a label naming the list");
    const std::string name = toks_[p_ - 2].s;
    p_++;
    std::vector<std::pair<std::string, int>> labels;
    while (true) {
      if (cur().kind != Tok::Ident) bad("expected a label in .branchtargets");
      labels.push_back({cur().s, cur().line});
      p_++;
      if (is(",")) { p_++; continue; }
      expect(";");
      break;
    }
    Sym& s = scopes_.back().syms[name];
    s.kind = Sym::Targets;
    s.idx = (uint32_t)m_.prog.ext.size();
    m_.prog.ext.push_back((uint32_t)labels.size());
    for (auto& [l, line] : labels) {
      scopes_.back().pending.push_back({(uint32_t)m_.prog.ext.size(), l, line, true});
      m_.prog.ext.push_back(0);
    }
  }

  void regDecl() {
    // ".reg" or, as inline asm in CUDA headers writes it, ".reg.b16" without a space
    std::string head = next().s.substr(4);
    Ty ty = Ty::None;
    unsigned vec = 1;
    auto mod = [&](const std::string& a) {
      if (a == ".v2") vec = 2;
      else if (a == ".v4") vec = 4;
      else if ((ty = parseTy(a.substr(1))) == Ty::None) bad("unknown register type '" + a + "'");
    };
    for (size_t i = 0; i < head.size();) {
      size_t j = head.find('.', i + 1);
      if (j == std::string::npos) j = head.size();
      mod(head.substr(i, j - i));
      i = j;
    }
    while (cur().kind == Tok::Ident && cur().s[0] == '.') mod(next().s);
    if (vec != 1) bad("vector registers are not supported");
    if (ty == Ty::None) bad(".reg without a type");
    while (true) {
      if (cur().kind != Tok::Ident) bad("expected a register name");
      std::string n = next().s;
      int64_t count = -1;
      if (is("<")) { p_++; count = intTok(); expect(">"); }
      // a .b128 register takes two slots: low 64 bits, then high 64 bits (exec_b128.cpp)
      const int64_t per = ty == Ty::B128 ? 2 : 1;
      if (count > (int64_t)kMaxSlots || m_.prog.numSlots + per * std::max<int64_t>(count, 1) > kMaxSlots)
        bad("too many registers");
      Sym s;
      s.kind = Sym::Reg;
      s.ty = ty;
      if (count < 0) {
        s.idx = m_.prog.numSlots;
        m_.prog.numSlots += (uint32_t)per;
        declare(n, s);
      } else {
        for (int64_t i = 0; i < count; i++) {
          s.idx = m_.prog.numSlots;
          m_.prog.numSlots += (uint32_t)per;
          declare(n + std::to_string(i), s);
        }
      }
      if (is(",")) { p_++; continue; }
      break;
    }
    expect(";");
  }

  int depth_ = 0;
  struct DepthGuard {
    int& d;
    explicit DepthGuard(int& x) : d(x) { d++; }
    ~DepthGuard() { d--; }
  };
  Operand operand() {
    DepthGuard dg(depth_);
    if (depth_ > 8) bad("operands nested too deeply");
    Operand o;
    if (is("[")) {
      p_++;
      o.kind = Operand::Addr;
      if (cur().kind == Tok::Ident) {
        Operand b;
        b.kind = Operand::Sym;
        b.name = next().s;
        o.elems.push_back(b);
        while (is("+") || is("-")) {
          bool neg = next().s == "-";
          int64_t v = intTok();
          o.off += neg ? -v : v;
        }
        // [tensorMap, {c0, ...}] (cp.async.bulk.tensor): the coordinate vector is elems[1]
        if (is(",")) {
          p_++;
          if (!is("{")) bad("expected '{' after ',' in an address operand");
          o.elems.push_back(operand());
        }
      } else {
        o.off = intTok();
      }
      expect("]");
      return o;
    }
    if (is("{") || is("(")) {
      std::string close = is("{") ? "}" : ")";
      o.kind = is("{") ? Operand::Vec : Operand::List;
      p_++;
      while (!is(close.c_str())) {
        o.elems.push_back(operand());
        if (is(",")) p_++;
        else if (!is(close.c_str())) bad("expected ',' in operand list");
      }
      p_++;
      return o;
    }
    if (is("!")) { p_++; o = operand(); o.neg = true; return o; }
    if (is("-") || cur().kind == Tok::Num) {
      o.kind = Operand::Imm;
      if (is("-")) { o.name = "-"; p_++; }
      if (cur().kind != Tok::Num) bad("expected a number");
      o.name += next().s;
      return o;
    }
    if (cur().kind != Tok::Ident) bad("unexpected '" + cur().s + "' in operands");
    o.name = next().s;
    o.kind = o.name == "_" ? Operand::Sink : o.name[0] == '%' ? Operand::Reg : Operand::Sym;
    if (is("|")) {
      p_++;
      if (cur().kind != Tok::Ident) bad("expected a register after '|'");
      o.pair = next().s;
    }
    if (o.kind == Operand::Sym && (is("+"))) {  // symbol+offset as a value
      p_++;
      o.off = intTok();
    }
    return o;
  }

  void instruction() {
    Stmt st;
    size_t start = cur().pos;
    st.line = line_ = cur().line;
    uint32_t guard = 0;
    bool gneg = false;
    if (is("@")) {
      p_++;
      if (is("!")) { gneg = true; p_++; }
      const Sym* s = lookup(cur().s);
      if (!s || s->kind != Sym::Reg) bad("guard '" + cur().s + "' is not a predicate register");
      guard = s->idx;
      p_++;
    }
    if (cur().kind != Tok::Ident) bad("expected an instruction, found '" + cur().s + "'");
    std::string full = next().s;
    size_t dot = full.find('.');
    st.op = full.substr(0, dot);
    while (dot != std::string::npos) {
      size_t nd = full.find('.', dot + 1);
      st.mods.push_back(full.substr(dot + 1, nd == std::string::npos ? std::string::npos : nd - dot - 1));
      dot = nd;
    }
    while (!is(";")) {
      if (cur().kind == Tok::End) bad("missing ';'");
      st.ops.push_back(operand());
      if (is(",")) p_++;
      else if (!is(";")) bad("expected ',' or ';' after an operand, found '" + cur().s + "'");
    }
    st.text = src_.substr(start, cur().pos - start);
    for (auto& ch : st.text) if (ch == '\n' || ch == '\t') ch = ' ';
    p_++;
    Inst in;
    in.guard = guard;
    in.guardNeg = gneg;
    decodeInto(st, in);
  }

  void decodeInto(const Stmt& st, Inst& in) {
    const DecodeTable& tab = decodeTable();
    auto it = tab.find(st.op);
    err.clear();
    emitAfter.clear();
    negHandled = false;
    in.line = st.line;
    line_ = st.line;
    bool ok = false;
    std::string text = st.text.empty() ? st.op : st.text;
    if (it != tab.end()) {
      for (const std::string& m : st.mods)
        if (!it->second.accepts(m))
          throw ParseError{st.line, "unsupported instruction '" + text + "' (modifier ." + m + " is not implemented for " +
                                        st.op + ")"};
      try {
        ok = it->second.decode(*this, st, in);
      } catch (const ParseError& e) {
        throw ParseError{st.line, e.msg + " in '" + text + "'"};
      }
    }
    if (ok && in.fn && !negHandled) {
      // Never drop a negation silently: only decoders that implement "!%p" accept it.
      for (const Operand& o : st.ops)
        if (o.neg) { ok = false; err = "negated operand '!" + o.name + "' is not supported here"; }
    }
    if (!ok || !in.fn) {
      throw ParseError{st.line, "unsupported instruction '" + text + "'" + (err.empty() ? "" : " (" + err + ")")};
    }
    in.line = st.line;
    // PTX ISA (tcgen05 "CTA pair"): the tcgen05 instructions of a kernel all name the same
    // .cta_group; ptxas refuses a function that mixes them, so does the sim (across calls: at run
    // time, exec_tcgen05_pair.cpp)
    if (st.op == "tcgen05" && (st.has("cta_group::1") || st.has("cta_group::2"))) {
      const int g = st.has("cta_group::2") ? 2 : 1;
      auto at = tcgen05Group_.emplace(curFunc_, std::make_pair(g, st.line)).first;
      if (at->second.first != g)
        throw ParseError{st.line, "'" + text + "' names .cta_group::" + std::to_string(g) + " but the tcgen05 instruction at line " +
                                      std::to_string(at->second.second) + " of the same function names .cta_group::" +
                                      std::to_string(at->second.first) + " (all tcgen05 instructions of a kernel must use the same .cta_group)"};
    }
    m_.prog.code.push_back(in);
    for (auto& e : emitAfter) {
      e.line = st.line;
      m_.prog.code.push_back(e);
    }
  }

  // Each function has one static frame (registers and .param/.local space), so a recursive call
  // would overwrite the live frame of its caller: refuse any cycle in the call graph at load,
  // naming it, rather than run it wrong.
  void refuseRecursion(const Program& pr) {
    std::vector<int> color(pr.funcs.size(), 0), path;  // 0 new, 1 on the current path, 2 done
    std::function<void(int)> visit = [&](int f) {
      color[f] = 1;
      path.push_back(f);
      for (int c : pr.funcs[f].callees) {
        if (color[c] == 1) {
          std::string cycle;
          auto at = std::find(path.begin(), path.end(), c);
          for (auto i = at; i != path.end(); ++i) cycle += pr.funcs[*i].name + " -> ";
          throw ParseError{line_, "recursive call " + cycle + pr.funcs[c].name +
                                      " (the sim gives each function one static frame; recursion is refused)"};
        }
        if (color[c] == 0) visit(c);
      }
      path.pop_back();
      color[f] = 2;
    };
    for (size_t f = 0; f < pr.funcs.size(); f++)
      if (color[f] == 0) visit((int)f);
  }

  // The .cta_group rule across calls (ptxas refuses a kernel whose callees mix them too): the
  // groups each kernel reaches through its call graph (acyclic by now).
  void refuseMixedCtaGroups(const Program& pr) {
    for (size_t k = 0; k < pr.funcs.size(); k++) {
      if (!pr.funcs[k].isEntry) continue;
      std::vector<int> todo{(int)k}, seen(pr.funcs.size(), 0);
      int first = -1;  // the function naming the first group found
      while (!todo.empty()) {
        int f = todo.back();
        todo.pop_back();
        if (seen[f]++) continue;
        for (int c : pr.funcs[f].callees) todo.push_back(c);
        auto at = tcgen05Group_.find(f);
        if (at == tcgen05Group_.end()) continue;
        if (first < 0) first = f;
        const auto& g0 = tcgen05Group_.at(first);
        if (at->second.first != g0.first)
          throw ParseError{at->second.second, "kernel '" + pr.funcs[k].name + "' reaches tcgen05 instructions with .cta_group::" + std::to_string(g0.first) +
                                                  " (in '" + pr.funcs[first].name + "', line " + std::to_string(g0.second) + ") and .cta_group::" +
                                                  std::to_string(at->second.first) + " (in '" + pr.funcs[f].name +
                                                  "'): all tcgen05 instructions of a kernel must use the same .cta_group"};
      }
    }
  }

  void finish() {
    Program& pr = m_.prog;
    for (auto& f : pr.funcs)
      for (int c : f.callees)
        if (pr.funcs[c].isExtern && pr.funcs[c].name != "vprintf" && pr.funcs[c].name != "__assertfail")
          throw ParseError{line_, "call to undefined function '" + pr.funcs[c].name + "'"};
    refuseRecursion(pr);
    refuseMixedCtaGroups(pr);
    // per-kernel static shared layout over the shared variables it can reach
    for (size_t k = 0; k < pr.funcs.size(); k++) {
      Function& f = pr.funcs[k];
      if (!f.isEntry || f.isExtern) continue;
      std::set<unsigned> vars;
      std::vector<int> stack{(int)k};
      std::set<int> seen{(int)k};
      while (!stack.empty()) {
        int g = stack.back();
        stack.pop_back();
        for (unsigned v : pr.funcs[g].sharedVars) vars.insert(v);
        for (int c : pr.funcs[g].callees)
          if (seen.insert(c).second) stack.push_back(c);
      }
      f.sharedOffset.assign(pr.shared.size(), ~0u);
      unsigned off = 0;
      for (unsigned v : vars) {
        if (pr.shared[v].dynamic) continue;
        unsigned a = std::max(1u, pr.shared[v].align);
        off = (off + a - 1) / a * a;
        f.sharedOffset[v] = off;
        off += pr.shared[v].bytes;
      }
      f.info.staticSharedBytes = off;
      for (unsigned v : vars)
        if (pr.shared[v].dynamic) {
          unsigned a = std::max(16u, pr.shared[v].align);
          f.sharedOffset[v] = (off + a - 1) / a * a;
          f.info.usesDynamicShared = true;
        }
      f.info.localBytes = pr.localBytes;
      f.info.numRegs = std::min<unsigned>(255, pr.numSlots);
      m_.kernelList.push_back(f.info);
    }
  }
};

}  // namespace

bool Stmt::has(const char* m) const {
  for (auto& x : mods)
    if (x == m) return true;
  return false;
}
Ty Stmt::type() const {
  for (size_t i = mods.size(); i-- > 0;)
    if (parseTy(mods[i]) != Ty::None) return parseTy(mods[i]);
  return Ty::None;
}
Ty Stmt::type(int nth) const {
  for (auto& m : mods)
    if (parseTy(m) != Ty::None && nth-- == 0) return parseTy(m);
  return Ty::None;
}

Ty parseTy(const std::string& s) {
  static const std::map<std::string, Ty> m = {
      {"b8", Ty::B8}, {"b16", Ty::B16}, {"b32", Ty::B32}, {"b64", Ty::B64}, {"b128", Ty::B128},
      {"u8", Ty::U8}, {"u16", Ty::U16}, {"u32", Ty::U32}, {"u64", Ty::U64}, {"s8", Ty::S8},
      {"s16", Ty::S16}, {"s32", Ty::S32}, {"s64", Ty::S64}, {"f16", Ty::F16}, {"f16x2", Ty::F16x2},
      {"bf16", Ty::BF16}, {"bf16x2", Ty::BF16x2}, {"tf32", Ty::TF32}, {"f32", Ty::F32},
      {"f64", Ty::F64}, {"pred", Ty::Pred}};
  auto it = m.find(s);
  return it == m.end() ? Ty::None : it->second;
}

const char* tyName(Ty t) {
  static const char* names[] = {"", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
                                "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "pred"};
  return names[(int)t];
}

unsigned tySize(Ty t) {
  switch (t) {
    case Ty::B8: case Ty::U8: case Ty::S8: case Ty::Pred: return 1;
    case Ty::B16: case Ty::U16: case Ty::S16: case Ty::F16: case Ty::BF16: return 2;
    case Ty::B32: case Ty::U32: case Ty::S32: case Ty::F32: case Ty::F16x2: case Ty::BF16x2: case Ty::TF32: return 4;
    case Ty::B64: case Ty::U64: case Ty::S64: case Ty::F64: return 8;
    case Ty::B128: return 16;
    default: return 0;
  }
}

int PtxModule::findFunction(const std::string& name) const {
  for (size_t i = 0; i < prog.funcs.size(); i++)
    if (prog.funcs[i].name == name && prog.funcs[i].isEntry) return (int)i;
  return -1;
}

bool PtxModule::bindGlobals(GlobalMemory& mem, std::string& log) {
  for (size_t i = 0; i < globalList.size(); i++) {
    GlobalVar& g = globalList[i];
    if (g.addr) continue;
    size_t bytes = std::max<size_t>(g.bytes, 1);
    g.addr = mem.allocModuleVar(bytes, std::max(1u, globalAlign[i]));
    if (!g.addr) { log += "out of memory for module variable '" + g.name + "'\n"; return false; }
    if (!globalInit[i].empty()) {
      Fault f;
      uint8_t* p = mem.translate(g.addr, (unsigned)globalInit[i].size(), true, f);
      if (!p) { log += "cannot initialise module variable '" + g.name + "'\n"; return false; }
      memcpy(p, globalInit[i].data(), globalInit[i].size());
    }
  }
  bound = true;
  return true;
}

std::unique_ptr<Module> parsePtx(const std::string& text, std::string& log) {
  if (text.size() >= 4 && (uint8_t)text[0] == 0x7f && text[1] == 'E' && text[2] == 'L' && text[3] == 'F') {
    log += "ELF cubin is not PTX\n";
    return nullptr;
  }
  auto m = std::make_unique<PtxModule>();
  Parser p(text, *m);
  if (!p.run(log)) return nullptr;
  return m;
}

}  // namespace tsim
