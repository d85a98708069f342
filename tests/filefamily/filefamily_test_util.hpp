#pragma once
// Shared by the file-family tests: the data folder and a private compile cache per process.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ktune/error.hpp"

namespace ktune::testing {

inline std::string filefamily_data(const std::string& name) {
  return std::string(KTUNE_SOURCE_DIR) + "/tests/filefamily/data/" + name;
}

// A fresh KTUNE_CACHE_DIR under the test temp folder: compiles are the test's own.
inline std::string private_cache(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "ktune-cache-" + std::to_string(::getpid()) + "-" + name;
  std::filesystem::remove_all(dir);
  ::setenv("KTUNE_CACHE_DIR", dir.c_str(), 1);
  return dir;
}

// The message of the Error that `call` throws ("no error" when it returns).
template <class Call>
std::string error_message(const Call& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace ktune::testing
