// A worker process of the tune-and-remember tests: serves shapes 0 .. count-1 of the fake
// library with the cache the environment names (KTUNE_REMEMBER), its configs costing times that
// differ per process (so two processes that each kept their own winner would disagree), and
// writes "shape answer runs" per line to the output file ("off" when tune-and-remember is off).
#include <unistd.h>

#include <fstream>

#include "tests/remember/fake_library.hpp"
#include "tests/remember/remember_test_util.hpp"

int main(int argc, char** argv) {
  long count = 0;
  std::ofstream out;
  if (const int code = ktune_test::worker_start(argc, argv, count, out); code >= 0) return code;
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
