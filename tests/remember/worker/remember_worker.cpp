// A worker process of the tune-and-remember tests: serves shapes 0 .. count-1 of the fake
// library with the cache the environment names (KTUNE_REMEMBER), its configs costing times that
// differ per process (so two processes that each kept their own winner would disagree), and
// writes "shape answer runs" per line to the output file ("off" when tune-and-remember is off).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "tests/remember/fake_library.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: remember_worker COUNT OUTPUT\n");
    return 2;
  }
  const long count = std::strtol(argv[1], nullptr, 10);
  std::ofstream out(argv[2]);
  if (!ktune::remember::enabled()) {
    out << "off\n";
    return 0;
  }
  const unsigned salt = unsigned(getpid());
  for (long s = 0; s < count; ++s) {
    int runs = 0;
    const int answer = ktune_test::fake_choose(
        s,
        [&](int config) {
          const unsigned h = (salt * 2654435761u) ^ unsigned(s * 97 + config * 31) * 40503u;
          return 20.0 + double(h % 200);
        },
        &runs);
    out << s << ' ' << answer << ' ' << runs << '\n';
  }
  return out ? 0 : 1;
}
