#include "ktune/space.hpp"

#include <fmt/format.h>

#include <charconv>

#include "ktune/error.hpp"

namespace ktune {

Space::Space(std::string family, std::vector<Param> params, Constraint constraint)
    : family_(std::move(family)), params_(std::move(params)), constraint_(std::move(constraint)) {
  for (const auto& p : params_) {
    if (p.values.empty())
      throw Error(fmt::format("param '{}' of {} has no values", p.name, family_));
    product_size_ *= static_cast<int64_t>(p.values.size());
  }
}

Config Space::at(int64_t id) const {
  if (id < 0 || id >= product_size_)
    throw Error(fmt::format("config id {} is outside the {} space (0..{})", id, family_,
                            product_size_ - 1));
  Config c;
  c.id = id;
  c.index.resize(params_.size());
  // Mixed radix, first param most significant.
  for (size_t i = params_.size(); i-- > 0;) {
    const auto radix = static_cast<int64_t>(params_[i].values.size());
    c.index[i] = static_cast<int>(id % radix);
    id /= radix;
  }
  return c;
}

std::string Space::to_string(const Config& c) const {
  std::string out;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (i) out += ';';
    out += params_[i].name;
    out += '=';
    out += params_[i].values.at(static_cast<size_t>(c.index.at(i)));
  }
  return out;
}

Config Space::parse(std::string_view text) const {
  // Accept a canonical string in any param order, or a plain numeric id.
  int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec == std::errc() && end == text.data() + text.size()) return at(id);

  std::vector<int> index(params_.size(), -1);
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
    size_t p = 0;
    while (p < params_.size() && params_[p].name != name) ++p;
    if (p == params_.size())
      throw Error(fmt::format("config '{}': unknown param '{}' for {}", text, name, family_));
    const auto& values = params_[p].values;
    size_t v = 0;
    while (v < values.size() && values[v] != value) ++v;
    if (v == values.size())
      throw Error(fmt::format("config '{}': '{}' is not a value of param '{}'", text, value, name));
    index[p] = static_cast<int>(v);
  }
  int64_t result = 0;
  for (size_t p = 0; p < params_.size(); ++p) {
    if (index[p] < 0)
      throw Error(fmt::format("config '{}': param '{}' is missing", text, params_[p].name));
    result = result * static_cast<int64_t>(params_[p].values.size()) + index[p];
  }
  return at(result);
}

std::optional<std::string> Space::violates(const Config& c) const {
  if (!constraint_) return std::nullopt;
  return constraint_(*this, c);
}

std::vector<Config> Space::enumerate() const {
  std::vector<Config> out;
  out.reserve(static_cast<size_t>(product_size_));
  for (int64_t id = 0; id < product_size_; ++id) {
    Config c = at(id);
    if (!violates(c)) out.push_back(std::move(c));
  }
  return out;
}

size_t Space::param_index(std::string_view name) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].name == name) return i;
  throw Error(fmt::format("{} has no param '{}'", family_, name));
}

const std::string& Space::value(const Config& c, std::string_view param) const {
  size_t i = param_index(param);
  return params_[i].values.at(static_cast<size_t>(c.index.at(i)));
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

std::vector<std::string> Space::numeric_names() const {
  std::vector<std::string> names;
  for (const auto& p : params_) {
    size_t parts = numeric_parts(p.values.front()).size();
    if (parts <= 1) {
      names.push_back(p.name);
    } else {
      static const char* suffix[] = {"_x", "_y", "_z"};
      for (size_t i = 0; i < parts && i < 3; ++i) names.push_back(p.name + suffix[i]);
    }
  }
  return names;
}

std::vector<double> Space::numeric_values(const Config& c) const {
  std::vector<double> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& values = params_[i].values;
    size_t expected = numeric_parts(values.front()).size();
    auto parts = numeric_parts(values.at(static_cast<size_t>(c.index.at(i))));
    if (expected <= 1) {
      out.push_back(parts.size() == 1 ? parts[0] : static_cast<double>(c.index[i]));
    } else {
      for (size_t j = 0; j < expected && j < 3; ++j) out.push_back(j < parts.size() ? parts[j] : 0);
    }
  }
  return out;
}

}  // namespace ktune
