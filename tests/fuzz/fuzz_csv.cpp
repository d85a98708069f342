// libFuzzer harness: ktune's long CSV reader and the foreign long CSV importer (CSV records,
// strict numbers, categories, vendor configs). Only ktune::Error may escape the readers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/ml/csv_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ktune::parse_measurements_csv(text, "fuzz.csv");
  } catch (const ktune::Error&) {
  }
  // The column names of the seed corpus (tests/fuzz/corpus/csv).
  ktune::ml::LongCsvOptions by_name;
  by_name.problem_cols = {"m", "dtype"};
  by_name.categorical_cols = {"dtype"};
  by_name.config_col = "kernel";
  by_name.time_col = "time";
  by_name.vendor_configs = {"extern"};
  ktune::ml::LongCsvOptions by_params;
  by_params.problem_cols = {"m", "n"};
  by_params.config_cols = {"bx", "by"};
  by_params.time_col = "gflops";
  by_params.higher_is_better = true;
  for (const auto* o : {&by_name, &by_params}) {
    try {
      ktune::ml::LongCsvReport report;
      const auto ms = ktune::ml::parse_long_csv(text, "fuzz.csv", *o, &report);
      if (report.invalid_rows > report.rows || ms.empty()) __builtin_trap();
    } catch (const ktune::Error&) {
    }
  }
  return 0;
}
