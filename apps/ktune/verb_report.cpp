// ktune report: per-shape best config (oracle over the swept space) against the vendor library,
// as the gemm-vs-vendor CSV, plus geometric-mean ratios overall and per network. With
// --deployed (the CSV of examples/tuned-gemm's tuned_gemm_bench) it adds the deployed tuned
// library, whose vendor figures then come from that same run, side by side with it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "apps/ktune/verb.hpp"
#include "ktune/csv.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"
#include "ktune/strict_number.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

struct ReportOptions {
  std::string store, device, family = "gemm", workload = "dnn", csv, markdown, deployed;
};

struct ShapePerf {
  double oracle = 0, vendor = 0, deployed = 0;
};

// The best ok GFLOP/s per problem of the device: swept configs (oracle) and vendor rows.
std::map<std::string, ShapePerf> sweep_perf(const std::vector<Measurement>& rows,
                                            const std::string& device, const std::string& family) {
  std::map<std::string, ShapePerf> perf;
  for (const auto& m : rows) {
    if (m.device != device || m.family != family || m.outcome.status != Status::ok) continue;
    ShapePerf& p = perf[m.problem];
    if (m.vendor)
      p.vendor = std::max(p.vendor, m.perf);
    else
      p.oracle = std::max(p.oracle, m.perf);
  }
  return perf;
}

// Joins tuned_gemm_bench's rows (problem, ..., deployed_gflops, ..., vendor_gflops) into perf:
// the deployed library and the vendor library measured side by side in that run.
void add_deployed(const std::string& path, std::map<std::string, ShapePerf>& perf) {
  const std::string text = read_text_file(path);
  const auto records = read_csv_records(text, path);
  if (records.empty()) throw Error(fmt::format("'{}' is empty", path));
  const auto& header = records[0].fields;
  auto column = [&](const char* name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw Error(fmt::format("'{}': no column '{}' (not a tuned_gemm_bench CSV)", path, name));
  };
  const size_t problem = column("problem"), status = column("status");
  const size_t deployed = column("deployed_gflops"), vendor = column("vendor_gflops");
  for (size_t r = 1; r < records.size(); ++r) {
    const auto& f = records[r].fields;
    if (f.size() != header.size())
      throw Error(fmt::format("{}:{}: {} fields, the header has {}", path, records[r].line,
                              f.size(), header.size()));
    if (f[status] != "ok") continue;
    // Strict: "12abc" is an error naming the line, not 12.
    auto number = [&](size_t column, const char* name) {
      const auto v = parse_finite_double(f[column]);
      if (!v || *v < 0)
        throw Error(fmt::format("{}:{}: column {}: '{}' is not a non-negative number", path,
                                records[r].line, name, f[column]));
      return *v;
    };
    ShapePerf& p = perf[f[problem]];
    p.deployed = number(deployed, "deployed_gflops");
    p.vendor = f[vendor].empty() ? 0.0 : number(vendor, "vendor_gflops");
  }
}

double geomean_ratio(const std::vector<std::pair<double, double>>& pairs, size_t* used) {
  double log_sum = 0;
  *used = 0;
  for (const auto& [num, den] : pairs) {
    if (num <= 0 || den <= 0) continue;
    log_sum += std::log(num / den);
    ++*used;
  }
  return *used ? std::exp(log_sum / double(*used)) : 0.0;
}

int run_report(const ReportOptions& o) {
  const Family& family = find_family(o.family);
  const Workload workload = load_workload(family, o.workload);
  // A store, or measurements exported from one (.csv, .csv.gz, T4 .json).
  const std::vector<Measurement> rows = load_measurements(o.store, o.device, family.name());
  std::string device = o.device;
  if (device.empty()) {
    // From the measurements: an imported store has none in its devices table.
    std::set<std::string> devices;
    for (const auto& m : rows)
      if (m.family == family.name()) devices.insert(m.device);
    if (devices.empty())
      throw Error(fmt::format("'{}' has no {} measurements", o.store, family.name()));
    if (devices.size() != 1)
      throw Error(fmt::format("'{}' holds {} measurements of {} devices ({}): name one with "
                              "--device",
                              o.store, family.name(), devices.size(), fmt::join(devices, ", ")));
    device = *devices.begin();
  }
  std::map<std::string, ShapePerf> perf = sweep_perf(rows, device, family.name());
  if (perf.empty())
    throw Error(fmt::format("'{}' has no ok {} measurements for device '{}'", o.store,
                            family.name(), device));
  if (!o.deployed.empty()) add_deployed(o.deployed, perf);
  const bool with_deployed = !o.deployed.empty();

  std::string csv = fmt::format("network,{},oracle_gflops,deployed_gflops,vendor_gflops\n",
                                fmt::join(family.feature_names(), ","));
  std::map<std::string, std::vector<std::pair<double, double>>> per_network;
  std::vector<std::pair<double, double>> all;
  // deployed / vendor and deployed / oracle pairs
  std::map<std::string, std::vector<std::pair<double, double>>> dep_vendor_net, dep_oracle_net;
  std::vector<std::pair<double, double>> dep_vendor_all, dep_oracle_all;
  size_t missing = 0;
  for (const auto& p : workload.problems) {
    auto it = perf.find(p.key());
    if (it == perf.end()) {
      ++missing;
      continue;
    }
    std::string features;
    for (size_t i = 0; i < p.names.size(); ++i)
      features += (i ? "," : "") + family.feature_text(p.names[i], p.values[i]);
    const ShapePerf& sp = it->second;
    all.emplace_back(sp.oracle, sp.vendor);
    dep_vendor_all.emplace_back(sp.deployed, sp.vendor);
    dep_oracle_all.emplace_back(sp.deployed, sp.oracle);
    std::vector<std::string> nets =
        p.tags.empty() ? std::vector<std::string>{workload.name} : p.tags;
    for (const auto& net : nets) {
      per_network[net].emplace_back(sp.oracle, sp.vendor);
      dep_vendor_net[net].emplace_back(sp.deployed, sp.vendor);
      dep_oracle_net[net].emplace_back(sp.deployed, sp.oracle);
      csv += fmt::format("{},{},{:.3f},{},{}\n", net, features, sp.oracle,
                         sp.deployed > 0 ? fmt::format("{:.3f}", sp.deployed) : "",
                         sp.vendor > 0 ? fmt::format("{:.3f}", sp.vendor) : "");
    }
  }
  std::string md;
  size_t used = 0;
  if (!with_deployed) {
    md = fmt::format(
        "Device `{}`: best swept config (oracle) vs vendor library, geometric mean of "
        "oracle/vendor GFLOP/s ratios.\n\n| shapes | count | oracle / vendor |\n|---|---:|---:|\n",
        device);
    md += fmt::format("| all distinct | {} | {:.3f} |\n", used, geomean_ratio(all, &used));
    for (const auto& [net, pairs] : per_network)
      md += fmt::format("| {} | {} | {:.3f} |\n", net, used, geomean_ratio(pairs, &used));
  } else {
    md = fmt::format(
        "Device `{}`: the deployed tuned library and the vendor library measured side by side "
        "in one run ({}), against the best swept config per shape (oracle). Geometric means of "
        "the per-shape GFLOP/s ratios.\n\n"
        "| shapes | count | deployed / vendor | deployed % of oracle | oracle / vendor |\n"
        "|---|---:|---:|---:|---:|\n",
        device, o.deployed);
    auto row = [&](const std::string& name, const auto& dv, const auto& dov, const auto& ov) {
      size_t n1 = 0, n2 = 0, n3 = 0;
      const double a = geomean_ratio(dv, &n1), b = geomean_ratio(dov, &n2);
      const double c = geomean_ratio(ov, &n3);
      md += fmt::format("| {} | {} | {:.3f} | {:.1f} % | {:.3f} |\n", name, n1, a, 100 * b, c);
    };
    row("all distinct", dep_vendor_all, dep_oracle_all, all);
    for (const auto& [net, pairs] : per_network)
      row(net, dep_vendor_net[net], dep_oracle_net[net], pairs);
  }
  if (missing)
    md += fmt::format("\n{} workload shapes have no ok measurement in the store.\n", missing);
  if (!o.csv.empty()) write_text_file(o.csv, csv);
  if (!o.markdown.empty()) write_text_file(o.markdown, md);
  fmt::print("{}", md);
  return 0;
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  app.add_option("--store", o->store,
                 "SQLite tuning store, or measurements exported from one (.csv, .csv.gz)")
      ->required();
  app.add_option("--device", o->device, "Device slug (default: the store's only device)");
  app.add_option("--family", o->family, "Kernel family")->capture_default_str();
  app.add_option("--workload", o->workload, "Workload whose shapes to list")->capture_default_str();
  app.add_option("--csv", o->csv, "Write the oracle-vs-vendor CSV here (gemm-vs-vendor.csv)");
  app.add_option("--markdown", o->markdown, "Write the ratio table here");
  app.add_option("--deployed", o->deployed,
                 "Deployed-library measurements (examples/tuned-gemm tuned_gemm_bench --out)");
  return [o] { return run_report(*o); };
}

const bool registered = add_verb(
    "report", "Oracle vs vendor per problem (gemm-vs-vendor.csv) and geomean ratios", setup);

}  // namespace
}  // namespace ktune::cli
