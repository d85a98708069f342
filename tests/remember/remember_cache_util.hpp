#pragma once
// A tune-and-remember cache as the tests read and plant it (the CPU and CUDA GEMM libraries'
// tests): a problem's timed rows, and an answer replaced in place.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "ktune/remember.hpp"

namespace ktune_test {

inline std::vector<ktune::RememberedTiming> timings_of(const std::string& cache,
                                                       const std::string& problem) {
  std::vector<ktune::RememberedTiming> out;
  for (auto& t : ktune::read_remembered(cache))
    if (t.problem == problem) out.push_back(t);
  return out;
}

// The stored answer among a problem's timed rows ("" when none won).
inline std::string winner_of(const std::vector<ktune::RememberedTiming>& rows) {
  for (const auto& t : rows)
    if (t.winner) return t.config;
  return "";
}

// The index of a config in a tuned library's info (num_configs, configs), or -1.
template <typename Info>
int index_of(const Info& info, const std::string& config) {
  for (int i = 0; i < info.num_configs; ++i)
    if (config == info.configs[i]) return i;
  return -1;
}

// Replaces the stored answer of the problem (exactly one row) with config.
inline void plant_answer(const std::string& cache, const std::string& problem,
                         const std::string& config) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(cache.c_str(), &db), SQLITE_OK);
  const std::string sql =
      "UPDATE answers SET config = '" + config + "' WHERE problem = '" + problem + "'";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
}

}  // namespace ktune_test
