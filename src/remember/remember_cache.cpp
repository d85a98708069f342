#include "src/remember/remember_cache.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <ctime>
#include <stdexcept>

namespace ktune::remember {

namespace {

// PRAGMA application_id of a cache file ("ktrm"): any other database is refused, not altered.
constexpr int kApplicationId = 0x6b74726d;

const char* const kSchema =
    "CREATE TABLE IF NOT EXISTS answers(device TEXT NOT NULL, library TEXT NOT NULL,"
    " problem TEXT NOT NULL, family TEXT NOT NULL, config TEXT NOT NULL, created_at TEXT,"
    " PRIMARY KEY(device, library, problem));"
    "CREATE TABLE IF NOT EXISTS timings(device TEXT NOT NULL, library TEXT NOT NULL,"
    " problem TEXT NOT NULL, family TEXT NOT NULL, config TEXT NOT NULL, median_ms REAL,"
    " min_ms REAL, max_ms REAL, mad_ms REAL, reps INTEGER, created_at TEXT,"
    " PRIMARY KEY(device, library, problem, config));";

[[noreturn]] void fail(sqlite3* db, const std::string& path) {
  throw std::runtime_error(path + ": " + (db ? sqlite3_errmsg(db) : "cannot open"));
}

void exec(sqlite3* db, const std::string& path, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, path);
}

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail(db, path);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& text(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& integer(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& real(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  bool row() {  // true while a row is available
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail(db_, path_);
    return false;
  }
  void run() {
    while (row()) {
    }
    sqlite3_reset(stmt_);
  }
  std::string column_text(int i) {
    const auto* t = sqlite3_column_text(stmt_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double column_real(int i) { return sqlite3_column_double(stmt_, i); }
  int column_int(int i) { return sqlite3_column_int(stmt_, i); }

 private:
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

std::unique_ptr<Cache> Cache::open(const std::string& path, bool read_only) {
  sqlite3* db = nullptr;
  const int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "cannot open";
    sqlite3_close(db);
    throw std::runtime_error(path + ": " + why);
  }
  std::unique_ptr<Cache> cache(new Cache(db, path));
  sqlite3_busy_timeout(db, 30000);  // another process may be writing
  cache->prepare_schema();
  if (read_only) return cache;
  exec(db, path, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  return cache;
}

Cache::~Cache() { sqlite3_close(db_); }

// Reads before it writes: a file that is not a cache (corrupt, or another database) fails on
// the first read or the application id, and is left as it was.
void Cache::prepare_schema() {
  auto identity = [&] {
    Statement id(db_, path_, "PRAGMA application_id");
    const int app = id.row() ? id.column_int(0) : 0;
    Statement tables(db_, path_, "SELECT count(*) FROM sqlite_master");
    return std::pair<int, int>(app, tables.row() ? tables.column_int(0) : 0);
  };
  auto [app, tables] = identity();
  if (app == kApplicationId) return;
  if (app != 0 || tables != 0)
    throw std::runtime_error(path_ + ": not a ktune remember cache (another SQLite database)");
  if (sqlite3_db_readonly(db_, "main") == 1) return;  // an empty file: nothing to read
  exec(db_, path_, "BEGIN IMMEDIATE");                // two processes may create it at once
  try {
    exec(db_, path_, kSchema);
    exec(db_, path_, ("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str());
    exec(db_, path_, "COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<std::string> Cache::answer(const std::string& device, const std::string& library,
                                         const std::string& problem) {
  Statement q(db_, path_,
              "SELECT config FROM answers WHERE device = ?1 AND library = ?2 AND problem = ?3");
  q.text(1, device).text(2, library).text(3, problem);
  if (q.row()) return q.column_text(0);
  return std::nullopt;
}

std::string Cache::store(const std::vector<RememberedTiming>& timings, const std::string& winner) {
  const RememberedTiming& first = timings.front();
  const std::string now = utc_now();
  exec(db_, path_, "BEGIN IMMEDIATE");
  try {
    Statement t(db_, path_,
                "INSERT OR IGNORE INTO timings(device, library, problem, family, config,"
                " median_ms, min_ms, max_ms, mad_ms, reps, created_at)"
                " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    for (const auto& r : timings) {
      t.text(1, r.device).text(2, r.library).text(3, r.problem).text(4, r.family).text(5, r.config);
      t.real(6, r.median_ms).real(7, r.min_ms).real(8, r.max_ms).real(9, r.mad_ms);
      t.integer(10, r.reps).text(11, now).run();
    }
    Statement a(db_, path_,
                "INSERT OR IGNORE INTO answers(device, library, problem, family, config,"
                " created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    a.text(1, first.device).text(2, first.library).text(3, first.problem).text(4, first.family);
    a.text(5, winner).text(6, now).run();
    exec(db_, path_, "COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return answer(first.device, first.library, first.problem).value_or(winner);
}

std::vector<RememberedTiming> Cache::all() {
  std::vector<RememberedTiming> out;
  Statement q(db_, path_,
              "SELECT t.device, t.library, t.family, t.problem, t.config, t.median_ms, t.min_ms,"
              " t.max_ms, t.mad_ms, t.reps, a.config IS t.config, t.created_at FROM timings t"
              " LEFT JOIN answers a ON a.device = t.device AND a.library = t.library AND"
              " a.problem = t.problem ORDER BY t.device, t.library, t.problem, t.config");
  while (q.row()) {  // the columns in RememberedTiming's order
    RememberedTiming r{q.column_text(0), q.column_text(1),      q.column_text(2),
                       q.column_text(3), q.column_text(4),      q.column_real(5),
                       q.column_real(6), q.column_real(7),      q.column_real(8),
                       q.column_int(9),  q.column_int(10) != 0, q.column_text(11)};
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ktune::remember
