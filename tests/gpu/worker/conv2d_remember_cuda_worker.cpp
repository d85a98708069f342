// A worker process of the conv2d tune-and-remember test: serves layers 0 .. count-1
// (conv2d_remember_case.hpp's worker_layer) through ktune::conv2d_ex in bf16 with bf16 output and
// the cache the environment names (KTUNE_REMEMBER), and writes "layer hash" per line (the FNV-1a
// of the output's bytes), or "off".
#include <fstream>

#include "tests/gpu/conv2d_remember_case.hpp"
#include "tests/remember/remember_test_util.hpp"

int main(int argc, char** argv) {
  namespace cr = ktune::test::conv_remember;
  long count = 0;
  std::ofstream out;
  if (const int code = ktune_test::worker_start(argc, argv, count, out); code >= 0) return code;
  for (long s = 0; s < count; ++s) {
    const cr::Layer layer(cr::worker_layer(int(s)), ktune::Conv2dPrecision::bf16);
    const auto y = cr::run(layer, true, -1);
    if (!y) return 1;
    out << s << ' ' << ktune_test::fnv1a(*y) << '\n';
  }
  return out ? 0 : 1;
}
