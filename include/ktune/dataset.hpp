#pragma once
// A dense view of one (device, family) slice of a store: problems × configs performance
// (higher is better) with a validity mask, plus the problem feature matrix. Everything in
// Learn works on this, so it runs on any device's data, imported data, or synthetic data.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune {

using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>;

struct Dataset {
  std::string family, device;

  std::vector<std::string> problem_keys;                 // one per row
  std::vector<std::vector<std::string>> problem_groups;  // per row: networks it came from
  std::vector<std::string> feature_names;                // raw problem features, then derived
  Eigen::MatrixXd features;                              // rows × features

  std::vector<std::string> config_names;  // one per column: real configs, never vendors
  std::vector<std::string> config_param_names;
  Eigen::MatrixXd config_params;  // configs × numeric config params (for regressors)

  Eigen::MatrixXd perf;  // rows × configs; higher is better (GFLOP/s, or 1/time); 0 if invalid
  BoolMatrix valid;      // true only where the measurement is ok

  std::vector<std::string> vendor_names;
  Eigen::MatrixXd vendor_perf;  // rows × vendors; NaN where not measured

  Eigen::Index rows() const { return perf.rows(); }
  Eigen::Index cols() const { return perf.cols(); }
  Dataset subset_rows(const std::vector<Eigen::Index>& rows) const;
  Dataset subset_cols(const std::vector<Eigen::Index>& cols) const;
  // Best valid config per row (index into columns) and its performance.
  std::vector<Eigen::Index> oracle_index() const;
  Eigen::VectorXd oracle_perf() const;
};

struct DatasetOptions {
  // Rows whose every config is invalid cannot be learned from; they are dropped and counted
  // (never a crash). Set false to make such a row an error instead.
  bool drop_rows_without_valid = true;
};

// Builds the dataset from stored measurements of one device and family (empty = the only one
// present; an Error when several are present and none is named, or when nothing matches).
// Derived features come from the family when it is a registered one.
Dataset dataset_from_measurements(const std::vector<Measurement>& ms, const std::string& device,
                                  const std::string& family, const DatasetOptions& options = {},
                                  size_t* dropped_rows = nullptr);

// Reads a store path (.sqlite) or an exported CSV (.csv or .csv.gz) and builds the dataset.
Dataset load_dataset(const std::string& path, const std::string& device = "",
                     const std::string& family = "", const DatasetOptions& options = {});

}  // namespace ktune
