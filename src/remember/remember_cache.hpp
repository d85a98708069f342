#pragma once
// The tune-and-remember cache file: SQLite in WAL mode with a busy timeout, so that threads and
// processes share it without a lock of ours; answers are written INSERT OR IGNORE, so the first
// writer of a (device, library, problem) wins and every later reader serves its answer.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ktune/remember.hpp"

struct sqlite3;

namespace ktune::remember {

class Cache {
 public:
  // Opens (creating when missing) a cache file; throws std::runtime_error "<path>: why" when the
  // file is not a cache (another database, a corrupt file): nothing is written to it then.
  static std::unique_ptr<Cache> open(const std::string& path, bool read_only);
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  std::optional<std::string> answer(const std::string& device, const std::string& library,
                                    const std::string& problem);
  // Stores the timings and `winner` unless an answer is stored already; returns the stored one.
  std::string store(const std::vector<RememberedTiming>& timings, const std::string& winner);
  std::vector<RememberedTiming> all();

 private:
  Cache(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  void prepare_schema();
  sqlite3* db_;
  std::string path_;
};

}  // namespace ktune::remember
