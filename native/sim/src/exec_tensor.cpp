// Tensor-core and async-copy instructions: mma.sync (m16n8k16 / m16n8k8), ldmatrix, stmatrix,
// cp.async (copies land at the wait that covers their group).
#include <climits>

#include "exec_core.h"
#include "exec_float.h"
#include "exec_mem.h"

namespace tsim {

bool mmaFp8Decode(Decoder& dc, const Stmt& st, Inst& in);

namespace {

enum AbType : uint8_t { kAbF16, kAbBF16, kAbTF32 };

struct MmaShape {
  unsigned k;          // 8 or 16
  AbType ab;
  bool cF16, dF16;     // accumulators as f16x2 pairs
  unsigned na, nb, nc, nd;  // registers per operand
};

MmaShape shapeOf(const Inst& in) {
  MmaShape s;
  s.k = (in.imm & 1) ? 16 : 8;
  s.ab = (AbType)((in.imm >> 1) & 3);
  s.cF16 = (in.imm >> 3) & 1;
  s.dF16 = (in.imm >> 4) & 1;
  s.na = s.ab == kAbTF32 ? 4 : s.k / 4;
  s.nb = s.ab == kAbTF32 ? 2 : s.k / 8;
  s.nc = s.cF16 ? 2 : 4;
  s.nd = s.dF16 ? 2 : 4;
  return s;
}

double abValue(uint32_t reg, int half, AbType t) {
  if (t == kAbTF32) return bitsf32(reg & 0xffffe000u);  // tf32 ignores the low 13 mantissa bits
  uint16_t h = (uint16_t)(reg >> (16 * half));
  return t == kAbF16 ? f16ToF32(h) : bf16ToF32(h);
}

// ext: d regs, a regs, b regs, c regs (counts from the shape)
void mmaOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "mma.sync needs all 32 lanes of the warp");
    return;
  }
  MmaShape s = shapeOf(in);
  const uint32_t* e = &c.prog->ext[in.ext];
  const uint32_t *dr = e, *ar = e + s.nd, *br = ar + s.na, *cr = br + s.nb;
  auto R = [&](uint32_t slotIdx, unsigned lane) { return (uint32_t)c.R[(size_t)slotIdx * kWarp + lane]; };
  double A[16][16], B[16][8], C[16][8];
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    if (s.ab == kAbTF32) {
      // a0:(g,t) a1:(g+8,t) a2:(g,t+4) a3:(g+8,t+4); b0:(t,g) b1:(t+4,g)
      for (unsigned i = 0; i < 4; i++) A[g + 8 * (i & 1)][t + 4 * (i >> 1)] = abValue(R(ar[i], l), 0, s.ab);
      for (unsigned i = 0; i < 2; i++) B[t + 4 * i][g] = abValue(R(br[i], l), 0, s.ab);
    } else {
      // register j holds two halves; a_i: row g (+8 for odd register), col 2t+(i&1) (+8 for regs 2,3)
      for (unsigned j = 0; j < s.na; j++)
        for (int h = 0; h < 2; h++) A[g + 8 * (j & 1)][2 * t + h + 8 * (j >> 1)] = abValue(R(ar[j], l), h, s.ab);
      for (unsigned j = 0; j < s.nb; j++)
        for (int h = 0; h < 2; h++) B[2 * t + h + 8 * j][g] = abValue(R(br[j], l), h, s.ab);
    }
    for (unsigned i = 0; i < 4; i++) {
      unsigned row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
      C[row][col] = s.cF16 ? f16ToF32((uint16_t)(R(cr[i >> 1], l) >> (16 * (i & 1)))) : bitsf32(R(cr[i], l));
    }
  }
  float D[16][8];
  for (unsigned m = 0; m < 16; m++)
    for (unsigned n = 0; n < 8; n++) {
      long double acc = C[m][n];
      for (unsigned k = 0; k < s.k; k++) acc += (long double)A[m][k] * B[k][n];
      D[m][n] = (float)acc;
    }
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    uint64_t out[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < 4; i++) {
      float v = D[g + 8 * (i >> 1)][2 * t + (i & 1)];
      if (s.dF16) out[i >> 1] |= (uint64_t)f32ToF16(v) << (16 * (i & 1));
      else out[i] = f32bits(v);
    }
    for (unsigned i = 0; i < s.nd; i++) c.R[(size_t)dr[i] * kWarp + l] = out[i];
  }
  c.ctr.byClass[kTensor] += 0;  // counted by the issue loop
}

// Integer mma (m16n8k16 / m16n8k32, .s8/.u8 inputs, .s32 accumulators). in.imm: bit 0 k32, bit 1
// A signed, bit 2 B signed, bit 3 .satfinite. ext: d[4], a[2|4], b[1|2], c[4]. Fragment layout
// (PTX ISA): a register j holds 4 bytes e of row g + 8*(j&1), columns 4t + e + 16*(j>>1); b register
// j holds rows 4t + e + 16*j of column g; c/d as for f32 accumulators.
void mmaIntOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "mma.sync needs all 32 lanes of the warp");
    return;
  }
  bool k32 = in.imm & 1, sa = in.imm & 2, sb = in.imm & 4, satf = in.imm & 8;
  unsigned na = k32 ? 4 : 2, nb = k32 ? 2 : 1, K = k32 ? 32 : 16;
  const uint32_t* e = &c.prog->ext[in.ext];
  const uint32_t *dr = e, *ar = e + 4, *br = ar + na, *cr = br + nb;
  auto R = [&](uint32_t slotIdx, unsigned lane) { return (uint32_t)c.R[(size_t)slotIdx * kWarp + lane]; };
  auto byteOf = [](uint32_t reg, unsigned k, bool sgn) -> int64_t {
    uint32_t b = (reg >> (8 * k)) & 0xff;
    return sgn ? (int64_t)(int8_t)b : (int64_t)b;
  };
  int64_t A[16][32], B[32][8], C[16][8];
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    for (unsigned j = 0; j < na; j++)
      for (unsigned k = 0; k < 4; k++) A[g + 8 * (j & 1)][4 * t + k + 16 * (j >> 1)] = byteOf(R(ar[j], l), k, sa);
    for (unsigned j = 0; j < nb; j++)
      for (unsigned k = 0; k < 4; k++) B[4 * t + k + 16 * j][g] = byteOf(R(br[j], l), k, sb);
    for (unsigned i = 0; i < 4; i++) C[g + 8 * (i >> 1)][2 * t + (i & 1)] = (int32_t)R(cr[i], l);
  }
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    for (unsigned i = 0; i < 4; i++) {
      unsigned m = g + 8 * (i >> 1), n = 2 * t + (i & 1);
      int64_t acc = C[m][n];
      for (unsigned k = 0; k < K; k++) acc += A[m][k] * B[k][n];
      uint32_t out = satf ? (uint32_t)(int32_t)std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX) : (uint32_t)acc;
      c.R[(size_t)dr[i] * kWarp + l] = out;
    }
  }
}

// mma.m8n8k4.f64: a (row g, col t), b (row t, col g), c/d[i] (row g, col 2t+i); each element is
// a chain of fused multiply-adds in k order from c.
void mmaF64Op(Ctx& c, const Inst& in, uint32_t exec) {
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "mma.sync needs all 32 lanes of the warp");
    return;
  }
  const uint32_t* e = &c.prog->ext[in.ext];
  double A[8][4], B[4][8], C[8][8];
  auto V = [&](uint32_t slotIdx, unsigned lane) { return rd<double>(c.R[(size_t)slotIdx * kWarp + lane]); };
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    A[g][t] = V(e[2], l);
    B[t][g] = V(e[3], l);
    C[g][2 * t] = V(e[4], l);
    C[g][2 * t + 1] = V(e[5], l);
  }
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    for (unsigned i = 0; i < 2; i++) {
      double acc = C[g][2 * t + i];
      for (unsigned k = 0; k < 4; k++) acc = std::fma(A[g][k], B[k][2 * t + i], acc);
      c.R[(size_t)e[i] * kWarp + l] = wr(acc != acc ? rd<double>(0x7fffffffffffffffull) : acc);
    }
  }
}

bool mmaOperands(Decoder& dc, const Stmt& st, Inst& in, const unsigned (&counts)[4], Ty regTy) {
  if (st.ops.size() != 4) return dc.fail("mma takes d, a, b, c");
  std::vector<uint32_t> e;
  for (int o = 0; o < 4; o++) {
    const Operand& v = st.ops[o];
    if (v.kind != Operand::Vec || v.elems.size() != counts[o]) return dc.fail("operand vector size");
    for (auto& x : v.elems) e.push_back(o == 0 ? dc.dst(x) : dc.src(x, regTy));
  }
  in.ext = dc.ext(e);
  in.cls = kTensor;
  return true;
}

bool mmaDecode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("sync") || !st.has("aligned") || !st.has("row") || !st.has("col"))
    return dc.fail("expected mma.sync.aligned.<shape>.row.col");
  if (st.has("e4m3") || st.has("e5m2")) return mmaFp8Decode(dc, st, in);  // exec_mma_fp8.cpp
  Ty t0 = st.type(0), t1 = st.type(1), t2 = st.type(2), t3 = st.type(3);
  bool int8 = (t1 == Ty::S8 || t1 == Ty::U8) && (t2 == Ty::S8 || t2 == Ty::U8);
  if (st.has("satfinite") && !int8) return dc.fail(".satfinite is implemented for integer mma only");
  if (int8) {
    bool k32 = st.has("m16n8k32");
    if (!k32 && !st.has("m16n8k16")) return dc.fail("integer mma shapes: m16n8k16, m16n8k32");
    if (t0 != Ty::S32 || t3 != Ty::S32) return dc.fail("integer mma accumulates in .s32");
    in.imm = (k32 ? 1 : 0) | (t1 == Ty::S8 ? 2 : 0) | (t2 == Ty::S8 ? 4 : 0) | (st.has("satfinite") ? 8 : 0);
    const unsigned counts[4] = {4, k32 ? 4u : 2u, k32 ? 2u : 1u, 4};
    in.fn = &mmaIntOp;
    return mmaOperands(dc, st, in, counts, Ty::B32);
  }
  if (t1 == Ty::F64) {
    if (!st.has("m8n8k4") || t0 != Ty::F64 || t2 != Ty::F64 || t3 != Ty::F64) return dc.fail("f64 mma is m8n8k4 with f64 operands");
    const unsigned counts[4] = {2, 1, 1, 2};
    in.fn = &mmaF64Op;
    return mmaOperands(dc, st, in, counts, Ty::B64);
  }
  if (st.has("m8n8k4")) return dc.fail("m8n8k4 is implemented for f64 only");
  if (st.has("rn")) return dc.fail(".rn is a form of f64 mma only");
  if (st.has("m16n8k32")) return dc.fail("m16n8k32 is an integer shape");
  unsigned k = st.has("m16n8k16") ? 16 : st.has("m16n8k8") ? 8 : 0;
  if (!k) return dc.fail("only m16n8k16 and m16n8k8 are supported");
  Ty dt = st.type(0), at = st.type(1), bt = st.type(2), ct = st.type(3);
  if (at != bt) return dc.fail("A and B types differ");
  AbType ab = at == Ty::F16 ? kAbF16 : at == Ty::BF16 ? kAbBF16 : at == Ty::TF32 ? kAbTF32 : (AbType)9;
  if (ab == 9) return dc.fail("A/B type");
  if (ab == kAbTF32 && k != 8) return dc.fail("tf32 needs m16n8k8");
  if ((dt != Ty::F32 && dt != Ty::F16) || (ct != Ty::F32 && ct != Ty::F16)) return dc.fail("C/D type");
  if (ab == kAbBF16 && (dt != Ty::F32 || ct != Ty::F32)) return dc.fail("bf16 accumulates in f32");
  if (ab == kAbTF32 && (dt != Ty::F32 || ct != Ty::F32)) return dc.fail("tf32 accumulates in f32");
  in.imm = (k == 16 ? 1 : 0) | (ab << 1) | ((ct == Ty::F16) << 3) | ((dt == Ty::F16) << 4);
  MmaShape s = shapeOf(in);
  if (st.ops.size() != 4) return dc.fail("mma takes d, a, b, c");
  const unsigned counts[4] = {s.nd, s.na, s.nb, s.nc};
  std::vector<uint32_t> e;
  for (int o = 0; o < 4; o++) {
    const Operand& v = st.ops[o];
    if (v.kind != Operand::Vec || v.elems.size() != counts[o]) return dc.fail("operand vector size");
    for (auto& x : v.elems) e.push_back(o == 0 ? dc.dst(x) : dc.src(x, Ty::B32));
  }
  in.ext = dc.ext(e);
  in.fn = &mmaOp;
  in.cls = kTensor;
  return true;
}

// ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16: lanes 8i..8i+7 give the row addresses of
// matrix i; lane L receives row L/4, columns 2(L%4)..+1 of each matrix (transposed with .trans).
void ldmatrixOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!exec) return;  // guarded off in every lane
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "ldmatrix needs all 32 lanes of the warp");
    return;
  }
  unsigned nm = in.vec;
  uint32_t rows = nm == 4 ? ~0u : (1u << (8 * nm)) - 1;
  uint8_t* p[kWarp];
  bool trans = in.mode & 1, store = in.mode & 2;
  Inst at = in;
  if (store) at.s[0] = in.d[0];  // stmatrix: the address is in d[0], the registers in s[0..3]
  if (!resolve(c, at, rows, 16, store, p, true)) return;
  for (unsigned m = 0; m < nm; m++) {
    for (unsigned l = 0; l < 32; l++) {
      unsigned r = l >> 2, col = 2 * (l & 3);
      uint16_t* h[2];
      for (int k = 0; k < 2; k++) {
        unsigned row = trans ? col + k : r, cc = trans ? r : col + k;
        h[k] = reinterpret_cast<uint16_t*>(p[8 * m + row] + 2 * cc);
      }
      uint64_t& reg = c.R[(size_t)(store ? in.s[m] : in.d[m]) * kWarp + l];
      if (store) {
        *h[0] = (uint16_t)reg;
        *h[1] = (uint16_t)(reg >> 16);
      } else {
        reg = (uint32_t)*h[0] | ((uint32_t)*h[1] << 16);
      }
    }
  }
}

bool ldmatrixDecode(Decoder& dc, const Stmt& st, Inst& in) {
  bool store = st.op == "stmatrix";
  if (!st.has("sync") || !st.has("aligned") || !st.has("m8n8") || !st.has("b16")) return dc.fail("expected .sync.aligned.m8n8.xN.shared.b16");
  unsigned n = st.has("x4") ? 4 : st.has("x2") ? 2 : st.has("x1") ? 1 : 0;
  if (!n || st.ops.size() != 2) return dc.fail("bad ldmatrix form");
  const Operand& a = store ? st.ops[0] : st.ops[1];
  const Operand& v = store ? st.ops[1] : st.ops[0];
  uint8_t sym;
  if (!dc.addr(a, store ? in.d[0] : in.s[0], in.imm, sym)) return false;
  in.space = kShared;
  if (!st.has("shared") && !st.has("shared::cta")) in.space = sym;
  std::vector<const Operand*> regs;
  if (v.kind == Operand::Vec) for (auto& x : v.elems) regs.push_back(&x);
  else regs.push_back(&v);
  if (regs.size() != n) return dc.fail("register count does not match .xN");
  for (unsigned i = 0; i < n; i++) {
    if (store) in.s[i] = dc.src(*regs[i], Ty::B32);
    else in.d[i] = dc.dst(*regs[i]);
  }
  in.vec = (uint8_t)n;
  in.mode = (st.has("trans") ? 1 : 0) | (store ? 2 : 0);
  in.fn = &ldmatrixOp;
  in.cls = kMemShared;
  return true;
}

// Bounds the memory a kernel that never waits can pin (hardware bounds it far lower).
constexpr size_t kMaxCopiesInFlight = 1u << 20;

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | , ignore-src}: s[0]+imm = dst,
// s[1]+target = src, s[2] = src-size slot (0: none), s[3] = ignore-src predicate slot (0: none;
// flags 0x100: negated). The source is read now (only its first src-size bytes, so a masked copy
// with src-size 0 never touches its address); the destination is written at the wait that covers
// the copy's group, so a missing wait reads stale shared memory, as on hardware.
void cpAsyncOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  uint8_t* dst[kWarp];
  uint8_t* src[kWarp];
  unsigned n = in.size;
  if (!resolve(c, in, exec, n, true, dst, true)) return;
  const uint64_t* srcSize = slot(c, in.s[2]);
  const uint64_t* ign = slot(c, in.s[3]);
  unsigned take[kWarp];
  uint32_t full = 0, part = 0;
  FOR_LANES(exec) {
    unsigned k = n;
    if (in.s[2]) k = (unsigned)std::min<uint64_t>(srcSize[l], n);
    if (in.s[3] && ((ign[l] & 1) ^ ((in.flags & 0x100) ? 1 : 0))) k = 0;
    take[l] = k;
    if (k == n) full |= 1u << l;
    else if (k) part |= 1u << l;
  }
  Inst s = in;
  s.s[0] = in.s[1];
  s.imm = (int32_t)in.target;
  s.space = kGlobal;
  if (full && !resolve(c, s, full, n, false, src, true)) return;
  FOR_LANES(part) {
    // a partial source: aligned to cp-size, only src-size bytes read
    uint64_t a = slot(c, in.s[1])[l] + (uint64_t)(int64_t)(int32_t)in.target;
    Fault f;
    uint8_t* p = (a & (n - 1)) ? nullptr : c.L->mem->translate(a, take[l], false, f);
    if (!p) {
      raise(c, (a & (n - 1)) ? Fault::Misaligned : f.kind == Fault::None ? Fault::OutOfBounds : f.kind, (int)l, a,
            take[l], false, (a & (n - 1)) ? "cp.async source not aligned to cp-size" : f.detail);
      return;
    }
    src[l] = p;
  }
  if (w.copies.size() > kMaxCopiesInFlight) {
    raise(c, Fault::IllegalInstruction, __builtin_ctz(exec), 0, 0, false,
          "more than " + std::to_string(kMaxCopiesInFlight) + " cp.async copies in flight in one warp (a missing cp.async.wait_group?)");
    return;
  }
  FOR_LANES(exec) {
    AsyncCopy cp;
    cp.dstOff = (uint32_t)(dst[l] - c.cta->shared.data());
    cp.group = kOpenGroup;
    cp.seq = ++w.copySeq;
    cp.lane = (uint8_t)l;
    cp.bytes = (uint8_t)n;
    memset(cp.data, 0, sizeof cp.data);
    if (take[l]) memcpy(cp.data, src[l], take[l]);
    w.copies.push_back(cp);
  }
}

void cpCommitOp(Ctx& c, const Inst&, uint32_t exec) {
  Warp& w = *c.w;
  bool any[kWarp] = {};
  for (AsyncCopy& cp : w.copies)
    if (cp.group == kOpenGroup && (exec >> cp.lane & 1)) { cp.group = w.committed[cp.lane]; any[cp.lane] = true; }
  // an empty commit group still counts (cp.async.commit_group with no copies is a valid empty group)
  FOR_LANES(exec) w.committed[l]++;
  (void)any;
}

// wait_group N (in.imm = N): lands every committed group of the lane but the N most recent;
// wait_all (in.mode 1) commits first and lands everything.
void cpWaitOp(Ctx& c, const Inst& in, uint32_t exec) {
  Warp& w = *c.w;
  if (in.mode == 1) cpCommitOp(c, in, exec);
  size_t keep = 0;
  for (size_t i = 0; i < w.copies.size(); i++) {
    AsyncCopy& cp = w.copies[i];
    bool land = (exec >> cp.lane & 1) && cp.group != kOpenGroup &&
                (uint64_t)cp.group + (uint64_t)in.imm < (uint64_t)w.committed[cp.lane];
    if (land) {
      if (cp.dstOff + cp.bytes <= c.cta->shared.size()) memcpy(c.cta->shared.data() + cp.dstOff, cp.data, cp.bytes);
      if (c.san) sanLand(c, w.id, cp.lane, cp.dstOff, cp.bytes, false);
    } else {
      w.copies[keep++] = cp;
    }
  }
  w.copies.resize(keep);
}

bool cpAsyncDecode(Decoder& dc, const Stmt& stIn, Inst& in) {
  // .L2::cache_hint: a trailing cache-policy operand, read and otherwise without effect
  Stmt st = stIn;
  if (st.has("L2::cache_hint")) {
    if (st.ops.size() < 4) return dc.fail(".L2::cache_hint needs a cache-policy operand");
    dc.src(st.ops.back(), Ty::B64);
    st.ops.pop_back();
  }
  in.cls = kMemGlobal;
  if (!st.has("async")) return dc.fail("only cp.async is supported");
  if (st.has("bulk")) return decodeCpAsyncBulk(dc, st, in);
  if (!onlyMods(dc, st, "async ca cg shared global shared::cta commit_group wait_group wait_all L2::64B L2::128B L2::256B L2::cache_hint mbarrier arrive noinc b64"))
    return false;
  if (st.has("mbarrier")) return decodeCpAsyncMbarrierArrive(dc, st, in);
  if (st.has("commit_group") || st.has("wait_group") || st.has("wait_all")) {
    in.cls = kSync;
    if (st.has("commit_group")) {
      if (!st.ops.empty()) return dc.fail("cp.async.commit_group takes no operands");
      in.fn = &cpCommitOp;
    } else if (st.has("wait_all")) {
      if (!st.ops.empty()) return dc.fail("cp.async.wait_all takes no operands");
      in.mode = 1;
      in.fn = &cpWaitOp;
    } else {
      if (st.ops.size() != 1 || st.ops[0].kind != Operand::Imm || !immInt(st.ops[0].name, in.imm) || in.imm < 0)
        return dc.fail("cp.async.wait_group needs an integer constant N");
      in.fn = &cpWaitOp;
    }
    return true;
  }
  if (!(st.has("ca") || st.has("cg")) || !st.has("shared") || !st.has("global") || st.ops.size() < 3 || st.ops.size() > 4)
    return dc.fail("expected cp.async.{ca,cg}.shared.global [d], [s], n{, src-size | ignore-src}");
  uint8_t sym;
  if (!dc.addr(st.ops[0], in.s[0], in.imm, sym)) return false;
  in.space = kShared;
  int64_t soff;
  if (!dc.addr(st.ops[1], in.s[1], soff, sym)) return false;
  in.target = (uint32_t)(int32_t)soff;
  if (st.ops[2].kind != Operand::Imm) return dc.fail("cp-size must be an immediate");
  int64_t size;
  if (!immInt(st.ops[2].name, size)) return dc.fail("cp-size must be an integer");
  if (size != 4 && size != 8 && size != 16) return dc.fail("cp-size must be 4, 8 or 16");
  if (st.has("cg") && size != 16) return dc.fail("cp.async.cg copies 16 bytes");
  in.size = (uint8_t)size;
  if (st.ops.size() == 4) {
    const Operand& o = st.ops[3];
    if (dc.isPred(o)) {  // ignore-src: when true, the destination is zero-filled
      in.s[3] = dc.src(o, Ty::Pred);
      if (o.neg) in.flags |= 0x100;
      dc.negHandled = true;
    } else {
      in.s[2] = dc.src(o, Ty::U32);
    }
  }
  in.fn = &cpAsyncOp;
  in.flags |= kfSanAsync;
  return true;
}

}  // namespace

void registerTensorOps(DecodeTable& t) {
  addOp(t, "mma", mmaDecode, "sync aligned m16n8k16 m16n8k8 m16n8k32 m8n8k4 row col satfinite rn f32 f16 bf16 tf32 e4m3 e5m2 s8 u8 s32 f64",
        "ISA fragment layouts; float sums exact, rounded once; e4m3/e5m2 m16n8k32 (sm_89) with f32 or f16; s8/u8 with s32 (wrapping, or clamped with `.satfinite`); f64 m8n8k4 as fma chains");
  const std::string ldm = "sync aligned m8n8 x1 x2 x4 trans shared shared::cta b16";
  addOp(t, "ldmatrix", ldmatrixDecode, ldm, "");
  addOp(t, "stmatrix", ldmatrixDecode, ldm, "the inverse of `ldmatrix` (sm_90)");
  addOp(t, "cp", cpAsyncDecode, "async ca cg shared global shared::cta commit_group wait_group wait_all L2::64B L2::128B L2::256B L2::cache_hint mbarrier arrive noinc b64 bulk shared::cluster mbarrier::complete_tx::bytes multicast::cluster bulk_group read tensor 1d 2d 3d 4d 5d tile tile::gather4 tile::scatter4 im2col im2col::w im2col::w::128 "
        "reduce and or xor add inc dec min max noftz u32 s32 u64 s64 b32 f32 f64 f16 bf16",
        "`cp.async`: copies land at the covering wait (or, for `cp.async.mbarrier.arrive`, when that mbarrier is tested); L2 prefetch sizes have no effect; "
        "tensor copies: `.tile`, `.im2col` (sm_90), `.tile::gather4` / `.tile::scatter4` / `.im2col::w{::128}` (sm_100a)");
}

}  // namespace tsim
