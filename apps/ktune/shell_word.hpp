#pragma once
// Quoting for the command lines that generated files record (codegen, deploy).
#include <string>

namespace ktune::cli {

// Single-quotes an argument for the recorded command line when the shell would split it.
inline std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                       "OPQRSTUVWXYZ0123456789_-./=:+,@%") == std::string::npos;
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace ktune::cli
