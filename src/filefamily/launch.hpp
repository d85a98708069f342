#pragma once
// Launch sizes of a config on a problem (GlobalSize then LocalSize, X Y Z), shared by backends.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune::filefamily {

// Why a config cannot launch on a problem (a size that is not a whole positive count), if so.
inline std::optional<std::string> launch_refusal(const std::vector<double>& sizes) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (!(sizes[i] >= 1 && sizes[i] <= 2147483647.0 && std::floor(sizes[i]) == sizes[i]))
      return fmt::format("{}Size.{} = {} is not a whole positive count", i < 3 ? "Global" : "Local",
                         "XYZ"[i % 3], sizes[i]);
  return std::nullopt;
}

inline Outcome failed_outcome(std::string why) {
  Outcome out;
  out.status = Status::failed;
  out.message = std::move(why);
  return out;
}

}  // namespace ktune::filefamily
