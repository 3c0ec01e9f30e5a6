// The empty kernel with 8 parameters timed by the launch-overhead benchmark (bench/launch.ts) and
// by its C loop (bench/launch_overhead.cpp, which embeds the same text).
export const EMPTY8_PTX = `.version 7.0
.target sm_80
.address_size 64

.visible .entry empty8(
  .param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3,
  .param .u64 p4, .param .u64 p5, .param .u64 p6, .param .u64 p7
)
{
  ret;
}
`;
