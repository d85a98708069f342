// ktune deploy of file families: the generated sources (the end-to-end build, install and call
// is Deploy.FileFamilyFromBenchToAnInstalledPackage) and the refusals.
#include <gtest/gtest.h>

#include <filesystem>

#include "filefamily_test_util.hpp"
#include "ktune/error.hpp"
#include "ktune/file_family.hpp"
#include "ktune/file_family_deploy.hpp"
#include "ktune/gzip_io.hpp"
#include "src/filefamily/deploy_units.hpp"

namespace ktune::filefamily {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

DeployedFamily deployed(const FileFamily& f, std::vector<std::string> configs) {
  DeployedFamily d;
  d.family = &f;
  d.library = "lib";
  d.device = "dev";
  d.configs = std::move(configs);
  d.model_features = f.spec().features;
  d.kernel_copy = "kernels/x/k.cpp";
  d.selector = "selectors/dev/x.hpp";
  return d;
}

TEST(DeployFileFamily, ConfigUnitDefinesParametersAndReadsTheKernelInItsOwnNamespace) {
  const FileFamily f(
      load_spec(std::string(KTUNE_SOURCE_DIR) + "/examples/own-kernels/dot/dot.json"));
  const auto d = deployed(f, {"VEC=4;ACC=2;ACC_T=double", "VEC=1;ACC=1;ACC_T=float"});
  const std::string unit = config_unit(d, 0);
  EXPECT_TRUE(contains(unit, "#define VEC 4\n#define ACC 2\n#define ACC_T double\n")) << unit;
  // The kernel's <cstdint> is included before the namespace opens, so it is never declared in it.
  EXPECT_LT(unit.find("#include <cstdint>"), unit.find("namespace ktune_tuned_lib_dot_0_kernel"));
  EXPECT_TRUE(contains(unit,
                       "void ktune_tuned_lib_dot_0(void* const* a) { "
                       "ktune_tuned_lib_dot_0_kernel::dot("))
      << unit;
  EXPECT_EQ(config_unit_path(d, 1), "src/dot_config_1.cpp");
  const std::string launch = launch_unit(d);
  EXPECT_TRUE(contains(launch,
                       "static_assert(std::string_view(sel::kConfigs[1]) == "
                       "\"VEC=1;ACC=1;ACC_T=float\");"))
      << launch;
  EXPECT_TRUE(contains(launch, "{{4, 2}, {1, 1}}")) << launch;  // each config's numeric parameters
  EXPECT_TRUE(contains(launch_declarations(d),
                       "void dot(const float* x, const float* y, float* out, double n);"))
      << launch_declarations(d);
}

TEST(DeployFileFamily, CudaKernelsLaunchOnAStreamThroughCudaLaunchKernel) {
  const FileFamily f(load_spec(ktune::testing::filefamily_data("saxpy.json")));
  const auto d = deployed(f, {"BLOCK=64;ITEMS=2"});
  EXPECT_EQ(config_unit_path(d, 0), "src/saxpy_test_config_0.cu");
  EXPECT_TRUE(contains(config_unit(d, 0),
                       "cudaLaunchKernel(reinterpret_cast<const void*>("
                       "&ktune_tuned_lib_saxpy_test_0_kernel::saxpy)"))
      << config_unit(d, 0);
  EXPECT_TRUE(contains(launch_declarations(d),
                       "cudaError_t saxpy_test(const float* x, float* y, double n, "
                       "cudaStream_t stream = nullptr);"))
      << launch_declarations(d);
  // The scalar a is its FillValue, n its x-ktune.Value, both computed from the features.
  EXPECT_TRUE(contains(launch_unit(d), "{\"2.5\", \"n\"}")) << launch_unit(d);
}

TEST(DeployFileFamily, RefusesWhatCannotBeTheLibrarysFunction) {
  const FileFamily f(load_spec(ktune::testing::filefamily_data("saxpy.json")));
  auto d = deployed(f, {"BLOCK=64;ITEMS=2"});
  d.model_features = {"m"};
  EXPECT_THROW(check_deployable(d), Error);
  d = deployed(f, {"BLOCK=64;ITEMS=5"});
  EXPECT_THROW(check_deployable(d), Error);  // a config outside the file's space
}

TEST(DeployFileFamily, PackageRefusesBackendsOtherThanTheKernelsLanguage) {
  const std::string name =
      register_file_family(std::string(KTUNE_SOURCE_DIR) + "/examples/own-kernels/dot/dot.json");
  EXPECT_TRUE(is_file_family(name));
  EXPECT_FALSE(is_file_family("stencil"));
  ml::PackageSelector s{{{"family", name},
                         {"device", "dev"},
                         {"configs", {"VEC=1;ACC=1;ACC_T=float"}},
                         {"feature_names", {"n"}}},
                        "model.json"};
  const std::string dir = ::testing::TempDir() + "ktune-deploy-refusal";
  try {
    write_file_family_package(dir, {s}, {"dot", {"cuda"}, "ktune deploy"}, true);
    FAIL() << "a C++ kernel was deployed to cuda";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "C++ kernels deploy to cpu")) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir));  // refused before anything is written
}

}  // namespace
}  // namespace ktune::filefamily
