// Tune and remember in a deployed GEMM library (the vendor-wins test library, deployed with a
// range guard: kUnsure is OpenBLAS): an unsure shape's candidates are timed once and the
// remembered answer is served, bit for bit that config's result; shapes the selector is sure
// about are not timed; `ktune import --remembered` takes the cache into a store.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm/cpu/gemm_cpu_vendor_calls.hpp"
#include "ktune/gemm.hpp"
#include "ktune/remember.hpp"
#include "tests/remember/remember_cache_util.hpp"
#include "tests/remember/remember_test_util.hpp"

namespace {

using ktune::Trans;

struct Problem {
  int64_t m, n, k;
  std::vector<float> a, b;
  Problem(int64_t m_, int64_t n_, int64_t k_)
      : m(m_), n(n_), k(k_), a(size_t(m_ * k_)), b(size_t(k_ * n_)) {
    std::mt19937 rng{uint32_t(m * 31 + n * 7 + k)};
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& x : a) x = u(rng);
    for (auto& x : b) x = u(rng);
  }
  std::string key() const {
    return "transa=0;transb=0;m=" + std::to_string(m) + ";n=" + std::to_string(n) +
           ";k=" + std::to_string(k) + ";batch=1";
  }
  ktune::kernels::gemm::cpu::Args args(float* c) const {
    ktune::kernels::gemm::cpu::Args g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.lda = m;
    g.ldb = k;
    g.ldc = m;
    g.a = a.data();
    g.b = b.data();
    g.c = c;
    return g;
  }
  std::vector<float> tuned() const {
    std::vector<float> c(size_t(m * n));
    ktune::gemm(Trans::no, Trans::no, m, n, k, 1, a.data(), m, b.data(), k, 0, c.data(), m);
    return c;
  }
};

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

using ktune_test::plant_answer;
using ktune_test::timings_of;

// The shell command's exit code and its output (stdout and stderr).
std::pair<int, std::string> shell(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, ""};
  char buffer[4096];
  while (size_t got = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, got);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// 100 x 100 x 100: m mod 8 lies outside the trained range, so the selector is unsure.
const Problem& unsure_problem() {
  static const Problem p(100, 100, 100);
  return p;
}

TEST(TunedGemmRemember, AnUnsureShapeIsTimedOnceAndItsAnswerServed) {
  const Problem& p = unsure_problem();
  const auto& info = ktune::tuned_gemm_info_cpu();
  ASSERT_STREQ(info.configs[ktune::tuned_gemm_choice_cpu(Trans::no, Trans::no, p.m, p.n, p.k, 1)],
               "vendor=openblas");
  const std::string cache = ktune_test::fresh_path("gemm.sqlite");
  ktune::RememberSettings s;
  s.cache = cache;
  s.budget_ms = 2000;
  ktune::remember_enable(s);
  const std::vector<float> first = p.tuned();
  const auto timed = timings_of(cache, p.key());
  ASSERT_EQ(timed.size(), 3u);  // the three shipped configs, vendors included
  EXPECT_EQ(std::count_if(timed.begin(), timed.end(), [](const auto& t) { return t.winner; }), 1);
  for (const auto& t : timed) EXPECT_GT(t.reps, 0);
  EXPECT_TRUE(same_bits(p.tuned(), first));  // the same config, from memory

  // The remembered answer wins: planted ones are served bit for bit after a restart.
  plant_answer(cache, p.key(), "vendor=onednn");
  ktune::remember_enable(s);
  std::vector<float> c(size_t(p.m * p.n));
  ktune::kernels::gemm::cpu::OnednnMatmul(p.args(c.data())).run(p.args(c.data()));
  EXPECT_TRUE(same_bits(p.tuned(), c));
  plant_answer(cache, p.key(), "vendor=openblas");
  ktune::remember_enable(s);
  ktune::kernels::gemm::cpu::openblas_gemm(p.args(c.data()));
  EXPECT_TRUE(same_bits(p.tuned(), c));
  ktune::remember_disable();
}

TEST(TunedGemmRemember, ShapesTheSelectorIsSureAboutAreNotTimed) {
  const std::string cache = ktune_test::fresh_path("sure.sqlite");
  ktune::RememberSettings s;
  s.cache = cache;
  s.budget_ms = 2000;  // every candidate timed, oneDNN's first run (its primitive built) included
  ktune::remember_enable(s);
  const Problem sure(128, 128, 128);  // in range: the tree's small-shape kernel
  sure.tuned();
  unsure_problem().tuned();  // creates the cache
  EXPECT_TRUE(timings_of(cache, sure.key()).empty());
  EXPECT_FALSE(timings_of(cache, unsure_problem().key()).empty());
  s.all_shapes = true;  // KTUNE_REMEMBER_SHAPES=all
  ktune::remember_enable(s);
  sure.tuned();
  EXPECT_EQ(timings_of(cache, sure.key()).size(), 3u);
  ktune::remember_disable();
}

TEST(TunedGemmRemember, ImportIntoAStoreGivesEveryTimedCandidate) {
  const std::string cache = ktune_test::fresh_path("import.sqlite");
  ktune::RememberSettings s;
  s.cache = cache;
  s.budget_ms = 2000;
  ktune::remember_enable(s);
  unsure_problem().tuned();
  ktune::remember_disable();
  const std::string store = ktune_test::fresh_path("import-store.sqlite");
  const std::string csv = ktune_test::fresh_path("import.csv");
  const auto [rc, out] = shell(std::string(KTUNE_BINARY) + " import --remembered " + cache +
                               " --store " + store + " --device planted-cpu");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("3 added"), std::string::npos) << out;
  const auto [rc2, out2] =
      shell(std::string(KTUNE_BINARY) + " export --store " + store + " --format csv -o " + csv);
  ASSERT_EQ(rc2, 0) << out2;
  const std::string text = ktune_test::read_file(csv);
  const std::string row = "planted-cpu,gemm," + unsure_problem().key() + ",";
  for (const char* config :
       {"kind=packed;mr=8;nr=4;kc=128;mc=48;nc=960,", "openblas,-1,ok", "onednn,-1,ok"})
    EXPECT_NE(text.find(row + config), std::string::npos) << config << "\n" << text;
}

TEST(TunedGemmRemember, ImportOfACorruptCacheFailsInOneLineNamingIt) {
  const std::string cache = ktune_test::fresh_path("import-corrupt.sqlite");
  {
    std::ofstream bad(cache, std::ios::binary);
    bad << std::string(2048, 'z');
  }
  const std::string store = ktune_test::fresh_path("import-corrupt-store.sqlite");
  const auto [rc, out] =
      shell(std::string(KTUNE_BINARY) + " import --remembered " + cache + " --store " + store);
  EXPECT_NE(rc, 0);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find(cache), std::string::npos) << out;
}

}  // namespace
