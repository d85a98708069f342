// What every ktune process pays before it does anything: cuBLAS(Lt) is not loaded at start
// (src/cuda/cublas_lazy.cpp). Linked, libcublasLt's loading and initialization cost every CLI
// call 0.55 s of CPU (2-core AMD EPYC), GPU or not, and tests run the CLI hundreds of times.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace ktune {
namespace {

TEST(CliStartup, LoadsNoCublasLibrary) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  // The dynamic loader lists every library it loads ("file=libX.so [0];  needed by ...").
  const std::string cmd = std::string("LD_DEBUG=files '") + KTUNE_BINARY + "' --help 2>&1";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  ASSERT_EQ(pclose(pipe), 0) << out;
  ASSERT_NE(out.find("file=libstdc++"), std::string::npos) << out;  // the listing is there
  EXPECT_EQ(out.find("file=libcublas"), std::string::npos) << out;
}

}  // namespace
}  // namespace ktune
