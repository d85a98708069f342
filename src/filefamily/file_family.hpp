#pragma once
// The Family of a tuning-problem file: its space (the typed tuning parameters under the file's
// conditions), its features and workload, and the compiled kernel of each config.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "ktune/family.hpp"
#include "src/filefamily/compile_cache.hpp"
#include "src/filefamily/expression.hpp"
#include "src/filefamily/spec.hpp"

namespace ktune::filefamily {

// The calling convention of compiled units: args[i] points to argument i's buffer (a vector) or
// value (a scalar); the generated wrapper casts each to the type the file declares.
using EntryPoint = void (*)(void* const* args);

struct Loaded {
  std::shared_ptr<SharedObject> object;
  EntryPoint entry = nullptr;
};

// The absolute path of a file the problem file names, as a generated unit includes it (throws
// Error for a path a #include cannot spell).
std::string include_path(const FileSpec& s, const std::string& file);
// How a generated wrapper passes argument i from `void* const* a`: the file's type, const for
// inputs, by value for scalars; the reference function (reference = true) takes outputs in double.
std::string call_argument(const Argument& a, size_t i, bool reference);

class FileFamily final : public Family {
 public:
  explicit FileFamily(FileSpec spec);
  std::string name() const override { return spec_.name; }
  const Space& space() const override { return space_; }
  std::vector<std::string> feature_names() const override { return spec_.features; }
  std::vector<std::string> derived_feature_names() const override { return {}; }
  std::vector<double> derived_features(const Problem&) const override { return {}; }
  double flops(const Problem& p) const override;
  // Every feature present and finite, every vector size a whole positive count.
  void validate(const Problem& p) const override;
  std::vector<std::string> builtin_workloads() const override { return {"file"}; }
  Workload builtin_workload(const std::string& name) const override;

  const FileSpec& spec() const { return spec_; }
  std::vector<double> feature_values(const Problem& p) const;
  // Each argument's element count (vectors, lanes included) or value (scalars) for a problem.
  std::vector<double> argument_extents(const Problem& p) const;
  // GlobalSize then LocalSize (X, Y, Z) of a config on a problem.
  std::vector<double> launch_sizes(const Problem& p, const Config& c) const;
  // The config's kernel, compiled (or taken from the disk cache) on first use; a compile error
  // is returned as its message and remembered, so that it is reported once per config.
  std::variant<Loaded, std::string> kernel(const Config& c) const;
  Loaded reference() const;  // the x-ktune.Reference function (throws Error)

 private:
  CompileRequest request(const std::string& unit) const;
  FileSpec spec_;
  Space space_;
  std::vector<Expression> sizes_, work_, launch_;
  mutable std::mutex mutex_;
  mutable std::map<int64_t, std::variant<Loaded, std::string>> kernels_;
  mutable std::optional<Loaded> reference_;
};

}  // namespace ktune::filefamily
