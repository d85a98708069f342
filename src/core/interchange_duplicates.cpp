// Rows of one key within one imported file (import_duplicates.hpp).
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "ktune/import_duplicates.hpp"

namespace ktune {

namespace {

// What is kept of a folded row: its foreign record, or, for a row without one, its outcome.
nlohmann::ordered_json record_of(const Measurement& m) {
  if (!m.source.empty()) {
    auto parsed = nlohmann::ordered_json::parse(m.source, nullptr, false);
    if (!parsed.is_discarded()) return parsed;
  }
  return {{"status", std::string(to_string(m.outcome.status))},
          {"median_ms", m.outcome.timing.median_ms},
          {"min_ms", m.outcome.timing.min_ms},
          {"reps", m.outcome.timing.reps},
          {"perf", m.perf},
          {"message", m.outcome.message}};
}

}  // namespace

size_t fold_duplicate_keys(std::vector<Measurement>& ms) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> first;
  std::map<size_t, nlohmann::ordered_json> folded;  // index of the kept row → records folded
  std::vector<Measurement> kept;
  kept.reserve(ms.size());
  for (auto& m : ms) {
    const auto [it, added] =
        first.emplace(std::tuple(m.device, m.family, m.problem, m.config), kept.size());
    if (added)
      kept.push_back(std::move(m));
    else
      folded[it->second].push_back(record_of(m));
  }
  const size_t count = ms.size() - kept.size();
  for (auto& [index, records] : folded) {
    Measurement& m = kept[index];
    nlohmann::ordered_json source = nlohmann::ordered_json::object();
    if (!m.source.empty()) {
      auto parsed = nlohmann::ordered_json::parse(m.source, nullptr, false);
      if (parsed.is_object()) source = std::move(parsed);
    }
    source["duplicates"] = std::move(records);
    m.source = source.dump();
  }
  ms = std::move(kept);
  return count;
}

}  // namespace ktune
