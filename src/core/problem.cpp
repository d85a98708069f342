#include "ktune/problem.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "ktune/error.hpp"

namespace ktune {

namespace {
std::string format_number(double v) {
  // Integers print without a fraction so keys stay readable and canonical.
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9e15)
    return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}
}  // namespace

std::string Problem::key() const {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ';';
    out += names[i];
    out += '=';
    out += format_number(values.at(i));
  }
  return out;
}

double Problem::get(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return values.at(i);
  throw Error(fmt::format("problem '{}' has no feature '{}'", key(), name));
}

Problem Problem::parse(std::string_view key) {
  Problem p;
  size_t pos = 0;
  while (pos < key.size()) {
    size_t semi = key.find(';', pos);
    if (semi == std::string_view::npos) semi = key.size();
    std::string_view item = key.substr(pos, semi - pos);
    pos = semi + 1;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw Error(fmt::format("problem key '{}': '{}' is not name=value", key, item));
    std::string_view value = item.substr(eq + 1);
    double v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v))
      throw Error(fmt::format("problem key '{}': '{}' is not a finite number", key, value));
    p.names.emplace_back(item.substr(0, eq));
    p.values.push_back(v);
  }
  if (p.names.empty()) throw Error(fmt::format("problem key '{}' is empty", key));
  return p;
}

}  // namespace ktune
