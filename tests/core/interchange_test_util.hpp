#pragma once
// Helpers shared by the interchange tests: a temp dir, raw file bytes, the message of an Error.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"

namespace ktune::test {

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("ktune_interchange_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

inline std::string raw_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_raw(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Import options that only label the rows.
inline T4ImportOptions t4_labels(std::string device, std::string family, std::string problem) {
  T4ImportOptions o;
  o.device = std::move(device);
  o.family = std::move(family);
  o.problem = std::move(problem);
  return o;
}

// The public benchmark hub's convolution dataset (4362 results on an A100).
inline const std::string kT4Fixture =
    KTUNE_SOURCE_DIR "/../shared/data/t4/convolution_A100_T4.json.gz";

}  // namespace ktune::test
