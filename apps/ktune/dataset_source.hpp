#pragma once
// The --data/--device/--family options shared by the verbs that learn from a dataset
// (analyze, prune, train, eval), and the load they all do with them.
#include <CLI/CLI.hpp>
#include <string>

#include "ktune/dataset.hpp"

namespace ktune::cli {

struct DatasetSource {
  std::string data, device, family;

  Dataset load() const { return load_dataset(data, device, family); }

  void add_options(CLI::App& sub) {
    sub.add_option("--data", data, "Store (.sqlite) or exported measurements (.csv, .csv.gz)")
        ->required();
    sub.add_option("--device", device, "Device slug (needed when the data holds several)");
    sub.add_option("--family", family, "Kernel family (needed when the data holds several)");
  }
};

}  // namespace ktune::cli
