// Minimal checks for the sim's C++ test programs: each failure prints file:line and what was
// expected; main returns finish(), non-zero when anything failed.
#pragma once
#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace tcheck {
inline std::atomic<int>& failures() {  // atomic: checks may run on several host threads
  static std::atomic<int> n{0};
  return n;
}
inline const char* name(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : "?";
}
inline void cu(CUresult got, CUresult want, const char* expr, const char* file, int line) {
  if (got == want) return;
  std::fprintf(stderr, "%s:%d: %s returned %s (%d), expected %s (%d)\n", file, line, expr, name(got), got,
               name(want), want);
  failures()++;
}
inline void truth(bool ok, const char* expr, const char* file, int line) {
  if (ok) return;
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
  failures()++;
}
inline int finish(const char* test) {
  if (failures()) std::fprintf(stderr, "%s: %d check(s) failed\n", test, failures().load());
  else std::printf("%s: all checks passed\n", test);
  return failures() ? 1 : 0;
}
inline std::string readFile(const char* path) {
  std::string s;
  if (FILE* f = std::fopen(path, "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
  }
  return s;
}
}  // namespace tcheck

#define CHECK_CU(expr, want) tcheck::cu((expr), (want), #expr, __FILE__, __LINE__)
#define CHECK_OK(expr) tcheck::cu((expr), CUDA_SUCCESS, #expr, __FILE__, __LINE__)
#define CHECK(cond) tcheck::truth((cond), #cond, __FILE__, __LINE__)
