// Scopes of names in a function body (PTX ISA 9.7.12.1: a name declared in a { } block is not
// visible outside it). Labels and variables share a block's names, as in ptxas: a label is visible
// in its whole block (a branch may go forward to it) and in the blocks inside it, where a label
// of the same name shadows it; blocks that are siblings may each define the same label (Triton's
// `waitLoop:` and CUTLASS's `WAIT:` mbarrier loops do). `.reg`, `.shared` and `.local` declared in
// an inner block shadow the outer name until the block closes, and each is its own storage.
// Every name declared twice in one block, and every branch to a label that is not visible, is a
// load error naming it, as ptxas refuses it.
//
// `sim_ptx_ptx_scope_test --ptxas PATH` also runs every module below through ptxas -arch=sm_90a:
// the ones the sim runs must assemble and the ones it refuses must be refused (ctest
// sim_ptx_scope_ptxas, registered when the CUDA toolkit is found).
#include <cstdlib>
#include <unistd.h>

#include "ptx_harness.h"

using namespace ptxtest;

static const char* kHeader = ".version 8.0\n.target sm_90a\n.address_size 64\n";

static std::string kernel(const std::string& body) {
  return std::string(kHeader) + ".visible .entry k(.param .u64 out)\n{\n" + body + "\n}\n";
}

// The modules, for the ptxas cross-check.
static std::vector<std::string> accepted, refused;

static bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Runs k(out) with one thread; returns n u32 values of out (empty on a load or launch failure).
static std::vector<uint32_t> run(const std::string& body, size_t n, const char* what) {
  std::string ptx = kernel(body);
  accepted.push_back(ptx);
  Kernel k(ptx);
  if (!k.ok()) { std::printf("%s: did not load\n", what); failures++; return {}; }
  Arena mem;
  uint64_t out = mem.alloc(64);
  mem.put(out, std::vector<uint32_t>(16, 0xdeadbeef));
  tsim::Fault f = k.run(mem, "k", {out}, 1, 1, nullptr, 0, 100000, 1);
  if (f.kind != tsim::Fault::None) { std::printf("%s: fault %d %s\n", what, (int)f.kind, f.detail.c_str()); failures++; return {}; }
  return mem.get<uint32_t>(out, n);
}

static void expectValues(const char* what, const std::string& body, std::vector<uint32_t> want) {
  std::vector<uint32_t> got = run(body, want.size(), what);
  if (got.empty()) return;
  if (got != want) {
    std::printf("%s: got", what);
    for (uint32_t v : got) std::printf(" %u", v);
    std::printf(", want");
    for (uint32_t v : want) std::printf(" %u", v);
    std::printf("\n");
    failures++;
  }
}

// The module must fail to load with `why` (and the line) in the log.
static void expectRefused(const char* what, const std::string& body, const std::string& why, int line) {
  std::string ptx = kernel(body);
  refused.push_back(ptx);
  std::string log;
  auto m = tsim::parsePtx(ptx, log);
  if (m) { std::printf("%s: loaded, want refusal '%s'\n", what, why.c_str()); failures++; return; }
  std::string at = "line " + std::to_string(line) + ": ";
  if (!contains(log, why) || !contains(log, at)) {
    std::printf("%s: log '%s' does not say '%s%s'\n", what, log.c_str(), at.c_str(), why.c_str());
    failures++;
  }
}

static const char* kRegs = ".reg .b32 %r<8>; .reg .pred %p; .reg .b64 %o;\nld.param.u64 %o, [out];\n";

static void labels() {
  // Two sibling blocks each with a loop labelled L (3 and 5 trips): each branch stays in its block.
  expectValues("sibling blocks", std::string(kRegs) + R"(
mov.b32 %r1, 0; mov.b32 %r2, 0;
{ L: add.s32 %r1, %r1, 1; setp.lt.s32 %p, %r1, 3; @%p bra L; }
{ L: add.s32 %r2, %r2, 10; setp.lt.s32 %p, %r2, 50; @%p bra L; }
st.global.u32 [%o], %r1; st.global.u32 [%o+4], %r2;
ret;)", {3, 50});

  // An inner loop labelled L inside an outer loop labelled L: 3 outer trips of 4 inner trips.
  expectValues("nested shadowing label", std::string(kRegs) + R"(
mov.b32 %r1, 0; mov.b32 %r2, 0;
L: add.s32 %r1, %r1, 1;
{ mov.b32 %r3, 0;
  L: add.s32 %r3, %r3, 1; add.s32 %r2, %r2, 1; setp.lt.s32 %p, %r3, 4; @%p bra L; }
setp.lt.s32 %p, %r1, 3; @%p bra L;
st.global.u32 [%o], %r1; st.global.u32 [%o+4], %r2;
ret;)", {3, 12});

  // A forward branch inside a block goes to the block's own L, not to the outer L before it
  // (ptxas treats it as a forward reference: see "forward label then variable" below).
  expectValues("forward to the block's own label", std::string(kRegs) + R"(
mov.b32 %r1, 0;
L: add.s32 %r1, %r1, 1;
setp.ge.s32 %p, %r1, 100; @%p bra DONE;
{ bra.uni L; add.s32 %r1, %r1, 1000; L: add.s32 %r1, %r1, 10; }
DONE: st.global.u32 [%o], %r1;
ret;)", {11});

  // From blocks two deep to the enclosing function's labels, backward and forward; a later
  // sibling block has its own TOP and END, which those branches must not reach.
  expectValues("inner to outer labels", std::string(kRegs) + R"(
mov.b32 %r1, 0; mov.b32 %r2, 0;
TOP: add.s32 %r1, %r1, 1;
{ { setp.lt.s32 %p, %r1, 5; @%p bra TOP; } }
{ { bra.uni END; } add.s32 %r1, %r1, 1000; }
END: add.s32 %r2, %r2, 1;
{ setp.ge.s32 %p, %r2, 2; @%p bra END; TOP: add.s32 %r1, %r1, 100; END: add.s32 %r2, %r2, 7; }
st.global.u32 [%o], %r1; st.global.u32 [%o+4], %r2;
ret;)", {105, 8});

  // Refused: each line number is the offending statement's (the module's body starts at line 6).
  expectRefused("label twice in the function block", "L: ret;\nL: ret;", "duplicate definition of 'L'", 7);
  expectRefused("label twice in an inner block", "{ L: ret;\nL: ret; }\nret;", "duplicate definition of 'L'", 7);
  expectRefused("label and register of one name", ".reg .b32 x;\nx: ret;", "duplicate definition of 'x'", 7);
  expectRefused("label and parameter of one name", "out: ret;", "duplicate definition of 'out'", 6);
  expectRefused("branch into an inner block", "bra.uni IN;\n{ IN: ret; }\nret;",
                "unknown label 'IN' (a label is visible only in its own { } block", 6);
  expectRefused("branch into a sibling block", "{ bra.uni X; }\n{ X: ret; }\nret;", "unknown label 'X'", 6);
  expectRefused("branch to a register", ".reg .b32 x;\nbra.uni x;\nret;", "'x' is not a label", 7);
  // a label later in the block shadows nothing: the outer register is what the branch names
  expectRefused("branch to an outer register", ".reg .b32 x;\n{ bra.uni x;\nx: ret; }\nret;", "'x' is not a label", 7);
  expectRefused("forward label then variable", "L: ret;\n{ bra.uni L;\n.reg .b32 L; }\nret;",
                "'L' is declared as a variable, but a branch at line 7", 8);
  expectRefused("forward label then outer variable", "{ bra.uni L; }\n.reg .b32 L;\nret;",
                "'L' is declared as a variable, but a branch at line 6", 7);
}

static void variables() {
  // .reg: an inner declaration shadows the outer one (of another type too) until its block ends;
  // before the inner declaration, the name is still the outer register.
  expectValues(".reg shadowing", std::string(kRegs) + R"(
.reg .b32 a; mov.b32 a, 1;
{ .reg .b32 a; mov.b32 a, 2; st.global.u32 [%o], a;
  { .reg .f32 a; mov.f32 a, 0f40400000; st.global.f32 [%o+4], a; }
  st.global.u32 [%o+8], a; }
{ add.s32 a, a, 5; .reg .b32 a; mov.b32 a, 100; st.global.u32 [%o+12], a; }
st.global.u32 [%o+16], a;
ret;)", {2, 0x40400000u, 2, 100, 6});

  // .shared: sibling blocks and a shadowing inner block each get their own variable; generic
  // addresses taken inside the blocks show three distinct words after the blocks have closed.
  std::string shared = std::string(kRegs) + R"(
.reg .b64 %a<3>; .reg .b32 %v<3>;
.shared .align 4 .b32 s[1];
st.shared.u32 [s], 1; cvta.shared.u64 %a0, s;
{ .shared .align 4 .b32 s[1]; st.shared.u32 [s], 2; cvta.shared.u64 %a1, s; }
{ .shared .align 4 .b32 s[1]; st.shared.u32 [s], 3; cvta.shared.u64 %a2, s; }
ld.u32 %v0, [%a0]; ld.u32 %v1, [%a1]; ld.u32 %v2, [%a2];
st.global.u32 [%o], %v0; st.global.u32 [%o+4], %v1; st.global.u32 [%o+8], %v2;
ld.shared.u32 %v0, [s]; st.global.u32 [%o+12], %v0;
ret;)";
  expectValues(".shared in nested blocks", shared, {1, 2, 3, 1});
  {
    std::string log;
    auto m = tsim::parsePtx(kernel(shared), log);
    CHECK(m && m->kernels().size() == 1 && m->kernels()[0].staticSharedBytes == 12);
  }

  // .local likewise.
  expectValues(".local in nested blocks", std::string(kRegs) + R"(
.reg .b64 %a<2>; .reg .b32 %v<2>;
.local .align 4 .b32 t[1];
st.local.u32 [t], 4; cvta.local.u64 %a0, t;
{ .local .align 4 .b32 t[1]; st.local.u32 [t], 5; cvta.local.u64 %a1, t; }
ld.u32 %v0, [%a0]; ld.u32 %v1, [%a1];
st.global.u32 [%o], %v0; st.global.u32 [%o+4], %v1;
ret;)", {4, 5});

  expectRefused(".reg twice in one block", ".reg .b32 a;\n.reg .b32 a;\nret;", "duplicate definition of 'a'", 7);
  expectRefused(".reg twice in an inner block", "{ .reg .b32 a;\n.reg .b32 a; }\nret;", "duplicate definition of 'a'", 7);
  expectRefused(".reg range over a declared name", ".reg .b32 %r1;\n.reg .b32 %r<4>;\nret;", "duplicate definition of '%r1'", 7);
  expectRefused(".shared twice in one block", ".shared .b32 s;\n.shared .b32 s;\nret;", "duplicate definition of 's'", 7);
  expectRefused(".local and .reg of one name", ".local .b32 s;\n.reg .b32 s;\nret;", "duplicate definition of 's'", 7);
  expectRefused("a register after its block", "{ .reg .b32 a; }\nmov.b32 a, 1;\nret;", "unknown symbol 'a'", 7);
  expectRefused("a .shared after its block", "{ .shared .b32 s; }\nst.shared.u32 [s], 1;\nret;", "unknown symbol 's'", 7);
}

// Each module through ptxas: the sim's verdicts must be ptxas's.
static void crossCheck(const char* ptxas) {
  char dir[] = "/tmp/tsim_scope_XXXXXX";
  if (!mkdtemp(dir)) { std::printf("mkdtemp failed\n"); failures++; return; }
  auto assembles = [&](const std::string& ptx) {
    std::string file = std::string(dir) + "/k.ptx";
    FILE* f = std::fopen(file.c_str(), "w");
    if (!f) return false;
    std::fputs(ptx.c_str(), f);
    std::fclose(f);
    std::string cmd = std::string(ptxas) + " -arch=sm_90a -o /dev/null " + file + " 2>/dev/null";
    return std::system(cmd.c_str()) == 0;
  };
  for (auto& p : accepted)
    if (!assembles(p)) { std::printf("ptxas refuses a module the sim runs:\n%s\n", p.c_str()); failures++; }
  for (auto& p : refused)
    if (assembles(p)) { std::printf("ptxas accepts a module the sim refuses:\n%s\n", p.c_str()); failures++; }
  std::string rm = std::string("rm -rf ") + dir;
  (void)!std::system(rm.c_str());
}

int main(int argc, char** argv) {
  labels();
  variables();
  if (argc == 3 && std::string(argv[1]) == "--ptxas") crossCheck(argv[2]);
  return finish("ptx_scope_test");
}
