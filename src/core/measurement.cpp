#include "ktune/measurement.hpp"

#include <fmt/format.h>

#include <array>

#include "ktune/error.hpp"

namespace ktune {

namespace {
constexpr std::array<std::string_view, kStatusCount> kStatusNames = {"ok", "refused", "failed", "wrong",
                                                          "timeout"};
}

std::string_view to_string(Status s) { return kStatusNames.at(static_cast<size_t>(s)); }

Status parse_status(std::string_view text) {
  for (size_t i = 0; i < kStatusNames.size(); ++i)
    if (kStatusNames[i] == text) return static_cast<Status>(i);
  throw Error(
      fmt::format("unknown measurement status '{}' (expected ok, refused, failed, wrong "
                  "or timeout)",
                  text));
}

}  // namespace ktune
