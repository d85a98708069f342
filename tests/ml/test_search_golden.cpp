// What seeded searches pick on a committed dataset, recorded from the code before `bench`'s two
// drivers became one (commit 6a64f03: its run_search_simulation and evaluate_sampled called as
// these commands call them): a random and a model search simulated on
// tests/ml/data/conv2d-conv-small.csv.gz (a copy of results/amd-epyc-2c/conv2d-conv-small.csv.gz:
// 12 conv2d problems × 55 configs and a vendor row each, measured on a 2-core AMD EPYC) store
// exactly the recorded (problem, config) keys in the recorded order, and `search-eval` on it
// writes the recorded CSV byte for byte. The model search and search-eval goldens were re-recorded
// when the conv2d space gained the cuda_igemm_mma kind: its new numeric params (bm, bn, bk, wm,
// wn, st) are columns of every config's features, so the models see other inputs (the random
// search's stored picks did not change), and again when the cpu_plan_1x1 kind added the numeric
// param `outer` (session 24).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;
using testing::temp_path;

const std::string kData = std::string(KTUNE_SOURCE_DIR) + "/tests/ml/data/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// "problem config" per stored row, in the order they were stored.
std::string stored_keys(const std::string& store) {
  std::string out;
  for (const auto& m : Store(store, Store::Mode::read_only).query())
    out += m.problem + " " + m.config + "\n";
  return out;
}

void expect_picks(const std::string& search, const std::string& golden) {
  const std::string store = temp_path("golden-" + golden + ".sqlite");
  const auto r = run_ktune("bench --family conv2d --workload conv-small --simulate " + kData +
                           "conv2d-conv-small.csv.gz " + search + " --store " + store);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(stored_keys(store), read_file(kData + golden)) << search;
}

TEST(SearchGolden, ASeededRandomSimulationPicksWhatItPickedBefore) {
  expect_picks("--strategy random --seed 3 --budget 7", "golden-simulate-random.txt");
}

TEST(SearchGolden, ASeededModelSimulationPicksWhatItPickedBefore) {
  expect_picks("--strategy model --seed 2 --budget 12", "golden-simulate-model.txt");
}

TEST(SearchGolden, SearchEvalWritesTheCsvItWroteBefore) {
  const std::string csv = temp_path("golden-search-eval.csv");
  const auto r = run_ktune("search-eval --data " + kData +
                           "conv2d-conv-small.csv.gz --seeds 2 --budgets 1,4,8,16 "
                           "--selector-budgets 8 --k 4 --markdown " +
                           temp_path("golden-search-eval.md") + " --csv " + csv);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(csv), read_file(kData + "golden-search-eval.csv"));
}

}  // namespace
}  // namespace ktune
