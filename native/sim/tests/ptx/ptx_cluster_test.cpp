// Thread-block clusters (exec_cluster.cpp): the cluster special registers for 3-D grids and
// cluster shapes; a distributed-shared-memory exchange (mapa shared::cluster and generic,
// ld/st/atom/red .shared::cluster) guarded by barrier.cluster, with exact expected values; the
// same exchange without its barriers is wrong or reported, never a silent pass; remote mbarrier
// arrivals (.shared::cluster) on rank 0's mbarrier, which rank 0 waits on; isspacep and cvta on
// generic addresses of another CTA's shared memory; cp.async.bulk into another CTA's shared
// memory and TMA .multicast::cluster (a copy into a CTA whose mbarrier is not initialised faults;
// with clusterSkew a copy into another CTA lands at issue, and rank 0 takes more turns: the exact
// turn order); racecheck across barrier.cluster in a launch
// without clusters; exited threads
// count as arrived; misuse (bad rank, offset past the window, wait without arrive, arrive twice,
// a cluster barrier that cannot complete) faults with the instruction's reason.
#include "ptx_harness.h"
#include "tensormap.h"

using namespace ptxtest;

static const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry ids(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ctaid.y;
  mov.u32 %r4, %ctaid.z;
  mov.u32 %r5, %nctaid.x;
  mov.u32 %r6, %nctaid.y;
  mad.lo.u32 %r7, %r4, %r6, %r3;
  mad.lo.u32 %r7, %r7, %r5, %r2;
  mul.wide.u32 %rd2, %r7, 64;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r10, %clusterid.x;
  mov.u32 %r11, %clusterid.y;
  mov.u32 %r12, %clusterid.z;
  mov.u32 %r13, %nclusterid.x;
  mov.u32 %r14, %nclusterid.y;
  mov.u32 %r15, %nclusterid.z;
  mov.u32 %r16, %cluster_ctaid.x;
  mov.u32 %r17, %cluster_ctaid.y;
  mov.u32 %r18, %cluster_ctaid.z;
  mov.u32 %r19, %cluster_nctaid.x;
  mov.u32 %r20, %cluster_nctaid.y;
  mov.u32 %r21, %cluster_nctaid.z;
  mov.u32 %r22, %cluster_ctarank;
  mov.u32 %r23, %cluster_nctarank;
  mov.pred %p2, %is_explicit_cluster;
  selp.u32 %r24, 1, 0, %p2;
  st.global.u32 [%rd3+0], %r10;
  st.global.u32 [%rd3+4], %r11;
  st.global.u32 [%rd3+8], %r12;
  st.global.u32 [%rd3+12], %r13;
  st.global.u32 [%rd3+16], %r14;
  st.global.u32 [%rd3+20], %r15;
  st.global.u32 [%rd3+24], %r16;
  st.global.u32 [%rd3+28], %r17;
  st.global.u32 [%rd3+32], %r18;
  st.global.u32 [%rd3+36], %r19;
  st.global.u32 [%rd3+40], %r20;
  st.global.u32 [%rd3+44], %r21;
  st.global.u32 [%rd3+48], %r22;
  st.global.u32 [%rd3+52], %r23;
  st.global.u32 [%rd3+56], %r24;
DONE:
  ret;
}

// mode 0: every barrier; 1: none; 2: all but the first (remote reads race with the writes)
// rank r stores r*1000+tid to buf[tid] and reads buf[tid] of rank r+1 (wrapping)
.visible .entry xchg(.param .u64 out, .param .u32 mode)
{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<10>;
  .shared .align 4 .b32 buf[64];
  .shared .align 4 .b32 cnt;
  .shared .align 4 .b32 inbox[64];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r20, [mode];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mad.lo.u32 %r4, %r2, 1000, %r1;
  // rank 1 arrives late: 2000 iterations are more than one scheduling slice of its warps
  setp.ne.u32 %p1, %r2, 1;
  mov.u32 %r30, 0;
  @%p1 bra NODELAY;
DELAY:
  add.u32 %r30, %r30, 1;
  setp.lt.u32 %p1, %r30, 2000;
  @%p1 bra DELAY;
NODELAY:
  mov.u32 %r5, buf;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.u32 [%r7], %r4;
  setp.ne.u32 %p1, %r1, 0;
  @!%p1 st.shared.u32 [cnt], 0;
  setp.eq.u32 %p2, %r20, 0;
  @%p2 barrier.cluster.arrive.release.aligned;
  @%p2 barrier.cluster.wait.acquire.aligned;
  add.u32 %r8, %r2, 1;
  rem.u32 %r8, %r8, %r3;
  mapa.shared::cluster.u32 %r9, %r7, %r8;
  ld.shared::cluster.u32 %r10, [%r9];
  add.u32 %r11, %r2, %r3;
  sub.u32 %r11, %r11, 1;
  rem.u32 %r11, %r11, %r3;
  mov.u32 %r12, inbox;
  add.u32 %r12, %r12, %r6;
  mapa.shared::cluster.u32 %r13, %r12, %r11;
  st.shared::cluster.u32 [%r13], %r4;
  mov.u32 %r14, cnt;
  mapa.shared::cluster.u32 %r15, %r14, 0;
  atom.shared::cluster.add.u32 %r16, [%r15], 1;
  red.shared::cluster.add.u32 [%r15], 1;
  mov.u64 %rd4, buf;
  cvta.shared.u64 %rd4, %rd4;
  cvt.u64.u32 %rd5, %r6;
  add.s64 %rd4, %rd4, %rd5;
  mapa.u64 %rd6, %rd4, %r8;
  ld.u32 %r17, [%rd6];
  setp.ne.u32 %p3, %r20, 1;
  @%p3 barrier.cluster.arrive;
  @%p3 barrier.cluster.wait;
  ld.shared.u32 %r18, [%r12];
  ld.shared::cluster.u32 %r19, [%r15];
  @%p3 barrier.cluster.arrive.relaxed.aligned;
  @%p3 barrier.cluster.wait.aligned;
  mov.u32 %r21, %ctaid.x;
  mov.u32 %r22, %ntid.x;
  mad.lo.u32 %r23, %r21, %r22, %r1;
  mul.wide.u32 %rd7, %r23, 16;
  add.s64 %rd8, %rd1, %rd7;
  st.global.v4.u32 [%rd8], {%r10, %r17, %r18, %r19};
  ret;
}

// remote mbarrier arrivals: rank 0 inits an mbarrier expecting one arrival per other rank; each
// other rank (thread 0) stores rank*7 into rank 0's slot[rank] and arrives on rank 0's mbarrier
// (.release.cluster.shared::cluster); rank 0 waits on it, then reads the slots (out[r] = slot[r])
.visible .entry rmbar(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 slot[16];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  sub.u32 %r4, %r3, 1;
  @%p3 mbarrier.init.shared::cta.b64 [bar], %r4;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra END;
  @%p2 bra WAIT;
  mov.u32 %r5, slot;
  shl.b32 %r6, %r2, 2;
  add.u32 %r5, %r5, %r6;
  mapa.shared::cluster.u32 %r7, %r5, 0;
  mul.lo.u32 %r8, %r2, 7;
  st.shared::cluster.u32 [%r7], %r8;
  mov.u32 %r9, bar;
  mapa.shared::cluster.u32 %r10, %r9, 0;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r10];
  bra END;
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra WAIT;
  ld.param.u64 %rd1, [out];
  mov.u32 %r11, 1;
COPY:
  mov.u32 %r12, slot;
  shl.b32 %r13, %r11, 2;
  add.u32 %r12, %r12, %r13;
  ld.shared.u32 %r14, [%r12];
  mul.wide.u32 %rd2, %r11, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r14;
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p1, %r11, %r3;
  @%p1 bra COPY;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// isspacep on generic addresses of the CTA's own shared memory and of rank 1's (mapa.u64):
// out = {own: shared::cta, shared::cluster, global; remote: shared::cta, shared::cluster, global}
.visible .entry space(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 sm[4];
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, sm;
  cvta.shared.u64 %rd2, %rd2;
  mapa.u64 %rd3, %rd2, 1;
  isspacep.shared::cta %p2, %rd2;
  isspacep.shared::cluster %p3, %rd2;
  isspacep.global %p4, %rd2;
  isspacep.shared %p5, %rd3;
  isspacep.shared::cluster %p6, %rd3;
  isspacep.global %p7, %rd3;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd1], %r2;
  selp.u32 %r2, 1, 0, %p3;
  st.global.u32 [%rd1+4], %r2;
  selp.u32 %r2, 1, 0, %p4;
  st.global.u32 [%rd1+8], %r2;
  selp.u32 %r2, 1, 0, %p5;
  st.global.u32 [%rd1+12], %r2;
  selp.u32 %r2, 1, 0, %p6;
  st.global.u32 [%rd1+16], %r2;
  selp.u32 %r2, 1, 0, %p7;
  st.global.u32 [%rd1+20], %r2;
  cvta.to.shared::cluster.u64 %rd4, %rd3;
  st.global.u64 [%rd1+24], %rd4;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// racecheck on a launch without clusters: write sm[tid], barrier.cluster (when sync != 0), read
// sm[tid ^ 32] (another warp's)
.visible .entry race(.param .u64 out, .param .u32 sync)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 sm[64];
  ld.param.u32 %r1, [sync];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, sm;
  shl.b32 %r4, %r2, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 barrier.cluster.arrive.aligned;
  @%p1 barrier.cluster.wait.aligned;
  xor.b32 %r4, %r4, 128;
  add.u32 %r5, %r3, %r4;
  ld.shared.u32 %r6, [%r5];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}

// a bulk copy into another CTA's shared memory: rank 1 copies 64 bytes of `in` into rank 0's buf,
// signalling rank 0's mbarrier (mapa addresses); rank 0 expects the bytes, waits, copies buf out
.visible .entry rbulk(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 buf[16];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.init.shared::cta.b64 [bar], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra END;
  @%p2 bra WAIT;
  ld.param.u64 %rd1, [in];
  mov.u32 %r3, buf;
  mapa.shared::cluster.u32 %r4, %r3, 0;
  mov.u32 %r5, bar;
  mapa.shared::cluster.u32 %r6, %r5, 0;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1], 64, [%r6];
  bra END;
WAIT:
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra LOOP;
  ld.param.u64 %rd2, [out];
  mov.u32 %r7, 0;
COPY:
  mov.u32 %r8, buf;
  shl.b32 %r9, %r7, 2;
  add.u32 %r8, %r8, %r9;
  ld.shared.u32 %r10, [%r8];
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r10;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, 16;
  @%p1 bra COPY;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// TMA multicast: rank 0 loads a 32-element box once into the same offset of every CTA in
// ctaMask (mask given), completing each CTA's own mbarrier; every CTA waits on its own and copies
// its box to out[rank * 32 ..]
.visible .entry mcast(.param .u64 out, .param .u64 tmap, .param .u32 mask)
{
  .reg .pred %p<4>;
  .reg .b16 %h<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 box[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra END;
  ld.param.u32 %r15, [mask];
  shr.u32 %r16, %r15, %r2;
  and.b32 %r16, %r16, 1;
  setp.eq.u32 %p3, %r16, 0;
  @!%p3 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 128;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra WAIT;
  ld.param.u64 %rd1, [tmap];
  cvt.u16.u32 %h1, %r15;
  mov.u32 %r3, 0;
  cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [box], [%rd1, {%r3}], [bar], %h1;
WAIT:
  @%p3 bra END;
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra LOOP;
  ld.param.u64 %rd2, [out];
  mul.lo.u32 %r4, %r2, 32;
  mov.u32 %r7, 0;
COPY:
  mov.u32 %r8, box;
  shl.b32 %r9, %r7, 2;
  add.u32 %r8, %r8, %r9;
  ld.shared.u32 %r10, [%r8];
  add.u32 %r11, %r4, %r7;
  mul.wide.u32 %rd3, %r11, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r10;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, 32;
  @%p1 bra COPY;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// the same with a plain tile load from rank 0 into rank 1's box (mapa destination and mbarrier)
.visible .entry tmaremote(.param .u64 out, .param .u64 tmap, .param .u32 mask)
{
  .reg .pred %p<4>;
  .reg .b16 %h<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 box[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p1 bra END;
  ld.param.u32 %r15, [mask];
  shr.u32 %r16, %r15, %r2;
  and.b32 %r16, %r16, 1;
  setp.eq.u32 %p3, %r16, 0;
  @!%p3 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 128;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra WAIT;
  ld.param.u64 %rd1, [tmap];
  mov.u32 %r3, 0;
  mov.u32 %r12, box;
  mapa.shared::cluster.u32 %r13, %r12, 1;
  mov.u32 %r12, bar;
  mapa.shared::cluster.u32 %r14, %r12, 1;
  cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r13], [%rd1, {%r3}], [%r14];
WAIT:
  @%p3 bra END;
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra LOOP;
  ld.param.u64 %rd2, [out];
  mul.lo.u32 %r4, %r2, 32;
  mov.u32 %r7, 0;
COPY:
  mov.u32 %r8, box;
  shl.b32 %r9, %r7, 2;
  add.u32 %r8, %r8, %r9;
  ld.shared.u32 %r10, [%r8];
  add.u32 %r11, %r4, %r7;
  mul.wide.u32 %rd3, %r11, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r10;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, 32;
  @%p1 bra COPY;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// exited threads count as arrived: rank 1 leaves at once, rank 0 passes the barrier
.visible .entry exited(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 exit;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], 7;
  ret;
}

// TMA multicast into ranks 0 and 1 (mask) issued by rank 0 while rank 1 never initialised its
// mbarrier (a peer's copy must follow the destination's mbarrier.init and a cluster barrier)
.visible .entry mcastnoinit(.param .u64 tmap, .param .u32 mask)
{
  .reg .pred %p<4>;
  .reg .b16 %h<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 box[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.init.shared::cta.b64 [bar], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @!%p3 bra END;
  ld.param.u32 %r3, [mask];
  cvt.u16.u32 %h1, %r3;
  ld.param.u64 %rd1, [tmap];
  mov.u32 %r4, 0;
  cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [box], [%rd1, {%r4}], [bar], %h1;
END:
  ret;
}

// rank 0 multicasts a box into ranks 0 and 1; after a cluster barrier rank 1 reads its box
// without waiting on its mbarrier (a race: the copy lands when rank 1 tests it, or with
// clusterSkew at issue) into out[0..31]
.visible .entry mcastpeek(.param .u64 out, .param .u64 tmap)
{
  .reg .pred %p<4>;
  .reg .b16 %h<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 box[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  mov.u16 %h1, 3;
  ld.param.u64 %rd1, [tmap];
  mov.u32 %r3, 0;
  @%p3 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [box], [%rd1, {%r3}], [bar], %h1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @%p2 bra END;
  shl.b32 %r4, %r1, 2;
  mov.u32 %r5, box;
  add.u32 %r5, %r5, %r4;
  ld.shared.u32 %r6, [%r5];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// clusterSkew: each CTA (one thread) appends its rank to out[1..6] three times (out[0] counts),
// a bar.sync between (each CTA's turn ends there)
.visible .entry turns(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, 0;
T:
  atom.global.add.u32 %r3, [%rd1], 1;
  add.u32 %r3, %r3, 1;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  bar.sync 0;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 3;
  @%p1 bra T;
  ret;
}

// misuse; which: 0 mapa rank 5, 1 offset past the target's window, 2 wait without arrive,
// 3 arrive twice, 4 a cluster barrier that cannot complete (rank 1 warp 0 waits at bar.sync 1
// for warp 1, which waits at the cluster barrier for rank 1 warp 0)
.visible .entry misuse(.param .u32 which)
{
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .shared .align 4 .b32 sm[16];
  ld.param.u32 %r1, [which];
  mov.u32 %r2, sm;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra M0;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra M1;
  setp.eq.u32 %p1, %r1, 2;
  @%p1 bra M2;
  setp.eq.u32 %p1, %r1, 3;
  @%p1 bra M3;
  mov.u32 %r3, %cluster_ctarank;
  mov.u32 %r4, %tid.x;
  setp.eq.u32 %p2, %r3, 1;
  setp.lt.u32 %p3, %r4, 32;
  and.pred %p2, %p2, %p3;
  @%p2 bar.sync 1, 64;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
M0:
  mov.u32 %r5, 5;
  mapa.shared::cluster.u32 %r6, %r2, %r5;
  ret;
M1:
  mov.u32 %r5, 1;
  mapa.shared::cluster.u32 %r6, %r2, %r5;
  ld.shared::cluster.u32 %r7, [%r6+64];
  ret;
M2:
  barrier.cluster.wait;
  ret;
M3:
  barrier.cluster.arrive;
  barrier.cluster.arrive;
  ret;
}
)";

static tsim::Fault runC(Kernel& k, Arena& mem, const char* name, std::vector<uint64_t> args, const unsigned* grid,
                        unsigned block, const unsigned* cl, bool expl, unsigned threads = 2, unsigned sanitize = 0,
                        unsigned skew = 0) {
  tsim::Fault bad;
  bad.kind = tsim::Fault::IllegalInstruction;
  if (!k.mod) return bad;
  const tsim::KernelInfo* ki = nullptr;
  for (auto& x : k.mod->kernels()) if (x.name == name) ki = &x;
  if (!ki) return bad;
  std::string log;
  if (!k.mod->bindGlobals(mem, log)) return bad;
  std::vector<uint8_t> buf(ki->paramBytes + 8);
  for (size_t i = 0; i < args.size(); i++) std::memcpy(buf.data() + ki->params[i].offset, &args[i], ki->params[i].size);
  tsim::LaunchConfig cfg;
  for (int i = 0; i < 3; i++) { cfg.grid[i] = grid[i]; cfg.cluster[i] = cl[i]; }
  cfg.block[0] = block;
  cfg.params = buf.data();
  cfg.threads = threads;
  cfg.explicitCluster = expl;
  cfg.instructionBudget = 50000000;
  cfg.sanitize = sanitize;
  cfg.clusterSkew = skew;
  tsim::Counters ctr;
  return tsim::launch(*k.mod, *ki, cfg, mem, ctr);
}

int main() {
  Kernel k(kPtx);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_cluster_test");
  Arena mem;
  // cluster special registers: grid 4x4x2 in clusters of 2x2x1, and 4x2x3 in 1x1x3; one
  // non-cluster launch (every CTA a cluster of one, %is_explicit_cluster false)
  struct Shape { unsigned g[3], c[3]; bool expl; };
  const Shape shapes[] = {{{4, 4, 2}, {2, 2, 1}, true}, {{4, 2, 3}, {1, 1, 3}, true}, {{3, 2, 1}, {1, 1, 1}, false}};
  for (const Shape& s : shapes) {
    unsigned n = s.g[0] * s.g[1] * s.g[2];
    uint64_t o = mem.alloc(n * 64);
    mem.put(o, std::vector<uint32_t>(n * 16, 0xdead));
    tsim::Fault f = runC(k, mem, "ids", {o}, s.g, 32, s.c, s.expl, 3);
    CHECK_EQ((int)f.kind, 0);
    auto v = mem.get<uint32_t>(o, n * 16);
    for (unsigned z = 0; z < s.g[2]; z++)
      for (unsigned y = 0; y < s.g[1]; y++)
        for (unsigned x = 0; x < s.g[0]; x++) {
          const unsigned id[3] = {x, y, z};
          const uint32_t* r = &v[((z * s.g[1] + y) * s.g[0] + x) * 16];
          for (int j = 0; j < 3; j++) {
            CHECK_EQ(r[j], id[j] / s.c[j]);
            CHECK_EQ(r[3 + j], s.g[j] / s.c[j]);
            CHECK_EQ(r[6 + j], id[j] % s.c[j]);
            CHECK_EQ(r[9 + j], s.c[j]);
          }
          CHECK_EQ(r[12], x % s.c[0] + (y % s.c[1]) * s.c[0] + (z % s.c[2]) * s.c[0] * s.c[1]);
          CHECK_EQ(r[13], s.c[0] * s.c[1] * s.c[2]);
          CHECK_EQ(r[14], s.expl ? 1u : 0u);
        }
  }
  // the DSMEM exchange: 8 CTAs of 64 threads in clusters of 4 (and of 2)
  for (unsigned csize : {4u, 2u}) {
    const unsigned g[3] = {8, 1, 1}, c[3] = {csize, 1, 1};
    uint64_t o = mem.alloc(8 * 64 * 16);
    mem.put(o, std::vector<uint32_t>(8 * 64 * 4, 0xdead));
    tsim::Fault f = runC(k, mem, "xchg", {o, 0}, g, 64, c, true);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("fault: %s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(o, 8 * 64 * 4);
    for (unsigned b = 0; b < 8; b++)
      for (unsigned t = 0; t < 64; t++) {
        unsigned r = b % csize, next = (r + 1) % csize;
        const uint32_t* e = &v[(b * 64 + t) * 4];
        CHECK_EQ(e[0], next * 1000 + t);  // ld.shared::cluster of the next rank's buf
        CHECK_EQ(e[1], next * 1000 + t);  // the same through generic mapa
        CHECK_EQ(e[2], next * 1000 + t);  // what the next rank stored into this CTA's inbox
        CHECK_EQ(e[3], 2 * 64 * csize);   // atom + red on rank 0's counter by every thread
      }
  }
  // sabotage: without the barriers the exchange is reported (reading the shared memory of a CTA
  // that has exited) or wrong (reading before the other CTA wrote), never right
  for (unsigned mode : {1u, 2u}) {
    const unsigned g[3] = {4, 1, 1}, c[3] = {2, 1, 1};
    uint64_t o = mem.alloc(4 * 64 * 16);
    mem.put(o, std::vector<uint32_t>(4 * 64 * 4, 0xdead));
    tsim::Fault f = runC(k, mem, "xchg", {o, mode}, g, 64, c, true);
    auto v = mem.get<uint32_t>(o, 4 * 64 * 4);
    bool right = f.kind == tsim::Fault::None;
    for (unsigned b = 0; b < 4 && right; b++)
      for (unsigned t = 0; t < 64; t++) {
        unsigned next = (b % 2 + 1) % 2;
        const uint32_t* e = &v[(b * 64 + t) * 4];
        if (e[0] != next * 1000 + t || e[1] != next * 1000 + t || e[2] != next * 1000 + t || e[3] != 256) right = false;
      }
    CHECK(!right);
    if (mode == 1) {
      CHECK_EQ((int)f.kind, (int)tsim::Fault::SharedOutOfBounds);
      CHECK(f.detail.find("has exited") != std::string::npos);
    } else {
      CHECK_EQ((int)f.kind, 0);
      CHECK_EQ(v[0], 0u);  // rank 0 read rank 1's buf before rank 1 had run
    }
  }
  {
    const unsigned g[3] = {2, 1, 1}, c[3] = {2, 1, 1};
    uint64_t o = mem.alloc(32);
    mem.put(o, std::vector<uint32_t>(8, 0xdead));
    CHECK_EQ((int)runC(k, mem, "space", {o}, g, 32, c, true).kind, 0);
    auto v = mem.get<uint32_t>(o, 8);
    const uint32_t want[6] = {1, 1, 0, 0, 1, 0};
    for (int i = 0; i < 6; i++) CHECK_EQ(v[i], want[i]);
    // the shared::cluster address of rank 1's sm (offset 0): (1 + 1) << 24
    CHECK_EQ((uint64_t)v[6] | (uint64_t)v[7] << 32, 2ull << 24);
  }
  {
    // racecheck sees barrier.cluster as ordering, in clusters of one and of two CTAs; without
    // it, a hazard (cross-CTA races: native/sim/tests/driver/cluster_sanitize_test.cpp)
    const unsigned g[3] = {2, 1, 1}, c1[3] = {1, 1, 1}, c2[3] = {2, 1, 1};
    uint64_t o = mem.alloc(64 * 4);
    CHECK_EQ((int)runC(k, mem, "race", {o, 1}, g, 64, c1, false, 2, 1).kind, 0);
    tsim::Fault f = runC(k, mem, "race", {o, 0}, g, 64, c1, false, 2, 1);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::Hazard);
    CHECK_EQ((int)runC(k, mem, "race", {o, 1}, g, 64, c2, true, 2, 1).kind, 0);
    f = runC(k, mem, "race", {o, 0}, g, 64, c2, true, 2, 1);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::Hazard);
  }
  {
    // cp.async.bulk global -> another CTA's shared memory, completing that CTA's mbarrier
    const unsigned g[3] = {4, 1, 1}, c[3] = {2, 1, 1};
    uint64_t in = mem.alloc(64), o = mem.alloc(64);
    std::vector<uint32_t> src(16);
    for (unsigned i = 0; i < 16; i++) src[i] = 0x1000 + i * 3;
    mem.put(in, src);
    mem.put(o, std::vector<uint32_t>(16, 0xdead));
    tsim::Fault f = runC(k, mem, "rbulk", {o, in}, g, 32, c, true);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("fault: %s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(o, 16);
    for (unsigned i = 0; i < 16; i++) CHECK_EQ(v[i], src[i]);
  }
  {
    // TMA multicast into ranks {0, 2, 3} of a cluster of 4 (rank 1 is not in the mask: untouched)
    const unsigned g[3] = {4, 1, 1}, c[3] = {4, 1, 1};
    uint64_t src = mem.alloc(128), o = mem.alloc(4 * 128), tm = mem.alloc(128);
    std::vector<uint32_t> v32(32);
    for (unsigned i = 0; i < 32; i++) v32[i] = 0x3f800000u + i * 0x1000;
    mem.put(src, v32);
    tsim::TensorMapBits m{};
    m.magic = tsim::kTensorMapMagic;
    m.version = 1;
    m.rank = 1;
    m.dtype = 7;
    m.esize = 4;
    m.addr = src;
    m.dim[0] = 32;
    m.stride[0] = 4;
    m.box[0] = 32;
    m.estride[0] = 1;
    std::vector<uint8_t> raw(128, 0);
    std::memcpy(raw.data(), &m, sizeof m);
    mem.put(tm, raw);
    mem.put(o, std::vector<uint32_t>(4 * 32, 0xdead));
    tsim::Fault f = runC(k, mem, "mcast", {o, tm, 0xd}, g, 32, c, true);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("fault: %s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(o, 4 * 32);
    for (unsigned r = 0; r < 4; r++)
      for (unsigned i = 0; i < 32; i++) CHECK_EQ(v[r * 32 + i], r == 1 ? 0xdeadu : v32[i]);
    mem.put(o, std::vector<uint32_t>(4 * 32, 0xdead));
    f = runC(k, mem, "tmaremote", {o, tm, 0x2}, g, 32, c, true);
    CHECK_EQ((int)f.kind, 0);
    v = mem.get<uint32_t>(o, 4 * 32);
    for (unsigned r = 0; r < 4; r++)
      for (unsigned i = 0; i < 32; i++) CHECK_EQ(v[r * 32 + i], r != 1 ? 0xdeadu : v32[i]);
    // a mask naming a rank outside the cluster faults
    f = runC(k, mem, "mcast", {o, tm, 0x11}, g, 32, c, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::SharedOutOfBounds);
    CHECK(f.detail.find("ctaMask") != std::string::npos);
    // a copy into a CTA whose mbarrier was never initialised faults, naming that rank; rank 0's
    // own (initialised) alone is fine
    f = runC(k, mem, "mcastnoinit", {tm, 0x3}, g, 32, c, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("of cluster rank 1 is not initialised") != std::string::npos);
    f = runC(k, mem, "mcastnoinit", {tm, 0x1}, g, 32, c, true);
    CHECK_EQ((int)f.kind, 0);
    // rank 1 reading its box unwaited: zeros (the copy lands at rank 1's mbarrier test), and with
    // clusterSkew the box (a copy into another CTA lands at issue)
    const unsigned g2[3] = {2, 1, 1}, c2[3] = {2, 1, 1};
    mem.put(o, std::vector<uint32_t>(32, 0xdead));
    CHECK_EQ((int)runC(k, mem, "mcastpeek", {o, tm}, g2, 32, c2, true).kind, 0);
    CHECK(mem.get<uint32_t>(o, 32) == std::vector<uint32_t>(32, 0));
    mem.put(o, std::vector<uint32_t>(32, 0xdead));
    CHECK_EQ((int)runC(k, mem, "mcastpeek", {o, tm}, g2, 32, c2, true, 2, 0, 4).kind, 0);
    CHECK(mem.get<uint32_t>(o, 32) == v32);
  }
  {
    // remote mbarrier arrivals from ranks 1..7 of a cluster of 8 (ranks 1..7 run after rank 0
    // first tests the barrier, so a wait that did not wait would read zeros)
    const unsigned g[3] = {8, 1, 1}, c[3] = {8, 1, 1};
    uint64_t o = mem.alloc(8 * 4);
    mem.put(o, std::vector<uint32_t>(8, 0xdead));
    tsim::Fault f = runC(k, mem, "rmbar", {o}, g, 32, c, true);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("fault: %s\n", f.detail.c_str());
    auto v = mem.get<uint32_t>(o, 8);
    CHECK_EQ(v[0], 0xdeadu);
    for (unsigned r = 1; r < 8; r++) CHECK_EQ(v[r], r * 7);
  }
  {
    const unsigned g[3] = {4, 1, 1}, c[3] = {2, 1, 1};
    uint64_t o = mem.alloc(4 * 32 * 4);
    mem.put(o, std::vector<uint32_t>(32, 0));
    CHECK_EQ((int)runC(k, mem, "exited", {o}, g, 32, c, true).kind, 0);
    auto v = mem.get<uint32_t>(o, 32);
    for (unsigned t = 0; t < 32; t++) CHECK_EQ(v[t], 7u);
  }
  {
    // turns in a cluster of 2: lockstep (rank 0, rank 1, each turn), and with clusterSkew 4 rank 0
    // takes turns 0..3 (its 3 appends, then its exit), rank 1 turns 3, 7 and 11
    const unsigned g[3] = {2, 1, 1}, c[3] = {2, 1, 1};
    uint64_t o = mem.alloc(7 * 4);
    mem.put(o, std::vector<uint32_t>(7, 0));
    tsim::Fault f = runC(k, mem, "turns", {o}, g, 1, c, true, 1);
    CHECK_EQ((int)f.kind, 0);
    if (f.kind) std::printf("fault: %s\n", f.detail.c_str());
    std::vector<uint32_t> lock = {6, 0, 1, 0, 1, 0, 1}, skewed = {6, 0, 0, 0, 1, 1, 1};
    CHECK(mem.get<uint32_t>(o, 7) == lock);
    mem.put(o, std::vector<uint32_t>(7, 0));
    CHECK_EQ((int)runC(k, mem, "turns", {o}, g, 1, c, true, 1, 0, 4).kind, 0);
    CHECK(mem.get<uint32_t>(o, 7) == skewed);
  }
  {
    const unsigned g[3] = {2, 1, 1}, c[3] = {2, 1, 1};
    tsim::Fault f = runC(k, mem, "misuse", {0}, g, 32, c, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::SharedOutOfBounds);
    CHECK(f.detail.find("mapa: rank 5") != std::string::npos);
    f = runC(k, mem, "misuse", {1}, g, 32, c, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::SharedOutOfBounds);
    CHECK(f.detail.find("shared window of cluster rank 1") != std::string::npos);
    f = runC(k, mem, "misuse", {2}, g, 32, c, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("without a preceding") != std::string::npos);
    f = runC(k, mem, "misuse", {3}, g, 32, c, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::IllegalInstruction);
    CHECK(f.detail.find("again before") != std::string::npos);
    f = runC(k, mem, "misuse", {4}, g, 64, c, true);
    CHECK_EQ((int)f.kind, (int)tsim::Fault::Timeout);
    CHECK(f.detail.find("deadlock") != std::string::npos);
    // the grid must be divisible by the cluster shape
    const unsigned g3[3] = {3, 1, 1};
    CHECK_EQ((int)runC(k, mem, "exited", {0}, g3, 32, c, true).kind, (int)tsim::Fault::IllegalInstruction);
    // a zero or oversized shape is refused, not run (or divided by)
    const unsigned c0[3] = {0, 1, 1}, cbig[3] = {65536, 65536, 1}, gbig[3] = {65536, 65536, 1};
    CHECK_EQ((int)runC(k, mem, "exited", {0}, g, 32, c0, true).kind, (int)tsim::Fault::IllegalInstruction);
    CHECK_EQ((int)runC(k, mem, "exited", {0}, gbig, 32, cbig, true).kind, (int)tsim::Fault::IllegalInstruction);
  }
  return finish("ptx_cluster_test");
}
