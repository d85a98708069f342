#include "apps/ktune/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace ktune::cli {

namespace {
std::string format_duration(double seconds) {
  const long s = long(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  return fmt::format("{}m{:02}s", s / 60, s % 60);
}
}  // namespace

Progress::Progress(std::string label)
    : label_(std::move(label)),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void Progress::update(size_t done, size_t total, const std::string& last) {
  last_done_ = done;
  last_total_ = total;
  last_text_ = last;
  const auto now = std::chrono::steady_clock::now();
  const double since_print = std::chrono::duration<double>(now - last_print_).count();
  // A terminal redraws often; logs get a line every 10 s so they stay readable.
  if (since_print < (tty_ ? 0.2 : 10.0)) return;
  print(done, total, last);
}

void Progress::print(size_t done, size_t total, const std::string& last) {
  const auto now = std::chrono::steady_clock::now();
  last_print_ = now;
  printed_done_ = done;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double frac = total ? double(done) / double(total) : 1.0;
  const double eta = done ? elapsed / double(done) * double(total - done) : 0.0;
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = int(frac * kWidth);
    std::fprintf(stderr, "\r%s [%s%s] %zu/%zu %5.1f%% ETA %s  %-50.50s", label_.c_str(),
                 std::string(size_t(filled), '#').c_str(),
                 std::string(size_t(kWidth - filled), '.').c_str(), done, total, 100 * frac,
                 format_duration(eta).c_str(), last.c_str());
  } else {
    std::fprintf(stderr, "%s %zu/%zu (%.1f%%) elapsed %s ETA %s last: %s\n", label_.c_str(), done,
                 total, 100 * frac, format_duration(elapsed).c_str(), format_duration(eta).c_str(),
                 last.c_str());
  }
  std::fflush(stderr);
}

void Progress::finish() {
  // The final state is always shown once, however recently the last line was printed.
  if (last_total_ && printed_done_ != last_done_) print(last_done_, last_total_, last_text_);
  if (tty_ && last_total_) std::fputc('\n', stderr);
}

}  // namespace ktune::cli
