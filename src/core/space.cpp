#include "ktune/space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "ktune/error.hpp"

namespace ktune {

Space::Space(std::string family, std::vector<Param> params, Constraint constraint)
    : Space(std::move(family),
            std::vector<SpaceKind>{{"", std::move(params), std::move(constraint)}}) {}

Space::Space(std::string family, std::vector<SpaceKind> kinds)
    : family_(std::move(family)), kinds_(std::move(kinds)) {
  if (kinds_.empty()) throw Error(fmt::format("the {} space has no kinds", family_));
  for (const auto& kind : kinds_) {
    int64_t size = 1;
    for (const auto& p : kind.params) {
      if (p.values.empty())
        throw Error(fmt::format("param '{}' of {} has no values", p.name, family_));
      size *= static_cast<int64_t>(p.values.size());
    }
    offsets_.push_back(product_size_);
    product_size_ += size;
  }
}

Config Space::at(int64_t id) const {
  if (id < 0 || id >= product_size_)
    throw Error(fmt::format("config id {} is outside the {} space (0..{})", id, family_,
                            product_size_ - 1));
  Config c;
  c.id = id;
  c.kind = static_cast<int>(kinds_.size()) - 1;
  while (offsets_[static_cast<size_t>(c.kind)] > id) --c.kind;
  const auto& params = kinds_[static_cast<size_t>(c.kind)].params;
  int64_t rest = id - offsets_[static_cast<size_t>(c.kind)];
  c.index.resize(params.size());
  // Mixed radix, first param most significant.
  for (size_t i = params.size(); i-- > 0;) {
    const auto radix = static_cast<int64_t>(params[i].values.size());
    c.index[i] = static_cast<int>(rest % radix);
    rest /= radix;
  }
  return c;
}

const SpaceKind& Space::kind_of(const Config& c) const {
  if (c.kind < 0 || static_cast<size_t>(c.kind) >= kinds_.size())
    throw Error(fmt::format("config {} has no kind {} in the {} space", c.id, c.kind, family_));
  return kinds_[static_cast<size_t>(c.kind)];
}

const std::string& Space::kind_name(const Config& c) const { return kind_of(c).name; }

std::string Space::to_string(const Config& c) const {
  const SpaceKind& kind = kind_of(c);
  std::string out;
  if (c.kind > 0) out = "kind=" + kind.name;
  for (size_t i = 0; i < kind.params.size(); ++i) {
    if (!out.empty()) out += ';';
    out += kind.params[i].name;
    out += '=';
    out += kind.params[i].values.at(static_cast<size_t>(c.index.at(i)));
  }
  return out;
}

Config Space::parse(std::string_view text) const {
  // Accept a canonical string in any param order, or a plain numeric id.
  int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec == std::errc() && end == text.data() + text.size()) return at(id);

  // Split into name=value items; "kind=" picks the kind (the first kind when absent).
  std::vector<std::pair<std::string_view, std::string_view>> items;
  size_t kind = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t semi = text.find(';', pos);
    if (semi == std::string_view::npos) semi = text.size();
    std::string_view item = text.substr(pos, semi - pos);
    pos = semi + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw Error(fmt::format("config '{}': '{}' is not name=value", text, item));
    std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
    if (name == "kind" && kinds_.size() > 1) {
      kind = 0;
      while (kind < kinds_.size() && kinds_[kind].name != value) ++kind;
      if (kind == kinds_.size())
        throw Error(fmt::format("config '{}': unknown kind '{}' for {}", text, value, family_));
      continue;
    }
    items.emplace_back(name, value);
  }

  const auto& params = kinds_[kind].params;
  std::vector<int> index(params.size(), -1);
  for (const auto& [name, value] : items) {
    size_t p = 0;
    while (p < params.size() && params[p].name != name) ++p;
    if (p == params.size())
      throw Error(fmt::format("config '{}': unknown param '{}' for {}", text, name, family_));
    const auto& values = params[p].values;
    size_t v = 0;
    while (v < values.size() && values[v] != value) ++v;
    if (v == values.size())
      throw Error(fmt::format("config '{}': '{}' is not a value of param '{}'", text, value, name));
    index[p] = static_cast<int>(v);
  }
  int64_t result = 0;
  for (size_t p = 0; p < params.size(); ++p) {
    if (index[p] < 0)
      throw Error(fmt::format("config '{}': param '{}' is missing", text, params[p].name));
    result = result * static_cast<int64_t>(params[p].values.size()) + index[p];
  }
  return at(offsets_[kind] + result);
}

std::optional<std::string> Space::violates(const Config& c) const {
  const SpaceKind& kind = kind_of(c);
  if (!kind.constraint) return std::nullopt;
  return kind.constraint(*this, c);
}

std::vector<Config> Space::enumerate() const {
  std::vector<Config> out;
  for (int64_t id = 0; id < product_size_; ++id) {
    Config c = at(id);
    if (!violates(c)) out.push_back(std::move(c));
  }
  return out;
}

size_t Space::param_index(const Config& c, std::string_view name) const {
  const auto& params = kind_of(c).params;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name) return i;
  throw Error(
      fmt::format("{} configs of kind '{}' have no param '{}'", family_, kind_of(c).name, name));
}

bool Space::has_param(const Config& c, std::string_view param) const {
  for (const auto& p : kind_of(c).params)
    if (p.name == param) return true;
  return false;
}

const std::string& Space::value(const Config& c, std::string_view param) const {
  size_t i = param_index(c, param);
  return kind_of(c).params[i].values.at(static_cast<size_t>(c.index.at(i)));
}

int Space::int_value(const Config& c, std::string_view param) const {
  const std::string& v = value(c, param);
  int out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size())
    throw Error(fmt::format("param '{}' value '{}' is not an integer", param, v));
  return out;
}

namespace {
// "16x8" -> {16, 8}; "4" -> {4}; anything non-numeric -> the value's index.
std::vector<double> numeric_parts(const std::string& value) {
  std::vector<double> parts;
  size_t pos = 0;
  while (pos <= value.size()) {
    size_t x = value.find('x', pos);
    if (x == std::string::npos) x = value.size();
    double d = 0;
    auto [end, ec] = std::from_chars(value.data() + pos, value.data() + x, d);
    if (ec != std::errc() || end != value.data() + x) return {};
    parts.push_back(d);
    pos = x + 1;
  }
  return parts;
}
}  // namespace

namespace {

// The numeric columns of one param: its name, or name_x/name_y/name_z for "AxB[xC]" values.
std::vector<std::string> numeric_columns(const Param& p) {
  const size_t parts = numeric_parts(p.values.front()).size();
  if (parts <= 1) return {p.name};
  static const char* suffix[] = {"_x", "_y", "_z"};
  std::vector<std::string> names;
  for (size_t i = 0; i < parts && i < 3; ++i) names.push_back(p.name + suffix[i]);
  return names;
}

void append_numeric(const Param& p, int index, std::vector<double>& out) {
  const size_t expected = numeric_parts(p.values.front()).size();
  auto parts = numeric_parts(p.values.at(static_cast<size_t>(index)));
  if (expected <= 1) {
    out.push_back(parts.size() == 1 ? parts[0] : static_cast<double>(index));
  } else {
    for (size_t j = 0; j < expected && j < 3; ++j) out.push_back(j < parts.size() ? parts[j] : 0);
  }
}

}  // namespace

std::vector<std::string> Space::numeric_names() const {
  std::vector<std::string> names;
  if (kinds_.size() > 1) names.push_back("kind");
  for (const auto& kind : kinds_)
    for (const auto& p : kind.params)
      for (auto& column : numeric_columns(p))
        if (std::find(names.begin(), names.end(), column) == names.end())
          names.push_back(std::move(column));
  return names;
}

std::vector<double> Space::numeric_values(const Config& c) const {
  const SpaceKind& kind = kind_of(c);
  if (kinds_.size() == 1) {
    std::vector<double> out;
    for (size_t i = 0; i < kind.params.size(); ++i)
      append_numeric(kind.params[i], c.index.at(i), out);
    return out;
  }
  const std::vector<std::string> names = numeric_names();
  std::vector<double> out(names.size(), 0.0);
  out[0] = c.kind;
  for (size_t i = 0; i < kind.params.size(); ++i) {
    std::vector<double> values;
    append_numeric(kind.params[i], c.index.at(i), values);
    const auto columns = numeric_columns(kind.params[i]);
    for (size_t j = 0; j < columns.size() && j < values.size(); ++j) {
      const auto at = std::find(names.begin(), names.end(), columns[j]);
      out[static_cast<size_t>(at - names.begin())] = values[j];
    }
  }
  return out;
}

}  // namespace ktune
