#pragma once
// Runs ktune_infer (KTUNE_INFER, its path) with arguments, for the command-line tests.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ktune::nn::testing {

struct InferResult {
  int status = -1;
  std::string out;  // stdout and stderr
};

inline InferResult run_infer_at(const std::string& infer, const std::string& args) {
  InferResult r;
  FILE* pipe = popen((infer + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) r.out.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

}  // namespace ktune::nn::testing
