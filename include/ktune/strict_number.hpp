#pragma once
// Strict text-to-number conversion for command-line values and numeric text fields: the whole
// text must be the number ("12abc", " 12", "" and out-of-range values are refused, never read
// as a prefix or wrapped), so a typo is an error instead of a silently different value.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace ktune {

// A finite double, or nullopt (also for "nan", "inf" and values beyond the double range).
inline std::optional<double> parse_finite_double(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A decimal integer in [lo, hi], or nullopt.
inline std::optional<int64_t> parse_int64(std::string_view text, int64_t lo = INT64_MIN,
                                          int64_t hi = INT64_MAX) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi) return std::nullopt;
  return v;
}

}  // namespace ktune
