// The own-kernel examples (examples/own-kernels/): each C++ kernel through `ktune bench` on this
// CPU with every config verified (none wrong, none failed), and each CUDA kernel's NVRTC program
// compiled for sm_90 for every config of its space (their device runs need a GPU).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ktune/family.hpp"
#include "ktune/file_family.hpp"
#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"
#ifdef KTUNE_HAVE_CUDA
#include "ktune/cuda/nvrtc_compile.hpp"
#include "src/filefamily/cuda/file_cuda_backend.hpp"
#include "src/filefamily/file_family.hpp"
#endif

namespace ktune {
namespace {

std::string example(const std::string& name) {
  return std::string(KTUNE_SOURCE_DIR) + "/examples/own-kernels/" + name;
}

class OwnKernelExample : public ::testing::TestWithParam<const char*> {};

TEST_P(OwnKernelExample, CpuKernelBenchesWithEveryConfigRight) {
  const std::string name = GetParam();
  testing::private_cache("example-" + name);
  const std::string dir = ::testing::TempDir() + "own-kernel-" + name + "/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto r = testing::run_ktune("bench --family-file " + example(name + "/" + name + ".json") +
                                    " --rep-budget-ms 1 --min-reps 1 --store " + dir + "s.sqlite");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto rows = Store(dir + "s.sqlite").query();
  ASSERT_FALSE(rows.empty());
  for (const auto& m : rows)
    EXPECT_EQ(m.outcome.status, Status::ok)
        << m.config << " on " << m.problem << ": " << m.outcome.message;
}

#ifdef KTUNE_HAVE_CUDA
TEST_P(OwnKernelExample, CudaKernelCompilesForEveryConfig) {
  const std::string name = GetParam();
  testing::private_cache("example-cuda-" + name);
  const auto& family = dynamic_cast<const filefamily::FileFamily&>(
      find_family(register_file_family(example(name + "/" + name + "_cuda.json"))));
  const Space& space = family.space();
  int compiled = 0;
  for (const Config& c : space.enumerate()) {
    EXPECT_FALSE(cuda::compile_cubin(filefamily::nvrtc_request(family, c, "sm_90")).cubin.empty())
        << space.to_string(c);
    ++compiled;
  }
  EXPECT_GT(compiled, 0);
  // Its C++ reference builds with the system compiler, without the kernel's NVRTC options
  // (nbody's --use_fast_math failed every config on the H100 before).
  EXPECT_NO_THROW(family.reference());
}
#endif

INSTANTIATE_TEST_SUITE_P(Examples, OwnKernelExample,
                         ::testing::Values("reduction", "jacobi2d", "nbody"));

}  // namespace
}  // namespace ktune
