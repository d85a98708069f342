#pragma once
// An example kernel family, added by this folder plus one line in the top-level CMakeLists.txt
// (ktune_add_family(conv1d DIR examples/families/conv1d)): a 1D "valid" convolution
//   y[i] = sum_{j < taps} w[j] * x[i + j],  i < n - taps + 1,
// in float32, tuned over two parameters: outputs per block (block) and independent
// accumulators per output (acc).
#include <cstdint>
#include <vector>

#include "ktune/family.hpp"

namespace ktune::conv1d {

struct Shape {
  int64_t n = 0, taps = 0;
  int64_t outputs() const { return n - taps + 1; }
};

Shape shape_of(const Problem& p);  // throws Error naming the problem when invalid
int block_of(const Space& space, const Config& c);
int accumulators_of(const Space& space, const Config& c);

// Float64 reference from the same float inputs, and the error allowed against it.
std::vector<double> reference(const Shape& s, const std::vector<float>& x,
                              const std::vector<float>& w);
double error_bound(int64_t taps);

class Conv1dFamily final : public Family {
 public:
  Conv1dFamily();
  std::string name() const override { return "conv1d"; }
  const Space& space() const override { return space_; }
  std::vector<std::string> feature_names() const override { return {"n", "taps"}; }
  std::vector<std::string> derived_feature_names() const override;
  std::vector<double> derived_features(const Problem& p) const override;
  double flops(const Problem& p) const override;
  void validate(const Problem& p) const override { shape_of(p); }
  std::vector<std::string> builtin_workloads() const override { return {"tiny", "small"}; }
  Workload builtin_workload(const std::string& name) const override;
  std::optional<CodegenSignature> codegen_signature() const override;

 private:
  Space space_;
};

}  // namespace ktune::conv1d
