#pragma once
// The GEMM vendor candidates' config strings (ktune/dataset.hpp: "vendor=<name>", the vendor's
// stable id among the configs), decoded at compile time like gemm_config.hpp's kernel configs,
// so a tuned library dispatches to the vendor call a selector picks.
#include <string_view>

namespace ktune::kernels::gemm {

enum class VendorCall { none, openblas, onednn, cublas, cublaslt };

// cuBLASLt's candidates: "vendor=cublaslt" is its heuristic's first answer (#0), and
// "vendor=cublaslt;heuristic=<i>" (1 <= i < kLtHeuristicLimit, no leading zero) its i-th, the
// algorithm the sweep's cublaslt-top8 row names when it beat #0. One spelling per algorithm, so
// "heuristic=0" is not one.
inline constexpr int kLtHeuristicLimit = 8;  // the sweep's top-8 search
inline constexpr std::string_view kLtConfig = "vendor=cublaslt";
inline constexpr std::string_view kLtHeuristicPrefix = "vendor=cublaslt;heuristic=";

// The heuristic index a cuBLASLt candidate's string names, or -1 for any other string.
constexpr int lt_heuristic_of(std::string_view text) {
  if (text == kLtConfig) return 0;
  // (C++17 as well: nvcc compiles the CUDA library's selector dispatch.)
  if (text.substr(0, kLtHeuristicPrefix.size()) != kLtHeuristicPrefix) return -1;
  const std::string_view digits = text.substr(kLtHeuristicPrefix.size());
  if (digits.size() != 1 || digits[0] < '1' || digits[0] > '9') return -1;
  const int i = digits[0] - '0';
  return i < kLtHeuristicLimit ? i : -1;
}

// VendorCall::none for anything that is not a vendor candidate's string (a kernel config).
constexpr VendorCall parse_vendor_call(std::string_view text) {
  if (text == "vendor=openblas") return VendorCall::openblas;
  if (text == "vendor=onednn") return VendorCall::onednn;
  if (text == "vendor=cublas") return VendorCall::cublas;
  if (lt_heuristic_of(text) >= 0) return VendorCall::cublaslt;
  return VendorCall::none;
}

constexpr bool vendor_on_cpu(VendorCall v) {
  return v == VendorCall::openblas || v == VendorCall::onednn;
}
constexpr bool vendor_on_cuda(VendorCall v) {
  return v == VendorCall::cublas || v == VendorCall::cublaslt;
}

}  // namespace ktune::kernels::gemm
