// wmma: warp-wide matrix load, multiply-accumulate and store (what nvcuda::wmma compiles to).
// The ISA leaves the fragment layout unspecified; the sim uses its own: element e of lane l's
// fragment is element (l*E + e) mod (rows*cols) of the matrix in row-major order (E elements per
// lane; fragments larger than the matrix hold copies). Loads fill every copy, mma reads the first
// and writes every copy, stores write each element once; element-wise code on fragments (fill,
// scaling, __float_to_tf32) therefore works as on hardware. Integer wmma (s8/u8 with s32
// accumulators) packs four 8-bit elements per register, lowest byte first, like the float forms pack
// two halves.
#include <cstdint>

#include "exec_core.h"
#include "exec_float.h"
#include "exec_mem.h"

namespace tsim {

namespace {

enum WType : uint8_t { kWF16, kWBF16, kWTF32, kWF32, kWS8, kWU8, kWS32 };

unsigned elemBytes(WType t) { return t == kWF16 || t == kWBF16 ? 2 : t == kWS8 || t == kWU8 ? 1 : 4; }
bool isInt(WType t) { return t == kWS8 || t == kWU8 || t == kWS32; }

struct Frag {
  const uint32_t* regs;
  unsigned nregs;
  WType type;
  unsigned perReg() const { return 4 / elemBytes(type); }
  unsigned perLane() const { return nregs * perReg(); }
};

// Element e of lane l: its bits (f16/bf16 in the low half, s8/u8 in the low byte, f32/tf32/s32
// as 32 bits).
inline uint32_t getElem(Ctx& c, const Frag& f, unsigned l, unsigned e) {
  unsigned per = f.perReg(), bits = 32 / per;
  uint32_t r = (uint32_t)c.R[(size_t)f.regs[e / per] * kWarp + l];
  return per == 1 ? r : (r >> (bits * (e % per))) & ((1u << bits) - 1);
}
inline void setElem(Ctx& c, const Frag& f, unsigned l, unsigned e, uint32_t v) {
  unsigned per = f.perReg(), bits = 32 / per;
  uint64_t& r = c.R[(size_t)f.regs[e / per] * kWarp + l];
  if (per == 1) {
    r = v;
  } else {
    unsigned sh = bits * (e % per);
    uint32_t m = ((1u << bits) - 1) << sh;
    r = ((uint32_t)r & ~m) | ((v << sh) & m);
  }
}
inline int64_t toInt(uint32_t v, WType t) {
  return t == kWS8 ? (int64_t)(int8_t)v : t == kWU8 ? (int64_t)(uint8_t)v : (int64_t)(int32_t)v;
}
inline double toDouble(uint32_t v, WType t) {
  switch (t) {
    case kWF16: return f16ToF32((uint16_t)v);
    case kWBF16: return bf16ToF32((uint16_t)v);
    case kWTF32: return bitsf32(v & 0xffffe000u);  // tf32 ignores the low 13 mantissa bits
    default: return bitsf32(v);
  }
}

// in: s[0]+imm = base address (space in.space), s[1] = stride slot (0: default), ext = registers,
// vec = register count, mode = WType, target = rows << 16 | cols, flags 0x100 = column-major,
// 0x200 = store.
void wmmaLdSt(Ctx& c, const Inst& in, uint32_t exec) {
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "wmma needs all 32 lanes of the warp");
    return;
  }
  Frag f{&c.prog->ext[in.ext], in.vec, (WType)in.mode};
  unsigned rows = in.target >> 16, cols = in.target & 0xffff, n = rows * cols, E = f.perLane();
  bool colMajor = in.flags & 0x100, store = in.flags & 0x200;
  unsigned esz = elemBytes(f.type);
  const uint64_t* base = slot(c, in.s[0]);
  const uint64_t* strideSlot = in.s[1] ? slot(c, in.s[1]) : nullptr;
  // the per-element addresses go through resolve() in the sink slot, which no instruction reads
  uint64_t* scratch = slot(c, kSlotSink);
  Inst t = in;
  t.s[0] = kSlotSink;
  t.imm = 0;
  for (unsigned e = 0; e < E; e++) {
    uint32_t lanes = 0;
    for (unsigned l = 0; l < 32; l++) {
      unsigned q = l * E + e;
      if (store && q >= n) continue;  // stores write the first copy only
      q %= n;
      unsigned i = q / cols, j = q % cols;
      uint64_t stride = strideSlot ? (uint32_t)strideSlot[l] : (colMajor ? rows : cols);
      uint64_t idx = colMajor ? (uint64_t)j * stride + i : (uint64_t)i * stride + j;
      scratch[l] = base[l] + (uint64_t)in.imm + idx * esz;
      lanes |= 1u << l;
    }
    if (!lanes) continue;
    uint8_t* p[kWarp];
    if (!resolve(c, t, lanes, esz, store, p, false)) { scratch[0] = 0; return; }
    FOR_LANES(lanes) {
      if (store) {
        uint32_t v = getElem(c, f, l, e);
        memcpy(p[l], &v, esz);
      } else {
        uint32_t v = 0;
        memcpy(&v, p[l], esz);
        setElem(c, f, l, e, v);
      }
    }
  }
  FOR_LANES(exec) scratch[l] = 0;
}

// ext: d, a, b, c registers; imm: M | N << 8 | K << 16 | atype << 24 | ctype << 28 | dtype << 32 |
// btype << 36 | satfinite << 40; register counts packed as d | a << 4 ... (each < 16) in target.
void wmmaMma(Ctx& c, const Inst& in, uint32_t exec) {
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "wmma needs all 32 lanes of the warp");
    return;
  }
  unsigned M = in.imm & 0xff, N = (in.imm >> 8) & 0xff, K = (in.imm >> 16) & 0xff;
  WType at = (WType)((in.imm >> 24) & 15), ct = (WType)((in.imm >> 28) & 15), dt = (WType)((in.imm >> 32) & 15),
        bt = (WType)((in.imm >> 36) & 15);
  const uint32_t* e = &c.prog->ext[in.ext];
  unsigned nd = in.target & 15, na = (in.target >> 4) & 15, nb = (in.target >> 8) & 15, nc = (in.target >> 12) & 15;
  Frag D{e, nd, dt}, A{e + nd, na, at}, B{e + nd + na, nb, bt}, C{e + nd + na + nb, nc, ct};
  if (isInt(at)) {
    // Exact integer sums; the s32 result wraps, or clamps to the s32 range with .satfinite.
    bool sat = (in.imm >> 40) & 1;
    auto rd = [&](const Frag& f, unsigned q) {
      unsigned E = f.perLane();
      return toInt(getElem(c, f, q / E, q % E), f.type);
    };
    std::vector<uint32_t> out(M * N);
    for (unsigned i = 0; i < M; i++)
      for (unsigned j = 0; j < N; j++) {
        int64_t s = rd(C, i * N + j);
        for (unsigned k = 0; k < K; k++) s += rd(A, i * K + k) * rd(B, k * N + j);
        if (sat) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
        out[i * N + j] = (uint32_t)s;
      }
    unsigned E = D.perLane();
    for (unsigned l = 0; l < 32; l++)
      for (unsigned k = 0; k < E; k++) setElem(c, D, l, k, out[(l * E + k) % (M * N)]);
    return;
  }
  auto read = [&](const Frag& f, unsigned q) {
    unsigned E = f.perLane();
    return toDouble(getElem(c, f, q / E, q % E), f.type);
  };
  std::vector<double> a(M * K), b(K * N), acc(M * N);
  for (unsigned q = 0; q < M * K; q++) a[q] = read(A, q);
  for (unsigned q = 0; q < K * N; q++) b[q] = read(B, q);
  for (unsigned q = 0; q < M * N; q++) acc[q] = read(C, q);
  std::vector<uint32_t> out(M * N);
  for (unsigned i = 0; i < M; i++)
    for (unsigned j = 0; j < N; j++) {
      long double s = acc[i * N + j];
      for (unsigned k = 0; k < K; k++) s += (long double)a[i * K + k] * b[k * N + j];
      float r = (float)s;
      out[i * N + j] = dt == kWF16 ? (uint32_t)f32ToF16(r) : f32bits(r);
    }
  unsigned E = D.perLane();
  for (unsigned l = 0; l < 32; l++)
    for (unsigned k = 0; k < E; k++) setElem(c, D, l, k, out[(l * E + k) % (M * N)]);
}

bool shapeOf(const Stmt& st, unsigned& m, unsigned& n, unsigned& k) {
  static const struct { const char* name; unsigned m, n, k; } shapes[] = {
      {"m16n16k16", 16, 16, 16}, {"m32n8k16", 32, 8, 16}, {"m8n32k16", 8, 32, 16}, {"m16n16k8", 16, 16, 8}};
  for (auto& s : shapes)
    if (st.has(s.name)) { m = s.m; n = s.n; k = s.k; return true; }
  return false;
}

WType wtype(Ty t) {
  switch (t) {
    case Ty::F16: return kWF16;
    case Ty::BF16: return kWBF16;
    case Ty::TF32: return kWTF32;
    case Ty::S8: return kWS8;
    case Ty::U8: return kWU8;
    case Ty::S32: return kWS32;
    default: return kWF32;
  }
}

// Registers per lane for each fragment (as nvcc's wmma headers and the ISA list them).
unsigned regCount(char which, WType t, unsigned m, unsigned n, unsigned k) {
  unsigned elems = which == 'a' ? m * k : which == 'b' ? k * n : m * n;
  if (t == kWF16 && which != 'c' && which != 'd') return 8;  // f16 a/b: 8 f16x2 registers
  return elems / 32 / (4 / elemBytes(t));
}

bool regList(Decoder& dc, const Operand& v, unsigned want, bool dst, std::vector<uint32_t>& e) {
  if (v.kind != Operand::Vec || v.elems.size() != want) return dc.fail("fragment needs " + std::to_string(want) + " registers");
  for (auto& x : v.elems) e.push_back(dst ? dc.dst(x) : dc.src(x, Ty::B32));
  return true;
}

bool wmmaDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("sync") || !st.has("aligned")) return dc.fail("expected wmma.*.sync.aligned");
  unsigned m, n, k;
  if (!shapeOf(st, m, n, k)) return dc.fail("wmma shapes: m16n16k16, m32n8k16, m8n32k16 (f16/bf16), m16n16k8 (tf32)");
  in.cls = kTensor;
  std::vector<uint32_t> e;
  if (st.has("mma")) {
    Ty t0 = st.type(0), t1 = st.type(1), t2 = st.type(2), t3 = st.type(3);
    Ty dT, aT, bT, cT;
    if (t2 == Ty::None) { dT = t0; cT = t1; aT = bT = Ty::F16; }  // f16 form: .dtype.ctype
    else { dT = t0; aT = t1; bT = t2; cT = t3; }
    bool intForm = aT == Ty::S8 || aT == Ty::U8;
    if (intForm) {
      // .s32.atype.btype.s32{.satfinite}, atype/btype in {s8, u8}
      if ((bT != Ty::S8 && bT != Ty::U8) || dT != Ty::S32 || cT != Ty::S32)
        return dc.fail("integer wmma is .s32.{s8,u8}.{s8,u8}.s32");
      if (k != 16) return dc.fail("integer wmma shapes: m16n16k16, m32n8k16, m8n32k16");
    } else {
      if (st.has("satfinite")) return dc.fail(".satfinite is implemented for integer wmma only");
      if (aT != bT) return dc.fail("A and B types differ");
      if ((aT != Ty::F16 && aT != Ty::BF16 && aT != Ty::TF32) || (dT != Ty::F32 && dT != Ty::F16) || (cT != Ty::F32 && cT != Ty::F16))
        return dc.fail("wmma types: f16 (f16 or f32 accumulators), bf16 and tf32 (f32 accumulators), s8/u8 (s32)");
    }
    WType at = wtype(aT), bt = wtype(bT), ct = wtype(cT), dt = wtype(dT);
    if (!intForm && (at == kWTF32) != (k == 8)) return dc.fail("tf32 is m16n16k8 and m16n16k8 is tf32");
    if (!intForm && at != kWF16 && (ct != kWF32 || dt != kWF32)) return dc.fail("bf16/tf32 accumulate in f32");
    unsigned nd = regCount('d', dt, m, n, k), na = regCount('a', at, m, n, k), nb = regCount('b', bt, m, n, k),
             nc = regCount('c', ct, m, n, k);
    if (st.ops.size() != 4) return dc.fail("wmma.mma takes d, a, b, c");
    if (!regList(dc, st.ops[0], nd, true, e) || !regList(dc, st.ops[1], na, false, e) ||
        !regList(dc, st.ops[2], nb, false, e) || !regList(dc, st.ops[3], nc, false, e))
      return false;
    in.ext = dc.ext(e);
    in.imm = (int64_t)m | (int64_t)n << 8 | (int64_t)k << 16 | (int64_t)at << 24 | (int64_t)ct << 28 | (int64_t)dt << 32 |
             (int64_t)bt << 36 | (int64_t)(st.has("satfinite") ? 1 : 0) << 40;
    in.target = nd | na << 4 | nb << 8 | nc << 12;
    in.fn = &wmmaMma;
    return true;
  }
  bool load = st.has("load"), store = st.has("store");
  if (load == store) return dc.fail("expected wmma.load, wmma.store or wmma.mma");
  char which = st.has("a") ? 'a' : st.has("b") ? 'b' : st.has("c") ? 'c' : st.has("d") ? 'd' : 0;
  if (!which || (store != (which == 'd'))) return dc.fail("wmma.load.{a,b,c} / wmma.store.d");
  bool row = st.has("row"), col = st.has("col");
  if (row == col) return dc.fail("needs .row or .col");
  Ty ty = st.type();
  WType t = wtype(ty);
  if (ty != Ty::F16 && ty != Ty::BF16 && ty != Ty::TF32 && ty != Ty::F32 && ty != Ty::S8 && ty != Ty::U8 && ty != Ty::S32)
    return dc.fail("wmma element type");
  if ((which == 'a' || which == 'b') && (t == kWF32 || t == kWS32 || (t == kWTF32) != (k == 8) || (isInt(t) && k != 16)))
    return dc.fail("A/B type does not fit the shape");
  if ((which == 'c' || which == 'd') && t != kWF16 && t != kWF32 && t != kWS32) return dc.fail("C/D are f16, f32 or s32");
  unsigned rows = which == 'a' ? m : which == 'b' ? k : m, cols = which == 'a' ? k : n;
  unsigned nregs = regCount(which, t, m, n, k);
  if (st.ops.size() != 2 && st.ops.size() != 3) return dc.fail("wrong operand count");
  const Operand& addrOp = store ? st.ops[0] : st.ops[1];
  const Operand& regs = store ? st.ops[1] : st.ops[0];
  uint8_t sym;
  if (!dc.addr(addrOp, in.s[0], in.imm, sym)) return false;
  in.space = st.has("global") ? kGlobal : (st.has("shared") || st.has("shared::cta")) ? kShared : sym;
  if (!regList(dc, regs, nregs, !store, e)) return false;
  in.s[1] = st.ops.size() == 3 ? dc.src(st.ops[2], Ty::U32) : 0;
  in.ext = dc.ext(e);
  in.vec = (uint8_t)nregs;
  in.mode = t;
  in.target = rows << 16 | cols;
  in.flags |= (col ? 0x100 : 0) | (store ? 0x200 : 0);
  in.fn = &wmmaLdSt;
  in.cls = in.space == kShared ? kMemShared : kMemGlobal;
  return true;
}

}  // namespace

void registerWmmaOps(DecodeTable& t) {
  addOp(t, "wmma", wmmaDecode,
        "load store mma a b c d sync aligned row col m16n16k16 m32n8k16 m8n32k16 m16n16k8 global shared shared::cta satfinite f16 bf16 tf32 f32 s8 u8 s32",
        "own fragment layout (the ISA leaves it open); float sums exact, rounded once; s8/u8 with s32 (wrapping, or clamped with `.satfinite`, integer only)");
}

}  // namespace tsim
