#pragma once
// An enum's spellings kept in one table, so that printing a value, parsing a word and listing
// the choices in an error message read the same names and cannot drift apart, and no enum
// needs its own hand-written switch for them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The name of `value` in `table`, or `unknown` where the table lacks it.
template <class E, std::size_t N>
constexpr const char* enum_name(const EnumName<E> (&table)[N], E value,
                                const char* unknown = "?") {
  for (const EnumName<E>& entry : table)
    if (entry.value == value) return entry.name;
  return unknown;
}

// The value spelled `name` in `table`, if any.
template <class E, std::size_t N>
constexpr std::optional<E> enum_value(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E>& entry : table)
    if (name == entry.name) return entry.value;
  return std::nullopt;
}

// The names in table order.
template <class E, std::size_t N>
std::vector<std::string> enum_names(const EnumName<E> (&table)[N]) {
  std::vector<std::string> names;
  for (const EnumName<E>& entry : table) names.emplace_back(entry.name);
  return names;
}

// The names as prose for an error message: "a, b or c".
template <class E, std::size_t N>
std::string enum_choices(const EnumName<E> (&table)[N]) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i)
    text += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(table[i].name);
  return text;
}

}  // namespace ktune
