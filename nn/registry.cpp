#include "ktune/nn/registry.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "ktune/error.hpp"

namespace ktune::nn {

namespace {

struct Entry {
  std::string summary;
  BackendFactory make;
};

struct Table {
  std::mutex mutex;
  std::map<std::string, Entry> entries;
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

void register_backend(const std::string& name, const std::string& summary, BackendFactory make) {
  auto& t = table();
  const std::lock_guard lock(t.mutex);
  t.entries[name] = Entry{summary, std::move(make)};
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  auto& t = table();
  BackendFactory make;
  {
    const std::lock_guard lock(t.mutex);
    const auto it = t.entries.find(name);
    if (it == t.entries.end()) {
      std::string known;
      for (const auto& [n, e] : t.entries) known += (known.empty() ? "" : ", ") + n;
      throw Error(fmt::format("unknown backend '{}' (known: {})", name, known));
    }
    make = it->second.make;
  }
  return make();
}

std::vector<std::pair<std::string, std::string>> backend_list() {
  auto& t = table();
  const std::lock_guard lock(t.mutex);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, e] : t.entries) out.emplace_back(n, e.summary);
  return out;
}

}  // namespace ktune::nn
