// wgmma (sm_90a; PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
// wgmma.fence, wgmma.mma_async, wgmma.commit_group, wgmma.wait_group.
//
// A warpgroup (4 consecutive warps, the first a multiple of 4) computes D (64 x N) = A (64 x K) *
// B (K x N) {+ D}. Warp r of the group owns rows 16r..16r+15 of A and D, so each warp's share can
// be computed on its own: the sim does it when a wgmma.wait_group of that warp covers the op.
// Until then the op is in flight: its accumulator registers hold a poison value (a quiet NaN with
// payload 0x70dead for f32, 0x7ead for f16 halves, 0xdeadbeef for s32), and its shared-memory
// operands (and A registers) are read only at completion, so a missing or short wait, or a write to
// an operand before the wait, gives a wrong result as on hardware.
//
// Fragments (per warp, g = lane/4, t = lane%4, row r = 16*(warp%4) + g):
//   D/C f32|s32: register 4j+i holds (r + 8*(i>>1), 8j + 2t + (i&1)), j < N/8.
//   D/C f16: register 2j+h holds the pair (r + 8h, 8j + 2t .. +1), low half first.
//   A f16/bf16 (4 x f16x2): register i holds (r + 8*(i&1), 2t + 8*(i>>1) .. +1).
//   A tf32 (4 x b32): register i holds (r + 8*(i&1), t + 4*(i>>1)).
//   A 8-bit (4 x b32): register i holds (r + 8*(i&1), 4t + 16*(i>>1) .. +3).
// Shared-memory matrices (matrix descriptor: start address bits 0-13, leading byte offset 16-29,
// stride byte offset 32-45, all >> 4; base offset 49-51; swizzle 62-63: 0 none, 1 128B, 2 64B,
// 3 32B): the canonical layouts of exec_smem_matrix.h.
#include <cmath>

#include "exec_core.h"
#include "exec_float.h"
#include "exec_fp8.h"
#include "exec_smem_matrix.h"

namespace tsim {

namespace {

enum WgTy : uint8_t { kWF16, kWBF16, kWTF32, kWE4M3, kWE5M2, kWS8, kWU8 };
enum WgAcc : uint8_t { kAccF32, kAccF16, kAccS32 };

constexpr uint32_t kPoisonF32 = 0x7ff0deadu, kPoisonF16x2 = 0x7ead7eadu, kPoisonS32 = 0xdeadbeefu;

struct WgShape {
  unsigned n, k, esize;
  WgTy a, b;
  WgAcc acc;
  bool aReg, negA, negB, transA, transB, satf;
  unsigned nAcc;  // accumulator registers per thread
};

// in.imm: n (bits 0-8), a type (9-11), b type (12-14), acc (15-16), A in registers (17), -A (18),
// -B (19), transA (20), transB (21), .satfinite (22). ext: accumulators, then 4 A registers.
WgShape shapeOf(const Inst& in) {
  WgShape s;
  uint64_t v = (uint64_t)in.imm;
  s.n = v & 511;
  s.a = (WgTy)((v >> 9) & 7);
  s.b = (WgTy)((v >> 12) & 7);
  s.acc = (WgAcc)((v >> 15) & 3);
  s.aReg = v >> 17 & 1;
  s.negA = v >> 18 & 1;
  s.negB = v >> 19 & 1;
  s.transA = v >> 20 & 1;
  s.transB = v >> 21 & 1;
  s.satf = v >> 22 & 1;
  s.esize = s.a == kWTF32 ? 4 : (s.a == kWF16 || s.a == kWBF16) ? 2 : 1;
  s.k = 32 / s.esize;
  s.nAcc = s.acc == kAccF16 ? s.n / 4 : s.n / 2;
  return s;
}

// Value of one element of type t from its bits.
__attribute__((always_inline)) inline double elemValue(uint32_t bits, WgTy t) {
  switch (t) {
    case kWF16: return f16ToF32((uint16_t)bits);
    case kWBF16: return bf16ToF32((uint16_t)bits);
    case kWTF32: return bitsf32(bits & 0xffffe000u);  // tf32: the low 13 mantissa bits are ignored
    case kWE4M3: return e4m3ToDouble((uint8_t)bits);
    case kWE5M2: return e5m2ToDouble((uint8_t)bits);
    case kWS8: return (double)(int8_t)bits;
    case kWU8: return (double)(uint8_t)bits;
  }
  return 0;
}

using Desc = SmemMatrix;

bool decodeDesc(Ctx&, uint64_t d, Desc& out, const char*) {
  out.start = (uint32_t)(d & 0x3fff) << 4;
  out.lbo = (uint32_t)((d >> 16) & 0x3fff) << 4;
  out.sbo = (uint32_t)((d >> 32) & 0x3fff) << 4;
  unsigned mode = (unsigned)(d >> 62);
  out.swz = mode == 0 ? 0 : mode == 1 ? 128 : mode == 2 ? 64 : 32;
  out.base = out.swz ? (uint32_t)((d >> 49) & 7) : 0;
  return true;
}

inline uint32_t elemAddr(const Desc& d, bool mnMajor, unsigned mn, unsigned k, unsigned esize) {
  return smemElemAddr(d, mnMajor, mn, k, esize);
}

// The shared-memory bytes an operand is read from: the async proxy's view (generic writes need
// fence.proxy.async), with the window's size for the bounds check of each element.
struct SmemView {
  const uint8_t* p;
  size_t size;
};

__attribute__((noinline, cold)) bool smemFault(Ctx& c, const SmemView& v, uint32_t addr, unsigned esize, const char* which) {
  raise(c, Fault::SharedOutOfBounds, 0, addr, esize, false,
        std::string("wgmma: ") + which + " element outside shared memory (window is " + std::to_string(v.size) + " bytes)");
  return false;
}

inline bool readSmem(Ctx& c, const SmemView& v, uint32_t addr, unsigned esize, uint32_t& bits, const char* which) {
  if ((uint64_t)addr + esize > v.size) return smemFault(c, v, addr, esize, which);
  // fixed-size copies (a runtime-sized memcpy per element was a library call)
  if (esize == 2) { uint16_t x; memcpy(&x, v.p + addr, 2); bits = x; }
  else if (esize == 4) memcpy(&bits, v.p + addr, 4);
  else bits = v.p[addr];
  return true;
}

std::vector<uint64_t>* shadowOf(WgmmaInFlight& f, uint32_t s) {
  if (s >= f.busy.size() || !f.busy[s]) return nullptr;  // busy[s] <=> s has a shadow
  for (auto& e : f.shadow)
    if (e.first == s) return &e.second;
  return nullptr;
}

// Computes op (this warp's 16 rows) from its operands and the shadow accumulators.
//
// Each float result is the accumulator input plus the K products, summed in k order in long double
// (64-bit mantissa; every product of two f16/bf16/tf32/fp8 values is exact, in double too) and
// rounded once.
bool complete(Ctx& c, const WgmmaOp& op) {
  const Inst& in = c.prog->code[op.pc];
  WgShape s = shapeOf(in);
  const uint32_t* acc = &c.prog->ext[in.ext];
  WgmmaInFlight& f = c.w->wgmma;
  unsigned row0 = 16 * (c.w->id % 4);
  const unsigned K = s.k, N = s.n;
  std::vector<double> A(16 * K), B((size_t)K * N);
  const SmemView view{asyncShared(c), c.cta->shared.size()};
  if (s.aReg) {
    for (unsigned l = 0; l < 32; l++) {
      unsigned g = l >> 2, t = l & 3;
      for (unsigned i = 0; i < 4; i++) {
        uint32_t r = op.aRegs[i * 32 + l];
        unsigned m = g + 8 * (i & 1);
        if (s.esize == 2) {
          for (unsigned h = 0; h < 2; h++) A[m * K + 2 * t + 8 * (i >> 1) + h] = elemValue(r >> (16 * h), s.a);
        } else if (s.esize == 4) {
          A[m * K + t + 4 * (i >> 1)] = elemValue(r, s.a);
        } else {
          for (unsigned e = 0; e < 4; e++) A[m * K + 4 * t + 16 * (i >> 1) + e] = elemValue(r >> (8 * e), s.a);
        }
      }
    }
  } else {
    Desc d;
    if (!decodeDesc(c, op.descA, d, "A")) return false;
    for (unsigned m = 0; m < 16; m++)
      for (unsigned k = 0; k < K; k++) {
        uint32_t bits;
        if (!readSmem(c, view, elemAddr(d, s.transA, row0 + m, k, s.esize), s.esize, bits, "A")) return false;
        A[m * K + k] = elemValue(bits, s.a);
      }
  }
  {
    Desc d;
    if (!decodeDesc(c, op.descB, d, "B")) return false;
    for (unsigned k = 0; k < K; k++)
      for (unsigned n = 0; n < N; n++) {
        uint32_t bits;
        if (!readSmem(c, view, elemAddr(d, s.transB, n, k, s.esize), s.esize, bits, "B")) return false;
        B[(size_t)k * N + n] = elemValue(bits, s.b);
      }
  }
  if (s.negA) for (auto& x : A) x = -x;
  if (s.negB) for (auto& x : B) x = -x;
  std::vector<uint64_t*> regs(s.nAcc);
  for (unsigned i = 0; i < s.nAcc; i++) {
    std::vector<uint64_t>* r = shadowOf(f, acc[i]);
    if (!r) {
      raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "wgmma: internal: accumulator shadow missing");
      return false;
    }
    regs[i] = r->data();
  }
  // Element (m, n) of this warp's 16 x N share: lane (m % 8) * 4 + (n % 8) / 2, index
  // i = 2 * (m / 8) + n % 2 of column block j = n / 8; register 4j + i (f32/s32) or 2j + i / 2
  // (f16 pairs, half i % 2).
  auto lane = [](unsigned m, unsigned n) { return (m % 8) * 4 + (n % 8) / 2; };
  auto regOf = [&](unsigned m, unsigned n) -> uint64_t& {
    unsigned i = 2 * (m / 8) + n % 2, j = n / 8;
    return regs[s.acc == kAccF16 ? 2 * j + i / 2 : 4 * j + i][lane(m, n)];
  };
  if (s.acc == kAccS32) {
    for (unsigned m = 0; m < 16; m++)
      for (unsigned n = 0; n < N; n++) {
        uint64_t& reg = regOf(m, n);
        int64_t sum = op.scaleD ? (int64_t)(int32_t)(uint32_t)reg : 0;
        const double* a = &A[m * K];
        for (unsigned k = 0; k < K; k++) sum += (int64_t)a[k] * (int64_t)B[(size_t)k * N + n];
        int32_t r;
        if (s.satf) r = (int32_t)std::min<int64_t>(std::max<int64_t>(sum, INT32_MIN), INT32_MAX);
        else r = (int32_t)(uint32_t)(uint64_t)sum;  // wraps
        reg = (uint32_t)r;
      }
    return true;
  }
  const bool f16acc = s.acc == kAccF16;
  auto input = [&](unsigned m, unsigned n) -> double {
    if (!op.scaleD) return 0;
    uint64_t reg = regOf(m, n);
    return f16acc ? (double)f16ToF32((uint16_t)(reg >> (16 * (n % 2)))) : (double)bitsf32((uint32_t)reg);
  };
  auto store = [&](unsigned m, unsigned n, long double sum) {
    uint64_t& reg = regOf(m, n);
    if (f16acc) {
      uint64_t h = roundTo(sum, Ty::F16, kRn);
      unsigned sh = 16 * (n % 2);
      reg = ((reg & ~(0xffffull << sh)) | (h << sh)) & 0xffffffffull;
    } else {
      // the conversion rounds to nearest even (the sim runs in that host mode); NaN canonical
      float r = (float)sum;
      reg = r != r ? 0x7fffffffu : f32bits(r);
    }
  };
  // Fast path: the sums in double, four columns at a time, with the rounding error of every
  // addition (TwoSum). When none has any, every partial sum was exact, so the long double sum has
  // the same value and the result is the same; otherwise (or for inf/NaN) the column is summed
  // again in long double.
  for (unsigned m = 0; m < 16; m++) {
    const double* a = &A[m * K];
    for (unsigned n = 0; n < N; n += 4) {  // N is a multiple of 8
      const double in[4] = {input(m, n), input(m, n + 1), input(m, n + 2), input(m, n + 3)};
      double s0 = in[0], s1 = in[1], s2 = in[2], s3 = in[3], e0 = 0, e1 = 0, e2 = 0, e3 = 0;
      auto add = [](double& s, double& e, double p) {
        double t = s + p, z = t - s;
        e += std::fabs((s - (t - z)) + (p - z));
        s = t;
      };
      for (unsigned k = 0; k < K; k++) {
        const double x = a[k], *b = &B[(size_t)k * N + n];
        add(s0, e0, x * b[0]);
        add(s1, e1, x * b[1]);
        add(s2, e2, x * b[2]);
        add(s3, e3, x * b[3]);
      }
      const double sum[4] = {s0, s1, s2, s3}, err[4] = {e0, e1, e2, e3};
      for (unsigned j = 0; j < 4; j++) {
        if (err[j] == 0) {
          store(m, n + j, sum[j]);
          continue;
        }
        long double ld = in[j];
        for (unsigned k = 0; k < K; k++) ld += (long double)a[k] * B[(size_t)k * N + n + j];  // exact products
        store(m, n + j, ld);
      }
    }
  }
  return true;
}

// False (and nothing to do) when the instruction is guarded off in every lane, or after a fault.
bool needWarpgroup(Ctx& c, uint32_t exec, const char* what) {
  if (!exec) return false;
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, std::string(what) + " needs all 32 lanes of each warp of the warpgroup (.sync.aligned)");
    return false;
  }
  unsigned wg = c.w->id / 4;
  if (c.cta->nthreads < (wg + 1) * 128) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, std::string(what) + ": warp " + std::to_string(c.w->id) +
          " is in an incomplete warpgroup (a warpgroup is 4 warps of 32 threads; the CTA has " + std::to_string(c.cta->nthreads) + " threads)");
    return false;
  }
  return true;
}

bool uniform64(Ctx& c, uint32_t s, uint64_t& v, const char* what) {
  const uint64_t* p = slot(c, s);
  v = p[0];
  for (unsigned l = 1; l < 32; l++)
    if (p[l] != v) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, std::string("wgmma: ") + what + " differs between the lanes of the warp");
      return false;
    }
  return true;
}

// racecheck: the shared bytes op reads through its descriptors (this warp's A rows, all of B).
std::vector<uint32_t> operandBytes(Ctx& c, const WgShape& s, const WgmmaOp& op, unsigned row0) {
  std::vector<uint32_t> out;
  auto add = [&](uint32_t a) { for (unsigned k = 0; k < s.esize; k++) out.push_back(a + k); };
  Desc d;
  if (!s.aReg) {
    decodeDesc(c, op.descA, d, "A");
    for (unsigned m = 0; m < 16; m++)
      for (unsigned k = 0; k < s.k; k++) add(elemAddr(d, s.transA, row0 + m, k, s.esize));
  }
  decodeDesc(c, op.descB, d, "B");
  for (unsigned k = 0; k < s.k; k++)
    for (unsigned n = 0; n < s.n; n++) add(elemAddr(d, s.transB, n, k, s.esize));
  return out;
}

uint64_t poisonOf(WgAcc a) { return a == kAccF32 ? kPoisonF32 : a == kAccF16 ? kPoisonF16x2 : kPoisonS32; }

void mmaAsyncOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!needWarpgroup(c, exec, "wgmma.mma_async")) return;
  WgShape s = shapeOf(in);
  WgmmaOp op;
  op.pc = c.curPc;
  op.group = kOpenGroup;
  op.descA = op.descB = 0;
  if (!s.aReg && !uniform64(c, in.s[0], op.descA, "the A descriptor")) return;
  if (!uniform64(c, in.s[1], op.descB, "the B descriptor")) return;
  uint64_t sd;
  if (!uniform64(c, in.s[2], sd, "scale-d")) return;
  op.scaleD = sd & 1;
  const uint32_t* e = &c.prog->ext[in.ext];
  if (s.aReg) {
    op.aRegs.resize(4 * 32);
    for (unsigned i = 0; i < 4; i++)
      for (unsigned l = 0; l < 32; l++) op.aRegs[i * 32 + l] = (uint32_t)slot(c, e[s.nAcc + i])[l];
  }
  WgmmaInFlight& f = c.w->wgmma;
  if (f.ops.size() >= 4096) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "wgmma: more than 4096 wgmma.mma_async in flight (no wgmma.wait_group)");
    return;
  }
  uint64_t poison = poisonOf(s.acc);
  if (f.busy.size() < c.prog->numSlots) f.busy.assign(c.prog->numSlots, 0);
  for (unsigned i = 0; i < s.nAcc; i++) {
    f.busy[e[i]] = 1;
    uint64_t* r = slot(c, e[i]);
    if (!shadowOf(f, e[i])) f.shadow.emplace_back(e[i], std::vector<uint64_t>(r, r + 32));
    for (unsigned l = 0; l < 32; l++) r[l] = poison;
  }
  if (c.san && (c.san->flags & kSanRace)) op.san = sanWgmmaIssue(c, operandBytes(c, s, op, 16 * (c.w->id % 4)));
  f.ops.push_back(std::move(op));
}

void fenceOp(Ctx& c, const Inst&, uint32_t exec) { needWarpgroup(c, exec, "wgmma.fence"); }

void commitOp(Ctx& c, const Inst&, uint32_t exec) {
  if (!needWarpgroup(c, exec, "wgmma.commit_group")) return;
  WgmmaInFlight& f = c.w->wgmma;
  bool any = false;
  for (auto& op : f.ops)
    if (op.group == kOpenGroup) { op.group = f.committed; any = true; }
  (void)any;  // an empty group is a group too
  f.committed++;
}

// wgmma.wait_group N: completes every op of a group other than the N most recent ones, oldest
// first, and writes back the accumulators no remaining op uses.
void waitOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!needWarpgroup(c, exec, "wgmma.wait_group")) return;
  WgmmaInFlight& f = c.w->wgmma;
  uint32_t n = (uint32_t)in.imm;
  uint32_t upto = f.committed > n ? f.committed - n : 0;  // groups < upto complete
  size_t keep = 0;
  std::vector<WgmmaOp> rest;
  for (auto& op : f.ops) {
    if (op.group != kOpenGroup && op.group < upto) {
      if (!complete(c, op)) return;
      if (op.san) sanWgmmaDone(c, op.san);  // read: later writes no longer race with it
    } else {
      rest.push_back(std::move(op));
    }
  }
  (void)keep;
  f.ops = std::move(rest);
  // the accumulators the remaining ops still write keep their shadows (busy 2 marks them)
  for (auto& op : f.ops) {
    const Inst& oi = c.prog->code[op.pc];
    WgShape s = shapeOf(oi);
    const uint32_t* e = &c.prog->ext[oi.ext];
    for (unsigned i = 0; i < s.nAcc; i++) f.busy[e[i]] = 2;
  }
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> still;
  for (auto& sh : f.shadow) {
    if (f.busy[sh.first] == 2) {
      f.busy[sh.first] = 1;
      still.push_back(std::move(sh));
    } else {
      f.busy[sh.first] = 0;
      uint64_t* r = slot(c, sh.first);
      for (unsigned l = 0; l < 32; l++) r[l] = sh.second[l];
    }
  }
  f.shadow = std::move(still);
}

}  // namespace

bool wgmmaReadsInFlight(Ctx& c, const Inst& in, uint32_t exec) {
  (void)exec;
  if (in.fn == &mmaAsyncOp || in.fn == &waitOp || in.fn == &commitOp || in.fn == &fenceOp) return false;
  const auto& busy = c.w->wgmma.busy;
  for (uint32_t s : in.s) {
    if (s && s < busy.size() && busy[s]) {
      // the wgmma that writes it (the newest in flight)
      int line = 0;
      for (auto& op : c.w->wgmma.ops) {
        const Inst& oi = c.prog->code[op.pc];
        WgShape sh = shapeOf(oi);
        const uint32_t* e = &c.prog->ext[oi.ext];
        for (unsigned i = 0; i < sh.nAcc; i++)
          if (e[i] == s) line = oi.line;
      }
      raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
            "reads an accumulator register of the wgmma.mma_async at PTX line " + std::to_string(line) +
                " before a wgmma.wait_group covers it (its value is undefined until then)");
      return true;
    }
  }
  return false;
}

namespace {

bool parseWgTy(const std::string& m, WgTy& t) {
  if (m == "f16") t = kWF16;
  else if (m == "bf16") t = kWBF16;
  else if (m == "tf32") t = kWTF32;
  else if (m == "e4m3") t = kWE4M3;
  else if (m == "e5m2") t = kWE5M2;
  else if (m == "s8") t = kWS8;
  else if (m == "u8") t = kWU8;
  else return false;
  return true;
}

bool immValue(Decoder& dc, const Operand& o, int64_t& v, const char* what) {
  if (o.kind != Operand::Imm || !immInt(o.name, v)) return dc.fail(std::string(what) + " must be an integer immediate");
  return true;
}

bool mmaAsyncDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("sync") || !st.has("aligned")) return dc.fail("expected wgmma.mma_async.sync.aligned");
  unsigned n = 0, k = 0;
  std::vector<std::string> tys;
  for (auto& m : st.mods) {
    if (m == "mma_async" || m == "sync" || m == "aligned" || m == "satfinite") continue;
    if (m.size() > 4 && m.compare(0, 4, "m64n") == 0) {
      size_t kp = m.find('k');
      if (kp == std::string::npos) return dc.fail("bad shape ." + m);
      n = (unsigned)std::atoi(m.c_str() + 4);
      k = (unsigned)std::atoi(m.c_str() + kp + 1);
      continue;
    }
    tys.push_back(m);
  }
  if (!n || tys.size() != 3) return dc.fail("expected .m64nNkK.dtype.atype.btype");
  WgTy a, b;
  if (!parseWgTy(tys[1], a) || !parseWgTy(tys[2], b)) return dc.fail("A/B type");
  WgAcc acc;
  if (tys[0] == "f32") acc = kAccF32;
  else if (tys[0] == "f16") acc = kAccF16;
  else if (tys[0] == "s32") acc = kAccS32;
  else return dc.fail("D type must be f32, f16 or s32");
  bool isInt = a == kWS8 || a == kWU8, isFp8 = a == kWE4M3 || a == kWE5M2;
  if (isInt != (b == kWS8 || b == kWU8)) return dc.fail("A and B must both be integer or both floating point");
  if (isFp8 != (b == kWE4M3 || b == kWE5M2)) return dc.fail("e4m3/e5m2 go with e4m3/e5m2");
  if (!isInt && !isFp8 && a != b) return dc.fail("A and B types differ");
  if (isInt && acc != kAccS32) return dc.fail("s8/u8 accumulate in s32");
  if (!isInt && acc == kAccS32) return dc.fail("s32 accumulators are for s8/u8");
  if ((a == kWBF16 || a == kWTF32) && acc != kAccF32) return dc.fail("bf16 and tf32 accumulate in f32");
  if (st.has("satfinite") && !isInt) return dc.fail(".satfinite is for integer wgmma");
  unsigned esize = a == kWTF32 ? 4 : (a == kWF16 || a == kWBF16) ? 2 : 1;
  if (k != 32 / esize) return dc.fail("K of ." + tys[1] + " is " + std::to_string(32 / esize));
  bool nOk = n >= 8 && n <= 256 && n % 8 == 0;
  if (isInt) nOk = nOk && (n <= 32 || n % 16 == 0);  // 8, 16, 24, 32, 48, 64, ..., 256
  if (!nOk) return dc.fail("N = " + std::to_string(n) + " is not a shape of this type");
  unsigned nAcc = acc == kAccF16 ? n / 4 : n / 2;
  const auto& o = st.ops;
  if (o.size() < 4) return dc.fail("wrong operand count");
  bool aReg = o[1].kind == Operand::Vec;
  bool halves = a == kWF16 || a == kWBF16;
  size_t want = isInt ? 4 : halves ? (aReg ? 7 : 8) : 6;
  if (o.size() != want) return dc.fail("expected " + std::to_string(want) + " operands");
  if (o[0].kind != Operand::Vec || o[0].elems.size() != nAcc)
    return dc.fail("D needs " + std::to_string(nAcc) + " registers");
  std::vector<uint32_t> e;
  for (auto& x : o[0].elems) {
    if (x.kind != Operand::Reg) return dc.fail("accumulators must be registers");
    e.push_back(dc.dst(x));
  }
  for (size_t i = 0; i < e.size(); i++)
    for (size_t j = 0; j < i; j++)
      if (e[i] == e[j]) return dc.fail("an accumulator register appears twice");
  if (aReg) {
    if (o[1].elems.size() != 4) return dc.fail("A in registers is 4 registers");
    for (auto& x : o[1].elems) e.push_back(dc.src(x, Ty::B32));
  } else {
    in.s[0] = dc.src(o[1], Ty::B64);
  }
  in.s[1] = dc.src(o[2], Ty::B64);
  in.s[2] = dc.src(o[3], Ty::Pred);
  int64_t sa = 1, sb = 1, ta = 0, tb = 0;
  if (!isInt) {
    if (!immValue(dc, o[4], sa, "imm-scale-a") || !immValue(dc, o[5], sb, "imm-scale-b")) return false;
    if ((sa != 1 && sa != -1) || (sb != 1 && sb != -1)) return dc.fail("imm-scale-a/b must be 1 or -1");
    if (halves) {
      if (!aReg && !immValue(dc, o[6], ta, "imm-trans-a")) return false;
      if (!immValue(dc, o[aReg ? 6 : 7], tb, "imm-trans-b")) return false;
      if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) return dc.fail("imm-trans-a/b must be 0 or 1");
    }
  }
  in.ext = dc.ext(e);
  in.imm = (int64_t)(n | (unsigned)a << 9 | (unsigned)b << 12 | (unsigned)acc << 15 | (aReg ? 1u << 17 : 0) |
                     (sa < 0 ? 1u << 18 : 0) | (sb < 0 ? 1u << 19 : 0) | (ta ? 1u << 20 : 0) | (tb ? 1u << 21 : 0) |
                     (st.has("satfinite") ? 1u << 22 : 0));
  in.fn = &mmaAsyncOp;
  in.cls = kTensor;
  return true;
}

bool wgmmaDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.has("mma_async")) return mmaAsyncDecode(dc, st, in);
  if (!st.has("sync") || !st.has("aligned")) return dc.fail("expected .sync.aligned");
  in.cls = kSync;
  if (st.has("fence")) {
    if (!st.ops.empty()) return dc.fail("wgmma.fence takes no operands");
    in.fn = &fenceOp;
    return true;
  }
  if (st.has("commit_group")) {
    if (!st.ops.empty()) return dc.fail("wgmma.commit_group takes no operands");
    in.fn = &commitOp;
    return true;
  }
  if (st.has("wait_group")) {
    int64_t n;
    if (st.ops.size() != 1 || !immValue(dc, st.ops[0], n, "wait_group N")) return false;
    if (n < 0 || n > 1000000) return dc.fail("wait_group N out of range");
    in.imm = n;
    in.fn = &waitOp;
    return true;
  }
  return dc.fail("expected wgmma.fence, mma_async, commit_group or wait_group");
}

}  // namespace

void registerWgmmaOps(DecodeTable& t) {
  std::string shapes;
  for (unsigned n = 8; n <= 256; n += 8)
    for (unsigned k : {8u, 16u, 32u}) shapes += " m64n" + std::to_string(n) + "k" + std::to_string(k);
  addOp(t, "wgmma", wgmmaDecode,
        "fence commit_group wait_group mma_async sync aligned satfinite f32 f16 bf16 tf32 e4m3 e5m2 s8 u8 s32" + shapes,
        "asynchronous: computed at the covering `wait_group` (shared operands read then); accumulators in flight read as a poison NaN (0x7ff0dead; s32 0xdeadbeef); A from registers or descriptor, B from descriptor, swizzle none/32B/64B/128B, transposes for f16/bf16; exact sums rounded once; needs full warps of a complete warpgroup; descriptor base offsets for patterns off their boundary");
}

}  // namespace tsim
