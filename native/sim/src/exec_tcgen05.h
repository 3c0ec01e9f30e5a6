// Shared between exec_tcgen05.cpp (tensor memory, tcgen05.ld/st/alloc) and exec_tcgen05_mma.cpp
// (tcgen05.mma, tcgen05.commit).
#pragma once
#include <string>
#include <vector>

#include "exec_core.h"
#include "exec_smem_matrix.h"

namespace tsim {

constexpr unsigned kTmemLanes = 128, kTmemCols = 512;

// The CTA's tensor memory cells (created on first use, zero-filled).
uint32_t* tmemCells(Ctx& c);
// True when every column of [col, col + n) is allocated; otherwise raises a fault that starts
// with `what` and returns false.
bool tmemColumnsAllocated(Ctx& c, uint32_t col, uint32_t n, const std::string& what);
// A .sync.aligned tcgen05 instruction needs all 32 lanes of the warp; false (after a fault when
// some but not all lanes are active) when there is nothing to do.
bool tcgen05FullWarp(Ctx& c, uint32_t exec, const char* what);
// The tcgen05.mma / tcgen05.commit decoders (exec_tcgen05_mma.cpp), reached from `tcgen05`.
bool decodeTcgen05Mma(Decoder& dc, const Stmt& st, Inst& in);
bool decodeTcgen05Commit(Decoder& dc, const Stmt& st, Inst& in);
bool decodeTcgen05Shift(Decoder& dc, const Stmt& st, Inst& in);
// tcgen05.cp (exec_tcgen05_cp.cpp): its decoder; the copy itself, done in queue order when a
// covering commit arrives (false after a fault); and whether it writes TMEM lane `lane` (then its
// columns [col, col + ncols)), for racecheck.
bool decodeTcgen05Cp(Decoder& dc, const Stmt& st, Inst& in);
bool completeTcgen05Cp(Ctx& c, const Tcgen05Mma& op);
bool tcgen05CpWrites(const Tcgen05Mma& op, uint32_t lane, uint32_t& col, uint32_t& ncols);
// The sm_100 shared-memory descriptor (exec_tcgen05_mma.cpp): "" or why the sim does not take it.
std::string decodeTcgen05SmemDesc(uint64_t v, SmemMatrix& d);
// .cta_group::2 (exec_tcgen05_pair.cpp): the pair of a tcgen05.mma.cta_group::2 issued here with its accumulator at [col, col + n) (null
// after a fault); the .cta_group::2 / multicast commit's decoder. tcgen05PairPeer: the other CTA
// of this one's pair (exec_tcgen05.cpp; null after a fault).
Cta* pairMmaPeer(Ctx& c, uint32_t col, uint32_t n);
bool pairMmaInFlight(Ctx& c);  // a fault for tcgen05.dealloc: the pair's MMA still writes here
bool decodeTcgen05CommitPair(Decoder& dc, const Stmt& st, Inst& in);
Cta* tcgen05PairPeer(Ctx& c, const char* what);
// tcgen05.cp / tcgen05.shift .cta_group::2 (exec_tcgen05_pair_move.cpp): the peer CTA whose tensor
// memory the operation also writes at columns [col, col + n) (null after a fault).
Cta* tcgen05PairMovePeer(Ctx& c, uint32_t col, uint32_t n, const char* what);
// racecheck (sanitize_race.cpp): the peer CTA's operand bytes of a tcgen05.mma.cta_group::2, read
// until its commit arrives, recorded in the peer under the issuer's record id; and done.
void sanTcgen05PeerIssue(Ctx& c, uint32_t id, std::vector<uint32_t>&& bytes, unsigned lane, Cta* peer);
void sanTcgen05PeerDone(Ctx& c, uint32_t id, Cta* peer);
// tcgen05.mma.ws (exec_tcgen05_ws.cpp): its decoder (everything but in.fn, which the caller sets
// to the MMA's: in.size is 0x80 | collector op << 2 | buffer, ext[10] the zero-column mask
// descriptor's slot); "" or why M x N is not a .ws shape the sim runs; "" or why the zero-column
// mask descriptor is not one it runs; its column shift; the collector buffer step at completion
// (B: K x N, read from shared memory; false after a fault).
bool decodeTcgen05MmaWs(Decoder& dc, const Stmt& st, Inst& in);
std::string tcgen05WsShape(unsigned m, unsigned n);
std::string tcgen05WsMaskDesc(uint64_t zcm, unsigned m);
inline unsigned tcgen05WsShift(uint64_t zcm) { return (unsigned)(zcm >> 56) & 63; }
bool tcgen05WsCollector(Ctx& c, const Tcgen05Mma& op, std::vector<double>& B);
// racecheck: a set of this CTA's tensor-memory cells: lanes lane0, lane0 + step, ... (nlanes of
// them) at columns [cols[i], cols[i] + width) for both i (the same range twice when there is one).
struct TmemSpan {
  uint32_t lane0, nlanes, step;
  uint32_t cols[2];
  uint32_t width;
};
// The tcgen05 operations in flight that reach this CTA's tensor memory: its own (oldest first),
// then the .cta_group::2 MMAs and copies the other CTA of its pair issued for it.
std::vector<const Tcgen05Mma*> tmemOpsInFlight(Ctx& c);
// How the tcgen05.mma `op` in flight touches `s`: "writes (its accumulator)" or, with `reads`,
// "reads (its A)" / "reads (its scale factors)", and the first such cell (lane hl, column hc);
// null when it does not.
const char* mmaTouchesTmem(Ctx& c, const Tcgen05Mma& op, const TmemSpan& s, bool reads, uint32_t& hl, uint32_t& hc);
// Applies the tcgen05.st writes in flight of warp w (all warps: w < 0) to tensor memory.
void tmemLandStores(Ctx& c, int w);

}  // namespace tsim
