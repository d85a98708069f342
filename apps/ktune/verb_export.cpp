// ktune export: the store (or a device/family slice of it) as ktune CSV or T4 JSON.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/store.hpp"

namespace ktune::cli {

namespace {

struct ExportArgs {
  std::string store, format, output = "-", device, family;
};

int run_export(const ExportArgs& a) {
  if (a.format != "csv" && a.format != "t4")
    throw Error(fmt::format("unknown export format '{}' (expected csv or t4)", a.format));
  // Opening a missing path read-only must not create an empty store there.
  if (!std::filesystem::is_regular_file(a.store))
    throw Error(fmt::format("store '{}' does not exist", a.store));
  Store store(a.store, Store::Mode::read_only);
  const std::vector<Measurement> rows = store.query(a.device, a.family);
  if (a.format == "csv")
    write_measurements_csv(rows, a.output);
  else
    write_t4(rows, a.output);
  std::fprintf(stderr, "ktune: exported %zu measurements from %s to %s (%s)\n", rows.size(),
               a.store.c_str(), a.output == "-" ? "stdout" : a.output.c_str(), a.format.c_str());
  return 0;
}

void export_options(CLI::App& sub, ExportArgs& a) {
  sub.add_option("--store", a.store, "Tuning store (SQLite) to read")->required();
  sub.add_option("--format", a.format, "csv (ktune long CSV) or t4 (T4 results JSON)")->required();
  sub.add_option("-o,--output", a.output,
                 "Output file; a name ending in .gz is gzip-compressed (default: stdout)");
  sub.add_option("--device", a.device, "Only this device's measurements");
  sub.add_option("--family", a.family, "Only this kernel family's measurements");
}

const bool verb_export_registered =
    add_verb("export", "Write stored measurements as CSV or T4 JSON", export_options, run_export);

}  // namespace

}  // namespace ktune::cli
