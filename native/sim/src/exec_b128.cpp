// 128-bit data (sm_70+ PTX 8.3; sm_90 for atomics) and vector atomics (sm_90), from the PTX ISA:
//   .reg .b128 registers take two register slots (low 64 bits, then high 64 bits);
//   mov.b128 d, {lo, hi} / mov.b128 {lo, hi}, a / mov.b128 d, a;
//   ld/st{.space}.b128 (16-byte aligned);
//   atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c and atom...exch.b128 d, [a], b (sm_90);
//   atom/red{.sem}{.scope}.global.add{.noftz}.{v2,v4}.{f32,f16x2,bf16x2} d, [a], {b...} (sm_90):
//     each element is its own atomic add (f32 rounded to nearest even; halves exact and rounded
//     once); d receives the old values.
// 128-bit atomics serialise on the launch's lock (atomic against every other 128-bit atomic of the
// launch); the vector elements use the host's 32-bit compare-and-swap.
#include "exec_core.h"
#include "exec_float.h"
#include "exec_mem.h"

namespace tsim {

namespace {

void mov128(Ctx& c, const Inst& in, uint32_t exec) {
  // d[0], d[1]: destination slots (lo, hi); s[0], s[1]: source slots (lo, hi)
  uint64_t *dl = slot(c, in.d[0]), *dh = slot(c, in.d[1]);
  const uint64_t *sl = slot(c, in.s[0]), *sh = slot(c, in.s[1]);
  FOR_LANES(exec) {
    uint64_t lo = sl[l], hi = sh[l];
    dl[l] = lo;
    dh[l] = hi;
  }
}

void ld128(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  if (!resolve(c, in, exec, 16, false, p, true)) return;
  uint64_t *dl = slot(c, in.d[0]), *dh = slot(c, in.d[1]);
  FOR_LANES(exec) {
    memcpy(&dl[l], p[l], 8);
    memcpy(&dh[l], p[l] + 8, 8);
  }
}

void st128(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  if (!resolve(c, in, exec, 16, true, p, true)) return;
  const uint64_t *sl = slot(c, in.s[1]), *sh = slot(c, in.s[2]);
  FOR_LANES(exec) {
    memcpy(p[l], &sl[l], 8);
    memcpy(p[l] + 8, &sh[l], 8);
  }
}

// mode 0 cas (s[1..2] compare lo/hi, s[3]+d[2]... see decoder), 1 exch. ext: cmp lo, cmp hi, new lo, new hi
void atom128(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  if (!resolve(c, in, exec, 16, true, p, true)) return;
  const uint32_t* e = &c.prog->ext[in.ext];
  uint64_t *dl = slot(c, in.d[0]), *dh = slot(c, in.d[1]);
  std::lock_guard<std::mutex> g(c.L->mu);
  FOR_LANES(exec) {
    uint64_t old[2];
    memcpy(old, p[l], 16);
    uint64_t nv[2];
    if (in.mode == 0) {
      uint64_t cmp[2] = {slot(c, e[0])[l], slot(c, e[1])[l]};
      nv[0] = slot(c, e[2])[l];
      nv[1] = slot(c, e[3])[l];
      if (old[0] == cmp[0] && old[1] == cmp[1]) memcpy(p[l], nv, 16);
    } else {
      nv[0] = slot(c, e[0])[l];
      nv[1] = slot(c, e[1])[l];
      memcpy(p[l], nv, 16);
    }
    dl[l] = old[0];
    dh[l] = old[1];
  }
}

// One 16-bit element of a vector atomic: op 0 add (computed exactly, rounded once to nearest
// even), 1 min, 2 max (as the non-atomic min/max: a NaN operand gives the other, two NaNs the
// canonical NaN, -0 below +0).
uint16_t halfAtomOp(unsigned op, bool bf, uint16_t o, uint16_t b) {
  double x = bf ? bf16ToF32(o) : f16ToF32(o), y = bf ? bf16ToF32(b) : f16ToF32(b);
  if (op == 0) return (uint16_t)roundTo(x + y, bf ? Ty::BF16 : Ty::F16, kRn);
  if (x != x && y != y) return 0x7fff;
  if (x != x) return b;
  if (y != y) return o;
  if (x == y) {  // equal, or +0 and -0: min takes the negative sign, max the positive one
    bool neg = (o >> 15) && (b >> 15) ? true : !((o >> 15) || (b >> 15)) ? false : op == 1;
    return neg ? ((o >> 15) ? o : b) : ((o >> 15) ? b : o);
  }
  return (op == 1) == (y < x) ? b : o;
}

// in.vec elements; mode 0 f32, 1 f16x2, 2 bf16x2 (4-byte elements), 3 f16, 4 bf16 (2-byte
// elements, each updated atomically inside its aligned 4-byte word); target: op 0 add, 1 min,
// 2 max. ext: d slots, b slots.
void atomVec(Ctx& c, const Inst& in, uint32_t exec) {
  uint8_t* p[kWarp];
  const unsigned n = in.vec, es = in.mode >= 3 ? 2 : 4, op = in.target;
  if (!resolve(c, in, exec, es * n, true, p, true)) return;
  const uint32_t* e = &c.prog->ext[in.ext];
  const bool bf = in.mode == 2 || in.mode == 4;
  FOR_LANES(exec) {
    for (unsigned k = 0; k < n; k++) {
      uintptr_t at = (uintptr_t)(p[l] + es * k);
      uint32_t* q = reinterpret_cast<uint32_t*>(at & ~(uintptr_t)3);
      const unsigned sh = es == 2 ? (unsigned)(at & 2) * 8 : 0;
      uint32_t b = (uint32_t)slot(c, e[n + k])[l];
      uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
      do {
        if (in.mode == 0) {
          nv = f32bits(bitsf32(old) + bitsf32(b));
        } else if (es == 2) {
          uint16_t r = halfAtomOp(op, bf, (uint16_t)(old >> sh), (uint16_t)b);
          nv = (old & ~(0xffffu << sh)) | ((uint32_t)r << sh);
        } else {
          nv = 0;
          for (unsigned h = 0; h < 2; h++)
            nv |= (uint32_t)halfAtomOp(op, bf, (uint16_t)(old >> (16 * h)), (uint16_t)(b >> (16 * h))) << (16 * h);
        }
      } while (!__atomic_compare_exchange_n(q, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      uint32_t ds = e[k];
      if (ds != kSlotSink) slot(c, ds)[l] = es == 2 ? (old >> sh) & 0xffff : old;
    }
  }
}

bool pair(Decoder& dc, const Operand& o, uint32_t& lo, uint32_t& hi, bool dst) {
  if (o.kind == Operand::Reg && dc.regBytes(o) == 16) {
    lo = dst ? dc.dst(o) : dc.src(o, Ty::B128);
    hi = lo + 1;
    return true;
  }
  return dc.fail("a .b128 operand must be a .b128 register");
}

bool memAddr(Decoder& dc, const Stmt& st, const Operand& o, Inst& in) {
  uint8_t sym;
  if (!dc.addr(o, in.s[0], in.imm, sym)) return false;
  in.space = st.has("global") ? kGlobal : (st.has("shared") || st.has("shared::cta")) ? kShared : st.has("local") ? kLocal : sym;
  in.cls = in.space == kShared ? kMemShared : kMemGlobal;
  return true;
}

}  // namespace

bool decodeMov128(Decoder& dc, const Stmt& st, Inst& in) {
  if (st.ops.size() != 2) return dc.fail("wrong operand count");
  const Operand &d = st.ops[0], &a = st.ops[1];
  if (d.kind == Operand::Vec) {  // unpack
    if (d.elems.size() != 2) return dc.fail("mov.b128 unpacks into two .b64 registers");
    for (auto& x : d.elems) if (dc.regBytes(x) != 8) return dc.fail("mov.b128 unpacks into two .b64 registers");
    in.d[0] = dc.dst(d.elems[0]);
    in.d[1] = dc.dst(d.elems[1]);
    if (!pair(dc, a, in.s[0], in.s[1], false)) return false;
  } else {
    if (!pair(dc, d, in.d[0], in.d[1], true)) return false;
    if (a.kind == Operand::Vec) {  // pack
      if (a.elems.size() != 2) return dc.fail("mov.b128 packs two .b64 registers");
      for (auto& x : a.elems) if (x.kind == Operand::Reg && dc.regBytes(x) != 8) return dc.fail("mov.b128 packs two .b64 registers");
      in.s[0] = dc.src(a.elems[0], Ty::B64);
      in.s[1] = dc.src(a.elems[1], Ty::B64);
    } else if (!pair(dc, a, in.s[0], in.s[1], false)) {
      return false;
    }
  }
  in.fn = &mov128;
  return true;
}

bool decodeLdSt128(Decoder& dc, const Stmt& st, Inst& in) {
  bool isLd = st.op == "ld" || st.op == "ldu";
  if (st.ops.size() != 2 || st.has("v2") || st.has("v4")) return dc.fail("expected ld/st.b128 with one .b128 register");
  if (!memAddr(dc, st, st.ops[isLd ? 1 : 0], in)) return false;
  in.size = 16;
  if (isLd) {
    if (!pair(dc, st.ops[0], in.d[0], in.d[1], true)) return false;
    in.fn = &ld128;
  } else {
    if (!pair(dc, st.ops[1], in.s[1], in.s[2], false)) return false;
    in.fn = &st128;
  }
  return true;
}

bool decodeAtom128(Decoder& dc, const Stmt& st, Inst& in) {
  bool cas = st.has("cas");
  if (!cas && !st.has("exch")) return dc.fail(".b128 atomics are cas and exch");
  if (st.op == "red") return dc.fail("red has no .b128 form");
  if (st.ops.size() != (cas ? 4u : 3u)) return dc.fail("wrong operand count");
  if (!pair(dc, st.ops[0], in.d[0], in.d[1], true)) return false;
  if (!memAddr(dc, st, st.ops[1], in)) return false;
  std::vector<uint32_t> e;
  for (size_t i = 2; i < st.ops.size(); i++) {
    uint32_t lo, hi;
    if (!pair(dc, st.ops[i], lo, hi, false)) return false;
    e.push_back(lo);
    e.push_back(hi);
  }
  in.ext = dc.ext(e);
  in.mode = cas ? 0 : 1;
  in.size = 16;
  in.fn = &atom128;
  return true;
}

// The ISA's vector atomics (.global): .add on .v2/.v4 .f32; .add/.min/.max .noftz on .v2/.v4
// .f16x2/.bf16x2 and on .v2/.v4/.v8 .f16/.bf16.
bool decodeAtomVec(Decoder& dc, const Stmt& st, Inst& in) {
  unsigned n = st.has("v8") ? 8 : st.has("v4") ? 4 : 2;
  Ty t = st.type();
  if (!st.has("global")) return dc.fail("vector atomics are .global");
  unsigned op = st.has("add") ? 0 : st.has("min") ? 1 : st.has("max") ? 2 : 3;
  if (op == 3) return dc.fail("vector atomics are .add, .min or .max");
  const bool half = t == Ty::F16 || t == Ty::BF16;
  if (t != Ty::F32 && t != Ty::F16x2 && t != Ty::BF16x2 && !half) return dc.fail("vector atomics are on .f32, .f16x2, .bf16x2, .f16 and .bf16");
  if (t == Ty::F32 && op != 0) return dc.fail("vector .f32 atomics are .add only");
  if (t != Ty::F32 && !st.has("noftz")) return dc.fail("half-precision vector atomics need .noftz");
  if (n == 8 && !half) return dc.fail(".v8 needs a 16-bit type (.f16, .bf16)");
  bool red = st.op == "red";
  if (st.ops.size() != (red ? 2u : 3u)) return dc.fail("wrong operand count");
  const Operand* dv = red ? nullptr : &st.ops[0];
  const Operand& bv = st.ops[red ? 1 : 2];
  if ((dv && (dv->kind != Operand::Vec || dv->elems.size() != n)) || bv.kind != Operand::Vec || bv.elems.size() != n)
    return dc.fail("vector operands must have .vN elements");
  if (!memAddr(dc, st, st.ops[red ? 0 : 1], in)) return false;
  std::vector<uint32_t> e;
  for (unsigned k = 0; k < n; k++) e.push_back(dv ? dc.dst(dv->elems[k]) : kSlotSink);
  for (unsigned k = 0; k < n; k++) e.push_back(dc.src(bv.elems[k], half ? Ty::B16 : Ty::B32));
  in.ext = dc.ext(e);
  in.vec = (uint8_t)n;
  in.size = half ? 2 : 4;
  in.mode = t == Ty::F32 ? 0 : t == Ty::F16x2 ? 1 : t == Ty::BF16x2 ? 2 : t == Ty::F16 ? 3 : 4;
  in.target = op;
  in.fn = &atomVec;
  return true;
}

}  // namespace tsim
