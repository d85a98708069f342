// Test programs that link the families use them (spaces, workloads, derived features, embedded
// kernel sources), which exist only once registered: register them before the first test. ctest
// runs each test in a process of its own, so no test may rely on an earlier one having done it.
// A global environment, not a static initializer: the families' own statics must be initialized
// first.
#include <gtest/gtest.h>

#include "ktune/family.hpp"

namespace {

class RegisterFamilies : public ::testing::Environment {
 public:
  void SetUp() override { ktune::register_builtin(); }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new RegisterFamilies);

}  // namespace
