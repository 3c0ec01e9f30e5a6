// Address resolution shared by loads/stores, atomics, ldmatrix and cp.async.
#pragma once
#include "exec_core.h"

namespace tsim {

// Host pointers for the global range [addr[l], addr[l]+bytes) of each lane in exec; raises a fault
// (misaligned, out of bounds, freed) and returns false when a lane's access is invalid.
bool resolveGlobal(Ctx& c, uint32_t exec, const uint64_t* addr, unsigned bytes, bool write, uint8_t** ptr);
// Address = R[in.s[0]] + in.imm in state space in.space; count = update the memory counters.
bool resolve(Ctx& c, const Inst& in, uint32_t exec, unsigned bytes, bool write, uint8_t** ptr, bool count);

}  // namespace tsim
