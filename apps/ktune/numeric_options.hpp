#pragma once
// One check for every numeric option of a command line, applied to the text before CLI11
// converts it: CLI11 2.1 stores strtoll's saturated 2^63-1 for "99999999999999999999", reads
// "-1" into an unsigned option as 2^64-1, "010" as octal and accepts "nan" and "inf". Here the
// whole text must be a plain decimal number that fits (finite, for FLOAT options), or the
// option is refused with a one-line error naming it. Header-only: ktune and ktune_infer use it.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

#include "ktune/strict_number.hpp"

namespace ktune::cli {

// Largest --threads: more than any host has cores, far below what makes the OpenMP runtime fail
// to create threads (40000) or crash (100000).
inline constexpr int kMaxThreads = 1024;

// Empty when text is a number of the CLI11 type name's kind (INT, UINT, FLOAT), else why not.
inline std::string numeric_text_problem(const std::string& type, const std::string& text) {
  const std::string shown = "'" + text.substr(0, 40) + (text.size() > 40 ? "...'" : "'");
  if (type.rfind("FLOAT", 0) == 0)
    return parse_finite_double(text) ? "" : shown + " is not a finite number";
  const bool is_unsigned = type.rfind("UINT", 0) == 0;
  const bool digits =
      !text.empty() &&
      text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos &&
      text != "-";
  if (!digits || (is_unsigned && text[0] == '-'))
    return shown + (is_unsigned ? " is not a whole number >= 0" : " is not a whole number");
  if (is_unsigned) {
    uint64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    return r.ec == std::errc() ? "" : shown + " is out of range";
  }
  return parse_int64(text) ? "" : shown + " is out of range";
}

// Adds the check to every INT, UINT and FLOAT option of app and of its subcommands.
inline void check_numeric_options(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type.rfind("INT", 0) != 0 && type.rfind("UINT", 0) != 0 && type.rfind("FLOAT", 0) != 0)
      continue;
    option->check(CLI::Validator(
        [type](std::string& text) { return numeric_text_problem(type, text); }, "", "number"));
  }
  for (CLI::App* sub : app.get_subcommands({})) check_numeric_options(*sub);
}

}  // namespace ktune::cli
