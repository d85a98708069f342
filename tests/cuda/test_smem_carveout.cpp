// KTUNE_CUDA_SMEM_CARVEOUT (kernels/common/cuda/smem_carveout.hpp): a percent from 0 to 100 or
// nothing; anything else is an error naming the variable. Unset, the launchers ask for nothing
// (no GPU needed).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "kernels/common/cuda/smem_carveout.hpp"

namespace {

namespace kc = ktune::kernels::cuda_carveout;

TEST(SmemCarveout, APercentFrom0To100OrNothing) {
  EXPECT_EQ(kc::parse_carveout(nullptr), -1);
  EXPECT_EQ(kc::parse_carveout("0"), 0);
  EXPECT_EQ(kc::parse_carveout("100"), 100);
  EXPECT_EQ(kc::parse_carveout("050"), 50);
}

TEST(SmemCarveout, AnythingElseNamesTheVariable) {
  for (const char* bad :
       {"", "101", "-1", "+5", " 5", "50%", "abc", "1e2", "99999999999999999999"}) {
    try {
      kc::parse_carveout(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("KTUNE_CUDA_SMEM_CARVEOUT: '" + std::string(bad) + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(SmemCarveout, UnsetAsksForNothing) {
  if (std::getenv("KTUNE_CUDA_SMEM_CARVEOUT")) GTEST_SKIP() << "the variable is set here";
  EXPECT_EQ(kc::requested_carveout(), -1);
  // No request, no runtime call: fine without a GPU or a kernel.
  EXPECT_EQ(kc::apply_requested_carveout(nullptr), cudaSuccess);
}

}  // namespace
