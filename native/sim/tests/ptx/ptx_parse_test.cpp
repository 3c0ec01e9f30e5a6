// Parsing: load errors name the line and instruction; directives, module variables with
// initialisers, .func calls with parameters and return values, local memory, vectors, printf.
#include "ptx_harness.h"

using namespace ptxtest;

static const char* kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

static std::string loadError(const std::string& body) {
  std::string log;
  auto m = tsim::parsePtx(std::string(kHeader) + body, log);
  return m ? std::string("<loaded>") : log;
}

static bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

static const char* kModule = R"(
.version 8.0
.target sm_80
.address_size 64
.file 1 "k.cu"
.extern .func  (.param .b32 func_retval0) vprintf
(
    .param .b64 vprintf_param_0,
    .param .b64 vprintf_param_1
)
;
.global .align 4 .u32 counter = 41;
.global .align 4 .b32 table[4] = {10, -1, 0x10, 7};
.const .align 4 .f32 scale[2] = {0f40000000, 0f3F000000};
.global .align 1 .b8 $str[13] = {118, 97, 108, 117, 101, 32, 37, 100, 32, 37, 115, 10, 0};
.global .align 1 .b8 $str1[3] = {111, 107, 0};

/* a device function: returns a*b + c with two return-free helpers in between */
.func  (.param .b32 func_retval0) muladd(
    .param .b32 muladd_param_0,
    .param .b32 muladd_param_1,
    .param .b32 muladd_param_2
)
{
    .reg .b32 %r<5>;
    ld.param.u32 %r1, [muladd_param_0];
    ld.param.u32 %r2, [muladd_param_1];
    ld.param.u32 %r3, [muladd_param_2];
    mad.lo.s32 %r4, %r1, %r2, %r3;
    st.param.b32 [func_retval0+0], %r4;
    ret;
}

.visible .entry calls(
    .param .u64 calls_param_0
)
.reqntid 64, 1, 1
.minnctapersm 2
{
    .local .align 8 .b8 __local_depot0[16];
    .reg .b64 %SP;
    .reg .b64 %SPL;
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<12>;
    .loc 1 10 3
    mov.u64 %SPL, __local_depot0;
    cvta.local.u64 %SP, %SPL;
    ld.param.u64 %rd1, [calls_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    // divergent call: only odd lanes call
    and.b32 %r2, %r1, 1;
    setp.eq.s32 %p1, %r2, 0;
    mov.u32 %r5, 0;
    @%p1 bra $L__skip;
    { // callseq 0, 0
    .reg .b32 temp_param_reg;
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 param1;
    st.param.b32 [param1+0], 3;
    .param .b32 param2;
    st.param.b32 [param2+0], 100;
    .param .b32 retval0;
    call.uni (retval0),
    muladd,
    (
    param0,
    param1,
    param2
    );
    ld.param.b32 %r5, [retval0+0];
    } // callseq 0
$L__skip:
    // module variables: counter + table[tid % 4] * scale[0]
    ld.global.u32 %r6, [counter];
    and.b32 %r7, %r1, 3;
    mul.wide.u32 %rd3, %r7, 4;
    mov.u64 %rd4, table;
    add.s64 %rd5, %rd4, %rd3;
    ld.global.u32 %r8, [%rd5];
    ld.const.f32 %f1, [scale];
    cvt.rn.f32.s32 %f2, %r8;
    mul.f32 %f3, %f2, %f1;
    cvt.rzi.s32.f32 %r9, %f3;
    add.s32 %r10, %r9, %r6;
    add.s32 %r11, %r10, %r5;
    // local memory round trip through generic addressing
    st.local.u32 [%SPL+4], %r11;
    add.s64 %rd6, %SP, 4;
    ld.u32 %r11, [%rd6];
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd8, %rd2, %rd7;
    st.global.u32 [%rd8], %r11;
    // printf from thread 0 only
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $L__end;
    mov.u64 %rd9, $str1;
    cvta.global.u64 %rd10, %rd9;
    st.local.u32 [%SPL], 7;
    st.local.u64 [%SPL+8], %rd10;
    mov.u64 %rd9, $str;
    cvta.global.u64 %rd11, %rd9;
    {
    .reg .b32 temp_param_reg;
    .param .b64 param0;
    st.param.b64 [param0+0], %rd11;
    .param .b64 param1;
    st.param.b64 [param1+0], %SP;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r3, [retval0+0];
    }
    st.global.u32 [%rd2+256], %r3;
$L__end:
    ret;
}

.visible .entry vectors(.param .u64 p)
{
    .reg .b32 %r<9>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
    ld.global.v2.f32 {%f1, %f2}, [%rd1+16];
    add.f32 %f3, %f1, %f2;
    st.global.v4.u32 [%rd1+32], {%r4, %r3, %r2, %r1};
    st.global.v2.f32 [%rd1+48], {%f3, %f3};
    ld.global.nc.L1::no_allocate.v2.u32 {%r5, _}, [%rd1];
    st.global.cs.u32 [%rd1+56], %r5;
    ret;
}
)";

int main() {
  // load errors
  CHECK(contains(loadError(".visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n"), "line 6: unsupported instruction 'frobnicate.u32 %r1'"));
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .b32 %r<2>;\n  add.q32 %r1, %r1, %r1;\n}\n"), "line 7: unsupported instruction 'add.q32"));
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .b32 %r<2>;\n  ld.global.L2::evict_first.v8.u32 %r1, [%r0];\n}\n"),
                 "line 7: unsupported instruction 'ld.global.L2::evict_first.v8.u32 %r1, [%r0]' (modifier .v8 is not implemented for ld)"));
  CHECK(contains(loadError(".visible .entry k()\n{\n  bra NOWHERE;\n}\n"), "line 6: unknown label 'NOWHERE'"));
  CHECK(contains(loadError(".visible .entry k()\n{\n  mov.u32 %nope, 1;\n}\n"), "line 6:"));
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .b32 %r<2>;\n  add.u32 %r1, %r1\n}\n"), "line 8:"));
  CHECK(contains(loadError(".visible .entry k(\n{\n}\n"), "line"));
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .f32 %f<2>;\n  sqrt.f32 %f1, %f0;\n}\n"), "line 7: unsupported instruction"));
  // a negated source is implemented or refused, never dropped
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .pred %p<3>;\n .reg .b32 %r<3>;\n  selp.b32 %r1, %r2, %r2, !%p1;\n}\n"), "line 8: unsupported instruction"));
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .b32 %r<3>;\n  and.b32 %r1, %r2, !%r2;\n}\n"), "negated operands need .pred"));
  // vector mov parts must be registers of the part's width (ptxas: "Arguments mismatch for instruction 'mov'")
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .b32 %r<4>;\n  mov.b32 {%r1, %r2}, %r3;\n}\n"), "line 7: unsupported instruction 'mov.b32 {%r1, %r2}, %r3' (vector mov part '%r1' is a 32-bit register"));
  CHECK(contains(loadError(".visible .entry k()\n{\n .reg .b32 %r<4>;\n  mov.b32 %r3, {%r1, %r2};\n}\n"), "needs 16-bit registers"));
  // recursion is refused at load with the cycle named (one static frame per function); a call
  // graph that only joins (a diamond) loads
  {
    const char* fact =
        ".func (.param .b32 r) fact(.param .b32 n)\n{\n .reg .b32 %r<4>;\n .reg .pred %p;\n"
        "  ld.param.u32 %r1, [n];\n  setp.le.u32 %p, %r1, 1;\n  mov.u32 %r3, 1;\n  @%p bra DONE;\n"
        "  sub.u32 %r2, %r1, 1;\n  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r2;\n"
        "    call.uni (b), fact, (a); ld.param.b32 %r3, [b]; }\n  mul.lo.u32 %r3, %r3, %r1;\n"
        "DONE:\n  st.param.b32 [r], %r3;\n  ret;\n}\n"
        ".visible .entry k(.param .u64 o)\n{\n .reg .b32 %r<2>;\n .reg .b64 %rd<2>;\n  mov.u32 %r1, 5;\n"
        "  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1; call.uni (b), fact, (a); ld.param.b32 %r1, [b]; }\n"
        "  ld.param.u64 %rd1, [o];\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";
    CHECK(contains(loadError(fact), "recursive call fact -> fact"));
    const char* mutual =
        ".func g();\n.func f()\n{\n  call.uni g, ();\n  ret;\n}\n.func g()\n{\n  call.uni f, ();\n  ret;\n}\n"
        ".visible .entry k()\n{\n  call.uni f, ();\n  ret;\n}\n";
    CHECK(contains(loadError(mutual), "recursive call g -> f -> g"));
    // an indirect call (through a register, with a prototype) is refused, not run
    CHECK(contains(loadError(".func f()\n{\n  ret;\n}\n.visible .entry k()\n{\n .reg .b64 %rd<2>;\n  mov.u64 %rd1, f;\n"
                             "  proto: .callprototype ()_ ();\n  call %rd1, (), proto;\n  ret;\n}\n"),
                   "function name used as a value"));
    const char* diamond =
        ".func d()\n{\n  ret;\n}\n.func b()\n{\n  call.uni d, ();\n  ret;\n}\n.func c()\n{\n  call.uni d, ();\n  ret;\n}\n"
        ".visible .entry k()\n{\n  call.uni b, ();\n  call.uni c, ();\n  ret;\n}\n";
    CHECK(loadError(diamond) == "<loaded>");
  }
  {
    std::string elf = "\x7f" "ELF\x02\x01\x01";
    std::string log;
    CHECK(tsim::parsePtx(elf, log) == nullptr);
    CHECK(contains(log, "ELF cubin is not PTX"));
  }

  Kernel k(kModule);
  CHECK(k.ok());
  if (!k.ok()) return finish("ptx_parse_test");
  const auto& ks = k.mod->kernels();
  CHECK_EQ(ks.size(), 2u);
  CHECK_EQ(ks[0].name == "calls", true);
  CHECK_EQ(ks[0].reqntid[0], 64u);
  CHECK_EQ(ks[0].params.size(), 1u);
  CHECK_EQ(ks[0].params[0].size, 8u);
  CHECK(ks[0].localBytes >= 16);
  CHECK_EQ(k.mod->globals().size(), 5u);

  Arena mem;
  uint64_t out = mem.alloc(260);
  std::fflush(stdout);
  tsim::Fault f = k.run(mem, "calls", {out}, 1, 64);
  CHECK_EQ(f.kind, tsim::Fault::None);
  auto r = mem.get<int32_t>(out, 65);
  const int table[4] = {10, -1, 16, 7};
  int bad = 0;
  for (int t = 0; t < 64; t++) {
    int call = (t & 1) ? t * 3 + 100 : 0;
    int want = 41 + table[t % 4] * 2 + call;
    if (r[t] != want) { bad++; std::printf("t=%d got %d want %d\n", t, r[t], want); }
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(r[64], 11);  // vprintf returns the number of characters: "value 7 ok\n"

  uint64_t p = mem.alloc(64);
  mem.put(p, std::vector<uint32_t>{1, 2, 3, 4, fbits(1.5f), fbits(2.25f)});
  f = k.run(mem, "vectors", {p}, 1, 1);
  CHECK_EQ(f.kind, tsim::Fault::None);
  auto v = mem.get<uint32_t>(p, 15);
  CHECK_EQ(v[8], 4u);
  CHECK_EQ(v[9], 3u);
  CHECK_EQ(v[10], 2u);
  CHECK_EQ(v[11], 1u);
  CHECK_EQ(bitsf(v[12]), 3.75f);
  CHECK_EQ(bitsf(v[13]), 3.75f);
  CHECK_EQ(v[14], 1u);

  {  // inline-asm spelling from CUDA headers: "{.reg.b16 a, b;" (no space) and 0x...U immediates
    Kernel ia(std::string(kHeader) + R"(
.visible .entry swap(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  {.reg.b16         hl, hu;
   .reg.b32 k;
   mov.b32 {hl, hu}, %r1;
   mov.b32 %r2, {hu, hl};
   mov.b32 k, 0x33800000U;
   xor.b32 %r2, %r2, k;
  }
  st.global.u32 [%rd1+4], %r2;
  ret;
}
)");
    CHECK(ia.ok());
    uint64_t q = mem.alloc(8);
    mem.put(q, std::vector<uint32_t>{0x12345678u, 0});
    f = ia.run(mem, "swap", {q}, 1, 1);
    CHECK_EQ(f.kind, tsim::Fault::None);
    CHECK_EQ(mem.get<uint32_t>(q, 2)[1], 0x56781234u ^ 0x33800000u);
    CHECK(contains(loadError(".visible .entry k()\n{\n  .reg.q16 %h;\n}\n"), "unknown register type '.q16'"));
  }
  return finish("ptx_parse_test");
}
