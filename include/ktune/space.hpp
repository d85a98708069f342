#pragma once
// Parameters, spaces and configurations. A space is the union of one or more kinds (kernel
// variants), each a product of its own params under its own constraint. A config's id is its
// kind's offset plus its mixed-radix index over the kind's params (first param most
// significant), so ids never change when constraints change or kinds are appended.
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
  int kind = 0;            // index into Space::kinds()
  std::vector<int> index;  // index into each of the kind's params' values
  bool operator==(const Config& other) const { return id == other.id; }
};

class Space;

// A static constraint returns a reason when the config is not part of the space.
using Constraint = std::function<std::optional<std::string>(const Space&, const Config&)>;

struct SpaceKind {
  std::string name;  // "seed", "tiled"; written as "kind=<name>" except for the first kind
  std::vector<Param> params;
  Constraint constraint;
};

class Space {
 public:
  using Constraint = ktune::Constraint;

  // A single-kind space: config strings are "r=2;a=4;c=8;wg=16x16".
  Space(std::string family, std::vector<Param> params, Constraint constraint = nullptr);
  // A union of kinds. The first kind's configs keep the plain spelling (so a family that grows
  // kinds keeps its old ids and strings); the others are written "kind=<name>;...".
  Space(std::string family, std::vector<SpaceKind> kinds);

  const std::string& family() const { return family_; }
  const std::vector<SpaceKind>& kinds() const { return kinds_; }
  const std::vector<Param>& params() const { return kinds_.front().params; }  // first kind's
  int64_t product_size() const { return product_size_; }  // ids are 0 .. product_size() - 1

  Config at(int64_t id) const;                   // throws Error for ids outside the product
  std::string to_string(const Config& c) const;  // "r=2;a=4;c=8;wg=16x16", "kind=tiled;bm=64;..."
  Config parse(std::string_view text) const;     // throws Error naming the text
  std::optional<std::string> violates(const Config& c) const;
  std::vector<Config> enumerate() const;  // all configs that satisfy their kind's constraint

  const std::string& kind_name(const Config& c) const;
  bool has_param(const Config& c, std::string_view param) const;
  const std::string& value(const Config& c, std::string_view param) const;
  int int_value(const Config& c, std::string_view param) const;
  // Numeric view of a config for ML features: "16x16" becomes two numbers (name_x, name_y).
  // Multi-kind spaces lead with "kind" (its index) and list every param of every kind once;
  // a param the config's kind lacks reads 0.
  std::vector<std::string> numeric_names() const;
  std::vector<double> numeric_values(const Config& c) const;

 private:
  const SpaceKind& kind_of(const Config& c) const;
  size_t param_index(const Config& c, std::string_view name) const;
  std::string family_;
  std::vector<SpaceKind> kinds_;
  std::vector<int64_t> offsets_;  // first id of each kind
  int64_t product_size_ = 0;
};

}  // namespace ktune
