#pragma once
// The GEMM vendor candidates' config strings (ktune/dataset.hpp: "vendor=<name>", the vendor's
// stable id among the configs), decoded at compile time like gemm_config.hpp's kernel configs,
// so a tuned library dispatches to the vendor call a selector picks.
#include <string_view>

namespace ktune::kernels::gemm {

enum class VendorCall { none, openblas, onednn, cublas, cublaslt };

// VendorCall::none for anything that is not a vendor candidate's string (a kernel config).
constexpr VendorCall parse_vendor_call(std::string_view text) {
  if (text == "vendor=openblas") return VendorCall::openblas;
  if (text == "vendor=onednn") return VendorCall::onednn;
  if (text == "vendor=cublas") return VendorCall::cublas;
  if (text == "vendor=cublaslt") return VendorCall::cublaslt;
  return VendorCall::none;
}

constexpr bool vendor_on_cpu(VendorCall v) {
  return v == VendorCall::openblas || v == VendorCall::onednn;
}
constexpr bool vendor_on_cuda(VendorCall v) {
  return v == VendorCall::cublas || v == VendorCall::cublaslt;
}

}  // namespace ktune::kernels::gemm
