// A GEMM library deployed from two devices' planted datasets (two-devices-k2.hpp, written by
// `ktune deploy` from planted_two_devices.py's CSVs: each device's best config is the other one's
// worst): it serves the selector of the device it runs on, named by KTUNE_DEVICE_CPU here.
// Each case runs in a child process (EXPECT_EXIT), since a library picks its device once.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ktune/gemm.hpp"
#include "ktune/tuned_device.hpp"

namespace ktune {
namespace {

const std::string kSmall = "kind=packed;mr=8;nr=4;kc=128;mc=48;nc=960";  // planted-a's below 384
const std::string kLarge = "kind=packed;mr=8;nr=4;kc=128;mc=48;nc=3840";

std::string pick(int64_t size) {
  const int index = tuned_gemm_choice_cpu(Trans::no, Trans::no, size, size, size, 1);
  return tuned_gemm_info_cpu().configs[index];
}

// In a child: pretend to be `device`, check the picks of a small and a large shape and the
// recorded choice; exits 0 when all hold, else prints what failed and exits 1.
void child(const char* device, const std::string& small, const std::string& large,
           const std::string& served, bool exact, const std::string& reason) {
  setenv("KTUNE_DEVICE_CPU", device, 1);
  bool ok = pick(64) == small && pick(2048) == large;
  const auto choices = tuned_device_choices();
  ok = ok && choices.size() == 1 && choices[0].library == "gemm" && choices[0].backend == "cpu" &&
       choices[0].device == served && choices[0].exact == exact &&
       choices[0].reason.find(reason) != std::string::npos;
  if (!ok)
    std::fprintf(stderr, "FAILED: picks %s / %s, %zu choices, device %s, reason %s\n",
                 pick(64).c_str(), pick(2048).c_str(), choices.size(),
                 choices.empty() ? "-" : choices[0].device.c_str(),
                 choices.empty() ? "-" : choices[0].reason.c_str());
  std::exit(ok ? 0 : 1);
}

TEST(MultiDeviceLibrary, ServesTheSelectorOfEachMeasuredDevice) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child("planted-a", kSmall, kLarge, "planted-a", true, "same slug"),
              testing::ExitedWithCode(0), "serves the selector of planted-a");
  EXPECT_EXIT(child("planted-b", kLarge, kSmall, "planted-b", true, "same slug"),
              testing::ExitedWithCode(0), "serves the selector of planted-b");
}

TEST(MultiDeviceLibrary, AnUnknownDeviceGetsTheNearestByFeatures) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Closer to planted-b (64 threads, 8 floats, 512 KiB L2) than to planted-a (2, 16, 1 MiB).
  EXPECT_EXIT(child("other-cpu;threads=48;simd_floats=8;l2_bytes=524288", kLarge, kSmall,
                    "planted-b", false, "nearest measured device by device features"),
              testing::ExitedWithCode(0), "on other-cpu serves the selector of planted-b");
  EXPECT_EXIT(
      child("other-cpu;threads=2;simd_floats=16", kSmall, kLarge, "planted-a", false, "nearest"),
      testing::ExitedWithCode(0), "planted-a");
  // No feature in common: the first measured device, said so.
  EXPECT_EXIT(child("bare-cpu", kSmall, kLarge, "planted-a", false, "the first measured device"),
              testing::ExitedWithCode(0), "no features shared");
}

TEST(MultiDeviceLibrary, LogsItsChoiceOnceAtTheFirstCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("KTUNE_DEVICE_CPU", "planted-b", 1);
        for (int i = 0; i < 3; ++i) pick(64);
        std::exit(tuned_device_choices().size() == 1 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "^ktune: the gemm library \\(cpu\\) on planted-b [^\n]*\n$");
}

TEST(MultiDeviceLibrary, ABadOverrideServesTheFirstDeviceAndSaysWhy) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child("x;threads=two", kSmall, kLarge, "planted-a", false, "'threads=two'"),
              testing::ExitedWithCode(0), "is not <name>=<number>: the first measured device");
}

// The runtime's choice on its own (ktune/tuned_device.hpp).
TEST(TunedDevice, ChoosesBySlugThenNameThenFeatures) {
  using tuned_device::Device;
  const std::vector<Device> measured = {
      tuned_device::parse_record("amd-epyc-2c\tAMD EPYC 9B45\tthreads=2;simd_floats=16"),
      tuned_device::parse_record("xeon-2c\tIntel Xeon\tthreads=2;simd_floats=16;l2_bytes=2097152")};
  TunedDeviceChoice c;
  EXPECT_EQ(tuned_device::choose({"xeon-2c", "", {}}, measured, c), 1);
  EXPECT_TRUE(c.exact);
  // ktune bench's slug of this name differs from the committed one; the name still matches.
  EXPECT_EQ(
      tuned_device::choose({"amd-epyc-9b45-2c", "AMD EPYC 9B45", {{"threads", 2}}}, measured, c),
      0);
  EXPECT_TRUE(c.exact);
  EXPECT_NE(c.reason.find("same name"), std::string::npos);
  // The same name with other threads is another device: nearest by features (L2 decides).
  EXPECT_EQ(tuned_device::choose(
                {"amd-epyc-9b45-4c", "AMD EPYC 9B45", {{"threads", 4}, {"l2_bytes", 2097152}}},
                measured, c),
            1);
  EXPECT_FALSE(c.exact);
  EXPECT_EQ(c.device, "xeon-2c");
}

TEST(TunedDevice, RefusesMalformedRecordsNamingThem) {
  EXPECT_THROW(tuned_device::parse_record("only-a-slug"), std::invalid_argument);
  EXPECT_THROW(tuned_device::parse_record("a\tA\tthreads"), std::invalid_argument);
  EXPECT_THROW(tuned_device::parse_override(";threads=2"), std::invalid_argument);
  try {
    tuned_device::parse_override("cpu;l2=1MB");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'l2=1MB'"), std::string::npos) << e.what();
  }
}

TEST(TunedDevice, DetectsThisCpuAsTheBenchRecordsIt) {
  const auto d = tuned_device::detect_cpu();
  EXPECT_FALSE(d.name.empty());
  EXPECT_NE(d.slug.find(std::to_string(int(d.features.at(0).second)) + "c"), std::string::npos);
  EXPECT_EQ(d.features.at(0).first, "threads");
  EXPECT_GE(d.features.at(1).second, 4);  // simd_floats: SSE at least
}

}  // namespace
}  // namespace ktune
