// `auto-cuda` in every precision (nn/cuda/auto_backend.cpp): the engine times its candidates at
// build time and names the one it keeps; every candidate, switched to in turn over the same
// buffers (an upload on one stream, the pass on another), gives the reference's logits; a CUDA
// graph recorded through it runs the chosen candidate. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cuda/cuda_backend.hpp"
#include "nn/cuda/register.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/nn_cuda/nn_cuda_test_util.hpp"

namespace ktune::nn {
namespace {

using test::relative_error;

TEST(NnCudaAuto, EveryPrecisionKeepsANamedCandidateAndEachRunsCorrectly) {
  KTUNE_REQUIRE_GPU();
  register_cuda_backends();
  const auto tiny = test::tiny_case(2, 11);
  const auto& [net, weights, input, reference] = tiny;
  const auto& want = reference.logits;
  const size_t count = size_t(net.batch * net.classes);
  for (const std::string name : {"auto-cuda", "auto-cuda-tf32", "auto-cuda-bf16"}) {
    SCOPED_TRACE(name);
    auto backend = make_backend(name);
    auto& cuda = dynamic_cast<cuda::CudaBackend&>(*backend);
    const double tolerance = cuda.precision() == cuda::Precision::fp32
                                 ? 1e-4
                                 : 32 * cuda::input_roundoff(cuda.precision());
    ASSERT_GE(backend->variants(), 2);  // cuBLAS and at least one more
    Engine engine(net, weights, *backend);
    ASSERT_FALSE(engine.notes().empty());
    const std::string& note = engine.notes().back();
    bool named = false;
    for (int v = 0; v < backend->variants(); ++v)
      named = named ||
              note.find(name + ": runs " + backend->variant_name(v) + " (") != std::string::npos;
    EXPECT_TRUE(named) << note;
    EXPECT_NE(note.find("interleaved rounds"), std::string::npos) << note;
    std::vector<float> got(count);
    // The kept candidate as a CUDA graph through auto's capture calls.
    engine.set_input(input.data());
    cuda.begin_capture();
    engine.forward();
    cuda.end_capture();
    ASSERT_TRUE(cuda.captured());
    std::fill(got.begin(), got.end(), std::nanf(""));
    cuda.replay();
    EXPECT_GT(engine.last_ms(), 0.0);
    engine.logits(got.data());
    EXPECT_LE(relative_error(got, want), tolerance);
    EXPECT_NE(cuda.layer_note(0), "");  // names the candidate
    // Every candidate, eagerly; the input uploaded while another was in use.
    for (int v = 0; v < backend->variants(); ++v) {
      SCOPED_TRACE(backend->variant_name(v));
      backend->use_variant(v);
      std::fill(got.begin(), got.end(), std::nanf(""));
      engine.forward();
      engine.logits(got.data());
      EXPECT_LE(relative_error(got, want), tolerance);
      engine.set_input(input.data());
    }
  }
}

TEST(NnCudaAuto, CandidatesOfAnotherPrecisionAreRefused) {
  KTUNE_REQUIRE_GPU();
  std::vector<std::unique_ptr<Backend>> mixed;
  mixed.push_back(cuda::make_cublas_backend(cuda::Precision::fp32));
  mixed.push_back(cuda::make_cublas_backend(cuda::Precision::bf16));
  EXPECT_THROW(cuda::make_auto_backend(cuda::Precision::fp32, std::move(mixed)), Error);
  EXPECT_THROW(cuda::make_auto_backend(cuda::Precision::fp32, {}), Error);
}

}  // namespace
}  // namespace ktune::nn
