// A read-only SQLite connection to a WAL database creates the -wal and -shm files beside it and,
// not allowed to checkpoint, never deletes them: every export or merge left an empty -wal and a
// -shm beside its inputs. Only files this reader made are removed, and only when no other
// connection uses them (a writer's -wal must never disappear under it).
#include "store_side_files.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

namespace ktune {

namespace fs = std::filesystem;

SideFiles side_files_of(const std::string& path) {
  std::error_code ec;
  return {fs::exists(path + "-wal", ec), fs::exists(path + "-shm", ec)};
}

void remove_reader_side_files(const std::string& path, SideFiles before) {
  if (before.wal || before.shm) return;  // another connection's, or a killed writer's
  const SideFiles now = side_files_of(path);
  if (!now.wal && !now.shm) return;
  std::error_code ec;
  if (now.wal && (fs::file_size(path + "-wal", ec) != 0 || ec)) return;  // a writer came
  if (::access(path.c_str(), W_OK) == 0) {
    // SQLite removes both when the last connection closes, having made sure under an
    // exclusive lock that it is the last; an empty log changes nothing in the file.
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK)
      sqlite3_exec(db, "SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return;
  }
  // A file this process cannot write has no writer of ours; remove the side files when no
  // other process holds a lock in SQLite's lock range of the file (every connection holds a
  // shared lock there while it is open).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0x40000000;  // SQLite's PENDING_BYTE, then RESERVED and the SHARED range
  probe.l_len = 512;
  const bool unused = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type == F_UNLCK;
  ::close(fd);
  if (!unused) return;
  fs::remove(path + "-wal", ec);
  fs::remove(path + "-shm", ec);
}

}  // namespace ktune
