#pragma once
// The tuning store: SQLite, one row per measurement, each committed as soon as it is taken so
// an interrupted sweep loses nothing finished; resuming skips keys already stored.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ktune/device.hpp"
#include "ktune/measurement.hpp"

struct sqlite3;

namespace ktune {

struct MeasurementKey {
  std::string device, family, problem, config;
  auto operator<=>(const MeasurementKey&) const = default;
};

class Store {
 public:
  enum class Mode { read_only, read_write };
  // Throws Error naming the path when it cannot be opened (or created, in read_write mode),
  // and, leaving the file untouched, when it is a SQLite file but not a ktune store. Several
  // processes may open and write one store at once (shards), even while it is being created.
  // read_only also opens a store on read-only media or in a read-only directory; when a writer
  // was killed there (its -wal holds commits, no -shm), every committed row is still read:
  // from a private copy in the temporary directory, removed again by the destructor.
  explicit Store(const std::string& path, Mode mode = Mode::read_write);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  void put_device(const DeviceInfo& device);  // upsert of the device's features
  std::vector<DeviceInfo> devices() const;
  // Inserts one measurement in its own transaction; a key already present is left unchanged.
  // Returns whether a row was added.
  bool put(const Measurement& m);
  // Many rows in one transaction (imports); same duplicate rule. Returns rows added.
  size_t put_all(const std::vector<Measurement>& ms);
  // Tags of a problem (INSERT OR IGNORE; a store keeps the union of every tag it was given).
  void put_tags(const std::string& family, const std::string& problem,
                const std::vector<std::string>& tags);
  void put_tags(const std::string& family,
                const std::map<std::string, std::vector<std::string>>& tags);  // one transaction
  // (family, problem) → sorted tags; family empty = every family. Empty for a store made
  // before tags existed and opened read-only.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> problem_tags(
      const std::string& family = "") const;
  std::set<MeasurementKey> keys(const std::string& device, const std::string& family) const;
  // All measurements, optionally filtered (empty string = any), ordered by insertion, each with
  // its problem's tags.
  std::vector<Measurement> query(const std::string& device = "",
                                 const std::string& family = "") const;
  size_t count() const;
  // Re-timed rows (ktune retime, retime.hpp), in one transaction: each replaces the stored row
  // of its key after that row was copied to the superseded table, where a key's first
  // measurement stays (a later retime of the key keeps it). A key not stored is an Error naming
  // it (nothing written). Returns the rows replaced.
  size_t supersede(const std::vector<Measurement>& retimed);
  // The original measurements of the rows supersede replaced (device / family empty = any),
  // ordered by insertion; tags are left empty.
  std::vector<Measurement> superseded(const std::string& device = "",
                                      const std::string& family = "") const;
  // Devices with measurements (of family, or of any when empty), sorted: imported stores name
  // their devices only there, not in devices().
  std::vector<std::string> measured_devices(const std::string& family = "") const;

  // What the store records about the code that measured into it (meta rows besides the
  // schema; provenance.hpp names them): key → value, sorted.
  std::map<std::string, std::string> records() const;
  void put_record(const std::string& key, const std::string& value);  // upsert

 private:
  void after_close();  // removes what a reader made: its private copy, its side files
  std::string path_;
  std::string replay_dir_;         // the private copy of a store whose -wal could not be replayed
  std::function<void()> cleanup_;  // a reader: removes the side files it left (store.cpp)
  sqlite3* db_ = nullptr;
};

}  // namespace ktune
