#include "apps/ktune/demo_truth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace ktune::cli::demo {

std::string choose_kind(const std::string& requested, bool build_has_avx512, bool cpu_has_avx512) {
  if (requested != "auto") return requested;
  return build_has_avx512 && cpu_has_avx512 ? "packedz" : "packed";
}

RatioSpread spread_of(std::vector<double> ratios) {
  RatioSpread s;
  if (ratios.empty()) return s;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  s.rounds = n;
  s.lo = ratios.front();
  s.hi = ratios.back();
  s.median = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
  return s;
}

bool within_noise(const RatioSpread& s) {
  return s.rounds < kMinRoundsForClaim || (s.lo <= 1 && 1 <= s.hi);
}

std::string describe(const RatioSpread& s) {
  if (s.rounds < kMinRoundsForClaim)
    return fmt::format("no claim ({} round{})", s.rounds, s.rounds == 1 ? "" : "s");
  // Three significant digits: a ratio far below 1 keeps its size ("0.0042×", not "0.00×").
  const std::string range = fmt::format("{:.3g}–{:.3g} over {} rounds", s.lo, s.hi, s.rounds);
  if (within_noise(s)) return "within noise (" + range + ")";
  return fmt::format("{:.3g}× ({})", s.median, range);
}

std::string sweep_disagreement(double rounds_gflops, double sweep_gflops) {
  if (rounds_gflops <= 0 || sweep_gflops <= 0) return "";
  const double factor = rounds_gflops / sweep_gflops;
  if (factor <= kSweepAgreement && factor >= 1 / kSweepAgreement) return "";
  return fmt::format(
      "the rounds timed this config at {:.3g} GFLOP/s, the sweep at {:.3g} ({:.2f}× apart, more "
      "than {:.2f}×): its ratio is not the one `ktune bench` measures (a busy machine, or the "
      "config slower right after the rounds' idle gaps); compare with `ktune bench`",
      rounds_gflops, sweep_gflops, factor < 1 ? 1 / factor : factor, kSweepAgreement);
}

std::string model_of_slug(const std::string& slug) {
  // The tail "-<digits>c" that query_cpu_device appends (device.cpp).
  const size_t dash = slug.rfind('-');
  if (dash == std::string::npos || slug.size() < dash + 3 || slug.back() != 'c') return slug;
  for (size_t i = dash + 1; i + 1 < slug.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(slug[i]))) return slug;
  return slug.substr(0, dash);
}

CommittedCpu match_committed(const std::string& slug, const std::vector<std::string>& committed) {
  if (std::find(committed.begin(), committed.end(), slug) != committed.end())
    return CommittedCpu::same_cpu;
  const std::string model = model_of_slug(slug);
  for (const auto& c : committed)
    if (model_of_slug(c) == model) return CommittedCpu::same_model;
  return CommittedCpu::none;
}

std::string committed_cpu_note(const std::string& cpu_name, const std::string& slug,
                               const std::vector<std::string>& committed) {
  switch (match_committed(slug, committed)) {
    case CommittedCpu::same_cpu:
      return fmt::format("this CPU ({}, {}) is the one the committed CPU datasets were measured on",
                         cpu_name, slug);
    case CommittedCpu::same_model:
      return fmt::format(
          "committed CPU datasets were measured on this CPU model ({}) with another thread count "
          "than this run's ({}): their timings need not match these",
          cpu_name, slug);
    case CommittedCpu::none:
      break;
  }
  std::string seen;
  for (const auto& c : committed) seen += (seen.empty() ? "" : ", ") + c;
  return fmt::format(
      "no committed dataset was measured on this CPU ({}, {}; results/ holds {}): the figures "
      "of results/ and the README are other machines', only the table above is this one's",
      cpu_name, slug, seen.empty() ? "none" : seen);
}

}  // namespace ktune::cli::demo
