// The registry of what each family adds to the report, filled at static-initialization time by
// the families' own files (kernels/<family>/report/*.cpp).
#include <fmt/format.h>

#include "ktune/error.hpp"
#include "ktune/report.hpp"

namespace ktune::report {
namespace {

std::map<std::string, FamilyReport>& registry() {
  static std::map<std::string, FamilyReport> all;
  return all;
}

}  // namespace

bool register_family_report(const std::string& family, FamilyReport report) {
  if (!registry().emplace(family, std::move(report)).second)
    throw Error(fmt::format("report figures for family '{}' registered twice", family));
  return true;
}

const FamilyReport* find_family_report(const std::string& family) {
  const auto it = registry().find(family);
  return it == registry().end() ? nullptr : &it->second;
}

Figure make_figure(std::string id, std::string title, std::string caption, nlohmann::json spec,
                   nlohmann::json table) {
  spec["data"] = {{"name", "table"}};
  spec["datasets"]["table"] = std::move(table);
  return {std::move(id), std::move(title), std::move(caption), std::move(spec)};
}

}  // namespace ktune::report
