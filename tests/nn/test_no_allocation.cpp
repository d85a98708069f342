// "Nothing allocated per inference": operator new is counted (this test program replaces it)
// around Engine::forward(). Asserted on the reference backend, whose every call is the engine's
// and nn/cpu's own code (the pooling / add / softmax of all CPU backends), and on ktune (its
// conv plans own their packed filters and workspaces); onednn (its execute() builds an argument
// context) allocates inside, which is printed, not asserted (docs/networks.md).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#include "tests/nn/nn_test_util.hpp"

namespace {
std::atomic<long> g_news{0};
}  // namespace

void* operator new(size_t size) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace ktune::nn {
namespace {

TEST(NnEngine, ForwardAllocatesNothingInTheEngine) {
  register_cpu_backends();
  const Network net = make_network("tiny", 2);
  const Weights w = random_weights(net, 5);
  const auto input = nchw_to_nhwc(random_input_nchw(net, 6), 2, 3, 16, 16);
  int tested = 0;
  for (const auto& name : testing::cpu_backend_names()) {
    auto backend = make_backend(name);
    Engine engine(net, w, *backend);
    engine.set_input(input.data());
    engine
        .forward();  // first call: lazily created library state (OpenMP pools) is not per inference
    engine.last_ms();
    const long before = g_news.load();
    for (int i = 0; i < 3; ++i) engine.forward();
    engine.last_ms();
    const long news = g_news.load() - before;
    std::printf("%s: %ld operator new calls in 3 forwards\n", name.c_str(), news);
    if (name == "reference" || name == "ktune") {
      EXPECT_EQ(news, 0) << name << ": operator new called during forward()";
      ++tested;
    }
  }
  EXPECT_EQ(tested, 2);
}

}  // namespace
}  // namespace ktune::nn
