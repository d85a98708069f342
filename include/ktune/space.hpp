#pragma once
// Parameters, spaces and configurations. A config's id is its mixed-radix index over the
// declared params (first param most significant), so ids never change when constraints do.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct Param {
  std::string name;
  std::vector<std::string> values;  // canonical spellings, e.g. "4" or "16x16"
};

struct Config {
  int64_t id = -1;
  std::vector<int> index;  // index into each param's values
  bool operator==(const Config& other) const { return id == other.id; }
};

class Space {
 public:
  // A static constraint returns a reason when the config is not part of the space.
  using Constraint = std::function<std::optional<std::string>(const Space&, const Config&)>;

  Space(std::string family, std::vector<Param> params, Constraint constraint = nullptr);

  const std::string& family() const { return family_; }
  const std::vector<Param>& params() const { return params_; }
  int64_t product_size() const { return product_size_; }

  Config at(int64_t id) const;                   // throws Error for ids outside the product
  std::string to_string(const Config& c) const;  // "r=2;a=4;c=8;wg=16x16"
  Config parse(std::string_view text) const;     // throws Error naming the text
  std::optional<std::string> violates(const Config& c) const;
  std::vector<Config> enumerate() const;  // all configs that satisfy the constraint

  const std::string& value(const Config& c, std::string_view param) const;
  int int_value(const Config& c, std::string_view param) const;
  // Numeric view of a config for ML features: "16x16" becomes two numbers (name_x, name_y).
  std::vector<std::string> numeric_names() const;
  std::vector<double> numeric_values(const Config& c) const;

 private:
  size_t param_index(std::string_view name) const;
  std::string family_;
  std::vector<Param> params_;
  Constraint constraint_;
  int64_t product_size_ = 1;
};

}  // namespace ktune
