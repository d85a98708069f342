#include "ktune/store_merge.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <map>

#include "ktune/error.hpp"
#include "ktune/provenance.hpp"
#include "ktune/store.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct Contents {
  std::map<std::string, std::string> records;
  std::vector<DeviceInfo> devices;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> tags;
  std::vector<Measurement> measurements;
};

// role: "merge input" or "merge output", as the error calls the path.
Contents read_store(const std::string& path, const char* role = "merge input") {
  if (!fs::is_regular_file(path))
    throw Error(fmt::format("{} '{}' is not a store file{}", role, path,
                            fs::is_directory(path) ? " (a directory)" : ""));
  const Store store(path, Store::Mode::read_only);
  return {store.records(), store.devices(), store.problem_tags(), store.query()};
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

// One config string must name one config id everywhere (catches stores made before records).
void check_config_ids(std::map<std::pair<std::string, std::string>, int64_t>& ids,
                      const std::vector<Measurement>& ms, const std::string& path) {
  for (const auto& m : ms) {
    const auto [it, added] = ids.emplace(std::pair{m.family, m.config}, m.config_id);
    if (!added && it->second != m.config_id)
      throw Error(fmt::format(
          "merge input '{}': {} config '{}' has id {} there but {} in an earlier store: "
          "different config spaces do not mix",
          path, m.family, m.config, m.config_id, it->second));
  }
}

void write_into(Store& store, const std::vector<Contents>& inputs, MergeSummary& summary) {
  for (const auto& in : inputs) {
    for (const auto& [key, value] : in.records) store.put_record(key, value);
    for (const auto& d : in.devices) store.put_device(d);
    std::map<std::string, std::map<std::string, std::vector<std::string>>> by_family;
    for (const auto& [key, tags] : in.tags) by_family[key.first][key.second] = tags;
    for (const auto& [family, tags] : by_family) store.put_tags(family, tags);
  }
  std::vector<Measurement> all;
  for (const auto& in : inputs)
    all.insert(all.end(), in.measurements.begin(), in.measurements.end());
  summary.added = store.put_all(all);  // one transaction
  summary.duplicates = summary.read - summary.added;
}

void remove_store_files(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
}

// What a merge killed before it renamed its output (kill -9, OOM) left beside it: out's
// ".merging-PID" files of processes that no longer run.
void remove_stale_partials(const std::string& out) {
  const fs::path dir = fs::path(out).parent_path().empty() ? "." : fs::path(out).parent_path();
  const std::string prefix = fs::path(out).filename().string() + ".merging-";
  std::error_code ec;
  std::vector<std::string> stale;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const size_t digits = rest.find_first_not_of("0123456789");
    const std::string pid = rest.substr(0, digits);
    const std::string suffix = digits == std::string::npos ? "" : rest.substr(digits);
    if (pid.empty() || pid.size() > 9 ||
        (suffix != "" && suffix != "-wal" && suffix != "-shm" && suffix != "-journal"))
      continue;
    if (::kill(static_cast<pid_t>(std::stol(pid)), 0) == 0 || errno != ESRCH) continue;  // alive
    stale.push_back(entry.path().string());
  }
  for (const auto& path : stale) fs::remove(path, ec);
}

// Errors about the partial output name the output the user asked for.
Error about_output(const Error& e, const std::string& partial, const std::string& out) {
  std::string msg = e.what();
  for (size_t at; (at = msg.find(partial)) != std::string::npos;)
    msg.replace(at, partial.size(), out);
  return Error(msg);
}

}  // namespace

MergeSummary merge_stores(const std::string& out, const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw Error("merge: give at least one input store");
  // Read and check everything before the output is opened for writing.
  std::vector<Contents> contents;
  std::map<std::string, std::string> records;  // the union, each key from its first holder
  std::map<std::string, std::string> holder;   // key -> the store that recorded it first
  std::map<std::pair<std::string, std::string>, int64_t> ids;
  MergeSummary summary;
  auto check = [&](const Contents& c, const std::string& path) {
    for (const auto& [key, value] : c.records) {
      const auto it = records.find(key);
      if (it != records.end())
        check_records_agree({{key, it->second}}, {{key, value}}, path,
                            fmt::format("'{}'", holder[key]));
      records.emplace(key, value);
      holder.emplace(key, path);
    }
    check_config_ids(ids, c.measurements, path);
  };
  const bool out_exists = fs::exists(out);
  if (out_exists) check(read_store(out, "merge output"), out);
  for (const auto& path : inputs) {
    if (same_file(path, out))
      throw Error(fmt::format("merge input '{}' is the output store", path));
    contents.push_back(read_store(path));
    check(contents.back(), path);
    summary.read += contents.back().measurements.size();
  }

  if (out_exists) {
    Store store(out);
    write_into(store, contents, summary);
    return summary;
  }
  // A new output is built beside its final name and renamed once complete.
  remove_stale_partials(out);
  const std::string partial = fmt::format("{}.merging-{}", out, ::getpid());
  try {
    {
      Store store(partial);
      write_into(store, contents, summary);
    }  // closing folds the WAL into the file
    std::error_code ec;
    fs::rename(partial, out, ec);
    if (ec) throw Error(fmt::format("merge: cannot create '{}': {}", out, ec.message()));
  } catch (const Error& e) {
    remove_store_files(partial);
    throw about_output(e, partial, out);
  } catch (...) {
    remove_store_files(partial);
    throw;
  }
  return summary;
}

}  // namespace ktune
