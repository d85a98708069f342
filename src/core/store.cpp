#include "ktune/store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "ktune/error.hpp"
#include "store_side_files.hpp"

namespace ktune {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', 'ktune-store-1');
CREATE TABLE IF NOT EXISTS devices(
  slug TEXT PRIMARY KEY, spec TEXT NOT NULL, backend TEXT NOT NULL, name TEXT NOT NULL,
  features TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS measurements(
  id INTEGER PRIMARY KEY,
  device TEXT NOT NULL, family TEXT NOT NULL, problem TEXT NOT NULL, config TEXT NOT NULL,
  config_id INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'refused', 'failed', 'wrong', 'timeout')),
  median_ms REAL NOT NULL, min_ms REAL NOT NULL, max_ms REAL NOT NULL, mad_ms REAL NOT NULL,
  reps INTEGER NOT NULL, perf REAL NOT NULL, rel_error REAL NOT NULL, message TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (device, family, problem, config));
CREATE TABLE IF NOT EXISTS sources(
  measurement_id INTEGER PRIMARY KEY REFERENCES measurements(id), json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS superseded(
  measurement_id INTEGER PRIMARY KEY REFERENCES measurements(id),
  status TEXT NOT NULL, median_ms REAL NOT NULL, min_ms REAL NOT NULL, max_ms REAL NOT NULL,
  mad_ms REAL NOT NULL, reps INTEGER NOT NULL, perf REAL NOT NULL, rel_error REAL NOT NULL,
  message TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS problem_tags(
  family TEXT NOT NULL, problem TEXT NOT NULL, tag TEXT NOT NULL,
  PRIMARY KEY (family, problem, tag));
)sql";
// problem_tags and superseded came after the first stores: opening an older store read-write
// adds them (CREATE TABLE IF NOT EXISTS above); read-only, a store without them simply has no
// tags and no superseded rows.

// What a statement throws when another connection holds the lock it needs (retried by the
// store's setup; during a sweep the busy timeout waits instead).
class BusyError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] void fail(sqlite3* db, const std::string& path, const std::string& msg) {
  if (sqlite3_errcode(db) == SQLITE_BUSY || sqlite3_errcode(db) == SQLITE_LOCKED)
    throw BusyError(fmt::format("store '{}': {}", path, msg));
  throw Error(fmt::format("store '{}': {}", path, msg));
}

// RAII statement: prepare, bind, step, finalize.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      fail(db, path, sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  bool step() {  // true while a row is available
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, path_, sqlite3_errmsg(db_));
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string text(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : "";
  }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  const std::string& path_;
};

void exec(sqlite3* db, const char* sql, const std::string& path) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    fail(db, path, msg);
  }
}

// Opens a connection to target (a path, or a file: URI with SQLITE_OPEN_URI in flags) with
// errors naming path (no I/O yet: SQLite reads the file at the first statement).
sqlite3* open_connection(const std::string& target, const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(target.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error(fmt::format("cannot open store '{}': {}", path, msg));
  }
  sqlite3_extended_result_codes(db, 0);
  sqlite3_busy_timeout(db, 30000);  // shards of one sweep may write the same file
  return db;
}

// Runs step again while another connection holds the lock it needs and the busy handler gave
// up at once (SQLite does not wait in every case, e.g. while a new file's journal mode is set).
template <class Step>
void retry_while_busy(Step step) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int attempt = 0;; ++attempt) {
    try {
      step();
      return;
    } catch (const BusyError&) {
      if (std::chrono::steady_clock::now() > deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * (attempt % 20)));
    }
  }
}

// An empty file (or a new one) may become a store; anything else must already be one.
void check_is_ktune_store(sqlite3* db, const std::string& path, bool may_be_empty) {
  Statement tables(
      db, "SELECT COUNT(*), SUM(name = 'meta') FROM sqlite_master WHERE type = 'table'", path);
  tables.step();
  const int64_t count = tables.integer(0), has_meta = tables.integer(1);
  if (count == 0 && may_be_empty) return;
  std::error_code ec;
  if (count == 0 && std::filesystem::file_size(path, ec) == 0 && !ec)
    throw Error(fmt::format("'{}' is an empty file, not a ktune store", path));
  const auto refuse = [&] {
    return Error(
        fmt::format("'{}' is a SQLite database but not a ktune store (left unchanged)", path));
  };
  if (has_meta == 0) throw refuse();
  Statement schema(db, "SELECT value FROM meta WHERE key = 'schema'", path);
  if (!schema.step()) throw refuse();
  const std::string version = schema.text(0);
  if (version != "ktune-store-1")
    throw Error(
        fmt::format("store '{}' has schema '{}', this ktune reads 'ktune-store-1'", path, version));
}

// Percent-encodes what a file: URI cannot hold literally.
std::string uri_path(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#')
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out;
}

// A writer killed before it closed (kill -9, OOM) leaves commits in the store's -wal.
bool has_write_ahead_log(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path + "-wal", ec);
  return !ec && size > 0;
}

// Opens a private copy of the store and its -wal (in a new directory of the system's temporary
// directory, returned in dir) where SQLite can build the WAL index the original's directory has
// no room for, and so replays every commit of the log.
sqlite3* open_replayed_copy(const std::string& path, std::string& dir) {
  namespace fs = std::filesystem;
  std::string where;
  try {
    std::string pattern = (fs::temp_directory_path() / "ktune-store-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error(std::strerror(errno));
    dir = pattern;
    const std::string copy = (fs::path(dir) / "store.sqlite").string();
    fs::copy_file(path, copy);
    fs::copy_file(path + "-wal", copy + "-wal");
    where = copy;
  } catch (const std::exception& e) {
    throw Error(fmt::format(
        "store '{}' has a write-ahead log ('{}-wal', left by a writer that did not close) that "
        "cannot be replayed in place (no -shm beside it and the directory is not writable) nor "
        "in a private copy ({}); copy the store and its -wal to a writable directory",
        path, path, e.what()));
  }
  sqlite3* db = open_connection(where, path, SQLITE_OPEN_READWRITE);
  try {
    retry_while_busy([&] { check_is_ktune_store(db, path, false); });
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  return db;
}

// Readers: a plain read-only connection, or, when the store sits on read-only media or in a
// read-only directory (WAL needs its -shm and -wal side files beside it), the immutable form,
// which reads the main file alone. A store is closed cleanly at the end of every writer
// (SQLite then folds the WAL back into the file), so the file alone holds every commit, unless
// the writer was killed: then the -wal holds commits that immutable mode would silently drop,
// and the store is read from a private copy instead (replay_dir names it, for the destructor).
sqlite3* open_reader(const std::string& path, std::string& replay_dir) {
  if (!std::filesystem::exists(path))
    throw Error(fmt::format("cannot open store '{}': no such file", path));
  for (const bool immutable : {false, true}) {
    if (immutable && has_write_ahead_log(path)) return open_replayed_copy(path, replay_dir);
    const std::string uri = "file:" + uri_path(path) + (immutable ? "?immutable=1" : "?mode=ro");
    sqlite3* db = open_connection(uri, path, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    try {
      retry_while_busy([&] { check_is_ktune_store(db, path, false); });
      return db;
    } catch (const Error&) {
      const int code = sqlite3_errcode(db);
      sqlite3_close(db);
      const bool side_files =
          code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_IOERR;
      if (immutable || !side_files) throw;
    }
  }
  throw Error(fmt::format("cannot open store '{}'", path));  // not reached
}

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

constexpr const char* kInsert =
    "INSERT OR IGNORE INTO measurements(device, family, problem, config, config_id, status, "
    "median_ms, min_ms, max_ms, mad_ms, reps, perf, rel_error, message, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr const char* kInsertSource = "INSERT INTO sources(measurement_id, json) VALUES (?, ?)";

constexpr const char* kInsertTag =
    "INSERT OR IGNORE INTO problem_tags(family, problem, tag) VALUES (?, ?, ?)";

void insert_tags(Statement& st, const std::string& family, const std::string& problem,
                 const std::vector<std::string>& tags) {
  for (const auto& tag : tags) {
    st.reset();
    st.bind(1, family);
    st.bind(2, problem);
    st.bind(3, tag);
    st.step();
  }
}

// The result columns of a measurement (status, median_ms, min_ms, max_ms, mad_ms, reps, perf,
// rel_error, message, created_at) bound from parameter `first` on.
void bind_result(Statement& st, int first, const Measurement& m) {
  const Outcome& o = m.outcome;
  st.bind(first, std::string(to_string(o.status)));
  st.bind(first + 1, o.timing.median_ms);
  st.bind(first + 2, o.timing.min_ms);
  st.bind(first + 3, o.timing.max_ms);
  st.bind(first + 4, o.timing.mad_ms);
  st.bind(first + 5, static_cast<int64_t>(o.timing.reps));
  st.bind(first + 6, m.perf);
  st.bind(first + 7, o.rel_error);
  st.bind(first + 8, o.message);
  st.bind(first + 9, m.created_at.empty() ? utc_now() : m.created_at);
}

bool insert(sqlite3* db, Statement& st, Statement& source, const Measurement& m) {
  st.reset();
  st.bind(1, m.device);
  st.bind(2, m.family);
  st.bind(3, m.problem);
  st.bind(4, m.config);
  st.bind(5, stored_config_id(m));
  bind_result(st, 6, m);
  st.step();
  if (sqlite3_changes(db) == 0) return false;
  if (!m.source.empty()) {  // imported rows keep their foreign record (measurement.hpp)
    source.reset();
    source.bind(1, static_cast<int64_t>(sqlite3_last_insert_rowid(db)));
    source.bind(2, m.source);
    source.step();
  }
  return true;
}

// A measurement from a row whose first columns are device, family, problem, config, config_id,
// status, median_ms, min_ms, max_ms, mad_ms, reps, perf, rel_error, message, created_at.
Measurement measurement_of(const Statement& st) {
  Measurement m;
  m.device = st.text(0);
  m.family = st.text(1);
  m.problem = st.text(2);
  m.config = st.text(3);
  set_stored_config_id(m, st.integer(4));
  m.outcome.status = parse_status(st.text(5));
  m.outcome.timing.median_ms = st.real(6);
  m.outcome.timing.min_ms = st.real(7);
  m.outcome.timing.max_ms = st.real(8);
  m.outcome.timing.mad_ms = st.real(9);
  m.outcome.timing.reps = static_cast<int>(st.integer(10));
  m.perf = st.real(11);
  m.outcome.rel_error = st.real(12);
  m.outcome.message = st.text(13);
  m.created_at = st.text(14);
  return m;
}

}  // namespace

Store::Store(const std::string& path, Mode mode) : path_(path) {
  try {
    if (mode == Mode::read_write) {
      db_ = open_connection(path, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
      // Nothing is written before the file is known to be empty or a ktune store: a failing
      // command must leave somebody else's SQLite file byte-identical.
      retry_while_busy([&] { check_is_ktune_store(db_, path_, true); });
      // WAL: a commit survives the process being killed right after it. Switching needs the
      // file to itself and may answer BUSY without waiting while another shard opens it.
      retry_while_busy(
          [&] { exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", path_); });
      // One transaction with the write lock taken up front, so that shards creating the same
      // new store serialize here instead of failing half-way through the schema.
      retry_while_busy([&] {
        exec(db_, "BEGIN IMMEDIATE", path_);
        try {
          exec(db_, kSchema, path_);
          exec(db_, "COMMIT", path_);
        } catch (...) {
          sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
          throw;
        }
      });
    } else {
      const SideFiles before = side_files_of(path);
      cleanup_ = [path, before] { remove_reader_side_files(path, before); };
      db_ = open_reader(path, replay_dir_);
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    after_close();
    throw;
  }
}

void Store::after_close() {
  std::error_code ec;
  if (!replay_dir_.empty()) std::filesystem::remove_all(replay_dir_, ec);
  if (cleanup_) cleanup_();
}

Store::~Store() {
  sqlite3_close(db_);
  after_close();
}

void Store::put_device(const DeviceInfo& d) {
  Statement st(db_,
               "INSERT INTO devices(slug, spec, backend, name, features) VALUES (?, ?, ?, ?, ?) "
               "ON CONFLICT(slug) DO UPDATE SET spec = excluded.spec, name = excluded.name, "
               "features = excluded.features",
               path_);
  st.bind(1, d.slug);
  st.bind(2, d.spec);
  st.bind(3, d.backend);
  st.bind(4, d.name);
  st.bind(5, d.features_json());
  st.step();
}

std::vector<DeviceInfo> Store::devices() const {
  Statement st(db_, "SELECT slug, spec, backend, name, features FROM devices ORDER BY slug", path_);
  std::vector<DeviceInfo> out;
  while (st.step()) {
    DeviceInfo d;
    d.slug = st.text(0);
    d.spec = st.text(1);
    d.backend = st.text(2);
    d.name = st.text(3);
    const auto features = nlohmann::json::parse(st.text(4), nullptr, false);
    if (!features.is_object())
      throw Error(fmt::format("store '{}': device '{}' has malformed features", path_, d.slug));
    for (const auto& [name, value] : features.items()) {
      if (!value.is_number())
        throw Error(fmt::format("store '{}': device '{}' feature '{}' is not a number", path_,
                                d.slug, name));
      d.features.emplace_back(name, value.get<double>());
    }
    out.push_back(std::move(d));
  }
  return out;
}

bool Store::put(const Measurement& m) {
  if (!m.tags.empty()) put_tags(m.family, m.problem, m.tags);
  if (!m.source.empty()) return put_all({m}) == 1;  // the row and its source, atomically
  Statement st(db_, kInsert, path_);
  Statement source(db_, kInsertSource, path_);
  return insert(db_, st, source, m);  // autocommit: durable as soon as this returns
}

void Store::put_tags(const std::string& family, const std::string& problem,
                     const std::vector<std::string>& tags) {
  Statement st(db_, kInsertTag, path_);
  insert_tags(st, family, problem, tags);
}

void Store::put_tags(const std::string& family,
                     const std::map<std::string, std::vector<std::string>>& tags) {
  if (tags.empty()) return;
  exec(db_, "BEGIN IMMEDIATE", path_);
  try {
    Statement st(db_, kInsertTag, path_);
    for (const auto& [problem, list] : tags) insert_tags(st, family, problem, list);
    exec(db_, "COMMIT", path_);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

size_t Store::put_all(const std::vector<Measurement>& ms) {
  exec(db_, "BEGIN IMMEDIATE", path_);
  size_t added = 0;
  try {
    Statement st(db_, kInsert, path_), tag(db_, kInsertTag, path_);
    Statement source(db_, kInsertSource, path_);
    std::set<std::pair<std::string, std::string>> tagged;  // each problem's tags once
    for (const auto& m : ms) {
      if (!m.tags.empty() && tagged.insert({m.family, m.problem}).second)
        insert_tags(tag, m.family, m.problem, m.tags);
      added += insert(db_, st, source, m) ? 1 : 0;
    }
    exec(db_, "COMMIT", path_);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return added;
}

std::set<MeasurementKey> Store::keys(const std::string& device, const std::string& family) const {
  Statement st(db_, "SELECT problem, config FROM measurements WHERE device = ? AND family = ?",
               path_);
  st.bind(1, device);
  st.bind(2, family);
  std::set<MeasurementKey> out;
  while (st.step()) out.insert({device, family, st.text(0), st.text(1)});
  return out;
}

std::vector<Measurement> Store::query(const std::string& device, const std::string& family) const {
  // A store written before the sources table existed (opened read-only) has no sources.
  Statement has(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sources'",
                path_);
  const bool sources = has.step();
  const std::string sql = fmt::format(
      "SELECT device, family, problem, config, config_id, status, median_ms, min_ms, max_ms, "
      "mad_ms, reps, perf, rel_error, message, created_at, {} FROM measurements {} "
      "WHERE (?1 = '' OR device = ?1) AND (?2 = '' OR family = ?2) ORDER BY id",
      sources ? "sources.json" : "NULL",
      sources ? "LEFT JOIN sources ON sources.measurement_id = measurements.id" : "");
  Statement st(db_, sql.c_str(), path_);
  st.bind(1, device);
  st.bind(2, family);
  const auto tags = problem_tags(family);
  std::vector<Measurement> out;
  while (st.step()) {
    Measurement m = measurement_of(st);
    m.source = st.text(15);
    const auto it = tags.find({m.family, m.problem});
    if (it != tags.end()) m.tags = it->second;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> Store::measured_devices(const std::string& family) const {
  Statement st(db_,
               "SELECT DISTINCT device FROM measurements WHERE ?1 = '' OR family = ?1 ORDER BY "
               "device",
               path_);
  st.bind(1, family);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

std::map<std::pair<std::string, std::string>, std::vector<std::string>> Store::problem_tags(
    const std::string& family) const {
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> out;
  Statement exists(
      db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'problem_tags'", path_);
  if (!exists.step()) return out;  // an older store opened read-only
  Statement st(db_,
               "SELECT family, problem, tag FROM problem_tags WHERE ?1 = '' OR family = ?1 "
               "ORDER BY family, problem, tag",
               path_);
  st.bind(1, family);
  while (st.step()) out[{st.text(0), st.text(1)}].push_back(st.text(2));
  return out;
}

std::map<std::string, std::string> Store::records() const {
  Statement st(db_, "SELECT key, value FROM meta WHERE key <> 'schema' ORDER BY key", path_);
  std::map<std::string, std::string> out;
  while (st.step()) out[st.text(0)] = st.text(1);
  return out;
}

void Store::put_record(const std::string& key, const std::string& value) {
  Statement st(db_,
               "INSERT INTO meta(key, value) VALUES (?, ?) "
               "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
               path_);
  st.bind(1, key);
  st.bind(2, value);
  st.step();
}

size_t Store::supersede(const std::vector<Measurement>& retimed) {
  exec(db_, "BEGIN IMMEDIATE", path_);
  try {
    // The row as it stands, unless an earlier retime of the key already kept the original.
    Statement keep(db_,
                   "INSERT OR IGNORE INTO superseded(measurement_id, status, median_ms, min_ms, "
                   "max_ms, mad_ms, reps, perf, rel_error, message, created_at) SELECT id, "
                   "status, median_ms, min_ms, max_ms, mad_ms, reps, perf, rel_error, message, "
                   "created_at FROM measurements WHERE device = ? AND family = ? AND problem = ? "
                   "AND config = ?",
                   path_);
    Statement update(db_,
                     "UPDATE measurements SET status = ?, median_ms = ?, min_ms = ?, max_ms = ?, "
                     "mad_ms = ?, reps = ?, perf = ?, rel_error = ?, message = ?, created_at = ? "
                     "WHERE device = ? AND family = ? AND problem = ? AND config = ?",
                     path_);
    for (const Measurement& m : retimed) {
      keep.reset();
      const std::string* key[] = {&m.device, &m.family, &m.problem, &m.config};
      for (int i = 0; i < 4; ++i) keep.bind(i + 1, *key[i]);
      keep.step();
      update.reset();
      bind_result(update, 1, m);
      for (int i = 0; i < 4; ++i) update.bind(i + 11, *key[i]);
      update.step();
      if (sqlite3_changes(db_) != 1)
        throw Error(
            fmt::format("store '{}': no stored row of device '{}', {} problem '{}', "
                        "config '{}' to replace",
                        path_, m.device, m.family, m.problem, m.config));
    }
    exec(db_, "COMMIT", path_);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return retimed.size();
}

std::vector<Measurement> Store::superseded(const std::string& device,
                                           const std::string& family) const {
  Statement has(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'superseded'",
                path_);
  if (!has.step()) return {};  // an older store opened read-only
  Statement st(db_,
               "SELECT m.device, m.family, m.problem, m.config, m.config_id, s.status, "
               "s.median_ms, s.min_ms, s.max_ms, s.mad_ms, s.reps, s.perf, s.rel_error, "
               "s.message, s.created_at FROM superseded s JOIN measurements m ON m.id = "
               "s.measurement_id WHERE (?1 = '' OR m.device = ?1) AND (?2 = '' OR m.family = "
               "?2) ORDER BY m.id",
               path_);
  st.bind(1, device);
  st.bind(2, family);
  std::vector<Measurement> out;
  while (st.step()) {
    Measurement m = measurement_of(st);
    out.push_back(std::move(m));
  }
  return out;
}

size_t Store::count() const {
  Statement st(db_, "SELECT COUNT(*) FROM measurements", path_);
  st.step();
  return static_cast<size_t>(st.integer(0));
}

}  // namespace ktune
