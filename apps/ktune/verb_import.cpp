// ktune import: measurements from ktune CSV, T4 JSON, Kernel Tuner cache files, foreign long
// CSV or a tune-and-remember cache (ktune/remember.hpp) into a store. The whole file is parsed
// before the store is opened, so bad input never leaves a partial import.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "apps/ktune/long_csv_args.hpp"
#include "apps/ktune/remembered_import.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/import_duplicates.hpp"
#include "ktune/interchange.hpp"
#include "ktune/store.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {

namespace {

struct ImportArgs {
  std::string store, csv, t4, kernel_tuner, remembered, device, family, problem;
  LongCsvArgs long_csv;  // foreign long CSV (see ktune/ml/csv_import.hpp)
  std::string objective, direction;
  std::string tags_from;  // a workload whose problems' tags the imported problems get
};

const std::string& input_of(const ImportArgs& a) {
  if (!a.remembered.empty()) return a.remembered;
  return !a.t4.empty() ? a.t4 : !a.kernel_tuner.empty() ? a.kernel_tuner : a.csv;
}

ImportObjective objective_of(const ImportArgs& a) {
  ImportObjective o{a.objective, 0};
  if (a.direction == "max") o.direction = 1;
  if (a.direction == "min") o.direction = -1;
  return o;
}

// Data measured before tags were stored (or foreign data) gets them from a workload of its
// family: each imported problem that the workload holds takes that problem's tags.
void add_workload_tags(std::vector<Measurement>& ms, const std::string& workload) {
  register_builtin();
  std::map<std::string, std::map<std::string, std::vector<std::string>>> by_family;
  for (auto& m : ms) {
    if (!by_family.count(m.family)) {
      auto& tags = by_family[m.family];
      for (const auto& p : load_workload(find_family(m.family), workload).problems)
        tags[p.key()] = p.tags;
    }
    const auto& tags = by_family[m.family];
    const auto it = tags.find(m.problem);
    if (it == tags.end()) continue;
    std::set<std::string> all(m.tags.begin(), m.tags.end());
    all.insert(it->second.begin(), it->second.end());
    m.tags.assign(all.begin(), all.end());
  }
}

std::vector<Measurement> read_input(const ImportArgs& a) {
  if (!a.t4.empty()) return read_t4(a.t4, {a.device, a.family, a.problem, objective_of(a), false});
  if (!a.kernel_tuner.empty())
    return read_kernel_tuner(a.kernel_tuner, {a.device, a.family, a.problem, objective_of(a)});
  if (a.long_csv.given()) return a.long_csv.read(a.csv, a.device, a.family);
  std::vector<Measurement> ms =
      a.remembered.empty() ? read_measurements_csv(a.csv) : remembered_measurements(a.remembered);
  for (auto& m : ms) {  // relabel on request, as for T4
    if (!a.device.empty()) m.device = a.device;
    if (!a.family.empty()) m.family = a.family;
    if (!a.problem.empty()) m.problem = a.problem;
  }
  return ms;
}

void check_args(const ImportArgs& a) {
  if (a.csv.empty() + a.t4.empty() + a.kernel_tuner.empty() + a.remembered.empty() != 3)
    throw Error(
        "import needs exactly one of --csv FILE, --t4 FILE, --kernel-tuner FILE and "
        "--remembered FILE");
  a.long_csv.check();
  if (a.long_csv.given()) {
    if (a.csv.empty()) throw Error("--problem-cols describes a CSV file: pass it with --csv");
    if (!a.problem.empty()) throw Error("--problem does not apply with --problem-cols");
  }
  if (!a.direction.empty() && a.direction != "min" && a.direction != "max")
    throw Error("--direction must be min or max, not '" + a.direction + "'");
  if ((!a.objective.empty() || !a.direction.empty()) && a.t4.empty() && a.kernel_tuner.empty())
    throw Error("--objective and --direction apply to --t4 and --kernel-tuner files");
}

int run_import(const ImportArgs& a) {
  check_args(a);
  std::vector<Measurement> ms = read_input(a);
  if (!a.tags_from.empty()) add_workload_tags(ms, a.tags_from);
  const size_t duplicates = fold_duplicate_keys(ms);
  Store store(a.store, Store::Mode::read_write);
  const size_t added = store.put_all(ms);
  std::printf("imported %s into %s: %zu added, %zu skipped (already stored)", input_of(a).c_str(),
              a.store.c_str(), added, ms.size() - added);
  if (duplicates > 0)
    std::printf(
        ", %zu duplicate%s of a row in the file (same configuration; the first kept, the "
        "other records in its source)",
        duplicates, duplicates == 1 ? "" : "s");
  std::printf("\n");
  return 0;
}

void import_options(CLI::App& sub, ImportArgs& a) {
  sub.add_option("--store", a.store, "Tuning store (SQLite) to add to; created if missing")
      ->required();
  auto* csv = sub.add_option("--csv", a.csv,
                             "ktune CSV (.csv or .csv.gz), or a foreign long "
                             "CSV with --problem-cols");
  auto* t4 = sub.add_option("--t4", a.t4, "T4 results JSON (.json or .json.gz)");
  auto* kt = sub.add_option("--kernel-tuner", a.kernel_tuner,
                            "Kernel Tuner cache file (JSON, also left unclosed by a cut run)");
  sub.add_option("--remembered", a.remembered,
                 "Tune-and-remember cache of a deployed library (KTUNE_REMEMBER): every "
                 "candidate it timed");
  csv->excludes(t4);  // CLI11 rejects pairs; check_args rejects none
  csv->excludes(kt);
  t4->excludes(kt);
  sub.add_option("--device", a.device, "Record the rows under this device slug");
  sub.add_option("--family", a.family, "Record the rows under this kernel family");
  sub.add_option("--problem", a.problem, "Record the rows under this problem key");
  a.long_csv.add_options(sub);
  sub.add_option("--objective", a.objective,
                 "T4 / Kernel Tuner: the observable that ranks configs (default: the file's)");
  sub.add_option("--direction", a.direction,
                 "min or max: whether lower or higher --objective is better (default: Kernel "
                 "Tuner's for known names; time is min)");
  sub.add_option("--tags-from", a.tags_from,
                 "Give each imported problem the tags (e.g. networks) of the same problem in "
                 "this workload of its family");
}

const bool verb_import_registered = add_verb(
    "import",
    "Add measurements from CSV, T4 JSON, Kernel Tuner or tune-and-remember caches to a store",
    import_options, run_import);

}  // namespace

}  // namespace ktune::cli
