// The ML tests build datasets of the built-in families, which get their derived features only
// when the families are registered (ktune_ml itself links no family): register them up front.
#include "ktune/family.hpp"

namespace {
const bool registered = (ktune::register_builtin(), true);
}  // namespace
