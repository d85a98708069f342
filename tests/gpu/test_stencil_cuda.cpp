// The stencil family on CUDA: NVRTC compiles every real program and a sample of synthetic ones
// for sm_90 (no GPU needed), and on a GPU the backend's sessions verify every program, type and
// boundary against the host reference, opt in to large shared memory and refuse what no block
// can hold.
#include <gtest/gtest.h>

#include "kernels/stencil/cuda/stencil_cuda_backend.hpp"
#include "kernels/stencil/stencil_family.hpp"
#include "kernels/stencil/stencil_programs.hpp"
#include "kernels/stencil/stencil_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/nvrtc_compile.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"
#include "tests/core/stencil_test_util.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace ktune::stencil {
namespace {

const Family& family() {
  register_builtin();
  register_cuda_backends();
  return find_family("stencil");
}

using test::real;

Scenario synthetic(int n, int s, int e, int w, ElemType type, bool heavy) {
  return test::synthetic(n, s, e, w, type, heavy, 67, 71);
}

std::vector<Scenario> compile_sample() {
  std::vector<Scenario> out;
  for (const auto& info : programs())
    if (info.id != Program::synthetic)
      for (ElemType t : info.types) out.push_back(real(info.id, t, Boundary::pad, 64, 64));
  const int borders[][4] = {{1, 1, 1, 1}, {30, 30, 30, 30}, {3, 17, 1, 29}};
  for (const auto& b : borders)
    for (ElemType t : {ElemType::i32, ElemType::f32, ElemType::f64})
      for (bool heavy : {false, true}) out.push_back(synthetic(b[0], b[1], b[2], b[3], t, heavy));
  return out;
}

TEST(StencilNvrtc, EveryRealProgramAndASyntheticSampleCompileForSm90) {
  ktune::test::ScopedCacheDir cache("stencil-compile");
  const auto sample = compile_sample();
  std::vector<ktune::cuda::NvrtcRequest> requests;
  for (const Scenario& s : sample) requests.push_back(cuda::nvrtc_request(s, "sm_90"));
  ktune::test::expect_all_compile(
      requests, [](size_t) { return "ktune_stencil"; },
      [&](size_t i) { return problem_of(sample[i]).key(); });
  EXPECT_EQ(sample.size(), size_t(3 + 1 + 2 + 2 + 3 + 3 + 3 * 3 * 2));
}

TEST(StencilNvrtc, SharedBytesCoverTheTilePlusBorder) {
  const Scenario s = synthetic(3, 5, 7, 2, ElemType::f64, false);
  EXPECT_EQ(cuda::shared_bytes(s, {4, 8}), size_t((4 + 8) * (8 + 9) * 8));
  EXPECT_EQ(cuda::shared_bytes(real(Program::life, ElemType::i32, Boundary::pad, 8, 8), {16, 16}),
            size_t(18 * 18 * 4));
}

TimingPolicy quick() {
  TimingPolicy p;
  p.warmups = 1, p.min_reps = 3, p.max_reps = 5, p.budget_ms = 1;
  return p;
}

TEST(StencilCuda, RealProgramsEveryTypeAndBoundaryVerifyOnTheGpu) {
  KTUNE_REQUIRE_GPU();
  const Family& f = family();
  auto backend = open_backend(f, "cuda:0");
  int sessions = 0;
  for (const auto& info : programs()) {
    if (info.id == Program::synthetic) continue;
    for (ElemType t : info.types)
      for (Boundary b : {Boundary::pad, Boundary::clamp}) {
        const Problem p = problem_of(real(info.id, t, b, 37, 53));
        auto session = backend->open(p);
        for (const char* wg : {"wg=1x2", "wg=4x8", "wg=32x32", "wg=1x1024", "wg=64x1"}) {
          const Outcome o = session->run(f.space().parse(wg), quick());
          EXPECT_EQ(o.status, Status::ok) << p.key() << " " << wg << ": " << o.message;
          if (t == ElemType::i32) {
            EXPECT_EQ(o.rel_error, 0) << p.key();
          }
        }
        ++sessions;
      }
  }
  EXPECT_EQ(sessions, 28);
}

TEST(StencilCuda, TinyWorkloadEveryConfigIsOkOrRefusedWithAReason) {
  KTUNE_REQUIRE_GPU();
  const Family& f = family();
  auto backend = open_backend(f, "cuda:0");
  EXPECT_EQ(backend->device().backend, "cuda");
  for (const Problem& p : load_workload(f, "tiny").problems) {
    auto session = backend->open(p);
    int ok = 0;
    for (const Config& c : f.space().enumerate()) {
      const Outcome o = session->run(c, quick());
      if (o.status == Status::ok) {
        ++ok;
        EXPECT_LE(o.rel_error, error_bound(scenario_of(p)));
        EXPECT_GE(o.timing.reps, 3);
      } else {
        EXPECT_EQ(o.status, Status::refused)
            << p.key() << " " << f.space().to_string(c) << ": " << o.message;
        EXPECT_FALSE(o.message.empty());
      }
    }
    EXPECT_GT(ok, 50) << p.key();
  }
}

TEST(StencilCuda, LargeTilesOptInToSharedMemoryOrAreRefused) {
  KTUNE_REQUIRE_GPU();
  const Family& f = family();
  auto backend = open_backend(f, "cuda:0");
  Scenario s = synthetic(30, 30, 30, 30, ElemType::f64, true);
  s.rows = 300, s.cols = 200;
  auto session = backend->open(problem_of(s));
  // (32+60)^2 doubles = 67712 bytes: over the 48 KiB default, within the H100's opt-in.
  const Outcome big = session->run(f.space().parse("wg=32x32"), quick());
  EXPECT_EQ(big.status, Status::ok) << big.message;
  // (1024+60) x (1+60) doubles = 529 KB: no block can hold it.
  const Outcome huge = session->run(f.space().parse("wg=1024x1"), quick());
  EXPECT_EQ(huge.status, Status::refused);
  EXPECT_NE(huge.message.find("shared memory"), std::string::npos) << huge.message;
}

}  // namespace
}  // namespace ktune::stencil
