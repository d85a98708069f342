// libFuzzer harness: selector model JSON as the JSON runtime (Selector::from_json) and codegen
// (generate_selector_header) load it. A loaded model must pick one of its configs on an
// all-zero feature row; codegen must either write a header or refuse with ktune::Error.
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/json_limits.hpp"
#include "ktune/ml/codegen.hpp"
#include "ktune/ml/selector.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ktune::register_builtin();  // once: codegen gives family models the family's signature
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json j;
  try {
    ktune::check_json_depth(text, "fuzz-model.json");  // as every model reader does first
    j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  } catch (const ktune::Error&) {
    return 0;
  }
  if (j.is_discarded()) return 0;
  try {
    const auto selector = ktune::ml::Selector::from_json(j);
    const Eigen::RowVectorXd features =
        Eigen::RowVectorXd::Zero(Eigen::Index(selector->feature_names().size()));
    const int pick = selector->select(features);
    if (pick < 0 || size_t(pick) >= selector->config_names().size()) __builtin_trap();
  } catch (const ktune::Error&) {
  }
  try {
    ktune::ml::CodegenOptions options;
    options.model_path = "fuzz-model.json";
    if (ktune::ml::generate_selector_header(j, options).empty()) __builtin_trap();
  } catch (const ktune::Error&) {
  }
  return 0;
}
