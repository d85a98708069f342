#pragma once
// A JSON value together with its path in the file ("KernelSpecification.Arguments[2].Type"),
// so that every complaint about a problem file names the file and the field in one line.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ktune/error.hpp"

namespace ktune::filefamily {

class JsonField {
 public:
  JsonField(const nlohmann::json& value, std::string file, std::string path)
      : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(fmt::format("{}: {}: {}", file_, path_.empty() ? "(top level)" : path_, why));
  }

  std::optional<JsonField> get(const std::string& key) const {
    if (!value_->is_object()) fail("is not an object");
    const auto it = value_->find(key);
    if (it == value_->end()) return std::nullopt;
    return JsonField(*it, file_, path_.empty() ? key : path_ + "." + key);
  }
  JsonField at(const std::string& key) const {
    auto field = get(key);
    if (!field) fail(fmt::format("'{}' is missing", key));
    return *field;
  }
  size_t size() const {
    if (!value_->is_array()) fail("is not an array");
    return value_->size();
  }
  JsonField operator[](size_t i) const {
    return JsonField((*value_)[i], file_, fmt::format("{}[{}]", path_, i));
  }

  std::string str() const {
    if (!value_->is_string()) fail("is not a string");
    return value_->get<std::string>();
  }
  double number() const {
    if (!value_->is_number()) fail("is not a number");
    return value_->get<double>();
  }
  long long integer() const {
    if (!value_->is_number_integer()) fail("is not an integer");
    return value_->get<long long>();
  }
  bool boolean() const {
    if (!value_->is_boolean()) fail("is not true or false");
    return value_->get<bool>();
  }
  // One of `names` (an enum of the schema); the error lists them.
  size_t choice(std::initializer_list<const char*> names) const {
    const std::string s = str();
    size_t i = 0;
    for (const char* n : names) {
      if (s == n) return i;
      ++i;
    }
    fail(fmt::format("'{}' is not one of {}", s, fmt::join(names, ", ")));
  }

 private:
  const nlohmann::json* value_;
  std::string file_, path_;
};

}  // namespace ktune::filefamily
