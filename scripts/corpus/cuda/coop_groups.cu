// Cooperative groups: tiled_partition<16>/<8> reductions, coalesced_threads, thread_block sync.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void coop_groups(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  int t = block.thread_rank();
  int v = in[blockIdx.x * blockDim.x + t];
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  int s16 = cg::reduce(t16, v, cg::plus<int>());
  int m8 = cg::reduce(t8, v, cg::greater<int>());
  int sh = t8.shfl_down(v, 1);
  int r = 0;
  if (v & 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    r = g.thread_rank() * 100 + g.size();
  }
  block.sync();
  int* o = out + (blockIdx.x * blockDim.x + t) * 4;
  o[0] = s16; o[1] = m8; o[2] = sh; o[3] = r;
}
