#include "ktune/bench.hpp"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <map>
#include <sstream>

#include "ktune/error.hpp"
#include "ktune/strict_number.hpp"

namespace ktune {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

struct Pending {
  const Config* config;  // null for a vendor pseudo-config
  std::string name;
};

}  // namespace

Shard Shard::parse(const std::string& text) {
  const size_t slash = text.find('/');
  const std::string_view all(text);
  const std::string_view after =
      slash == std::string::npos ? std::string_view() : all.substr(slash + 1);
  const int64_t index = parse_int64(all.substr(0, slash), 0, INT32_MAX).value_or(-1);
  const int64_t count = parse_int64(after, 1, INT32_MAX).value_or(0);
  if (index < 0 || count < 1 || index >= count)
    throw Error(fmt::format("shard '{}' is not i/N with 0 <= i < N", text));
  Shard s;
  s.index = static_cast<int>(index);
  s.count = static_cast<int>(count);
  return s;
}

std::vector<Config> parse_config_list(const Space& space, const std::string& text) {
  if (text == "all") return space.enumerate();
  std::vector<Config> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (item.rfind("kind:", 0) == 0) {  // every config of one kind
      const std::string kind = item.substr(5);
      const size_t before = out.size();
      for (Config& c : space.enumerate())
        if (space.kind_name(c) == kind) out.push_back(std::move(c));
      if (out.size() == before)
        throw Error(fmt::format("config list item '{}': the {} space has no kind '{}'", item,
                                space.family(), kind));
      continue;
    }
    Config c = space.parse(item);
    if (auto why = space.violates(c))
      throw Error(
          fmt::format("config '{}' is not in the {} space: {}", item, space.family(), *why));
    out.push_back(std::move(c));
  }
  if (out.empty()) throw Error(fmt::format("config list '{}' names no config", text));
  return out;
}

SweepSummary run_sweep(const Family& family, Backend& backend, const Workload& workload,
                       Store& store, const SweepOptions& options) {
  const Space& space = family.space();
  // A family's kinds may be backend-specific (a CPU-only kernel): the others are not part of
  // this device's space and are neither run nor recorded.
  std::vector<Config> configs;
  for (const Config& c : options.configs.empty() ? space.enumerate() : options.configs)
    if (backend.implements(c)) configs.push_back(c);
  if (configs.empty())
    throw Error(fmt::format("none of the requested {} configs has a kernel on device '{}'",
                            space.family(), backend.device().slug));
  const DeviceInfo& device = backend.device();
  store.put_device(device);
  const auto existing = store.keys(device.slug, family.name());

  // Plan: every (problem, config) of this shard that the store does not hold yet.
  SweepSummary summary;
  std::vector<std::pair<const Problem*, std::vector<Pending>>> plan;
  std::vector<Config> to_prepare;
  std::vector<bool> prepare_seen(size_t(space.product_size()), false);
  std::map<std::string, std::vector<std::string>> tags;  // stored even for measured problems
  for (size_t i = 0; i < workload.problems.size(); ++i) {
    if (int(i % size_t(options.shard.count)) != options.shard.index) continue;
    const Problem& problem = workload.problems[i];
    const std::string key = problem.key();
    if (!problem.tags.empty()) tags[key] = problem.tags;
    std::vector<Pending> pending;
    auto consider = [&](const Config* c, std::string name) {
      ++summary.planned;
      if (existing.count({device.slug, family.name(), key, name})) {
        ++summary.skipped_existing;
        return;
      }
      if (c && !prepare_seen[size_t(c->id)]) {
        prepare_seen[size_t(c->id)] = true;
        to_prepare.push_back(*c);
      }
      pending.push_back({c, std::move(name)});
    };
    for (const auto& c : configs) consider(&c, space.to_string(c));
    if (options.vendors) {
      // Vendors are only known once a session exists; they are cheap, so ask a backend-level
      // session lazily below and plan them by name here.
      pending.push_back({nullptr, ""});
    }
    plan.emplace_back(&problem, std::move(pending));
  }

  store.put_tags(family.name(), tags);
  backend.prepare(to_prepare);

  g_interrupted = 0;
  auto previous_handler = std::signal(SIGINT, on_interrupt);
  const auto start = std::chrono::steady_clock::now();
  size_t done = 0;
  const size_t total = summary.planned - summary.skipped_existing;
  auto out_of_budget = [&] {
    if (!options.budget_ms) return false;
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return elapsed > *options.budget_ms;
  };

  for (auto& [problem, pending] : plan) {
    if (g_interrupted || summary.budget_exhausted) break;
    bool has_work = false;
    for (const auto& p : pending) has_work |= (p.config != nullptr || options.vendors);
    if (!has_work) continue;
    const std::string key = problem->key();
    std::unique_ptr<ProblemSession> session;
    std::string open_error;
    try {
      session = backend.open(*problem);
    } catch (const std::exception& e) {
      open_error = e.what();
    }
    // Expand the vendor placeholder now that the session can name its vendors.
    std::vector<Pending> work;
    for (auto& p : pending) {
      if (p.config) {
        work.push_back(p);
      } else if (session) {
        for (const auto& v : session->vendors()) {
          if (existing.count({device.slug, family.name(), key, v})) continue;
          work.push_back({nullptr, v});
        }
      }
    }
    for (const auto& p : work) {
      if (g_interrupted) break;
      if (out_of_budget()) {
        summary.budget_exhausted = true;
        break;
      }
      Measurement m;
      m.device = device.slug;
      m.family = family.name();
      m.problem = key;
      m.config = p.name;
      m.config_id = p.config ? p.config->id : -1;
      m.vendor = !p.config;
      if (!session) {
        m.outcome.status = Status::failed;
        m.outcome.message = "could not open problem: " + open_error;
      } else if (p.config) {
        if (auto why = space.violates(*p.config)) {
          m.outcome.status = Status::refused;
          m.outcome.message = *why;
        } else {
          m.outcome = session->run(*p.config, options.timing);
        }
      } else {
        m.outcome = session->run_vendor(p.name, options.timing);
      }
      if (m.outcome.status == Status::ok && m.outcome.timing.median_ms > 0)
        m.perf = family.flops(*problem) / m.outcome.timing.median_ms / 1e6;  // GFLOP/s
      store.put(m);
      ++summary.measured;
      ++summary.by_status[m.outcome.status];
      ++done;
      if (options.on_progress) options.on_progress(done, std::max(total, done), m);
    }
  }
  std::signal(SIGINT, previous_handler);
  if (g_interrupted)
    throw Error(
        fmt::format("interrupted after {} new measurements; all are stored in '{}', "
                    "rerun the same command to resume",
                    summary.measured, store.path()));
  return summary;
}

}  // namespace ktune
