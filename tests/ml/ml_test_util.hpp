#pragma once
// Shared helpers for the ML tests: a deterministic synthetic dataset whose performance depends
// on the problem features (so selectors and trees can learn it), temp dirs, matrix CSV files
// and a runner for the scikit-learn reference script.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/measurement.hpp"
#include "ktune/problem.hpp"
#include "ktune/space.hpp"

namespace ktune::test {

struct SyntheticOptions {
  int problems = 60;                 // at most 729 (distinct (m, n, k) triples)
  int configs_a = 4, configs_b = 3;  // configs "a=..;b=.." form an a × b grid
  double invalid_fraction = 0.1;     // random invalid entries (never every entry of a row)
  double noise = 0.05;               // multiplicative noise amplitude
  bool vendor = false;               // add a "vendorblas" pseudo-config (config_id -1)
  uint64_t seed = 1;
};

// Problems have features m, n, k (powers of two, 16..4096). Config (a, b) is fastest where
// log2(m) is near 5 + 2a and log2(n) near 5 + 3b, so the best config is a function of (m, n).
// Invalid entries get status refused and perf 0. Device "synthetic-dev", family "synthetic"
// (not a registered family, so no derived features). Perf is in "GFLOP/s" (up to ~100).
inline std::vector<Measurement> make_synthetic_measurements(const SyntheticOptions& o = {}) {
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int> exponent(4, 12);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Measurement> ms;
  const int configs = o.configs_a * o.configs_b;
  std::set<std::string> used;  // problem keys are distinct
  for (int p = 0; p < o.problems; ++p) {
    double m, n, k;
    std::ostringstream key;
    do {
      m = std::ldexp(1.0, exponent(rng));
      n = std::ldexp(1.0, exponent(rng));
      k = std::ldexp(1.0, exponent(rng));
      key.str("");
      key << "m=" << m << ";n=" << n << ";k=" << k;
    } while (!used.insert(key.str()).second);
    std::vector<Measurement> row;
    int valid = 0;
    for (int c = 0; c < configs; ++c) {
      const int a = c / o.configs_b, b = c % o.configs_b;
      const double da = std::log2(m) - (5 + 2 * a), db = std::log2(n) - (5 + 3 * b);
      Measurement x;
      x.device = "synthetic-dev";
      x.family = "synthetic";
      x.problem = key.str();
      x.config = "a=" + std::to_string(a) + ";b=" + std::to_string(b);
      x.config_id = c;
      const double perf = 100.0 * std::exp(-(da * da) / 6.0 - (db * db) / 8.0) *
                              (1.0 + o.noise * (2 * unit(rng) - 1)) +
                          0.5;
      if (unit(rng) < o.invalid_fraction) {
        x.outcome.status = Status::refused;
        x.perf = 0;
      } else {
        x.outcome.status = Status::ok;
        x.perf = perf;
        x.outcome.timing.median_ms = 2.0 * m * n * k / (perf * 1e6);
        ++valid;
      }
      row.push_back(x);
    }
    if (valid == 0) {  // keep every problem learnable
      row[0].outcome.status = Status::ok;
      row[0].perf = 1.0;
      row[0].outcome.timing.median_ms = 1.0;
    }
    if (o.vendor) {
      Measurement v = row[0];
      v.config = "vendorblas";
      v.config_id = -1;
      v.vendor = true;
      v.outcome.status = Status::ok;
      v.perf = 80.0;
      row.push_back(v);
    }
    for (auto& x : row) ms.push_back(std::move(x));
  }
  return ms;
}

inline Dataset make_synthetic_dataset(const SyntheticOptions& o = {}) {
  return dataset_from_measurements(make_synthetic_measurements(o), "", "");
}

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "ktune-test") {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            (tag + "-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// An ok measurement of a GEMM problem on the test device "cpu-test".
inline Measurement gemm_measurement(const Space& space, const Problem& p, const Config& c,
                                    double perf) {
  Measurement m;
  m.device = "cpu-test";
  m.family = "gemm";
  m.problem = p.key();
  m.config = space.to_string(c);
  m.config_id = c.id;
  m.outcome.status = Status::ok;
  m.perf = perf;
  return m;
}

// `per` points around each row of `centers`, normal with standard deviation `sigma`, blob by
// blob (the clustering tests' data).
inline Eigen::MatrixXd gaussian_blobs(const Eigen::MatrixXd& centers, int per, double sigma,
                                      uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, sigma);
  Eigen::MatrixXd X(centers.rows() * per, centers.cols());
  for (Eigen::Index c = 0; c < centers.rows(); ++c)
    for (int i = 0; i < per; ++i)
      for (Eigen::Index j = 0; j < centers.cols(); ++j) X(c * per + i, j) = centers(c, j) + g(rng);
  return X;
}

// A clustering call `fit(X, options)` refuses more clusters than points, zero clusters and an
// empty matrix (asked for `k` clusters).
template <class Options, class Fit>
void expect_rejects_bad_k(const Fit& fit, int k) {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(4, 2);
  Options o;
  o.k = 5;
  EXPECT_THROW(fit(X, o), Error);
  o.k = 0;
  EXPECT_THROW(fit(X, o), Error);
  o.k = k;
  EXPECT_THROW(fit(Eigen::MatrixXd(0, 2), o), Error);
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Plain numeric CSV without header, full precision.
inline void write_matrix_csv(const std::string& path, const Eigen::MatrixXd& m) {
  std::ofstream f(path);
  char buf[40];
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      std::snprintf(buf, sizeof buf, "%.17g", m(i, j));
      f << (j ? "," : "") << buf;
    }
    f << '\n';
  }
}

inline Eigen::MatrixXd read_matrix_csv(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    std::vector<double> row;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(std::move(row));
  }
  Eigen::MatrixXd m(Eigen::Index(rows.size()), rows.empty() ? 0 : Eigen::Index(rows[0].size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < rows[i].size(); ++j) m(Eigen::Index(i), Eigen::Index(j)) = rows[i][j];
  }
  return m;
}

// True when the system python (not the pyenv one on PATH) has scikit-learn.
// scripts/test.sh sets KTUNE_REQUIRE_SKLEARN=1 (it installs python3-sklearn), so there a missing
// scikit-learn fails the parity tests instead of skipping them.
inline bool have_sklearn() {
  static const bool ok = std::system("/usr/bin/python3 -c 'import sklearn' > /dev/null 2>&1") == 0;
  const char* required = std::getenv("KTUNE_REQUIRE_SKLEARN");
  if (!ok && required && std::string(required) == "1")
    throw std::runtime_error("KTUNE_REQUIRE_SKLEARN=1 but /usr/bin/python3 cannot import sklearn");
  return ok;
}

// Runs /usr/bin/python3 <source>/tests/ml/<script> <args...>; returns the exit status.
inline int run_python(const std::string& script, const std::vector<std::string>& args) {
  std::string cmd =
      "/usr/bin/python3 '" + std::string(KTUNE_SOURCE_DIR) + "/tests/ml/" + script + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  return std::system(cmd.c_str());
}

}  // namespace ktune::test
