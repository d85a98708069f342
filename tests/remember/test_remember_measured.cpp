// The runtime's entry for libraries that time their runs themselves (choose_measured: a GPU's
// runs by CUDA events): the winner rests on the times the library measured, not on the host's
// clock; a run that throws leaves only its candidate out, while Abort (a broken CUDA context)
// ends the first call with nothing stored or remembered; and the CUDA device key's text.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "ktune/remember.hpp"
#include "tests/remember/fake_library.hpp"
#include "tests/remember/remember_test_util.hpp"

namespace {

using ktune_test::kFakeDevice;
using ktune_test::kFakeLibrary;

ktune::remember::Shape shape_of(int64_t s) {
  ktune::remember::Shape shape;
  shape.values[shape.count++] = s;
  shape.values[shape.count++] = 77;  // apart from the other tests' fake shapes
  return shape;
}

int choose_measured(int64_t s, const std::function<double(int)>& time_run) {
  const int candidates[] = {0, 1, 2};
  return ktune::remember::choose_measured(
      kFakeLibrary, kFakeDevice, shape_of(s), [s] { return "measured=" + std::to_string(s); },
      candidates, 3, time_run);
}

ktune::RememberSettings settings_for(const std::string& cache) {
  ktune::RememberSettings s;
  s.cache = cache;
  s.budget_ms = 1000;
  return s;
}

TEST(RememberMeasured, TheWinnerRestsOnTheMeasuredTimes) {
  const std::string cache = ktune_test::fresh_path("measured.sqlite");
  ktune::remember_enable(settings_for(cache));
  // The host spends longest on config 1, which the library measured fastest (GPU time).
  const int answer = choose_measured(1, [](int config) {
    if (config == 1) ktune_test::busy_wait_us(300);
    return config == 1 ? 0.5 : 3.0 + config;
  });
  EXPECT_EQ(answer, 1);
  int rows = 0;
  for (const auto& t : ktune::read_remembered(cache)) {
    if (t.problem != "measured=1") continue;
    ++rows;
    const double planted = t.config == "c=1" ? 0.5 : t.config == "c=0" ? 3.0 : 5.0;
    EXPECT_EQ(t.median_ms, planted) << t.config;
    EXPECT_EQ(t.min_ms, planted) << t.config;
    EXPECT_EQ(t.winner, t.config == "c=1") << t.config;
  }
  EXPECT_EQ(rows, 3);
  ktune::remember_disable();
}

TEST(RememberMeasured, AFailingCandidateIsLeftOutThoughItWouldBeFastest) {
  const std::string cache = ktune_test::fresh_path("measured-fail.sqlite");
  ktune::remember_enable(settings_for(cache));
  const int answer = choose_measured(2, [](int config) -> double {
    if (config == 0) throw std::runtime_error("planted: refused");
    return config == 1 ? 4.0 : 2.0;
  });
  EXPECT_EQ(answer, 2);
  for (const auto& t : ktune::read_remembered(cache)) {
    if (t.problem == "measured=2") {
      EXPECT_NE(t.config, "c=0");
    }
  }
  ktune::remember_disable();
}

TEST(RememberMeasured, AbortEndsTheFirstCallWithNothingStoredOrRemembered) {
  const std::string cache = ktune_test::fresh_path("measured-abort.sqlite");
  ktune::remember_enable(settings_for(cache));
  int runs = 0;
  EXPECT_THROW(choose_measured(3,
                               [&](int config) -> double {
                                 ++runs;
                                 if (config == 1) throw ktune::remember::Abort("planted: sticky");
                                 return 1.0;
                               }),
               ktune::remember::Abort);
  EXPECT_GT(runs, 1);
  EXPECT_EQ(ktune::remember::remembered(kFakeLibrary, kFakeDevice, shape_of(3)), -1);
  for (const auto& t : ktune::read_remembered(cache)) EXPECT_NE(t.problem, "measured=3");
  // The next call of the shape tunes afresh, and the cache still works.
  EXPECT_EQ(choose_measured(3, [](int config) { return config == 2 ? 1.0 : 2.0; }), 2);
  EXPECT_EQ(ktune::remember::remembered(kFakeLibrary, kFakeDevice, shape_of(3)), 2);
  ktune::remember_disable();
}

TEST(RememberMeasured, TheCudaDeviceKeyNamesTheGpuItsSmsAndComputeCapability) {
  EXPECT_EQ(ktune::remember::cuda_device("NVIDIA H200", 132, 9, 0),
            "NVIDIA H200 (132 SMs, cc 9.0)");
  EXPECT_EQ(ktune::remember::cuda_device(nullptr, 0, 0, 0), "unknown CUDA device (0 SMs, cc 0.0)");
  EXPECT_NE(ktune::remember::cuda_device("NVIDIA H100 80GB HBM3", 132, 9, 0),
            ktune::remember::cuda_device("NVIDIA H100 80GB HBM3", 114, 9, 0));
}

}  // namespace
