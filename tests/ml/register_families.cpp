// The ML tests build datasets of the built-in families, which get their derived features only
// when the families are registered (ktune_ml itself links no family): register them before the
// first test. A global environment, not a static initializer: the families' own statics must be
// initialized first.
#include <gtest/gtest.h>

#include "ktune/family.hpp"

namespace {

class RegisterFamilies : public ::testing::Environment {
 public:
  void SetUp() override { ktune::register_builtin(); }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new RegisterFamilies);

}  // namespace
