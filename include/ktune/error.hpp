#pragma once
// One exception type for every user-facing failure: its message is the one line the CLI prints.
#include <stdexcept>
#include <string>

namespace ktune {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace ktune
