// mma.sync.aligned.m16n8k32.row.col.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16} (sm_89+, PTX ISA
// 8.4; f16 accumulators 8.7). Fragments are those of the 8-bit integer m16n8k32 form (PTX ISA
// "Matrix Fragments for mma.m16n8k32"): a register j holds 4 elements e of row g + 8*(j&1),
// columns 4t + e + 16*(j>>1); b register j holds rows 4t + e + 16*j of column g; c/d as for the
// f16 forms (f32: register i is (g + 8*(i>>1), 2t + (i&1)); f16: register h packs the pair of row
// g + 8h). Every fp8 product is exact, the 32 products and c are summed exactly (long double) and
// rounded once to the D type (nearest even), as the sim does for the other float mma forms.
#include "exec_core.h"
#include "exec_float.h"
#include "exec_fp8.h"

namespace tsim {

namespace {

// in.imm: bit 0 A is e5m2, bit 1 B is e5m2, bit 2 C is f16, bit 3 D is f16
void mmaFp8Op(Ctx& c, const Inst& in, uint32_t exec) {
  if (exec != ~0u) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "mma.sync needs all 32 lanes of the warp");
    return;
  }
  bool aE5 = in.imm & 1, bE5 = in.imm & 2, cF16 = in.imm & 4, dF16 = in.imm & 8;
  unsigned nd = dF16 ? 2 : 4;
  const uint32_t* e = &c.prog->ext[in.ext];
  const uint32_t *dr = e, *ar = e + nd, *br = ar + 4, *cr = br + 2;
  auto R = [&](uint32_t slotIdx, unsigned lane) { return (uint32_t)c.R[(size_t)slotIdx * kWarp + lane]; };
  auto val = [](uint32_t reg, unsigned k, bool e5) {
    uint8_t b = (uint8_t)(reg >> (8 * k));
    return e5 ? e5m2ToDouble(b) : e4m3ToDouble(b);
  };
  double A[16][32], B[32][8], C[16][8];
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    for (unsigned j = 0; j < 4; j++)
      for (unsigned k = 0; k < 4; k++) A[g + 8 * (j & 1)][4 * t + k + 16 * (j >> 1)] = val(R(ar[j], l), k, aE5);
    for (unsigned j = 0; j < 2; j++)
      for (unsigned k = 0; k < 4; k++) B[4 * t + k + 16 * j][g] = val(R(br[j], l), k, bE5);
    for (unsigned i = 0; i < 4; i++) {
      unsigned row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
      C[row][col] = cF16 ? f16ToF32((uint16_t)(R(cr[i >> 1], l) >> (16 * (i & 1)))) : bitsf32(R(cr[i], l));
    }
  }
  for (unsigned l = 0; l < 32; l++) {
    unsigned g = l >> 2, t = l & 3;
    uint64_t out[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < 4; i++) {
      unsigned m = g + 8 * (i >> 1), n = 2 * t + (i & 1);
      long double acc = C[m][n];
      for (unsigned k = 0; k < 32; k++) acc += (long double)(A[m][k] * B[k][n]);  // each product exact in double
      if (dF16) out[i >> 1] |= roundTo(acc, Ty::F16, kRn) << (16 * (i & 1));
      else out[i] = f32bits((float)acc);
    }
    for (unsigned i = 0; i < nd; i++) c.R[(size_t)dr[i] * kWarp + l] = out[i];
  }
}

}  // namespace

// Called by mmaDecode (exec_tensor.cpp) when a type modifier is e4m3 or e5m2.
bool mmaFp8Decode(Decoder& dc, const Stmt& st, Inst& in) {
  if (!st.has("m16n8k32")) return dc.fail("e4m3/e5m2 mma.sync is m16n8k32");
  if (st.has("satfinite") || st.has("rn")) return dc.fail("e4m3/e5m2 mma.sync takes no .satfinite or .rn");
  std::vector<std::string> tys;
  for (auto& m : st.mods)
    if (m == "f32" || m == "f16" || m == "e4m3" || m == "e5m2" || m == "s8" || m == "u8" || m == "s32" || m == "bf16" || m == "tf32") tys.push_back(m);
  if (tys.size() != 4) return dc.fail("expected .dtype.atype.btype.ctype");
  auto isF8 = [](const std::string& m) { return m == "e4m3" || m == "e5m2"; };
  auto isAcc = [](const std::string& m) { return m == "f32" || m == "f16"; };
  if (!isF8(tys[1]) || !isF8(tys[2])) return dc.fail("e4m3/e5m2 go with e4m3/e5m2");
  if (!isAcc(tys[0]) || !isAcc(tys[3])) return dc.fail("e4m3/e5m2 accumulate in f32 or f16");
  if (tys[0] != tys[3]) return dc.fail("C and D types of an e4m3/e5m2 mma are the same");
  bool f16 = tys[0] == "f16";
  in.imm = (tys[1] == "e5m2" ? 1 : 0) | (tys[2] == "e5m2" ? 2 : 0) | (f16 ? 4 : 0) | (f16 ? 8 : 0);
  if (st.ops.size() != 4) return dc.fail("mma takes d, a, b, c");
  const unsigned counts[4] = {f16 ? 2u : 4u, 4, 2, f16 ? 2u : 4u};
  std::vector<uint32_t> e;
  for (int o = 0; o < 4; o++) {
    const Operand& v = st.ops[o];
    if (v.kind != Operand::Vec || v.elems.size() != counts[o]) return dc.fail("operand vector size");
    for (auto& x : v.elems) e.push_back(o == 0 ? dc.dst(x) : dc.src(x, Ty::B32));
  }
  in.ext = dc.ext(e);
  in.fn = &mmaFp8Op;
  in.cls = kTensor;
  return true;
}

}  // namespace tsim
