// The vendor candidates' config strings (kernels/gemm/gemm_vendor_config.hpp) a tuned GEMM
// library decodes at compile time: cuBLASLt's "vendor=cublaslt" (heuristic #0) and
// "vendor=cublaslt;heuristic=<i>" for 1 <= i < 8, one spelling per algorithm; anything else near
// them is not a cuBLASLt candidate.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "kernels/gemm/gemm_vendor_config.hpp"

namespace {

namespace kg = ktune::kernels::gemm;

std::set<std::string> valid_lt_spellings() {
  std::set<std::string> valid{"vendor=cublaslt"};
  for (int i = 1; i < kg::kLtHeuristicLimit; ++i)
    valid.insert("vendor=cublaslt;heuristic=" + std::to_string(i));
  return valid;
}

TEST(GemmVendorConfig, CublasLtHeuristicIndexes) {
  EXPECT_EQ(kg::lt_heuristic_of("vendor=cublaslt"), 0);
  for (int i = 1; i < kg::kLtHeuristicLimit; ++i) {
    const std::string text = "vendor=cublaslt;heuristic=" + std::to_string(i);
    EXPECT_EQ(kg::lt_heuristic_of(text), i) << text;
    EXPECT_EQ(kg::parse_vendor_call(text), kg::VendorCall::cublaslt) << text;
  }
  // Compile-time, as the library decodes its selector's strings.
  static_assert(kg::lt_heuristic_of("vendor=cublaslt;heuristic=7") == 7);
  static_assert(kg::parse_vendor_call("vendor=cublaslt;heuristic=3") == kg::VendorCall::cublaslt);
}

TEST(GemmVendorConfig, RejectsOtherSpellings) {
  for (const char* text : {"vendor=cublaslt;heuristic=0", "vendor=cublaslt;heuristic=8",
                           "vendor=cublaslt;heuristic=9", "vendor=cublaslt;heuristic=01",
                           "vendor=cublaslt;heuristic=10", "vendor=cublaslt;heuristic=",
                           "vendor=cublaslt;heuristic=-1", "vendor=cublaslt;heuristic=1;",
                           "vendor=cublaslt;", "vendor=cublaslt-top8", "vendor=cublas;heuristic=1",
                           "cublaslt", "", "kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3"}) {
    EXPECT_EQ(kg::lt_heuristic_of(text), -1) << text;
    EXPECT_NE(kg::parse_vendor_call(text), kg::VendorCall::cublaslt) << text;
  }
  EXPECT_EQ(kg::parse_vendor_call("vendor=cublas"), kg::VendorCall::cublas);
  EXPECT_EQ(kg::parse_vendor_call("vendor=cublaslt-top8"), kg::VendorCall::none);
}

// Fuzz: every truncation and random byte edit of a valid spelling decodes to a heuristic index
// exactly when the result is itself one of the valid spellings, and to that spelling's index.
TEST(GemmVendorConfig, FuzzedSpellingsDecodeOnlyWhenValid) {
  const std::set<std::string> valid = valid_lt_spellings();
  std::mt19937 random(24);
  std::uniform_int_distribution<int> byte(0, 255);
  int checked = 0, accepted = 0;
  for (const std::string& seed : valid) {
    for (size_t cut = 0; cut <= seed.size() + 1; ++cut) {
      std::string text = seed.substr(0, cut);
      for (int edit = 0; edit < 200; ++edit) {
        std::string mutated = text;
        if (!mutated.empty() && edit % 3 != 2)
          mutated[size_t(byte(random)) % mutated.size()] = char(byte(random));
        else
          mutated += char(edit % 2 ? '0' + edit % 10 : byte(random));
        const int index = kg::lt_heuristic_of(mutated);
        if (valid.count(mutated)) {
          EXPECT_EQ(index, mutated == "vendor=cublaslt" ? 0 : mutated.back() - '0') << mutated;
          ++accepted;
        } else {
          EXPECT_EQ(index, -1) << mutated;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000);
  EXPECT_GT(accepted, 0);  // the edits do land on valid spellings (e.g. another digit)
}

}  // namespace
