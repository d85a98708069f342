// libFuzzer harness: selector model JSON (what codegen and the deployed libraries load), then
// a selection on an all-zero feature row: a loaded model must pick one of its configs.
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "ktune/error.hpp"
#include "ktune/json_limits.hpp"
#include "ktune/ml/selector.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ktune::check_json_depth(text, "fuzz-model.json");
    const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    const auto selector = ktune::ml::Selector::from_json(j);
    const Eigen::RowVectorXd features =
        Eigen::RowVectorXd::Zero(Eigen::Index(selector->feature_names().size()));
    const int pick = selector->select(features);
    if (pick < 0 || size_t(pick) >= selector->config_names().size()) __builtin_trap();
  } catch (const ktune::Error&) {
  }
  return 0;
}
