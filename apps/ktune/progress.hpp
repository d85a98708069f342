#pragma once
// Progress reporting for long sweeps: a bar with ETA on a terminal, plain lines otherwise.
#include <chrono>
#include <cstddef>
#include <string>

namespace ktune::cli {

class Progress {
 public:
  explicit Progress(std::string label);
  void update(size_t done, size_t total, const std::string& last);
  void finish();

 private:
  void print(size_t done, size_t total, const std::string& last);
  std::string label_;
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_print_;
  size_t last_done_ = 0, last_total_ = 0, printed_done_ = 0;
  std::string last_text_;
};

}  // namespace ktune::cli
