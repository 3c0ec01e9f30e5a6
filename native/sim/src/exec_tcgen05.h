// Shared between exec_tcgen05.cpp (tensor memory, tcgen05.ld/st/alloc) and exec_tcgen05_mma.cpp
// (tcgen05.mma, tcgen05.commit).
#pragma once
#include <string>

#include "exec_core.h"

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
// Applies the tcgen05.st writes in flight of warp w (all warps: w < 0) to tensor memory.
void tmemLandStores(Ctx& c, int w);

}  // namespace tsim
