#pragma once
// The --data/--device/--family options shared by the verbs that learn from a dataset
// (analyze, prune, train, eval), and the load they all do with them. --data may also be a
// foreign long CSV, described with the same options as `import --csv` (long_csv_args.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "apps/ktune/long_csv_args.hpp"
#include "ktune/dataset.hpp"
#include "ktune/interchange.hpp"
#include "ktune/vendor_candidates.hpp"

namespace ktune::cli {

struct DatasetSource {
  std::string data, device, family;
  LongCsvArgs long_csv;
  bool vendors = false;                   // the vendors as candidates (with_vendor_candidates)
  std::vector<std::string> vendor_names;  // with vendors: only these (empty: every vendor)

  Dataset load() const {
    const Dataset d = load_measured();
    return vendors ? with_vendor_candidates(d, vendor_names) : d;
  }

  Dataset load_measured() const {
    long_csv.check();
    if (long_csv.given())
      return dataset_from_measurements(long_csv.read(data, device, family), device, family);
    if (data.ends_with(".json") || data.ends_with(".json.gz")) {
      // A foreign T4 file whose metadata names no device is labelled by --device/--family.
      T4ImportOptions o{device, family, "", {}, true};
      const auto ms = read_t4(data, o);
      if (ms.empty()) throw Error(fmt::format("dataset '{}' holds no measurements", data));
      return dataset_from_measurements(ms, device, family);
    }
    return load_dataset(data, device, family);
  }

  static void add_vendors_option(CLI::App& sub, bool& vendors, std::vector<std::string>& names) {
    CLI::Option* flag =
        sub.add_flag("--vendors", vendors,
                     "The vendor libraries' rows as candidates (config 'vendor=<name>'): "
                     "prunable, selectable and shippable like any config");
    sub.add_option("--vendor-names", names,
                   "With --vendors: only these vendors' rows (comma-separated names, e.g. the "
                   "ones the deployed library can call)")
        ->delimiter(',')
        ->needs(flag);
  }

  // eval declares --data/--device/--family itself (it takes several --data); the rest need this.
  void add_options(CLI::App& sub) {
    sub.add_option("--data", data,
                   "Store (.sqlite), exported measurements (.csv, .csv.gz), or a foreign long CSV "
                   "with --problem-cols")
        ->required();
    sub.add_option("--device", device, "Device slug (needed when the data holds several)");
    sub.add_option("--family", family, "Kernel family (needed when the data holds several)");
    add_vendors_option(sub, vendors, vendor_names);
    long_csv.add_options(sub);
  }
};

}  // namespace ktune::cli
