// A thread-block cluster of 4 CTAs (fixed at compile time: .reqnctapercluster): each CTA fills
// its shared memory, then reads a neighbour's through distributed shared memory
// (cluster.map_shared_rank) and counts into rank 0's counter with a remote atomicAdd, with
// cluster.sync() between the phases.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_dsmem(const int* in, int* out, int* count, int n) {
  __shared__ int buf[128];
  __shared__ int cnt;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  buf[t] = g < n ? in[g] * 3 + (int)rank : -1;
  if (t == 0) cnt = 0;
  cluster.sync();
  unsigned other = (rank + 1) % cluster.num_blocks();
  int* remote = cluster.map_shared_rank(buf, other);
  int v = remote[blockDim.x - 1 - t];
  atomicAdd(cluster.map_shared_rank(&cnt, 0), v & 1);
  cluster.sync();
  if (g < n) out[g] = v + 1000 * (int)rank;
  if (t == 0) count[blockIdx.x] = *cluster.map_shared_rank(&cnt, 0) + 100000 * (int)cluster.num_blocks();
  cluster.sync();
}
