#pragma once
// Strict reads of model JSON fields (internal to src/ml): the value must have the expected JSON
// type and range. nlohmann's get<int>() converts silently (a float 1e300 becomes INT_MIN and
// collapses a tree); these throw ktune::Error naming the field instead.
#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ktune/error.hpp"

namespace ktune::ml::json_fields {

// A value as errors show it: scalars as written (cut short), containers by their type.
inline std::string shown(const nlohmann::json& v) {
  if (!v.is_primitive()) return std::string("an ") + v.type_name();
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// The member `key` of object j; `where` names j in errors ("tree.nodes[3]").
inline const nlohmann::json& member(const nlohmann::json& j, const char* key,
                                    const std::string& where) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected an object", where));
  const auto it = j.find(key);
  if (it == j.end()) throw Error(fmt::format("{}: field '{}' is missing", where, key));
  return *it;
}

// An integer in [lo, hi]: a JSON integer, never a float or a string.
inline int64_t integer(const nlohmann::json& v, const std::string& field, int64_t lo, int64_t hi) {
  bool ok = false;
  int64_t out = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    ok = u <= static_cast<uint64_t>(INT64_MAX);
    out = ok ? static_cast<int64_t>(u) : 0;
  } else if (v.is_number_integer()) {
    out = v.get<int64_t>();
    ok = true;
  }
  if (!ok || out < lo || out > hi)
    throw Error(fmt::format("field '{}': expected an integer in [{}, {}], got {}", field, lo, hi,
                            shown(v)));
  return out;
}

inline int64_t integer(const nlohmann::json& j, const char* key, const std::string& where,
                       int64_t lo, int64_t hi) {
  return integer(member(j, key, where), where + "." + key, lo, hi);
}

// Any JSON number (JSON has no NaN or infinity, so it is finite).
inline double number(const nlohmann::json& v, const std::string& field) {
  if (!v.is_number())
    throw Error(fmt::format("field '{}': expected a number, got {}", field, shown(v)));
  return v.get<double>();
}

inline std::string text(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = member(j, key, where);
  if (!v.is_string())
    throw Error(fmt::format("field '{}.{}': expected a string, got {}", where, key, shown(v)));
  return v.get<std::string>();
}

inline const nlohmann::json& array(const nlohmann::json& j, const char* key,
                                   const std::string& where) {
  const auto& v = member(j, key, where);
  if (!v.is_array()) throw Error(fmt::format("field '{}.{}': expected an array", where, key));
  return v;
}

inline std::vector<double> numbers(const nlohmann::json& j, const char* key,
                                   const std::string& where) {
  std::vector<double> out;
  const auto& a = array(j, key, where);
  for (size_t i = 0; i < a.size(); ++i)
    out.push_back(number(a[i], fmt::format("{}.{}[{}]", where, key, i)));
  return out;
}

inline std::vector<int64_t> integers(const nlohmann::json& j, const char* key,
                                     const std::string& where, int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  const auto& a = array(j, key, where);
  for (size_t i = 0; i < a.size(); ++i)
    out.push_back(integer(a[i], fmt::format("{}.{}[{}]", where, key, i), lo, hi));
  return out;
}

}  // namespace ktune::ml::json_fields
