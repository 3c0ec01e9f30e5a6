// Replays inputs through the fuzz entry point without libFuzzer (part of the default build, run
// by ctest on the seed corpus). With --valid, each input must also parse: the seeds are real PTX.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "sim.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size);

int main(int argc, char** argv) {
  bool valid = false;
  int failures = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--valid") == 0) {
      valid = true;
      continue;
    }
    std::string text;
    if (FILE* f = std::fopen(argv[i], "rb")) {
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
      std::fclose(f);
    } else {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      failures++;
      continue;
    }
    count++;
    LLVMFuzzerTestOneInput(reinterpret_cast<const unsigned char*>(text.data()), text.size());
    // Every prefix too: truncated input is the most common malformed PTX.
    for (size_t cut = 0; cut < text.size(); cut += 7)
      LLVMFuzzerTestOneInput(reinterpret_cast<const unsigned char*>(text.data()), cut);
    if (valid) {
      std::string log;
      if (!tsim::parsePtx(text, log)) {
        std::fprintf(stderr, "%s: seed does not parse:\n%s\n", argv[i], log.c_str());
        failures++;
      }
    }
  }
  if (count == 0) {
    std::fprintf(stderr, "no inputs\n");
    return 1;
  }
  std::printf("replayed %d input(s), %d failure(s)\n", count, failures);
  return failures ? 1 : 0;
}
