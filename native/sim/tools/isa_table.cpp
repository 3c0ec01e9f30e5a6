// Prints the sim's decode table (every PTX instruction it accepts, with the modifiers and types
// each accepts) as the markdown table of docs/sim-ptx.md, and keeps that doc in step with it:
//   sim_isa_table                 print the table
//   sim_isa_table --write DOC     replace the generated section of DOC
//   sim_isa_table --check DOC     exit 1 when DOC's generated section differs (a ctest)
//   sim_isa_table --load PTX...   load each PTX file as the sim would; print what it refuses
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "ptx_decode.h"
#include "sim.h"

namespace {

const char* kBegin = "<!-- BEGIN instruction table: generated from the decoder by sim_isa_table --write; do not edit -->\n";
const char* kEnd = "<!-- END instruction table -->\n";

bool readFile(const char* path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string table = tsim::instructionTableMarkdown();
  if (argc == 1) {
    std::fputs(table.c_str(), stdout);
    return 0;
  }
  if (argc >= 3 && !std::strcmp(argv[1], "--load")) {
    int bad = 0;
    for (int i = 2; i < argc; i++) {
      std::string ptx, log;
      if (!readFile(argv[i], ptx)) { std::fprintf(stderr, "%s: cannot read\n", argv[i]); bad++; continue; }
      auto m = tsim::parsePtx(ptx, log);
      std::printf("%s: %s%s", argv[i], m ? "ok\n" : "refused\n", m ? "" : log.c_str());
      bad += !m;
    }
    return bad ? 1 : 0;
  }
  if (argc != 3 || (std::strcmp(argv[1], "--write") && std::strcmp(argv[1], "--check"))) {
    std::fprintf(stderr, "usage: sim_isa_table [--write DOC | --check DOC | --load PTX...]\n");
    return 2;
  }
  std::string doc;
  if (!readFile(argv[2], doc)) {
    std::fprintf(stderr, "sim_isa_table: cannot read %s\n", argv[2]);
    return 2;
  }
  size_t b = doc.find(kBegin), e = doc.find(kEnd);
  if (b == std::string::npos || e == std::string::npos || e < b) {
    std::fprintf(stderr, "sim_isa_table: %s has no generated instruction table section (markers missing)\n", argv[2]);
    return 2;
  }
  size_t from = b + std::strlen(kBegin);
  std::string current = doc.substr(from, e - from);
  if (!std::strcmp(argv[1], "--check")) {
    if (current == table) return 0;
    std::fprintf(stderr,
                 "sim_isa_table: the instruction table in %s differs from the decoder; regenerate it with\n"
                 "  build/bin/sim_isa_table --write %s\n",
                 argv[2], argv[2]);
    std::istringstream want(table), have(current);
    std::string lw, lh;
    int line = 0;
    while (true) {
      bool gw = (bool)std::getline(want, lw), gh = (bool)std::getline(have, lh);
      line++;
      if (!gw && !gh) break;
      if (lw != lh || gw != gh) {
        std::fprintf(stderr, "first difference at table line %d:\n  decoder: %s\n  doc:     %s\n", line,
                     gw ? lw.c_str() : "(end)", gh ? lh.c_str() : "(end)");
        break;
      }
    }
    return 1;
  }
  std::string out = doc.substr(0, from) + table + doc.substr(e);
  std::ofstream f(argv[2], std::ios::binary);
  f << out;
  return f ? 0 : 2;
}
