#pragma once
// A dense view of one (device, family) slice of a store: problems × configs performance
// (higher is better) with the state of every cell, plus the problem feature matrix. Everything
// in Learn works on this, so it runs on any device's data, imported data, or synthetic data.
//
// Every cell is in one of three states (CellState):
//  - ok:         measured and counts: perf(r, c) > 0; valid(r, c) and measured(r, c) are true;
//  - invalid:    measured but refused, failed, wrong or timed out: perf 0, valid false,
//                measured true;
//  - unmeasured: nothing was measured (a sampled sweep, a config one device lacks): perf 0,
//                valid and measured false.
// What each consumer does with an unmeasured cell is stated where it is declared
// (normalize.hpp, prune.hpp, selector.hpp, evaluate.hpp, analyze.hpp). An empty `measured`
// matrix means that every cell was measured (datasets built by hand).
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune {

using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>;

enum class CellState { unmeasured, invalid, ok };

// In every geometric mean of Learn an invalid cell (and a problem left without a valid config)
// counts as this fraction of the problem's best perf, "a thousand times slower", so one refused
// config cannot zero a mean. The one floor of the project.
inline constexpr double kInvalidRatio = 1e-3;

struct Dataset {
  std::string family, device;

  std::vector<std::string> problem_keys;                 // one per row
  std::vector<std::vector<std::string>> problem_groups;  // per row: its tags (e.g. networks)
  std::vector<std::string> feature_names;                // raw problem features, then derived
  Eigen::MatrixXd features;                              // rows × features
  // Per row: the family's work for the problem (Family::flops), the size that the coverage
  // pruner stratifies by; empty when the family is not a registered one (or for hand-built data).
  Eigen::VectorXd work;

  std::vector<std::string> config_names;  // one per column: real configs, never vendors
  std::vector<std::string> config_param_names;
  Eigen::MatrixXd config_params;  // configs × numeric config params (for regressors)

  Eigen::MatrixXd perf;  // rows × configs; higher is better (GFLOP/s, or 1/time); 0 unless ok
  BoolMatrix valid;      // true only where the cell is ok
  BoolMatrix measured;   // true where the cell is ok or invalid; empty = every cell measured

  std::vector<std::string> vendor_names;
  Eigen::MatrixXd vendor_perf;  // rows × vendors; NaN where not measured

  Eigen::Index rows() const { return perf.rows(); }
  Eigen::Index cols() const { return perf.cols(); }
  bool is_measured(Eigen::Index r, Eigen::Index c) const {
    return measured.size() == 0 || measured(r, c);
  }
  CellState state(Eigen::Index r, Eigen::Index c) const {
    return valid(r, c)         ? CellState::ok
           : is_measured(r, c) ? CellState::invalid
                               : CellState::unmeasured;
  }
  // Cells not measured (0 when `measured` is empty).
  Eigen::Index unmeasured_count() const;
  Dataset subset_rows(const std::vector<Eigen::Index>& rows) const;
  Dataset subset_cols(const std::vector<Eigen::Index>& cols) const;
  // Best ok config per row (index into columns; -1 when none) and its performance: the oracle
  // is the best *measured* config, unmeasured cells are unknown and never the oracle.
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
