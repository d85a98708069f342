#include "apps/ktune/demo_vendor.hpp"

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"

namespace ktune::cli::demo {
namespace {

double median(std::vector<double> v) { return spread_of(std::move(v)).median; }

// One shape: the config and each vendor, round after round.
VendorComparison compare_one(const Family& family, Backend& backend, const Problem& problem,
                             const Config& config, size_t rounds, const TimingPolicy& policy) {
  VendorComparison c;
  c.problem = problem.key();
  c.config = family.space().to_string(config);
  auto session = backend.open(problem);
  const std::vector<std::string> vendors = session->vendors();
  if (vendors.empty()) {
    c.note = "no vendor library in this build";
    return c;
  }
  const double flops = family.flops(problem);
  std::vector<double> ktune_ms, ratios;
  std::map<std::string, std::vector<double>> vendor_ms;
  for (size_t r = 0; r < rounds; ++r) {
    // The config follows the previous round's vendors: the same pause their threads get.
    std::this_thread::sleep_for(
        std::chrono::duration<double, std::milli>(kernels::gemm::cpu::kSettleMs));
    const Outcome ours = session->run(config, policy);
    double fastest = 0;
    for (const auto& v : vendors) {
      const Outcome theirs = session->run_vendor(v, policy);
      if (theirs.status != Status::ok) {
        c.note = v + ": " + theirs.message;
        continue;
      }
      vendor_ms[v].push_back(theirs.timing.median_ms);
      if (fastest == 0 || theirs.timing.median_ms < fastest) fastest = theirs.timing.median_ms;
    }
    if (ours.status != Status::ok) {
      c.note = c.config + ": " + ours.message;
      continue;
    }
    ktune_ms.push_back(ours.timing.median_ms);
    if (fastest > 0) ratios.push_back(fastest / ours.timing.median_ms);
  }
  if (!ktune_ms.empty()) c.ktune_gflops = flops / median(ktune_ms) / 1e6;
  for (const auto& [v, ms] : vendor_ms) {
    const double gflops = flops / median(ms) / 1e6;
    if (gflops > c.vendor_gflops) c.vendor_gflops = gflops, c.vendor = v;
  }
  c.ratio = spread_of(std::move(ratios));
  return c;
}

// The first two lines of a text file, gzip-compressed or not ("" past the end).
std::pair<std::string, std::string> first_two_lines(const std::filesystem::path& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (!f) return {};
  std::string lines[2];
  char buf[4096];
  for (auto& line : lines) {
    if (!gzgets(f, buf, sizeof buf)) break;
    line = buf;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  }
  gzclose(f);
  return {lines[0], lines[1]};
}

}  // namespace

std::vector<VendorComparison> compare_with_vendors(const Family& family, Backend& backend,
                                                   const Workload& workload,
                                                   const std::vector<Config>& best, size_t rounds,
                                                   const TimingPolicy& policy) {
  std::vector<VendorComparison> out;
  for (size_t i = 0; i < workload.problems.size(); ++i) {
    if (i >= best.size() || best[i].id < 0) {
      VendorComparison c;
      c.problem = workload.problems[i].key();
      c.note = "no config measured ok yet";
      out.push_back(std::move(c));
      continue;
    }
    out.push_back(compare_one(family, backend, workload.problems[i], best[i], rounds, policy));
  }
  return out;
}

std::vector<std::string> committed_device_slugs(const std::string& dir) {
  std::set<std::string> slugs;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const bool csv = name.ends_with(".csv") || name.ends_with(".csv.gz");
    if (!csv || !it->is_regular_file()) continue;
    const auto [header, first] = first_two_lines(it->path());
    if (!header.starts_with("device,family,problem,") || first.empty()) continue;
    slugs.insert(first.substr(0, first.find(',')));
  }
  return {slugs.begin(), slugs.end()};
}

}  // namespace ktune::cli::demo
