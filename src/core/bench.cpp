#include "ktune/bench.hpp"

#include <fmt/format.h>

#include <sstream>

#include "ktune/error.hpp"
#include "ktune/strict_number.hpp"

namespace ktune {

Shard Shard::parse(const std::string& text) {
  const size_t slash = text.find('/');
  const std::string_view all(text);
  const std::string_view after =
      slash == std::string::npos ? std::string_view() : all.substr(slash + 1);
  const int64_t index = parse_int64(all.substr(0, slash), 0, INT32_MAX).value_or(-1);
  const int64_t count = parse_int64(after, 1, INT32_MAX).value_or(0);
  if (index < 0 || count < 1 || index >= count)
    throw Error(fmt::format("shard '{}' is not i/N with 0 <= i < N", text));
  Shard s;
  s.index = static_cast<int>(index);
  s.count = static_cast<int>(count);
  return s;
}

std::vector<Config> parse_config_list(const Space& space, const std::string& text) {
  if (text == "all") return space.enumerate();
  std::vector<Config> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (item.rfind("kind:", 0) == 0) {  // every config of one kind
      const std::string kind = item.substr(5);
      const size_t before = out.size();
      for (Config& c : space.enumerate())
        if (space.kind_name(c) == kind) out.push_back(std::move(c));
      if (out.size() == before)
        throw Error(fmt::format("config list item '{}': the {} space has no kind '{}'", item,
                                space.family(), kind));
      continue;
    }
    Config c = space.parse(item);
    if (auto why = space.violates(c))
      throw Error(
          fmt::format("config '{}' is not in the {} space: {}", item, space.family(), *why));
    out.push_back(std::move(c));
  }
  if (out.empty()) throw Error(fmt::format("config list '{}' names no config", text));
  return out;
}

}  // namespace ktune
