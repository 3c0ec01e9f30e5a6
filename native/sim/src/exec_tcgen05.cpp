// Blackwell tensor memory (sm_100a; PTX ISA "Tensor Memory", "tcgen05 Memory Consistency Model",
// "tcgen05.alloc", "tcgen05.ld", "tcgen05.st", "tcgen05.wait", "tcgen05.fence"):
//
// Each CTA has 128 lanes x 512 columns of 32-bit cells. A TMEM address is lane << 16 | column.
// tcgen05.alloc (a whole warp, .sync.aligned) takes a power of two >= 32 columns, aligned to its
// size, lowest free range first, and writes the address (lane 0) to the 32-bit shared-memory word
// [dst]; tcgen05.dealloc frees it; after tcgen05.relinquish_alloc_permit the CTA may not allocate
// again. A CTA that exits holding columns is an error (the ISA requires every allocation to be
// freed before the kernel exits). The sim gives each CTA its own 512 columns, so an allocation
// that does not fit can never be satisfied (no other CTA will free columns) and faults instead of
// blocking forever.
//
// Warp w reaches only lanes 32*(w%4) .. 32*(w%4)+31 (the "warp's quarter" of the data path);
// tcgen05.ld/st touching another lane is a named fault, as is a column that is not allocated.
// Shapes 32x32b, 16x64b, 16x128b, 16x256b and 16x32bx2 (two 16-lane halves, the second
// immHalfSplitoff columns on), .x1 .. .x128 (at most 128 registers): thread t's register j is the
// cell fragOf() gives, the ISA's matrix-fragment figures. .pack::16b (ld) puts the low 16 bits of
// two adjacent columns in one register (the first in the low half); .unpack::16b (st) writes the
// halves of a register to the low 16 bits of two adjacent columns (the upper 16 bits zero on the
// sim), so each register covers two columns.
//
// Asynchrony: tcgen05.ld's destination registers are defined only after tcgen05.wait::ld: until
// then they hold a poison NaN (0x7ff1dead) and any instruction reading or writing one is a named
// fault (the values are read from TMEM at issue and written back at the wait). tcgen05.st's cells
// are written as late as the program allows: at the warp's tcgen05.wait::st, or after the next
// MMAs to complete (overwriting what they wrote), or when the CTA's threads have all exited; so a
// tcgen05.mma or a tcgen05.ld that does not wait for the store sees the old cells.
// initcheck (TESSERA_SIM_INITCHECK): a tcgen05.ld, or an MMA reading its accumulator
// (enable_input_d) or A, of a cell never written since its column was allocated is reported (a
// new allocation's contents are undefined).
// tcgen05.fence::before_thread_sync / after_thread_sync order tcgen05 operations around thread
// synchronization; in the sim a tcgen05.ld reads at issue and an MMA runs at the arrival of its
// commit, which every later access is ordered after, so the fences have nothing left to order.
#include "exec_tcgen05.h"

#include <algorithm>
#include <cstdio>

#include "exec_mem.h"

namespace tsim {

namespace {

constexpr uint32_t kLdPoison = 0x7ff1deadu;

// The TMEM address of a .sync.aligned operand: the same in every lane, else a fault.
bool uniformTaddr(Ctx& c, const Inst& in, uint32_t& taddr, const char* what) {
  const uint64_t* p = slot(c, in.s[0]);
  taddr = (uint32_t)(p[0] + (uint64_t)in.imm);
  for (unsigned l = 1; l < 32; l++)
    if ((uint32_t)(p[l] + (uint64_t)in.imm) != taddr) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, std::string(what) + ": the tensor-memory address differs between the lanes of the warp");
      return false;
    }
  return true;
}

// The shape of a tcgen05.ld/st (PTX ISA "Matrix fragments for shape ..."): in.mode = kind |
// pack::16b / unpack::16b << 3 | log2(registers) << 4; the register list in ext, then
// immHalfSplitoff (0 unless 16x32bx2).
enum LdStKind : uint8_t { k32x32b, k16x32bx2, k16x64b, k16x128b, k16x256b };
constexpr const char* kKindNames[] = {"32x32b", "16x32bx2", "16x64b", "16x128b", "16x256b"};
constexpr unsigned kRegsPerRep[] = {1, 1, 1, 2, 4};  // registers per .x1
constexpr unsigned kColsPerRep[] = {1, 1, 2, 4, 8};  // 32-bit columns per .x1 (unpacked)
struct LdStShape {
  uint8_t kind;
  bool pack;        // two 16-bit halves of a register <-> the low 16 bits of two adjacent columns
  unsigned n;       // registers per thread
  unsigned lanes;   // lanes reached (32 or 16)
  unsigned width;   // columns reached from the base (per half for 16x32bx2)
  unsigned split;   // 16x32bx2: the second half's column offset
};
LdStShape shapeOf(const Inst& in, const Program& p) {
  LdStShape s;
  s.kind = in.mode & 7;
  s.pack = in.mode & 8;
  s.n = 1u << (in.mode >> 4);
  s.lanes = s.kind == k32x32b ? 32 : 16;
  s.width = s.n / kRegsPerRep[s.kind] * kColsPerRep[s.kind] * (s.pack ? 2 : 1);
  s.split = p.ext[in.ext + s.n];
  return s;
}
// Thread t's register j: its lane offset and its column offset in unpacked 32-bit units (with
// pack, register column c covers the cells 2c and 2c + 1). The PTX ISA's figures 183-187:
//   32x32b   lane t,                      column j
//   16x32bx2 lane t%16,                   column j (the second half, t >= 16: immHalfSplitoff on)
//   16x64b   lane t/4 + 8*(t%2),          column 2j + (t/2)%2
//   16x128b  lane t/4 + 8*(j%2),          column 4*(j/2) + t%4
//   16x256b  lane t/4 + 8*((j/2)%2),      column 8*(j/4) + 2*(t%4) + j%2
inline void fragOf(const LdStShape& s, unsigned t, unsigned j, unsigned& lane, unsigned& col) {
  switch (s.kind) {
    case k32x32b: lane = t; col = j; break;
    case k16x32bx2: lane = t % 16; col = j; break;
    case k16x64b: lane = t / 4 + 8 * (t % 2); col = 2 * j + (t / 2) % 2; break;
    case k16x128b: lane = t / 4 + 8 * (j % 2); col = 4 * (j / 2) + t % 4; break;
    default: lane = t / 4 + 8 * ((j / 2) % 2); col = 8 * (j / 4) + 2 * (t % 4) + j % 2; break;
  }
}
// The cell(s) of thread t's register j: one, or two with pack (low half first).
inline unsigned cellsOf(const LdStShape& s, uint32_t taddr, unsigned t, unsigned j, size_t cell[2]) {
  unsigned lane, col;
  fragOf(s, t, j, lane, col);
  uint32_t L = (taddr >> 16) + lane, C = (taddr & 0xffff) + (s.kind == k16x32bx2 ? (t / 16) * s.split : 0);
  if (!s.pack) {
    cell[0] = (size_t)L * kTmemCols + C + col;
    return 1;
  }
  cell[0] = (size_t)L * kTmemCols + C + 2 * col;
  cell[1] = cell[0] + 1;
  return 2;
}

// The lane-access rule and the column ranges of an access of shape s at taddr.
bool checkAccess(Ctx& c, uint32_t taddr, const LdStShape& s, const char* what) {
  uint32_t lane = taddr >> 16, col = taddr & 0xffff;
  unsigned q = c.w->id % 4;
  if (lane < 32 * q || lane + s.lanes > 32 * q + 32) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          std::string(what) + "." + kKindNames[s.kind] + ": warp " + std::to_string(c.w->id) + " (warp id % 4 = " + std::to_string(q) +
              ") may access TMEM lanes " + std::to_string(32 * q) + ".." + std::to_string(32 * q + 31) +
              " only; the address names lanes " + std::to_string(lane) + ".." + std::to_string(lane + s.lanes - 1));
    return false;
  }
  if (!tmemColumnsAllocated(c, col, s.width, what)) return false;
  return s.kind != k16x32bx2 || tmemColumnsAllocated(c, col + s.split, s.width, what);
}

// The peer of this CTA in a .cta_group::2 pair (PTX ISA "CTA pair": the two CTAs of a cluster
// whose %cluster_ctarank differ only in bit 0); null after a fault when there is none.
Cta* pairPeer(Ctx& c, const char* what) {
  Cluster& cl = *c.cta->cluster;
  const unsigned r = c.cta->rank ^ 1;
  if (r >= cl.size) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          std::string(what) + ": the CTA pair needs the peer CTA (%cluster_ctarank " + std::to_string(r) + ") in the cluster, which has " +
              std::to_string(cl.size) + " CTA(s)");
    return nullptr;
  }
  Cta* peer = &cl.ctas[r];
  if (peer->done) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          std::string(what) + ": the peer CTA (%cluster_ctarank " + std::to_string(r) + ") has already exited");
    return nullptr;
  }
  return peer;
}

// tcgen05.alloc.cta_group::{1,2}.sync.aligned{.shared::cta}.b32 [dst], nCols   (s[1] = nCols)
// .cta_group::2 (in.mode 2): the first of the pair's two allocs (one warp in each CTA) takes the
// lowest range free in both CTAs' tensor memory, in both; the peer's alloc then reports the same
// address. On hardware the first would block until the peer's arrives; the sim lets it proceed
// (a tcgen05.mma.cta_group::2 issued before then writes the peer's half into the columns already
// reserved there, which the peer's own alloc then reports) and a CTA that exits without its
// matching half is a named fault (tmemExitCheck).
void allocOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!tcgen05FullWarp(c, exec, "tcgen05.alloc")) return;
  Tmem& t = c.cta->tmem;
  const uint64_t* nv = slot(c, in.s[1]);
  uint32_t n = (uint32_t)nv[0];
  for (unsigned l = 1; l < 32; l++)
    if ((uint32_t)nv[l] != n) {
      raise(c, Fault::IllegalInstruction, (int)l, 0, 0, false, "tcgen05.alloc: nCols differs between the lanes of the warp");
      return;
    }
  if (n < 32 || n > kTmemCols || (n & (n - 1))) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "tcgen05.alloc: nCols must be a power of two in [32, 512], got " + std::to_string(n));
    return;
  }
  if (t.relinquished) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "tcgen05.alloc after this CTA's tcgen05.relinquish_alloc_permit (the CTA gave up the right to allocate)");
    return;
  }
  const bool pair = in.mode == 2;
  Cta* peer = pair ? pairPeer(c, "tcgen05.alloc.cta_group::2") : nullptr;
  if (pair && !peer) return;
  uint32_t chunks = n / 32, mask = chunks == 16 ? 0xffffu : ((1u << chunks) - 1);
  if (pair && !t.peerAllocs.empty()) {  // the peer CTA allocated first: this is the matching half
    auto [col, m] = t.peerAllocs.front();
    if (m != n) {
      raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
            "tcgen05.alloc.cta_group::2 of " + std::to_string(n) + " columns, but the peer CTA's (%cluster_ctarank " +
                std::to_string(peer->rank) + ") matching tcgen05.alloc.cta_group::2 took " + std::to_string(m));
      return;
    }
    uint8_t* p[kWarp];
    uint32_t first = exec & (0u - exec);
    if (!resolve(c, in, first, 4, true, p, true)) return;
    t.peerAllocs.erase(t.peerAllocs.begin());
    t.allocLine = in.line;
    memcpy(p[__builtin_ctz(first)], &col, 4);
    return;
  }
  const uint32_t taken = t.allocated | (pair ? peer->tmem.allocated : 0);
  int at = -1;
  for (uint32_t i = 0; i + chunks <= 16; i += chunks)
    if (!(taken & (mask << i))) { at = (int)i; break; }
  if (at < 0 && pair) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          "tcgen05.alloc.cta_group::2 of " + std::to_string(n) + " columns cannot be satisfied: no range is free in both CTAs of the pair (this CTA holds " +
              std::to_string(32 * __builtin_popcount(t.allocated)) + ", the peer " + std::to_string(32 * __builtin_popcount(peer->tmem.allocated)) +
              " of 512; on the sim a CTA's tensor memory is its own, so the allocation would block forever)");
    return;
  }
  if (at < 0) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          "tcgen05.alloc of " + std::to_string(n) + " columns cannot be satisfied: the CTA already holds " +
              std::to_string(32 * __builtin_popcount(t.allocated)) +
              " of its 512 (on the sim a CTA's tensor memory is its own, so the allocation would block forever)");
    return;
  }
  uint8_t* p[kWarp];
  uint32_t first = exec & (0u - exec);  // one write: the address is the same for the whole warp
  if (!resolve(c, in, first, 4, true, p, true)) return;
  tmemCells(c);
  if (!t.written.empty())  // a new allocation holds nothing written yet
    for (uint32_t lane = 0; lane < kTmemLanes; lane++)
      std::fill_n(t.written.begin() + lane * kTmemCols + at * 32, n, 0);
  t.allocated |= mask << at;
  t.allocLine = in.line;
  uint32_t addr = (uint32_t)at * 32;  // lane 0, first column
  if (pair) {  // the same columns in the peer's tensor memory, which its own alloc then reports
    t.pairCols |= mask << at;
    Tmem& pt = peer->tmem;
    if (!pt.written.empty())
      for (uint32_t lane = 0; lane < kTmemLanes; lane++) std::fill_n(pt.written.begin() + lane * kTmemCols + at * 32, n, 0);
    pt.allocated |= mask << at;
    pt.pairCols |= mask << at;
    pt.allocLine = in.line;
    pt.peerAllocs.push_back({addr, n});
  }
  memcpy(p[__builtin_ctz(first)], &addr, 4);
}

// tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, nCols   (s[0] = taddr, s[1] = nCols)
void deallocOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!tcgen05FullWarp(c, exec, "tcgen05.dealloc")) return;
  uint32_t taddr;
  if (!uniformTaddr(c, in, taddr, "tcgen05.dealloc")) return;
  uint32_t n = (uint32_t)slot(c, in.s[1])[0];
  if (n < 32 || n > kTmemCols || (n & (n - 1))) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "tcgen05.dealloc: nCols must be a power of two in [32, 512], got " + std::to_string(n));
    return;
  }
  uint32_t col = taddr & 0xffff;
  if ((taddr >> 16) != 0 || col % 32) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "tcgen05.dealloc: the address must be one tcgen05.alloc returned (lane 0, a multiple of 32 columns), got lane " +
          std::to_string(taddr >> 16) + " column " + std::to_string(col));
    return;
  }
  if (!tmemColumnsAllocated(c, col, n, "tcgen05.dealloc")) return;
  Tmem& t = c.cta->tmem;
  const uint32_t dmask = ((n / 32 == 16) ? 0xffffu : ((1u << (n / 32)) - 1)) << (col / 32);
  const bool pair = in.mode == 2;
  if (pair ? (t.pairCols & dmask) != dmask : (t.pairCols & dmask) != 0) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          std::string("tcgen05.dealloc.cta_group::") + (pair ? "2" : "1") + " of columns " + std::to_string(col) + ".." +
              std::to_string(col + n - 1) + " allocated with " + (pair ? ".cta_group::1" : ".cta_group::2") +
              " (the cta_group of a dealloc must match its alloc)");
    return;
  }
  for (const auto& [pc, pn] : t.peerAllocs)
    if (pc < col + n && col < pc + pn) {
      raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
            "tcgen05.dealloc.cta_group::2 of columns the peer CTA allocated for this CTA before this CTA's own tcgen05.alloc.cta_group::2 executed");
      return;
    }
  if (!t.mmas.empty()) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false, "tcgen05.dealloc while a tcgen05.mma or tcgen05.shift is still in flight (no mbarrier wait saw the arrival of its tcgen05.commit)");
    return;
  }
  if (pairMmaInFlight(c)) return;  // the even CTA's tcgen05.mma.cta_group::2 still writes here
  uint32_t chunks = n / 32;
  t.allocated &= ~(((chunks == 16) ? 0xffffu : ((1u << chunks) - 1)) << (col / 32));
  t.pairCols &= ~dmask;
}

void relinquishOp(Ctx& c, const Inst&, uint32_t exec) {
  if (!tcgen05FullWarp(c, exec, "tcgen05.relinquish_alloc_permit")) return;
  c.cta->tmem.relinquished = true;
}

}  // namespace

std::vector<const Tcgen05Mma*> tmemOpsInFlight(Ctx& c) {
  // this CTA's operations in flight, and the .cta_group::2 MMAs the even CTA of its pair issued
  // (they write this CTA's lanes too: its disable_output_lane words 4-7)
  std::vector<const Tcgen05Mma*> ops;
  for (const Tcgen05Mma& op : c.cta->tmem.mmas) ops.push_back(&op);
  if (c.cta->cluster && (c.cta->rank ^ 1) < c.cta->cluster->size)  // (the odd CTA's: cp/shift .cta_group::2)
    for (const Tcgen05Mma& op : c.cta->cluster->ctas[c.cta->rank ^ 1].tmem.mmas)
      if (op.peer == c.cta) ops.push_back(&op);
  return ops;
}

const char* mmaTouchesTmem(Ctx& c, const Tcgen05Mma& op, const TmemSpan& s, bool reads, uint32_t& hl, uint32_t& hc) {
  const unsigned dis0 = op.peer == c.cta ? 4 : 0;
  const unsigned m = ((op.idesc >> 24) & 31) * 16, n = ((op.idesc >> 17) & 63) * 8;
  const bool aTmem = c.prog->code[op.pc].mode & 0x40;
  // the first of the span's cells in [c0, c0 + nc) of a row of op (disabled output lanes: not written)
  auto hit = [&](uint32_t c0, uint32_t nc, bool skipDisabled) {
    for (uint32_t from : s.cols) {
      uint32_t lo = std::max(from, c0), hi = std::min(from + s.width, c0 + nc);
      if (lo >= hi) continue;
      for (uint32_t i = 0, L = s.lane0; i < s.nlanes; i++, L += s.step) {
        // M = 64 (layout F): the 16 lanes of each quarter from the MMA's lane alignment (0 or 16)
        if (m == 64 && L % 32 / 16 != (op.taddr >> 16) / 16) continue;
        if (skipDisabled && ((op.disableLanes[dis0 + L / 32] >> (L % 32)) & 1)) continue;
        hl = L;
        hc = lo;
        return true;
      }
    }
    return false;
  };
  if (hit(op.taddr & 0xffff, n, true)) return "writes (its accumulator)";
  if (!reads) return nullptr;
  if (aTmem && hit((uint32_t)op.descA & 0xffff, 8, false)) return "reads (its A)";
  if ((c.prog->code[op.pc].mode & 0x80) &&  // block scaling: its scale columns, every lane
      (hit(op.sfA & 0xffff, (m + 31) / 32, false) || hit(op.sfB & 0xffff, (n + 31) / 32, false)))
    return "reads (its scale factors)";
  return nullptr;
}

namespace {

// racecheck: a tcgen05.ld (write: tcgen05.st) of cells that a tcgen05.mma still in flight writes
// (its accumulator) or, for a store, reads (its A in tensor memory, its block-scaling scale
// factors). The MMA is done only once the
// tcgen05.commit that covers it has arrived on its mbarrier (and someone waited for that phase), so
// such a load reads stale cells and such a store is overwritten by, or changes, the MMA's result.
void tmemRaceCheck(Ctx& c, uint32_t taddr, const LdStShape& s, bool write) {
  if (!c.san || !(c.san->flags & kSanRace)) return;
  const std::vector<const Tcgen05Mma*> ops = tmemOpsInFlight(c);
  if (ops.empty()) return;
  const uint32_t lane0 = taddr >> 16, col0 = taddr & 0xffff;
  // our column ranges: [col0, col0 + n), and for 16x32bx2 the second half's too
  const TmemSpan ours{lane0, s.lanes, 1, {col0, s.kind == k16x32bx2 ? col0 + s.split : col0}, s.width};
  for (const Tcgen05Mma* opp : ops) {
    const Tcgen05Mma& op = *opp;
    if (op.cp) {  // a tcgen05.cp in flight writes its destination cells
      uint32_t cc, nc;
      for (uint32_t from : ours.cols)
        for (uint32_t L = lane0; L < lane0 + s.lanes; L++) {
          if (!tcgen05CpWrites(op, L, cc, nc)) continue;
          const uint32_t lo = std::max(from, cc), hi = std::min(from + s.width, cc + nc);
          if (lo >= hi) continue;
          char head[160];
          std::snprintf(head, sizeof head, "%s hazard on tensor memory (lane %u, column %u): ", write ? "write-after-write" : "read-after-write", L, lo);
          sanRecord(c, 0, write ? 7 : 6, op.pc, c.curPc,
                    std::string(head) + (write ? "tcgen05.st " : "tcgen05.ld ") + sanWhere(c, c.w->id * kWarp, c.curPc) +
                        (write ? " writes" : " reads") + " a cell that tcgen05.cp " + sanWhere(c, op.warp * kWarp + op.lane, op.pc) +
                        " writes (its destination), before the tcgen05.commit that covers the copy has arrived on its mbarrier");
          return;
        }
      continue;
    }
    if (op.shift) continue;
    uint32_t hl, hc;
    const char* role = mmaTouchesTmem(c, op, ours, write, hl, hc);
    if (!role) continue;
    const int kind = role[0] == 'w' ? (write ? 7 : 6) : 8;
    static const char* kinds[] = {"read-after-write", "write-after-write", "write-after-read"};
    char head[160];
    std::snprintf(head, sizeof head, "%s hazard on tensor memory (lane %u, column %u): ", kinds[kind - 6], hl, hc);
    sanRecord(c, 0, kind, op.pc, c.curPc,
              std::string(head) + (write ? "tcgen05.st " : "tcgen05.ld ") + sanWhere(c, c.w->id * kWarp, c.curPc) +
                  (write ? " writes a cell that tcgen05.mma " : " reads a cell that tcgen05.mma ") + sanWhere(c, op.warp * kWarp + op.lane, op.pc) +
                  " " + role + ", before the tcgen05.commit that covers the MMA has arrived on its mbarrier");
    return;
  }
}

// tcgen05.ld.sync.aligned.32x32b.xN.b32 {d...}, [taddr]   (ext: N destination slots)
void ldOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!tcgen05FullWarp(c, exec, "tcgen05.ld")) return;
  uint32_t taddr;
  if (!uniformTaddr(c, in, taddr, "tcgen05.ld")) return;
  const LdStShape sh = shapeOf(in, *c.prog);
  const unsigned n = sh.n;
  if (!checkAccess(c, taddr, sh, "tcgen05.ld")) return;
  tmemRaceCheck(c, taddr, sh, false);
  const uint32_t* cells = tmemCells(c);
  const uint32_t* d = &c.prog->ext[in.ext];
  TmemLdInFlight& f = c.w->tmemLd;
  if (f.busy.size() < c.prog->numSlots) f.busy.assign(c.prog->numSlots, 0);
  if (tmemInitcheck(c)) {
    const auto& wr = c.cta->tmem.written;
    bool reported = false;
    for (unsigned j = 0; j < n && !reported; j++)
      for (unsigned t = 0; t < 32 && !reported; t++) {
        size_t cell[2];
        for (unsigned k = 0, m = cellsOf(sh, taddr, t, j, cell); k < m && !reported; k++)
          if (!wr[cell[k]]) {
            tmemUninitRead(c, c.curPc, c.w->id * 32 + t, (uint32_t)(cell[k] / kTmemCols), (uint32_t)(cell[k] % kTmemCols), "tcgen05.ld");
            reported = true;
          }
      }
  }
  for (unsigned j = 0; j < n; j++) {
    std::vector<uint64_t> v(32);
    for (unsigned t = 0; t < 32; t++) {
      size_t cell[2];
      if (cellsOf(sh, taddr, t, j, cell) == 1)
        v[t] = cells[cell[0]];
      else  // .pack::16b: the low 16 bits of two adjacent columns, the first in the low half
        v[t] = (cells[cell[0]] & 0xffffu) | (cells[cell[1]] & 0xffffu) << 16;
    }
    if (f.busy[d[j]]) {  // an earlier tcgen05.ld in flight writes it too: the newer value wins
      for (auto& e : f.shadow)
        if (e.first == d[j]) e.second = std::move(v);
    } else {
      f.busy[d[j]] = 1;
      f.shadow.emplace_back(d[j], std::move(v));
    }
    uint64_t* r = slot(c, d[j]);
    for (unsigned t = 0; t < 32; t++) r[t] = kLdPoison;
  }
  f.line = in.line;
}

// tcgen05.st.sync.aligned.32x32b.xN.b32 [taddr], {s...}: the values are read now and land at the
// warp's tcgen05.wait::st.
void stOp(Ctx& c, const Inst& in, uint32_t exec) {
  if (!tcgen05FullWarp(c, exec, "tcgen05.st")) return;
  uint32_t taddr;
  if (!uniformTaddr(c, in, taddr, "tcgen05.st")) return;
  const LdStShape sh = shapeOf(in, *c.prog);
  const unsigned n = sh.n;
  if (!checkAccess(c, taddr, sh, "tcgen05.st")) return;
  tmemRaceCheck(c, taddr, sh, true);
  tmemCells(c);
  Tmem& t = c.cta->tmem;
  const uint32_t* s = &c.prog->ext[in.ext];
  for (unsigned j = 0; j < n; j++) {
    const uint64_t* r = slot(c, s[j]);
    for (unsigned l = 0; l < 32; l++) {
      size_t cell[2];
      if (cellsOf(sh, taddr, l, j, cell) == 1) {
        t.pendingSt.emplace_back((uint32_t)cell[0], (uint32_t)r[l]);
        t.pendingStWarp.push_back((uint16_t)c.w->id);
      } else {  // .unpack::16b: each half to the low 16 bits of its column (the upper 16 bits zero)
        for (unsigned k = 0; k < 2; k++) {
          t.pendingSt.emplace_back((uint32_t)cell[k], (uint32_t)(r[l] >> (16 * k)) & 0xffffu);
          t.pendingStWarp.push_back((uint16_t)c.w->id);
        }
      }
    }
  }
}

void waitLdOp(Ctx& c, const Inst&, uint32_t exec) {
  if (!tcgen05FullWarp(c, exec, "tcgen05.wait::ld")) return;
  TmemLdInFlight& f = c.w->tmemLd;
  for (auto& e : f.shadow) {
    uint64_t* r = slot(c, e.first);
    for (unsigned l = 0; l < 32; l++) r[l] = e.second[l];
    f.busy[e.first] = 0;
  }
  f.shadow.clear();
}

void waitStOp(Ctx& c, const Inst&, uint32_t exec) {
  if (!tcgen05FullWarp(c, exec, "tcgen05.wait::st")) return;
  tmemLandStores(c, (int)c.w->id);
}

void fenceOp(Ctx&, const Inst&, uint32_t) {}

// The register list of a tcgen05.ld/st: n plain 32-bit registers.
bool regList(Decoder& dc, const Operand& o, unsigned n, bool dest, std::vector<uint32_t>& out) {
  if (o.kind != Operand::Vec || o.elems.size() != n)
    return dc.fail("expected a vector of " + std::to_string(n) + " registers (the shape and .xN need that many)");
  for (auto& e : o.elems) {
    if (e.kind != Operand::Reg) return dc.fail("the vector holds registers only");
    out.push_back(dest ? dc.dst(e) : dc.src(e, Ty::B32));
  }
  if (dest)
    for (size_t i = 0; i < out.size(); i++)
      for (size_t j = 0; j < i; j++)
        if (out[i] == out[j]) return dc.fail("a destination register appears twice");
  return true;
}

bool taddrOperand(Decoder& dc, const Operand& o, Inst& in) {
  uint8_t sym;
  if (o.kind != Operand::Addr) return dc.fail("expected a tensor-memory address [taddr]");
  if (!dc.addr(o, in.s[0], in.imm, sym)) return false;
  return true;
}

bool ldStDecode(Decoder& dc, const Stmt& st, Inst& in, bool load) {
  const char* name = load ? "tcgen05.ld" : "tcgen05.st";
  if (!st.has("sync") || !st.has("aligned")) return dc.fail(std::string("expected ") + name + ".sync.aligned");
  if (st.has("red")) return dc.fail("tcgen05.ld.red is not simulated");
  int kind = -1;
  for (int k = 0; k < 5; k++)
    if (st.has(kKindNames[k])) {
      if (kind >= 0) return dc.fail(std::string(name) + " takes one shape");
      kind = k;
    }
  if (kind < 0 || st.type() != Ty::B32) return dc.fail(std::string("expected ") + name + ".sync.aligned.{32x32b,16x64b,16x128b,16x256b,16x32bx2}.xN.b32");
  const char* packMod = load ? "pack::16b" : "unpack::16b";
  if (st.has(load ? "unpack::16b" : "pack::16b")) return dc.fail(std::string(name) + (load ? " packs (.pack::16b), it does not unpack" : " unpacks (.unpack::16b), it does not pack"));
  const bool pack = st.has(packMod), half = kind == k16x32bx2;
  unsigned num = 0, lg = 0;
  for (unsigned k = 0; k <= 7; k++)
    if (st.has(("x" + std::to_string(1u << k)).c_str())) { num = 1u << k; lg = k; }
  if (!num) return dc.fail(std::string(name) + " needs .xN (N = 1, 2, 4, ..., 128)");
  // Table 47/48: registers = N * (1, 2 or 4); at most 128
  const unsigned n = num * kRegsPerRep[kind];
  if (n > 128) return dc.fail(std::string(name) + "." + kKindNames[kind] + " allows .x" + std::to_string(128 / kRegsPerRep[kind]) + " at most (128 registers), got .x" + std::to_string(num));
  lg += __builtin_ctz(kRegsPerRep[kind]);
  if (st.ops.size() != (half ? 3u : 2u)) return dc.fail(half ? "expected the registers, [taddr] and immHalfSplitoff" : "wrong operand count");
  std::vector<uint32_t> regs;
  int64_t split = 0;
  if (half) {
    const Operand& so = st.ops[load ? 2 : 1];
    if (so.kind != Operand::Imm || !immInt(so.name, split) || split < 0 || split >= 512)
      return dc.fail("immHalfSplitoff must be an integer immediate (a column offset)");
  }
  if (load) {
    if (!regList(dc, st.ops[0], n, true, regs) || !taddrOperand(dc, st.ops[1], in)) return false;
    in.fn = &ldOp;
  } else {
    if (!taddrOperand(dc, st.ops[0], in) || !regList(dc, st.ops[half ? 2 : 1], n, false, regs)) return false;
    in.fn = &stOp;
  }
  regs.push_back((uint32_t)split);
  in.ext = dc.ext(regs);
  in.mode = (uint8_t)(kind | (pack ? 8 : 0) | lg << 4);
  in.cls = kTensor;
  return true;
}

// .cta_group::1 or ::2 (in.mode 2) for alloc / dealloc / relinquish_alloc_permit.
bool ctaGroup12(Decoder& dc, const Stmt& st, Inst& in) {
  const bool two = st.has("cta_group::2");
  if (two == st.has("cta_group::1")) return dc.fail("expected .cta_group::1 or .cta_group::2");
  in.mode = two ? 2 : 1;
  return true;
}

bool tcgen05Decode(Decoder& dc, const Stmt& st, Inst& in) {
  const auto& o = st.ops;
  if (st.has("mma")) return decodeTcgen05Mma(dc, st, in);
  if (st.has("commit")) return decodeTcgen05Commit(dc, st, in);
  if (st.has("ld")) return ldStDecode(dc, st, in, true);
  if (st.has("st")) return ldStDecode(dc, st, in, false);
  if (st.has("shift")) return decodeTcgen05Shift(dc, st, in);
  if (st.has("cp")) return decodeTcgen05Cp(dc, st, in);
  in.cls = kSync;
  if (st.has("fence::before_thread_sync") || st.has("fence::after_thread_sync")) {
    if (!onlyMods(dc, st, "fence::before_thread_sync fence::after_thread_sync")) return false;
    if (!o.empty()) return dc.fail("tcgen05.fence takes no operands");
    in.fn = &fenceOp;
    return true;
  }
  if (st.has("wait::ld") || st.has("wait::st")) {
    if (!onlyMods(dc, st, "wait::ld wait::st sync aligned") || !st.has("sync") || !st.has("aligned"))
      return dc.fail("expected tcgen05.wait::ld.sync.aligned or tcgen05.wait::st.sync.aligned");
    if (!o.empty()) return dc.fail("tcgen05.wait takes no operands");
    in.fn = st.has("wait::ld") ? &waitLdOp : &waitStOp;
    return true;
  }
  if (st.has("alloc") || st.has("dealloc") || st.has("relinquish_alloc_permit")) {
    if (!ctaGroup12(dc, st, in)) return false;
    if (!st.has("sync") || !st.has("aligned")) return dc.fail("expected .sync.aligned");
    if (st.has("relinquish_alloc_permit")) {
      if (!onlyMods(dc, st, "relinquish_alloc_permit cta_group::1 cta_group::2 sync aligned")) return false;
      if (!o.empty()) return dc.fail("tcgen05.relinquish_alloc_permit takes no operands");
      in.fn = &relinquishOp;
      return true;
    }
    int64_t imm;
    if (o.size() == 2 && o[1].kind == Operand::Imm && immInt(o[1].name, imm) && (imm < 32 || imm > 512 || (imm & (imm - 1))))
      return dc.fail("nCols must be a power of two in [32, 512], got " + std::to_string(imm));
    if (st.type() != Ty::B32 || o.size() != 2) return dc.fail(st.has("alloc") ? "expected tcgen05.alloc.cta_group::{1,2}.sync.aligned{.shared::cta}.b32 [dst], nCols" : "expected tcgen05.dealloc.cta_group::{1,2}.sync.aligned.b32 taddr, nCols");
    if (st.has("alloc")) {
      if (!onlyMods(dc, st, "alloc cta_group::1 cta_group::2 sync aligned shared::cta b32")) return false;
      uint8_t sym;
      if (o[0].kind != Operand::Addr || !dc.addr(o[0], in.s[0], in.imm, sym)) return dc.fail("expected the shared-memory address [dst]");
      in.space = st.has("shared::cta") ? kShared : kGeneric;
      in.s[1] = dc.src(o[1], Ty::U32);
      in.fn = &allocOp;
      return true;
    }
    if (!onlyMods(dc, st, "dealloc cta_group::1 cta_group::2 sync aligned b32")) return false;
    in.s[0] = dc.src(o[0], Ty::B32);
    in.s[1] = dc.src(o[1], Ty::U32);
    in.fn = &deallocOp;
    return true;
  }
  return dc.fail("expected tcgen05.alloc, dealloc, relinquish_alloc_permit, ld, st, wait, fence, mma or commit");
}

}  // namespace

Cta* tcgen05PairPeer(Ctx& c, const char* what) { return pairPeer(c, what); }

uint32_t* tmemCells(Ctx& c) {
  auto& v = c.cta->tmem.cells;
  if (v.empty()) {
    v.assign((size_t)kTmemLanes * kTmemCols, 0);
    if (tmemInitcheck(c)) c.cta->tmem.written.assign(v.size(), 0);
  }
  return v.data();
}

bool tmemInitcheck(Ctx& c) { return c.san && (c.san->flags & kSanInit); }

void tmemUninitRead(Ctx& c, uint32_t pc, unsigned tid, uint32_t lane, uint32_t col, const char* what) {
  sanRecord(c, 2, 0, pc, pc,
            std::string("read of uninitialised tensor memory (lane ") + std::to_string(lane) + ", column " + std::to_string(col) +
                ") by " + what + " " + sanWhere(c, tid, pc) + ": the cell was never written since its tcgen05.alloc");
}

bool tmemColumnsAllocated(Ctx& c, uint32_t col, uint32_t n, const std::string& what) {
  uint32_t have = c.cta->tmem.allocated;
  bool ok = col + n <= kTmemCols && n > 0;
  for (uint32_t k = col; ok && k < col + n; k += 32 - k % 32) ok = (have >> (k / 32)) & 1;
  if (ok) return true;
  std::string held;
  for (unsigned i = 0; i < 16; i++)
    if ((have >> i) & 1) held += (held.empty() ? "" : ", ") + std::to_string(32 * i) + ".." + std::to_string(32 * i + 31);
  raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
        what + ": tensor-memory columns " + std::to_string(col) + ".." + std::to_string(col + n - 1) +
            " are not all allocated (allocated: " + (held.empty() ? "none" : held) + ")");
  return false;
}

bool tcgen05FullWarp(Ctx& c, uint32_t exec, const char* what) {
  if (!exec) return false;
  if (exec != ~0u) {
    // synccheck names the lanes, as for an .aligned barrier in divergent code (its report is
    // appended to the fault's, exec_launch.cpp); the instruction cannot run on part of a warp
    if (c.san && (c.san->flags & kSanSync)) {
      char m[64];
      std::snprintf(m, sizeof m, "lanes 0x%08x of warp %u", ~exec, c.w->id);
      sanRecord(c, 1, 4, c.curPc, c.curPc,
                std::string(what) + " in divergent code: " + m + " are not at it, " +
                    sanWhere(c, c.w->id * kWarp + __builtin_ctz(exec), c.curPc) +
                    " (.sync.aligned tcgen05 instructions need every thread of the warp)");
    }
    raise(c, Fault::IllegalInstruction, __builtin_ctz(exec), 0, 0, false, std::string(what) + " needs all 32 lanes of the warp (.sync.aligned)");
    return false;
  }
  return true;
}

void tmemLandStores(Ctx& c, int w) {
  Tmem& t = c.cta->tmem;
  if (t.pendingSt.empty()) return;
  uint32_t* cells = tmemCells(c);
  size_t keep = 0;
  for (size_t i = 0; i < t.pendingSt.size(); i++) {
    if (w < 0 || t.pendingStWarp[i] == (uint16_t)w) {
      cells[t.pendingSt[i].first] = t.pendingSt[i].second;
      if (!t.written.empty()) t.written[t.pendingSt[i].first] = 1;
    } else {
      t.pendingSt[keep] = t.pendingSt[i];
      t.pendingStWarp[keep++] = t.pendingStWarp[i];
    }
  }
  t.pendingSt.resize(keep);
  t.pendingStWarp.resize(keep);
}

bool tmemLdInFlight(Ctx& c, const Inst& in, uint32_t) {
  if (in.fn == &waitLdOp) return false;
  const auto& busy = c.w->tmemLd.busy;
  auto hit = [&](uint32_t s) { return s && s < busy.size() && busy[s]; };
  for (int i = 0; i < 4; i++) {
    bool read = hit(in.s[i]), write = hit(in.d[i]);
    if (read || write) {
      raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
            std::string(read ? "reads" : "writes") + " a destination register of the tcgen05.ld at PTX line " +
                std::to_string(c.w->tmemLd.line) + " before tcgen05.wait::ld (its value is undefined until then)");
      return true;
    }
  }
  return false;
}

bool tmemExitCheck(Ctx& c) {
  Tmem& t = c.cta->tmem;
  tmemLandStores(c, -1);
  t.commits.clear();
  t.mmas.clear();
  if (!t.peerAllocs.empty()) {
    raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
          "the CTA exited without the tcgen05.alloc.cta_group::2 that matches its peer CTA's (columns " +
              std::to_string(t.peerAllocs.front().first) + "..., " + std::to_string(t.peerAllocs.front().second) +
              " columns, PTX line " + std::to_string(t.allocLine) + "): both CTAs of the pair must allocate together");
    return false;
  }
  if (!t.allocated) return true;
  std::string held;
  for (unsigned i = 0; i < 16; i++)
    if ((t.allocated >> i) & 1) held += (held.empty() ? "" : ", ") + std::to_string(32 * i) + ".." + std::to_string(32 * i + 31);
  raise(c, Fault::IllegalInstruction, 0, 0, 0, false,
        "the CTA exited holding tensor memory (columns " + held + ", from the tcgen05.alloc at PTX line " +
            std::to_string(t.allocLine) + "): every allocation must be freed with tcgen05.dealloc before the kernel exits");
  return false;
}

void registerTcgen05Ops(DecodeTable& t) {
  std::string xs;
  for (unsigned k = 0; k <= 7; k++) xs += " x" + std::to_string(1u << k);
  for (unsigned b = 0; b < 4; b++)  // tcgen05.mma.ws's .collector_usage (exec_tcgen05_ws.cpp)
    for (const char* o : {"fill", "use", "lastuse", "discard"}) xs += " collector::b" + std::to_string(b) + "::" + o;
  for (const char* o : {"fill", "use", "lastuse", "discard"}) xs += std::string(" collector::a::") + o;  // exec_tcgen05_collector_a.cpp
  xs += " ashift";  // refused by name (exec_tcgen05_collector_a.cpp)
  addOp(t, "tcgen05", tcgen05Decode,
        "alloc dealloc relinquish_alloc_permit ld st wait::ld wait::st fence::before_thread_sync fence::after_thread_sync "
        "mma commit cp shift down cta_group::1 cta_group::2 sync aligned shared::cta shared::cluster b32 b64 32x32b 16x64b 16x128b "
        "16x256b 16x32bx2 pack::16b unpack::16b red kind::f16 kind::tf32 kind::f8f6f4 kind::i8 kind::mxf8f6f4 kind::mxf4 "
        "kind::mxf4nvf4 ws sp mbarrier::arrive::one multicast::cluster 128x256b 4x256b 128x128b 64x128b 32x128b "
        "warpx2::02_13 warpx2::01_23 warpx4 b8x16 b6x16_p32 b4x16_p64" + xs +
            " block_scale scale_vec::1X scale_vec::2X scale_vec::4X block32 block16",
        "sm_100a tensor memory: per-CTA 128 lanes x 512 columns; alloc (power of two >= 32 columns; a CTA exiting "
        "with columns allocated faults) / dealloc / relinquish_alloc_permit, `.cta_group::1` and `::2` (the CTA pair "
        "allocating jointly: the same columns in both); ld / st `.32x32b.xN` with the warp's "
        "lane quarter enforced, and `.16x64b` / `.16x128b` / `.16x256b` / `.16x32bx2` (two 16-lane halves, the second immHalfSplitoff columns on) `.xN` with `.pack::16b` / `.unpack::16b`; ld results are a poison NaN (0x7ff1dead) and a named fault on use until "
        "`wait::ld`, st lands at `wait::st`; `mma.cta_group::1` kinds f16 (f16/bf16 -> f32 or f16), tf32, f8f6f4 (e4m3/e5m2/e2m3/e3m2/e2m1 in any pair -> f32 or f16) and i8 (u8/s8 -> s32), M 64/128, "
        "the block-scaled kinds mxf8f6f4 / mxf4 / mxf4nvf4 (`.block_scale`, scale_vec::1X/2X/4X or .block32/.block16, ue8m0 / ue4m3 scales "
        "from TMEM duplicated in the four lane quarters; M 128), A from TMEM or "
        "an sm_100 shared-memory descriptor, B from a descriptor (swizzle none/32B/64B/128B, and 128B_base32b, which MN-major tf32 takes only; the ISA's table of valid type size, major-ness and swizzling enforced), computed when an mbarrier a covering "
        "`commit` arrives on is tested (TMEM keeps old values, shared operands are read then); fences accepted. "
        "`shift.cta_group::{1,2}.down` (asynchronous, completed by a covering commit like an MMA). "
        "`cp.cta_group::{1,2}` shared -> TMEM in every shape: `.128x256b`, `.4x256b` (lanes 32 apart), `.128x128b`, "
        "`.64x128b.warpx2::02_13` / `::01_23` and `.32x128b.warpx4` (multicast to warp pairs / all four quarters), the source an "
        "sm_100 descriptor's 8-bit K-major layout; asynchronous in the MMA queue (done when a covering commit arrives). "
        "`mma.cta_group::2` (dense kinds, M 256: issued by the even CTA of the pair, each CTA holding 128 rows of D and giving its "
        "rows of A and half of B's columns) and `commit.cta_group::2` (`.multicast::cluster` with a ctaMask: the mbarrier in each CTA named); "
        "one .cta_group per kernel (a load error otherwise, as in ptxas). "
        "`mma.ws` (M 128, layout D; N 64/128/256; collector buffers b0-b3 fill/use/lastuse/discard, a use agreeing with B in shared memory; "
        "the zero-column mask's column shift, Non-Zero Mask 0). "
        "`mma.cta_group::1` `.collector::a::{fill,use,lastuse,discard}` (dense and block-scaled kinds; one A buffer per CTA holding A's elements, the scale factors read from TMEM by every MMA; the default discard; a use agreeing with A's memory). "
        "`cp` / `shift` `.cta_group::2` write both CTAs' tensor memory (issued by either CTA; the copy reads the issuer's shared memory). "
        "Refused by name: mma.cta_group::2 with M 128, A in TMEM or block scaling, cta_group::1 commit multicast, ld.red, cp's decompression (.b8x16.b6x16_p32 / .b4x16_p64), "
        "TMEM-resident 6/4-bit operands (MN-major ones are invalid), block-scaled K = 96 (sm_103a only), K-major 128B_base32b, .sp, .ws with M 32/64 or a generated "
        "zero-column mask, .collector::a fill/use/lastuse with cta_group::2 (the ISA does not say whether a pair's buffer is the issuer's for all 256 rows or one per CTA), .ashift (the ISA leaves row 0 and TMEM's change open); racecheck covers TMEM (ld / st / cp of cells an MMA in flight reads or writes) and the "
        "operands of MMAs in flight (both CTAs' for a pair MMA)");
}

}  // namespace tsim
