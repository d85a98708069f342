#pragma once
// The GEMM family: FP32, column-major BLAS semantics C = alpha*op(A)*op(B) + beta*C with strided
// batches. Its space is the union of kernel kinds (kernels/common/gemm_config.hpp): the seed
// paper's 640 configurations (ids 0..639, shared by the CPU and CUDA backends: each work item
// computes an R×C tile of C stepping along K by A; work-group (x, y)), then the CUDA tiled and
// split-K kernels, the CPU packed kernel, the CUDA warp-tiled kernel and the CPU AVX-512 packed
// kernel (packedz). A backend skips the kinds it does not implement.
#include <cstdint>
#include <string>

#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_shape.hpp"
#include "ktune/family.hpp"

namespace ktune::kernels::gemm {

struct Tile {
  int r = 1, a = 1, c = 1;  // rows of C per work item, K step, columns of C per work item
  int wg_x = 1, wg_y = 1;   // work-group: x along rows (M), y along columns (N)
};

Shape shape_of(const Problem& p);  // minimal leading dimensions; throws Error if invalid
// The features of s; `precision` is appended only when it is not fp32 and `c16` only when C is
// 16-bit, so FP32 problems (and FP32 C) keep the keys they had before either existed.
Problem problem_of(const Shape& s, std::vector<std::string> tags = {});
// "fp32" -> Precision::fp32, ...; throws Error naming the text for anything else.
Precision parse_precision(const std::string& text);
// The problem with its precision set to p (the feature added, replaced or, for fp32, dropped);
// 16-bit C (c16) is kept when p is bf16 or fp16 and dropped otherwise.
Problem with_precision(const Problem& problem, Precision p);
// A workload variant ("large@VARIANT"): a precision, optionally with C's type, "bf16:c=bf16"
// (C in the 16-bit input type; c=fp32 is the default, FP32 C). Throws Error naming the text for
// anything else (an unknown precision, another key, c= a type other than fp32 or the input's).
struct Variant {
  Precision precision = Precision::fp32;
  bool c16 = false;
};
Variant parse_variant(const std::string& text);
Tile tile_of(const Space& space, const Config& c);  // seed kind only; throws Error otherwise
GemmConfig gemm_config_of(const Space& space, const Config& c);
std::string tile_config_string(const Tile& t);  // "r=2;a=4;c=8;wg=16x16"

class GemmFamily final : public Family {
 public:
  GemmFamily();
  std::string name() const override { return "gemm"; }
  const Space& space() const override { return space_; }
  std::vector<std::string> feature_names() const override;
  std::vector<std::string> derived_feature_names() const override;
  std::vector<double> derived_features(const Problem& p) const override;
  double flops(const Problem& p) const override { return shape_of(p).flops(); }
  void validate(const Problem& p) const override;
  std::vector<std::string> builtin_workloads() const override;  // gemm_workloads.cpp
  Workload builtin_workload(const std::string& name) const override;
  std::vector<Problem> workload_variant(std::vector<Problem> problems,  // parse_variant
                                        const std::string& variant) const override;
  std::vector<std::pair<std::string, std::string>> feature_aliases() const override;
  std::string feature_text(const std::string& name, double value) const override;
  std::optional<CodegenSignature> codegen_signature() const override;  // gemm_features.cpp

 private:
  Space space_;
};

}  // namespace ktune::kernels::gemm
