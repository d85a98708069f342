#pragma once
// The -wal and -shm files SQLite makes beside a WAL store, as readers leave them. Internal to
// ktune_core (store.cpp).
#include <string>

namespace ktune {

struct SideFiles {
  bool wal = false, shm = false;
};
SideFiles side_files_of(const std::string& path);

// After a reader closed: removes the empty -wal and the -shm it made beside path (absent when
// it opened, `before`), unless another connection uses them now.
void remove_reader_side_files(const std::string& path, SideFiles before);

}  // namespace ktune
