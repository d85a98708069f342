#pragma once
// Text from a file or an argument as an error message may quote it.
#include <cstdio>
#include <string>
#include <string_view>

namespace ktune {

// Non-printable bytes escaped (\xNN: a binary file's bytes never reach the terminal raw) and at
// most `max` characters kept, the rest counted (a 64 MiB header line is not echoed whole).
inline std::string excerpt(std::string_view text, size_t max = 200) {
  std::string out;
  for (const char ch : text.substr(0, max)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (text.size() > max) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace ktune
