// ktune report: per-shape best config (oracle over the swept space) against the vendor library,
// as the gemm-vs-vendor CSV, plus geometric-mean ratios overall and per network.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>

#include "apps/ktune/verb.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/error.hpp"
#include "ktune/store.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

struct ReportOptions {
  std::string store, device, workload = "dnn", csv, markdown;
};

struct ShapePerf {
  double oracle = 0, vendor = 0;
};

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
  const Family& family = find_family("gemm");
  const Workload workload = load_workload(family, o.workload);
  Store store(o.store, Store::Mode::read_only);
  std::string device = o.device;
  if (device.empty()) {
    const auto devices = store.devices();
    if (devices.size() != 1)
      throw Error(fmt::format("store '{}' holds {} devices: name one with --device", o.store,
                              devices.size()));
    device = devices[0].slug;
  }
  std::map<std::string, ShapePerf> perf;
  for (const auto& m : store.query(device, family.name())) {
    if (m.outcome.status != Status::ok) continue;
    ShapePerf& p = perf[m.problem];
    if (m.config_id < 0)
      p.vendor = std::max(p.vendor, m.perf);
    else
      p.oracle = std::max(p.oracle, m.perf);
  }
  if (perf.empty())
    throw Error(
        fmt::format("store '{}' has no ok gemm measurements for device '{}'", o.store, device));

  std::string csv =
      "network,transa,transb,m,n,k,batch,oracle_gflops,deployed_gflops,vendor_gflops\n";
  std::map<std::string, std::vector<std::pair<double, double>>> per_network;
  std::vector<std::pair<double, double>> all;
  size_t missing = 0;
  for (const auto& p : workload.problems) {
    auto it = perf.find(p.key());
    if (it == perf.end()) {
      ++missing;
      continue;
    }
    const gemm::Shape s = gemm::shape_of(p);
    all.emplace_back(it->second.oracle, it->second.vendor);
    std::vector<std::string> nets =
        p.tags.empty() ? std::vector<std::string>{workload.name} : p.tags;
    for (const auto& net : nets) {
      per_network[net].emplace_back(it->second.oracle, it->second.vendor);
      csv += fmt::format("{},{},{},{},{},{},{},{:.3f},,{}\n", net, s.transa ? "true" : "false",
                         s.transb ? "true" : "false", s.m, s.n, s.k, s.batch, it->second.oracle,
                         it->second.vendor > 0 ? fmt::format("{:.3f}", it->second.vendor) : "");
    }
  }
  std::string md = fmt::format(
      "Device `{}`: best swept config (oracle) vs vendor library, geometric mean of "
      "oracle/vendor GFLOP/s ratios.\n\n| shapes | count | oracle / vendor |\n|---|---:|---:|\n",
      device);
  size_t used = 0;
  double g = geomean_ratio(all, &used);
  md += fmt::format("| all distinct | {} | {:.3f} |\n", used, g);
  for (const auto& [net, pairs] : per_network) {
    g = geomean_ratio(pairs, &used);
    md += fmt::format("| {} | {} | {:.3f} |\n", net, used, g);
  }
  if (missing)
    md += fmt::format("\n{} workload shapes have no ok measurement in the store.\n", missing);
  if (!o.csv.empty()) {
    std::ofstream out(o.csv);
    if (!(out << csv)) throw Error(fmt::format("cannot write '{}'", o.csv));
  }
  if (!o.markdown.empty()) {
    std::ofstream out(o.markdown);
    if (!(out << md)) throw Error(fmt::format("cannot write '{}'", o.markdown));
  }
  fmt::print("{}", md);
  return 0;
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  app.add_option("--store", o->store, "SQLite tuning store")->required();
  app.add_option("--device", o->device, "Device slug (default: the store's only device)");
  app.add_option("--workload", o->workload, "Workload whose shapes to list")->capture_default_str();
  app.add_option("--csv", o->csv, "Write the gemm-vs-vendor CSV here");
  app.add_option("--markdown", o->markdown, "Write the ratio table here");
  return [o] { return run_report(*o); };
}

const bool registered = add_verb(
    "report", "GEMM oracle vs vendor per shape (gemm-vs-vendor.csv) and geomean ratios", setup);

}  // namespace
}  // namespace ktune::cli
