// CUB block primitives: BlockReduce, BlockScan, BlockRadixSort (128 threads, 4 items each).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
extern "C" __global__ void cub_block(const int* in, int* sum, int* scan, int* sorted) {
  typedef cub::BlockReduce<int, 128> R;
  typedef cub::BlockScan<int, 128> S;
  typedef cub::BlockRadixSort<int, 128, 4> Z;
  __shared__ union { typename R::TempStorage r; typename S::TempStorage s; typename Z::TempStorage z; } tmp;
  int base = blockIdx.x * 512 + threadIdx.x * 4;
  int items[4];
  for (int k = 0; k < 4; k++) items[k] = in[base + k];
  int total = R(tmp.r).Sum(items);
  if (threadIdx.x == 0) sum[blockIdx.x] = total;
  __syncthreads();
  int sc[4];
  S(tmp.s).ExclusiveSum(items, sc);
  for (int k = 0; k < 4; k++) scan[base + k] = sc[k];
  __syncthreads();
  Z(tmp.z).Sort(items);
  for (int k = 0; k < 4; k++) sorted[base + k] = items[k];
}
